//! What a diagnosis says: each finding, and what it blames. Plain data
//! that every judge of a mesh run returns and every presenter reads.

/// What a finding blames.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FindingKind {
    /// One host fails with most of its peers.
    HostFault {
        /// The host's rank.
        rank: usize,
    },
    /// The pair of two otherwise good hosts fails; with two hosts only,
    /// the pair itself (either host, their link or the fabric).
    LinkFault {
        /// The lower rank of the two.
        a: usize,
        /// The higher rank of the two.
        b: usize,
    },
    /// Every pair (or most, spread over most hosts) failed: something
    /// every host shares.
    FabricWide,
    /// A host never joined or died.
    Missing {
        /// The host's rank.
        rank: usize,
    },
    /// A host joined to say that it cannot take part, and why.
    CannotTakePart {
        /// The host's rank.
        rank: usize,
    },
    /// A host's rail ports: one on a subnet no other host has, or none
    /// on a rail every other host is on.
    Rail {
        /// The host's rank.
        rank: usize,
    },
    /// A host's doctor found something that no other finding names.
    Doctor {
        /// The host's rank.
        rank: usize,
    },
    /// A link whose hosts' loss counters rose while their pair ran, whether
    /// or not its scenarios passed.
    Lossy {
        /// The lower rank of the two.
        a: usize,
        /// The higher rank of the two.
        b: usize,
    },
    /// A measured link whose bandwidth or latency falls short of the
    /// run's other links (`mesh --perf`).
    Slow {
        /// The lower rank of the two.
        a: usize,
        /// The higher rank of the two.
        b: usize,
    },
    /// A host whose every measured link falls short: its NIC, its cable
    /// or its switch port, not its links.
    SlowHost {
        /// The host's rank.
        rank: usize,
    },
    /// A multicast receiver (or, when no receiver got anything, the
    /// sender) that did not get every message.
    Multicast {
        /// The receiver's rank, or the sender's.
        rank: usize,
    },
    /// A measured link under its own figure in the baseline
    /// (`--baseline`), on a rail whose other links are not.
    BelowBaseline {
        /// The lower rank of the two.
        a: usize,
        /// The higher rank of the two.
        b: usize,
    },
    /// Every compared link of a rail under its figure in the baseline
    /// alike: the fabric, not a host.
    RailBelowBaseline,
    /// A host that reported figures or counts that cannot be true
    /// ([`crate::judge::trust`]): refused, and named as its own.
    ImpossibleReport {
        /// The host's rank.
        rank: usize,
    },
}

/// One thing the administrator should look at, said in a sentence or two.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What it blames.
    pub kind: FindingKind,
    /// What it says: host names are the hosts' own text, which a
    /// presenter escapes.
    pub text: String,
    /// The rail it is about ([`crate::model::mesh::MeshRun::rails`]); 0 for rail 0 and for
    /// what is about the whole host.
    pub rail: usize,
}

impl FindingKind {
    /// The hosts it names; a host's doctor is quoted wherever it is named.
    pub fn ranks(&self) -> Vec<usize> {
        match *self {
            FindingKind::HostFault { rank }
            | FindingKind::Missing { rank }
            | FindingKind::CannotTakePart { rank }
            | FindingKind::Doctor { rank }
            | FindingKind::Rail { rank }
            | FindingKind::SlowHost { rank }
            | FindingKind::Multicast { rank }
            | FindingKind::ImpossibleReport { rank } => vec![rank],
            FindingKind::LinkFault { a, b }
            | FindingKind::Lossy { a, b }
            | FindingKind::Slow { a, b }
            | FindingKind::BelowBaseline { a, b } => vec![a, b],
            FindingKind::FabricWide | FindingKind::RailBelowBaseline => Vec::new(),
        }
    }
}
