//! `mesh`: the fabric smoke test as a cluster launches it. Each
//! process learns its rank, the number of hosts and the coordinator from
//! its launcher: flags (`--rank`, `--size`, `--coordinator`), the
//! environment (`RDMA_LAB_RANK`, `RDMA_LAB_SIZE`, `RDMA_LAB_COORDINATOR`,
//! for `mpirun` or a Kubernetes Job), or Slurm's own (`SLURM_PROCID`,
//! `SLURM_NTASKS`, `SLURM_JOB_NODELIST` expanded by `scontrol show
//! hostnames`, whose first host runs rank 0 with the default block
//! distribution). Rank 0 coordinates and plays; every rank plays. With
//! `--ssh HOSTS` this process is the launcher: it coordinates and starts
//! one rank on each host with the user's own ssh ([`crate::host::ssh`]).

use crate::base::rundir::Dir;
use crate::guest::control::Secret;
use crate::guest::mesh::coordinator::{coordinate, CoordConfig};
use crate::guest::mesh::{run_host, run_unable, MeshHostConfig};
use crate::host::places::{Places, PlacesError};
use crate::model::mesh::{MeshRun, Pattern};
use crate::model::rails::rail0_port;
use std::net::{Ipv4Addr, SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::process::Command;

/// The most hosts a mesh takes: its schedule and matrix are quadratic.
pub const MAX_HOSTS: usize = 4096;

/// Where this process's rank comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranked {
    /// This process's rank.
    pub rank: usize,
    /// How many hosts take part.
    pub size: usize,
    /// The coordinator's host name (rank 0's host).
    pub coordinator: String,
    /// The hosts' names by rank, where the launcher says them.
    pub names: Vec<String>,
}

/// What `mesh` was asked.
#[derive(Debug, Clone)]
pub struct MeshOptions {
    /// The scenarios (empty: every example pair).
    pub names: Vec<String>,
    /// Which pairs.
    pub pattern: Pattern,
    /// The coordinator's port; the pairs' sessions use the next one.
    pub port: u16,
    /// How long to wait for every host to join, in seconds.
    pub wait_secs: u64,
    /// This host's RDMA address (else its RDMA netdev's).
    pub ip: Option<String>,
    /// This host's RDMA netdev (else the RDMA device's).
    pub netdev: Option<String>,
    /// The RDMA device (else the first).
    pub dev: Option<String>,
    /// The GID index (else the examples' own choice).
    pub gid_idx: Option<u32>,
    /// Where the example binaries are (else beside this binary, or built).
    pub bin_dir: Option<PathBuf>,
    /// This run's dir, fresh, private and held open ([`run_dir`]).
    pub out: Dir,
    /// The mesh's secret.
    pub secret: Secret,
    /// `--mcast-senders all`: every host sends in a multicast round.
    pub mcast_all: bool,
    /// `--serial`: one pair at a time (the benchmark's baseline).
    pub serial: bool,
    /// `--rails`: each pair also on every other rail its hosts share.
    pub rails: bool,
    /// Not `--no-pin`: this host's measurements run on their NIC's local
    /// CPUs.
    pub pin: bool,
    /// The only addresses that may join besides the launcher's hosts'
    /// (none: any, where the launcher named no hosts).
    pub allow: Vec<std::net::IpAddr>,
    /// Every `--dev`: the devices whose ports this host reports for its
    /// rails (none: every active port with an address). The pairs run on
    /// the first.
    pub rail_devs: Vec<String>,
    /// Each pair's link is measured with perftest, and what makes one
    /// slow (`--perf`).
    pub perf: Option<crate::model::mesh::PerfLimits>,
}

/// A number from the first of `vars` that is set.
fn env_num(vars: &[&str]) -> Option<Result<usize, String>> {
    vars.iter().find_map(|v| {
        let t = std::env::var(v).ok()?;
        Some(
            t.trim()
                .parse()
                .map_err(|_| format!("{v}={t:?} is not a number")),
        )
    })
}

/// Slurm's node list of the job, one host a line, from `scontrol`.
fn slurm_hostnames(list: &str) -> Result<Vec<String>, String> {
    let out = Command::new("scontrol")
        .args(["show", "hostnames", list])
        .output()
        .map_err(|e| format!("scontrol show hostnames: {e} (is this a Slurm job?)"))?;
    if !out.status.success() {
        return Err(format!(
            "scontrol show hostnames {list}: {}",
            crate::base::text::shown(String::from_utf8_lossy(&out.stderr).trim())
        ));
    }
    let names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    for n in &names {
        check_host_name(n)?;
    }
    Ok(names)
}

