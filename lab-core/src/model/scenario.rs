//! A scenario as data: its commands, when its server is ready, what each
//! side must do, what the wire must show, and where it may run.

use crate::model::Outcome;

/// One run of a server side and/or a client side, with what each must print.
#[derive(Debug)]
pub struct Scenario {
    /// Unique name; also the stem of the result files.
    pub name: String,
    /// Workspace package whose binaries the scenario needs ("" = none).
    pub package: &'static str,
    /// Started first, in the background (in VM A in two-host mode).
    pub server: Option<Cmd>,
    /// Started once the server is ready (in VM B in two-host mode).
    pub client: Option<Cmd>,
    /// How to tell that the server accepts connections.
    pub ready: Ready,
    /// What the server side must do.
    pub server_expect: Expect,
    /// What the client side must do.
    pub client_expect: Expect,
    /// Limit for each side, enforced with `timeout` (exit 124).
    pub timeout_secs: u32,
    /// A main example pair that `cargo xtask lab` runs by default; test-only
    /// scenarios (error paths, independent peers) are `false`.
    pub pair: bool,
    /// The server runs until told to stop: send it SIGTERM once the client
    /// side is done (its expected exit status is then the clean-stop one).
    pub stop_server: bool,
    /// What the expectations above cannot say.
    pub verify: Option<Verify>,
    /// Where it may run: anywhere, or on one host only, or in the lab's
    /// VMs only.
    pub placement: Placement,
    /// It is about a RoCE (Ethernet) port, such as the GID a program picks
    /// itself: a device whose port is InfiniBand cannot run it, and the
    /// lab reports it as skipped there.
    pub roce_only: bool,
    /// Distribution packages its commands need beyond the lab's own (a
    /// firewall tool, say): installed, where missing, before a run that
    /// has it.
    pub packages: &'static [&'static str],
    /// The fault matrix's row, for a scenario that is one of its cells
    /// (`cargo xtask lab --faults` runs those, and the summary groups them).
    pub fault: Option<Fault>,
    /// What the pair must show on the wire between two hosts: checked on
    /// the capture of every two-host run that records one.
    pub wire: &'static [PacketFact],
    /// An exercise of the handout on this scenario's run: the question,
    /// what to predict, and the answer's explanation (shown with the
    /// command, what it really printed and its packets).
    pub exercise: Option<Exercise>,
    /// Why its wire is quiet for a second or more, where it is: what its
    /// ladder says at that pause.
    pub pause: Option<&'static str>,
    /// What made each arrow of its ladder: the first whose side and label
    /// pattern match an arrow names its verb call or step.
    pub causes: &'static [Cause],
    /// The most memory one of its processes registers, in KiB, where that
    /// is more than a few pages: what the doctor holds `ulimit -l` against.
    pub locked_kib: u64,
}

/// The bound of a failure noticed at once (a bad option, `ulimit -l`, a
/// refused connection), not by a timer firing: the program's own work
/// takes well under a second alone, and up to 11.4 s was measured on 2
/// cores under TCG with the whole suite's VMs and a build side by side;
/// a hang meets the scenario's `timeout_secs` (30 s by default), twice
/// further.
pub const AT_ONCE_SECS: u32 = 15;

/// A handout exercise: a student reads the question, writes a prediction,
/// then opens the answer, the run's real output and packets with this
/// explanation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exercise {
    /// What to do or to read.
    pub question: &'static str,
    /// What to predict before opening the answer.
    pub predict: &'static str,
    /// Why the run did what it did: the answer's paragraph. Its numbers
    /// about the capture are placeholders the handout fills from it
    /// (`{count:FILTER}`..., see `present::handout::numbers`).
    pub explain: &'static str,
    /// How the student checks the prediction on the supplied files.
    pub check: Check,
    /// What would answer it if the student's edition showed it before
    /// the question: phrases compared without case or line breaks (a
    /// value as a ladder or transcript prints it, `len: 128`; the words
    /// of an answer, `no PSN is exchanged`), each maybe with a capture
    /// placeholder. The student's edition blanks them in the run it
    /// shows and refuses to build when its text or a stand-in holds one.
    pub gives_away: &'static [&'static str],
}

