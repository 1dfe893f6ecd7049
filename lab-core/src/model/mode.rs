//! Where a run's sides go (one VM, two VMs, this host, two real hosts),
//! the lab's addresses and ports, and which scenarios a mode may run: what
//! every later stage takes as given.

use crate::model::Addrs;

/// Control port of the two-host lockstep; no example uses it.
pub const CONTROL_PORT: u16 = 7471;

/// The server side's address in the VMs (VM A's across two), on TEST-NET-1:
/// it never leaves this machine.
pub const SERVER_IP: &str = "192.0.2.1";
/// The client side's address in VM B across two VMs.
pub const CLIENT_IP: &str = "192.0.2.2";

/// Where the two sides run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// One VM; both sides on its rxe0 (over a dummy netdev).
    SingleHost,
    /// Two VMs on a QEMU socket wire: server in A (192.0.2.1), client in B
    /// (192.0.2.2).
    TwoHosts,
    /// No VM: this host's own RDMA device, as it is, alone or with a peer
    /// host that runs the other half.
    Local {
        /// Device; `None` = the first in /sys/class/infiniband.
        dev: Option<String>,
        /// This host's address (the server's, alone).
        ip: String,
        /// GID index; `None` = the one the doctor finds (the examples'
        /// own choice on RoCE).
        gid_idx: Option<u32>,
        /// Alone, or which half of a two-host run.
        role: Local,
    },
}

/// Which half of a run `--local` takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Local {
    /// Both sides on this host.
    Alone,
    /// The server sides, for a peer host that asks (`--serve`).
    Serve,
    /// The client sides, against this serving host (`--peer ADDR`); this
    /// host prints the report.
    Peer(String),
}

impl Mode {
    /// Short name for messages and test names.
    pub fn label(&self) -> &'static str {
        match self {
            Mode::SingleHost => "single host",
            Mode::TwoHosts => "two hosts",
            Mode::Local {
                role: Local::Alone, ..
            } => "local",
            Mode::Local { .. } => "local, two hosts",
        }
    }

    /// Whether the sides run in the lab's VMs.
    pub fn vms(&self) -> bool {
        !matches!(self, Mode::Local { .. })
    }

    /// Whether the sides run on two hosts.
    pub fn two_hosts(&self) -> bool {
        match self {
            Mode::SingleHost => false,
            Mode::TwoHosts => true,
            Mode::Local { role, .. } => *role != Local::Alone,
        }
    }

    /// The server's and the client's addresses on the lab's wire; `None`
    /// on a real fabric, whose GIDs need not be IPv4-mapped.
    pub fn addrs(&self) -> Option<Addrs> {
        let (server, client) = match self {
            Mode::SingleHost => (SERVER_IP, SERVER_IP),
            Mode::TwoHosts => (SERVER_IP, CLIENT_IP),
            Mode::Local { .. } => return None,
        };
        Some(Addrs {
            server_ip: server.into(),
            client_ip: client.into(),
        })
    }
}

/// A scenario that was not run, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Skip {
    /// The scenario's name.
    pub scenario: String,
    /// Why this setup cannot run it.
    pub reason: String,
}
