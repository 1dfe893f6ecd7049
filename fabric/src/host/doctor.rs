//! `doctor` on this host: alone, or beside a peer's doctor over the
//! authenticated control channel, each judging its own host (the agent's
//! doctor-only session); its result dir is private and temporary.

use crate::base::fsafe;
use crate::base::rundir::Dir;
use crate::catalog;
use crate::guest::agent::{AgentConfig, Net, Role};
use crate::host::places::Places;
use crate::model::{Params, Scenario};
use crate::results::{read_doctor, HostCheck};
use std::fs;
use std::path::PathBuf;

/// The doctor's result dir for a run with a peer: fresh, mode 0700, under
/// an unpredictable name, removed when dropped. In the temporary dir, not
/// in target/: inside the lab's VMs only /tmp is writable.
pub fn doctor_dir() -> Result<tempfile::TempDir, crate::base::tmp::TempDirError> {
    crate::base::tmp::private_tempdir("rdma-doctor-", "the doctor")
}

/// What `doctor` is asked.
#[derive(Debug, Clone, Default)]
pub struct DoctorRequest {
    /// The device (`None`: the first).
    pub dev: Option<String>,
    /// This host's address on the RDMA netdev.
    pub ip: Option<String>,
    /// The peer host's address, whose doctor runs at the same time.
    pub peer: Option<String>,
    /// The GID index to judge (`None`: the one the examples choose).
    pub gid_idx: Option<u32>,
    /// The IPv4 multicast groups whose route to check (the examples' and
    /// `--mcast`'s).
    pub mcast: Vec<String>,
    /// The control port of the two doctors.
    pub port: u16,
    /// How long to wait for the peer's doctor, in seconds.
    pub wait_secs: u64,
    /// The examples' binaries (the probe's), instead of a build's.
    pub bin_dir: Option<PathBuf>,
    /// The file with the two doctors' shared secret (else
    /// [`crate::guest::control::SECRET_ENV`]).
    pub secret_file: Option<PathBuf>,
    /// Serving: the only peer addresses that may connect (empty: any).
    pub allow: Vec<std::net::IpAddr>,
}

/// Runs the doctor on this host (and with a peer, on the path to it, with
/// the peer's doctor, whose session prints as it goes): what it saw, its
/// notes and its findings, some of them the peer's.
pub fn doctor(req: &DoctorRequest, places: &dyn Places) -> Result<HostCheck, String> {
    let pairs: Vec<&Scenario> = catalog::pairs().collect();
    let (locked_kib, locked_by) = catalog::largest_registration(&pairs);
    let Some(peer) = &req.peer else {
        return Ok(doctor_alone(req, places, locked_kib, locked_by));
    };
    let ip = req
        .ip
        .clone()
        .ok_or("--peer needs --ip: this host's address on its RDMA netdev")?;
    let serves = doctor_serves(&ip, peer)?;
    // Without a secret the two doctors cannot meet: said at once.
    crate::guest::control::Secret::required(req.secret_file.as_deref())?;
    let dev = match &req.dev {
        Some(d) => d.clone(),
        None => first_rdma_device()
            .ok_or("no RDMA device on this host (/sys/class/infiniband is empty): pass --dev")?,
    };
    let bin_dir = crate::host::places::bin_dir(req.bin_dir.as_deref(), places)?;
    // Kept until the findings are read.
    let out_dir = doctor_dir()?;
    let out = fsafe::open_private(out_dir.path())?;
    let cfg = doctor_agent(req, serves, &ip, peer, &dev, &out, bin_dir);
    let result = crate::guest::agent::run(cfg);
    let (mut findings, _) = read_doctor(&out);
    drop(out_dir);
    result.map_err(|e| e.to_string())?;
    // The session's doctor judges the path; the routes of this host's
    // multicast groups are judged here, as without a peer.
    let mcast = crate::guest::doctor::check_mcast_routes(Some(&ip), Some(&dev), &req.mcast);
    findings.extend(mcast.findings);
    Ok(HostCheck {
        lines: mcast.lines,
        findings,
        ..HostCheck::default()
    })
}

/// The doctor without a peer: this host's check.
fn doctor_alone(
    req: &DoctorRequest,
    places: &dyn Places,
    locked_kib: u64,
    locked_by: &str,
) -> HostCheck {
    crate::guest::doctor::check_host(&crate::guest::doctor::DoctorOpts {
        dev: req.dev.clone(),
        ip: req.ip.clone(),
        gid_idx: req.gid_idx,
        locked_kib,
        locked_by: locked_by.to_string(),
        mcast: req.mcast.clone(),
        // Given, or where the places have them, built or not.
        bin_dir: req.bin_dir.clone().or_else(|| places.binaries()),
    })
}

/// Whether this host's doctor serves the session: both doctors are started
/// alike, and the lower address serves.
fn doctor_serves(ip: &str, peer: &str) -> Result<bool, String> {
    let parse = |a: &str| {
        a.parse::<std::net::IpAddr>()
            .map_err(|e| format!("`{a}`: {e}"))
    };
    match parse(ip)?.cmp(&parse(peer)?) {
        std::cmp::Ordering::Less => Ok(true),
        std::cmp::Ordering::Greater => Ok(false),
        std::cmp::Ordering::Equal => Err("--peer is this host's own --ip".into()),
    }
}

/// The agent of a doctor's session with `peer`: serving or the peer, the
/// doctor only, its results in `out`.
fn doctor_agent(
    req: &DoctorRequest,
    serves: bool,
    ip: &str,
    peer: &str,
    dev: &str,
    out: &Dir,
    bin_dir: PathBuf,
) -> AgentConfig {
    let (server_ip, client_ip) = if serves {
        (ip.to_string(), peer.to_string())
    } else {
        (peer.to_string(), ip.to_string())
    };
    AgentConfig {
        role: if serves { Role::Server } else { Role::Client },
        ip: ip.to_string(),
        net: Net::None,
        out: out.path().to_path_buf(),
        dir: Some(out.clone()),
        bin_dir,
        params: Params {
            server_ip,
            client_ip,
            dev: dev.to_string(),
            gid_idx: req.gid_idx.unwrap_or(0),
            ib_port: 1,
            tcp_shift: 0,
            qp_timeout: crate::model::params::PERFTEST_QP_TIMEOUT,
            cpus: String::new(),
            numa_node: String::new(),
        },
        scenarios: Vec::new(),
        wait_secs: req.wait_secs,
        port: req.port,
        auto_gid: req.gid_idx.is_none(),
        secret_file: req.secret_file.clone(),
        secret: None,
        allow: req.allow.clone(),
        doctor_only: true,
        queue: None,
    }
}

/// First device in /sys/class/infiniband, by name.
pub fn first_rdma_device() -> Option<String> {
    let mut v: Vec<String> = fs::read_dir("/sys/class/infiniband")
        .ok()?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v.into_iter().next()
}