/// An exercise's "check it yourself" step: the packets to list, and the
/// line of the programs' output to find, neither of them the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Check {
    /// A Wireshark display filter for the packets the prediction is
    /// about, on the exercise's capture; empty when nothing of the run
    /// reaches the wire. The handout fails when it matches no frame.
    pub filter: &'static str,
    /// The fields to list beside the frame's number, source and summary
    /// (`tshark -e`).
    pub fields: &'static [&'static str],
    /// Words of the line to find in the programs' output: the handout
    /// fails when no transcript of the run has them.
    pub line: &'static str,
    /// What to read in and around that line.
    pub look: &'static str,
}

/// What sent a kind of packet: the verb call (or the program's step, or
/// the transport itself) behind the arrows that `label` matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cause {
    /// The sender.
    pub from: Side,
    /// A pattern (`*` is a wildcard) on the arrow's label: `RC Send Only*`,
    /// `TCP :19875 SYN`, `TCP :19875 34 B`...
    pub label: &'static str,
    /// What made it: `post_send(IBV_WR_RDMA_READ)`, "the responder's
    /// transport: no verb call"...
    pub call: &'static str,
}

/// Where a scenario may run: in which of the lab's modes (one VM, two
/// VMs, `--local` on one host or across two) the lab runs it, and where it
/// reports it as skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Every mode.
    Anywhere,
    /// One host: a fault that is not about the wire (a silent peer that
    /// waits out a bound, a program refused before it needs any peer,
    /// `ulimit -l`). The Soft-RoCE suite runs it in one VM only, and
    /// `--local` across two hosts skips it.
    OneHost,
    /// The lab's VMs, one or two, never `--local`: it changes the machine
    /// it runs on (removes a device, adds a firewall rule) or runs the lab
    /// itself.
    Vms,
    /// The lab's one VM only: both of the above.
    OneVm,
    /// The lab's two VMs only: it changes the machine and needs two hosts
    /// (the doctor's path between them).
    TwoVms,
}

impl Placement {
    /// Whether it is about one host, not the wire.
    pub fn one_host(self) -> bool {
        matches!(self, Placement::OneHost | Placement::OneVm)
    }

    /// Whether it needs two hosts.
    pub fn two_hosts(self) -> bool {
        self == Placement::TwoVms
    }

    /// Whether it runs in the lab's VMs only.
    pub fn vms_only(self) -> bool {
        matches!(self, Placement::Vms | Placement::OneVm | Placement::TwoVms)
    }
}

/// A fact about a pair's packets between two hosts (see [`crate::model`]).
/// `what` is a pattern (`*` is a wildcard) on Wireshark's name of the
/// packet: `RC Send Only`, `RC RDMA Read Request`, `CM ConnectRequest`,
/// `UD Send Only Immediate`, `TCP`...
#[derive(Debug, Clone, Copy)]
pub enum PacketFact {
    /// Exactly `n` such packets from `from`, each standing for `len` bytes
    /// of message when given (its payload, or a Read Request's DMA length).
    Count {
        /// Sender.
        from: Side,
        /// Packet name pattern.
        what: &'static str,
        /// How many.
        n: usize,
        /// Message bytes of each.
        len: Option<usize>,
    },
    /// Some such packet from `from` carries `text` in its payload.
    Carries {
        /// Sender.
        from: Side,
        /// Packet name pattern.
        what: &'static str,
        /// The bytes to find.
        text: &'static str,
    },
    /// Such packets from `from` go to exactly `n` destination QPs.
    Qps {
        /// Sender.
        from: Side,
        /// Packet name pattern.
        what: &'static str,
        /// Distinct destination QP numbers.
        n: usize,
    },
    /// These packets come in this order (others may come between).
    InOrder(&'static [(Side, &'static str)]),
    /// Every packet matching one of `what` that has a RETH targets the
    /// address and rkey that `by` sent over TCP in its `msg_len`-byte
    /// message (a big-endian u64 at `addr_at`, a u32 at `rkey_at`): so an
    /// address above 4 GiB is carried whole.
    TargetsAdvertised {
        /// Packet name patterns.
        what: &'static [&'static str],
        /// Who advertised the buffer.
        by: Side,
        /// The side-channel message's length.
        msg_len: usize,
        /// Offset of the address in it.
        addr_at: usize,
        /// Offset of the rkey in it.
        rkey_at: usize,
    },
    /// The first such packet from `from` has private data that begins with
    /// these bytes.
    PrivateData {
        /// Sender.
        from: Side,
        /// Packet name pattern.
        what: &'static str,
        /// The bytes it begins with.
        begins: &'static [u8],
    },
    /// Every such packet from `from` goes to this IPv4 address.
    To {
        /// Sender.
        from: Side,
        /// Packet name pattern.
        what: &'static str,
        /// Destination address.
        addr: &'static str,
    },
    /// Every such packet from `from` goes to the QP that the peer's first
    /// CM ConnectRequest connected (its Local QPN): connection 0.
    ToFirstConnection {
        /// Sender.
        from: Side,
        /// Packet name pattern.
        what: &'static str,
    },
    /// `from` reports joining this multicast group (IGMP).
    Joins {
        /// The host that joins.
        from: Side,
        /// The group address.
        group: &'static str,
    },
    /// Exactly `n` packets from `from` carry an AETH that says `says` (a
    /// pattern on its decoded text: `NAK: PSN sequence error`, `RNR NAK*`).
    Aeth {
        /// Sender.
        from: Side,
        /// What the AETH says.
        says: &'static str,
        /// How many.
        n: usize,
    },
    /// At least `n` of the packets from `from` that match `what` are sent
    /// again: the same QP and PSN as one before.
    Resent {
        /// Sender.
        from: Side,
        /// Packet name pattern.
        what: &'static str,
        /// How many at least.
        n: usize,
    },
}