/// A host name as it may reach ssh and the resolver: letters, digits,
/// `.`, `-`, `_`, at most 253 characters, not starting with `-`.
pub fn check_host_name(n: &str) -> Result<(), String> {
    let ok = (1..=253).contains(&n.len())
        && !n.starts_with('-')
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(format!("{n:?} is not a host name"))
    }
}

/// The rank, size and coordinator: the flags' where given, else the
/// environment's, else Slurm's; one line saying what is missing.
pub fn ranked(
    rank: Option<usize>,
    size: Option<usize>,
    coord: Option<String>,
) -> Result<Ranked, String> {
    // Read only here: a --replay or --ssh run never reads them.
    let rank = rank
        .map(Ok)
        .or_else(|| env_num(&["RDMA_LAB_RANK", "SLURM_PROCID"]));
    let size = size
        .map(Ok)
        .or_else(|| env_num(&["RDMA_LAB_SIZE", "SLURM_NTASKS"]));
    let (Some(rank), Some(size)) = (rank, size) else {
        return Err(
            "mesh: no rank: run it under srun, give --ssh HOSTS, or give --rank, --size \
                    and --coordinator (or RDMA_LAB_RANK, RDMA_LAB_SIZE, RDMA_LAB_COORDINATOR)"
                .into(),
        );
    };
    let (rank, size) = (rank?, size?);
    if size > MAX_HOSTS {
        return Err(format!(
            "mesh: {size} hosts: a mesh has at most {MAX_HOSTS}"
        ));
    }
    if rank >= size || size < 2 {
        return Err(format!(
            "mesh: rank {rank} of {size} hosts: a mesh needs 2 hosts or more, ranks 0 to size - 1"
        ));
    }
    let mut names = Vec::new();
    let coordinator = match coord.or_else(|| std::env::var("RDMA_LAB_COORDINATOR").ok()) {
        Some(c) => c,
        None => {
            let list = std::env::var("SLURM_JOB_NODELIST").map_err(|_| {
                "mesh: no coordinator: give --coordinator HOST (rank 0's host) or RDMA_LAB_COORDINATOR"
                    .to_string()
            })?;
            names = slurm_hostnames(&list)?;
            names
                .first()
                .cloned()
                .ok_or("mesh: Slurm's node list is empty")?
        }
    };
    check_host_name(&coordinator)?;
    Ok(Ranked {
        rank,
        size,
        coordinator,
        names,
    })
}

/// This host's name, as the kernel has it.
pub fn own_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "localhost".into())
}

/// Where the coordinator listens: the first address `name` resolves to.
pub fn listen_addr(name: &str, port: u16) -> Result<SocketAddr, String> {
    (name, port)
        .to_socket_addrs()
        .map_err(|e| format!("mesh: {name}: {e}"))?
        .find(SocketAddr::is_ipv4)
        .ok_or_else(|| format!("mesh: {name} has no IPv4 address"))
}

