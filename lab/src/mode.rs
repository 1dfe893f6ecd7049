//! Where a run's sides go (one VM, two VMs, this host, two real hosts),
//! the lab's addresses and ports, and which scenarios a mode may run: what
//! every later stage takes as given.

use crate::scenarios::{Addrs, Scenario};
pub use crate::scenarios::{CLIENT_IP, CONTROL_PORT, SERVER_IP};

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip {
    /// The scenario's name.
    pub scenario: String,
    /// Why this setup cannot run it.
    pub reason: String,
}

/// Why `s` cannot run in `mode`, on a device port of this link layer
/// (`None`: not known, or the VMs' Soft-RoCE), if it cannot.
pub fn skip_reason(s: &Scenario, mode: &Mode, link_layer: Option<&str>) -> Option<&'static str> {
    let local = matches!(mode, Mode::Local { .. });
    if s.roce_only && link_layer == Some("InfiniBand") {
        Some("it is about a RoCE port (the GID a program picks itself), and this device's port is InfiniBand")
    } else if local && s.placement.vms_only() {
        Some("VMs only: it changes the machine it runs on (removes a device, adds a firewall rule) or runs the lab itself")
    } else if !mode.two_hosts() && s.placement.two_hosts() {
        Some("it needs two hosts")
    } else if local && mode.two_hosts() && s.placement.one_host() {
        Some("it is about one host, not the wire: run it with --local alone")
    } else {
        None
    }
}

/// Everything `s` declares, as text, and where it may run: what
/// `list --full` prints, so that a change to how the table is built can
/// show that it changed no entry.
pub fn describe(s: &Scenario) -> String {
    let mut text = String::new();
    for line in format!("{s:#?}").lines() {
        let field = line.trim_start().split(':').next().unwrap_or("");
        if ["single_host_only", "two_hosts_only", "vm_only", "placement"].contains(&field) {
            continue;
        }
        // A `verify` function's address changes from build to build.
        match line.find("0x") {
            Some(at) if field.starts_with("0x") => text.push_str(&format!("{}fn,", &line[..at])),
            _ => text.push_str(line),
        }
        text.push('\n');
    }
    let local = |role| Mode::Local {
        dev: None,
        ip: SERVER_IP.into(),
        gid_idx: None,
        role,
    };
    let modes = [
        (Mode::SingleHost, None),
        (Mode::TwoHosts, None),
        (local(Local::Alone), None),
        (local(Local::Serve), None),
        (Mode::SingleHost, Some("InfiniBand")),
    ];
    for (mode, link) in modes {
        let why = skip_reason(s, &mode, link).unwrap_or("runs");
        text.push_str(&format!(
            "  {} ({}): {why}\n",
            mode.label(),
            link.unwrap_or("RoCE")
        ));
    }
    text
}