impl Side {
    /// The side's name: `server`, `client`.
    pub fn name(self) -> &'static str {
        match self {
            Side::Server => "server",
            Side::Client => "client",
        }
    }
}

/// A packet name pattern in words: "`RC Send Only` packets", "packets
/// matching `RC Send *`" (one packet, for `n` = 1).
fn packets_named(what: &str, n: usize) -> String {
    let packets = if n == 1 { "packet" } else { "packets" };
    if what.contains('*') {
        format!("{packets} matching `{what}`")
    } else {
        format!("`{what}` {packets}")
    }
}

/// Bytes in words: as text where they print, in hex where they do not.
fn bytes_shown(bytes: &[u8]) -> String {
    if bytes.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        format!("\"{}\"", String::from_utf8_lossy(bytes))
    } else {
        let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
        format!("the bytes {}", hex.join(" "))
    }
}

impl std::fmt::Display for PacketFact {
    /// The fact in words, as the handout lists it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            PacketFact::Count { from, what, n, len } => {
                write!(
                    f,
                    "the {} sends exactly {n} {}",
                    from.name(),
                    packets_named(what, n)
                )?;
                if let Some(l) = len {
                    write!(f, ", each for {l} bytes of message")?;
                }
                // What it counts: a packet sent again is the same PSN, a
                // CM message sent again the same transaction ID.
                if what.starts_with("CM") {
                    write!(f, " (a message sent again counts once)")
                } else {
                    write!(f, " (distinct PSNs: a packet sent again counts once)")
                }
            }
            PacketFact::Carries { from, what, text } => write!(
                f,
                "one of the {}'s {} carries \"{text}\"",
                from.name(),
                packets_named(what, 2)
            ),
            PacketFact::Qps { from, what, n } => write!(
                f,
                "the {}'s {} go to {n} different destination QPs",
                from.name(),
                packets_named(what, 2)
            ),
            PacketFact::InOrder(steps) => {
                let said: Vec<String> = steps
                    .iter()
                    .map(|(side, what)| format!("the {}'s `{what}`", side.name()))
                    .collect();
                write!(f, "in this order: {}", said.join(", then "))
            }
            PacketFact::TargetsAdvertised {
                what, by, msg_len, ..
            } => write!(
                f,
                "every {} targets the address and rkey that the {} sent in its {msg_len}-byte \
                 message over TCP, all 64 bits of the address",
                what.join(" or "),
                by.name()
            ),
            PacketFact::PrivateData { from, what, begins } => write!(
                f,
                "the {}'s first `{what}` carries private data that begins with {}",
                from.name(),
                bytes_shown(begins)
            ),
            PacketFact::To { from, what, addr } => write!(
                f,
                "every one of the {}'s {} goes to {addr}",
                from.name(),
                packets_named(what, 2)
            ),
            PacketFact::ToFirstConnection { from, what } => write!(
                f,
                "every one of the {}'s {} goes to the QP of the first connection (the Local \
                 QPN of the first CM ConnectRequest)",
                from.name(),
                packets_named(what, 2)
            ),
            PacketFact::Joins { from, group } => {
                write!(f, "the {} reports joining {group} (IGMP)", from.name())
            }
            PacketFact::Aeth { from, says, n } => write!(
                f,
                "the {} sends exactly {n} acknowledgement(s) whose AETH says `{says}`",
                from.name()
            ),
            PacketFact::Resent { from, what, n } => write!(
                f,
                "the {} sends at least {n} of its {} again (the same QP and PSN)",
                from.name(),
                packets_named(what, 2)
            ),
        }
    }
}