/// This host's RDMA device and address. With none of `--dev`, `--ip` and
/// `--netdev`, its port on rail 0 ([`rail0_port`]: on the subnet of
/// `toward`, the coordinator's address, else on the lowest), whatever the
/// device is called; else `--dev`/`--ip`, or the first device, and the
/// IPv4 address of its netdev (or of `--netdev`).
pub fn rdma_address(
    opts: &MeshOptions,
    toward: Option<Ipv4Addr>,
) -> Result<(String, String), String> {
    if opts.dev.is_none() && opts.ip.is_none() && opts.netdev.is_none() {
        if let Some(p) = rail0_port(&crate::guest::ports::this_host(), toward) {
            return Ok((p.dev.clone(), p.addr.to_string()));
        }
    }
    let links = crate::guest::sys::links();
    let dev = match &opts.dev {
        Some(d) => d.clone(),
        None => links.first().map(|(d, _, _)| d.clone()).ok_or_else(|| {
            let none = std::fs::read_dir(hints::SYS_IB).map_or(true, |mut d| d.next().is_none());
            // What to do about it is the doctor's finding, which goes along.
            if none {
                format!(
                    "mesh: {} ({} is empty)",
                    hints::NO_DEVICE_HERE,
                    hints::SYS_IB
                )
            } else {
                "mesh: no RDMA device with a netdev (rdma link shows none): give --dev".into()
            }
        })?,
    };
    if let Some(ip) = &opts.ip {
        return Ok((dev, ip.clone()));
    }
    let netdev = match &opts.netdev {
        Some(n) => n.clone(),
        None => links
            .iter()
            .find(|(d, _, _)| *d == dev)
            .map(|(_, _, n)| n.clone())
            .ok_or_else(|| format!("mesh: {dev} has no netdev: give --netdev or --ip"))?,
    };
    let out = Command::new("ip")
        .args(["-o", "-4", "addr", "show", "dev", &netdev])
        .output()
        .map_err(|e| format!("mesh: ip addr: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let ip = text
        .split_whitespace()
        .skip_while(|w| *w != "inet")
        .nth(1)
        .and_then(|a| a.split('/').next())
        .ok_or_else(|| format!("mesh: {netdev} has no IPv4 address: give --ip"))?;
    Ok((dev, ip.to_string()))
}

/// This process's run dir: a fresh private dir (mode 0700, its name
/// unpredictable, [`crate::base::fsafe::fresh_run`]) in `--out DIR`, else
/// in the places' `mesh` root; the root opened once and refused when
/// another user could redirect what is written there
/// ([`crate::base::fsafe::open_root`], [`Places::results_root`]).
pub fn run_dir(out: Option<&std::path::Path>, places: &dyn Places) -> Result<Dir, PlacesError> {
    let root = match out {
        Some(o) => crate::base::fsafe::open_root(o, "--out ", false)?,
        None => places.results_root("mesh")?,
    };
    Ok(crate::base::fsafe::fresh_run(&root, "")?)
}

/// The scenarios the pairs run: the NAMEs checked against the table, or
/// every example pair.
pub fn scenario_names(names: &[String]) -> Result<Vec<String>, String> {
    if names.is_empty() {
        return Ok(crate::guest::mesh::default_scenarios());
    }
    for n in names {
        crate::catalog::find(n).ok_or_else(|| format!("unknown scenario {n}"))?;
    }
    Ok(names.to_vec())
}

/// The coordinator of `opts` for `size` hosts listening on `listen`.
pub fn coord_config(
    opts: &MeshOptions,
    listen: SocketAddr,
    size: usize,
    names: Vec<String>,
) -> Result<CoordConfig, String> {
    Ok(CoordConfig {
        listen,
        size,
        names,
        pattern: opts.pattern,
        scenarios: scenario_names(&opts.names)?,
        wait_secs: opts.wait_secs,
        secret: opts.secret.clone(),
        out: opts.out.clone(),
        mcast_all: opts.mcast_all,
        serial: opts.serial,
        rails: opts.rails,
        allow: opts.allow.clone(),
        perf: opts.perf,
    })
}

/// This rank's part; rank 0 also coordinates, in a thread of its own, and
/// returns the run (the other ranks return `None`). A host without an RDMA
/// device or address joins all the same, to say so.
pub fn run_ranked(
    opts: &MeshOptions,
    r: &Ranked,
    places: &dyn Places,
) -> Result<Option<MeshRun>, String> {
    scenario_names(&opts.names)?;
    // Rail 0 is the subnet the coordinator is on, where a port is.
    let toward = listen_addr(&r.coordinator, opts.port)
        .ok()
        .and_then(|a| match a.ip() {
            std::net::IpAddr::V4(v4) => Some(v4),
            std::net::IpAddr::V6(_) => None,
        });
    let address = rdma_address(opts, toward);
    let (dev, ip) = address.clone().unwrap_or_else(|_| {
        (
            opts.dev.clone().unwrap_or_default(),
            opts.ip.clone().unwrap_or_default(),
        )
    });
    let host = MeshHostConfig {
        ib_port: 1,
        rank: r.rank,
        coordinator: r.coordinator.clone(),
        port: opts.port,
        name: own_name(),
        ip,
        dev,
        gid_idx: opts.gid_idx,
        rail_devs: opts.rail_devs.clone(),
        pin: opts.pin,
        bin_dir: crate::host::places::bin_dir(opts.bin_dir.as_deref(), places)?,
        out: opts
            .out
            .fresh_dir(&format!("rank{}", r.rank))
            .map_err(|e| {
                format!(
                    "{}: {e}",
                    opts.out.join(&format!("rank{}", r.rank)).display()
                )
            })?,
        wait_secs: opts.wait_secs,
        secret: opts.secret.clone(),
    };
    let play = |host: &MeshHostConfig| match &address {
        Ok(_) => run_host(host),
        Err(why) => run_unable(host, why.strip_prefix("mesh: ").unwrap_or(why)),
    };
    if r.rank != 0 {
        return Ok(play(&host).map(|()| None)?);
    }
    let cfg = coord_config(
        opts,
        listen_addr(&r.coordinator, opts.port)?,
        r.size,
        r.names.clone(),
    )?;
    let coordinator = std::thread::spawn(move || coordinate(&cfg, &mut |l| println!("{l}")));
    let played = play(&host);
    let run = coordinator
        .join()
        .map_err(|_| "mesh: the coordinator failed".to_string())??;
    if let Err(e) = played {
        println!("mesh: this host's own part: {e}");
    }
    Ok(Some(run))
}