/// The fault matrix's rows (issue 12's table), as the summary names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fault {
    /// A peer killed (SIGKILL) once connected, or mid-exchange.
    PeerKilled,
    /// SIGTERM or SIGINT while waiting for a peer, or mid-exchange.
    Signal,
    /// A peer that is there and says nothing.
    SilentPeer,
    /// A peer that sends the wrong thing: garbage, a short message and a
    /// close, a size that disagrees, more than was asked for.
    BadPeer,
    /// `ulimit -l` too low for the registration.
    Memlock,
    /// Values at and past the limits.
    Limits,
    /// A server address that nobody answers or that does not exist.
    Address,
    /// A device that is misnamed, or removed under the program.
    Device,
    /// A bad command line.
    CommandLine,
}

impl Fault {
    /// The row's name in the summary.
    pub fn label(self) -> &'static str {
        match self {
            Fault::PeerKilled => "peer killed",
            Fault::Signal => "SIGTERM/SIGINT",
            Fault::SilentPeer => "silent peer",
            Fault::BadPeer => "bad peer data",
            Fault::Memlock => "ulimit -l",
            Fault::Limits => "limits",
            Fault::Address => "address",
            Fault::Device => "device",
            Fault::CommandLine => "command line",
        }
    }
}

/// A command line; `args` may hold the placeholders `{server_ip}`,
/// `{client_ip}`, `{dev}`, `{gid_idx}` and `{ib_port}`. A `sh -c`/`bash -c`
/// script gets them as `${LAB_SERVER_IP}`... from the environment, never
/// pasted ([`Cmd::args_with`]): write them in the script as anywhere else.
#[derive(Debug, Clone)]
pub struct Cmd {
    /// A workspace binary (looked up in the build's bin dir first) or a
    /// system program found on PATH.
    pub program: &'static str,
    /// Arguments, before placeholder substitution.
    pub args: Vec<String>,
    /// The source file of an inline script (`-c SCRIPT` as the first two
    /// arguments), which the handout names instead of printing the script.
    pub script_file: Option<&'static str>,
}

impl Cmd {
    /// `program` with these arguments.
    pub fn new(program: &'static str, args: &[&str]) -> Cmd {
        Cmd {
            program,
            args: owned(args),
            script_file: None,
        }
    }

    /// The same command, its `-c SCRIPT` shown as the file `path`.
    pub fn script_from(self, path: &'static str) -> Cmd {
        Cmd {
            script_file: Some(path),
            ..self
        }
    }
}

/// Each of `lines`, owned.
pub fn owned(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|l| l.to_string()).collect()
}

/// Readiness condition of a server, polled with a deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ready {
    /// The TCP port is in LISTEN state in /proc/net/tcp{,6}. Connecting to
    /// probe it would consume the server's single accept.
    TcpListen(u16),
    /// An rdma_cm id listens on this port (`rdma res show cm_id`).
    RdmaCmListen(u16),
    /// A line matching this pattern appears in the server's stdout.
    Line(&'static str),
    /// Start the client at once.
    None,
}

impl Ready {
    /// The condition with its TCP port shifted by `by` (a rail's checks,
    /// whose ports are `{tcp_port:N}`).
    pub fn shifted(self, by: u16) -> Ready {
        match self {
            Ready::TcpListen(port) => Ready::TcpListen(port.saturating_add(by)),
            other => other,
        }
    }
}

/// Expected behaviour of one side.
#[derive(Debug, Clone)]
pub struct Expect {
    /// Exit status.
    pub exit: i32,
    /// Each pattern must match a whole stdout line (`*` is a wildcard),
    /// in this order: the program's flow is part of what is checked.
    pub stdout: Vec<String>,
    /// Each pattern must match some whole stderr line (`*` is a wildcard).
    pub stderr: Vec<String>,
    /// `(pattern, n)`: exactly `n` stdout lines match the pattern (0: none
    /// may). Counts say what order cannot: how many messages went each way.
    pub stdout_counts: Vec<(String, usize)>,
    /// The same for stderr.
    pub stderr_counts: Vec<(String, usize)>,
    /// Some stderr line must match one of these: a side whose peer dies
    /// meets that in whichever step it has reached, and each step says so
    /// in its own words.
    pub stderr_one_of: Vec<String>,
    /// How many lines stderr may have in all.
    pub stderr_lines: StderrLines,
    /// The side must have ended within this many seconds: a failure that
    /// is noticed at once, not when a timeout finally fires.
    pub within_secs: Option<u32>,
}

/// How many stderr lines a side may print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StderrLines {
    /// The project's promise, by exit status: none on success (0), one
    /// clear line on failure (1); other statuses (a killed process, another
    /// program's convention) are not checked.
    ByExit,
    /// Exactly this many.
    Exactly(usize),
    /// No more than this many: a server that survives a peer's death may
    /// say, in one line, that it dropped that connection.
    AtMost(usize),
    /// Any number: a program that is not ours, or a shell around several.
    Any,
}

impl Expect {
    /// Exit 0, no stderr line required, no stdout either: a side that does
    /// not run, or whose output does not matter.
    pub const NOTHING: Expect = Expect {
        exit: 0,
        stdout: Vec::new(),
        stderr: Vec::new(),
        stdout_counts: Vec::new(),
        stderr_counts: Vec::new(),
        stderr_one_of: Vec::new(),
        stderr_lines: StderrLines::ByExit,
        within_secs: None,
    };

    /// Exit 0 with these stdout lines.
    pub fn ok(stdout: &[&str]) -> Expect {
        Expect::exits(0, stdout, &[])
    }

    /// Exit 1 with these stderr lines.
    pub fn fails(stderr: &[&str]) -> Expect {
        Expect::exits(1, &[], stderr)
    }

    /// This exit status, these stdout lines in order, these stderr lines.
    pub fn exits(exit: i32, stdout: &[&str], stderr: &[&str]) -> Expect {
        Expect {
            exit,
            stdout: owned(stdout),
            stderr: owned(stderr),
            ..Expect::NOTHING
        }
    }

    /// With these stdout line counts.
    pub fn counts(self, stdout_counts: &[(&str, usize)]) -> Expect {
        Expect {
            stdout_counts: owned_counts(stdout_counts),
            ..self
        }
    }

    /// With these stderr line counts.
    pub fn stderr_counts(self, stderr_counts: &[(&str, usize)]) -> Expect {
        Expect {
            stderr_counts: owned_counts(stderr_counts),
            ..self
        }
    }

    /// Exit 1 with one stderr line, which matches one of `patterns`.
    pub fn fails_one_of(patterns: &[&str]) -> Expect {
        Expect {
            stderr_one_of: owned(patterns),
            ..Expect::fails(&[])
        }
    }

    /// With exactly one stderr line, whatever the exit status.
    pub fn one_error_line(self) -> Expect {
        Expect {
            stderr_lines: StderrLines::Exactly(1),
            ..self
        }
    }

    /// With at most one stderr line, whatever the exit status.
    pub fn at_most_one_error_line(self) -> Expect {
        Expect {
            stderr_lines: StderrLines::AtMost(1),
            ..self
        }
    }

    /// With any number of stderr lines (see [`StderrLines::Any`]).
    pub fn any_stderr(self) -> Expect {
        Expect {
            stderr_lines: StderrLines::Any,
            ..self
        }
    }

    /// Ending within `secs` seconds.
    pub fn within(self, secs: u32) -> Expect {
        Expect {
            within_secs: Some(secs),
            ..self
        }
    }
}

/// Each `(pattern, n)` of `counts`, owned.
fn owned_counts(counts: &[(&str, usize)]) -> Vec<(String, usize)> {
    counts.iter().map(|(p, n)| (p.to_string(), *n)).collect()
}

/// A check that data cannot say (pids that must match across sides, a
/// summary that must parse): every way the outcome falls short.
pub type Verify = fn(&Outcome) -> Vec<String>;

impl Scenario {
    /// The defaults a table entry fills in with `..Scenario::BASE`: no
    /// sides, no readiness check, nothing expected, 30 s, test-only, and a
    /// server that ends by itself.
    pub const BASE: Scenario = Scenario {
        name: String::new(),
        package: "",
        server: None,
        client: None,
        ready: Ready::None,
        server_expect: Expect::NOTHING,
        client_expect: Expect::NOTHING,
        timeout_secs: 30,
        pair: false,
        stop_server: false,
        verify: None,
        placement: Placement::Anywhere,
        roce_only: false,
        packages: &[],
        fault: None,
        wire: &[],
        exercise: None,
        locked_kib: 0,
        pause: None,
        causes: &[],
    };
}

/// Which side of a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The server (or receiver).
    Server,
    /// The client (or sender).
    Client,
}
