//! `cargo xtask doctor`: the preflight of an RDMA setup. It checks this
//! host (devices, ports, GIDs, `ulimit -l`, rdma_cm, the address's netdev,
//! the route of the multicast groups) and, with a peer, the path to it;
//! each finding is one line: what is wrong, and what to do about it.
//!
//! A finding is what the examples will meet, observed the way they meet
//! it: rdma_cm is tried as they try it (an event channel and an id), not
//! judged by its device node, which librdmacm has the kernel make on
//! demand. What the doctor cannot be sure of is a note, not a finding.

use super::sys::{devices, gid_rows, links, output, ports, read, GidRow, SYS_IB};
pub use crate::results::HostCheck;
use crate::results::HostInfo;
use hints;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What the doctor is asked to check.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DoctorOpts {
    /// The device the examples will use (`None`: the first by name).
    pub dev: Option<String>,
    /// This host's address for the examples (rdma_cm's and the side
    /// channels').
    pub ip: Option<String>,
    /// The GID index the examples will be given (`None`: their own choice).
    pub gid_idx: Option<u32>,
    /// The largest memory registration of the scenarios, in KiB.
    pub locked_kib: u64,
    /// The scenario that makes it.
    pub locked_by: String,
    /// The IPv4 multicast groups whose route must leave through the RDMA
    /// netdev (empty: no multicast runs here without `-b`).
    pub mcast: Vec<String>,
    /// Where the examples' binaries are (rdma_cm's probe, [`CM_PROBE`]);
    /// `None`, or without it there: beside this binary, then on PATH.
    pub bin_dir: Option<PathBuf>,
}

/// The active and the max MTU, in bytes, of `ibv_devinfo` output
/// (`active_mtu:  1024 (3)`).
pub fn parse_mtus(devinfo: &str) -> (Option<u32>, Option<u32>) {
    let field = |key: &str| {
        devinfo.lines().find_map(|l| {
            l.trim()
                .strip_prefix(key)?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
    };
    (field("active_mtu:"), field("max_mtu:"))
}

/// The soft locked-memory limit of /proc/self/limits: `Some(None)` when
/// unlimited, `None` when the line is not there.
pub fn memlock_limit(limits: &str) -> Option<Option<u64>> {
    let rest = limits
        .lines()
        .find_map(|l| l.strip_prefix("Max locked memory"))?;
    match rest.split_whitespace().next()? {
        "unlimited" => Some(None),
        v => v.parse().ok().map(Some),
    }
}

/// Whether /proc/self/status grants CAP_IPC_LOCK (bit 14 of CapEff), which
/// lifts the locked-memory limit.
pub fn has_cap_ipc_lock(status: &str) -> bool {
    status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        .is_some_and(|caps| caps & (1 << 14) != 0)
}

/// The finding on a locked-memory limit (`None`: unlimited) below `need`.
pub fn judge_memlock(limit: Option<u64>, cap: bool, need_kib: u64, by: &str) -> Option<String> {
    let limit = limit?;
    (!cap && limit < need_kib * 1024).then(|| {
        format!(
            "`ulimit -l` is {} KiB, below the {need_kib} KiB that {by} registers: {}",
            limit >> 10,
            hints::MEMLOCK_FIX
        )
    })
}

/// The netdev that has `ip`, from `ip -o addr show` output
/// (`3: d0    inet 192.0.2.1/24 scope global d0 ...`).
pub fn netdev_of(ip_o_addr: &str, ip: &str) -> Option<String> {
    ip_o_addr.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        let addr = f.iter().position(|w| *w == "inet" || *w == "inet6")?;
        let a = f.get(addr + 1)?.split('/').next()?;
        (a == ip).then(|| {
            f.get(1)?
                .trim_end_matches(':')
                .split('@')
                .next()
                .map(str::to_string)
        })?
    })
}

/// Where `ip -o route get GROUP` says the kernel sends multicast to GROUP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McastRoute {
    /// Out of this netdev.
    Dev(String),
    /// Nowhere: no route (`RTNETLINK answers: Network is unreachable`).
    Unreachable,
    /// An answer without a netdev (an error of `ip` itself): this text.
    Unknown(String),
}

/// Reads the output (stdout and stderr) of `ip -o route get GROUP`:
/// `multicast 239.255.1.1 dev d0 src 192.0.2.1 uid 0 \ cache <mc>`, or
/// `RTNETLINK answers: Network is unreachable`.
pub fn mcast_route(ip_route_get: &str) -> McastRoute {
    let dev = ip_route_get.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        f.windows(2)
            .find(|w| w[0] == "dev")
            .map(|w| w[1].to_string())
    });
    match dev {
        Some(d) => McastRoute::Dev(d),
        None if ip_route_get.contains("Network is unreachable") => McastRoute::Unreachable,
        None => McastRoute::Unknown(
            ip_route_get
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no answer")
                .trim()
                .to_string(),
        ),
    }
}

/// The doctor's judgement of the route to `group`, which the senders
/// resolve without `-b`, given the RDMA netdev `netdev` (of device `dev`)
/// and every RDMA port's netdev (`links`, as [`super::sys::rdma_links`] gives them):
/// `Ok` with the line it prints, or `Err` with the finding.
pub fn judge_mcast_route(
    group: &str,
    route: &McastRoute,
    netdev: &str,
    dev: &str,
    links: &[(String, u32, String)],
) -> Result<String, String> {
    let senders = "mckey's and mc's senders, which resolve the group without -b,";
    match route {
        McastRoute::Dev(d) if d == netdev => Ok(format!(
            "multicast {group}: leaves through {netdev}, {dev}'s netdev"
        )),
        McastRoute::Dev(d) => {
            let fails = match links.iter().find(|(_, _, n)| n == d) {
                Some((other, _, _)) => format!("use {other}, {d}'s device, not {dev}"),
                None => "find no RDMA device there and fail (ENODEV)".to_string(),
            };
            Err(format!(
                "multicast to {group} leaves this host through {d}, not through {netdev} \
                 ({dev}'s netdev): {senders} {fails}: {}",
                hints::mcast_route_fix(netdev)
            ))
        }
        McastRoute::Unreachable => Err(format!(
            "multicast to {group} has no route on this host (`ip route get {group}`: Network is \
             unreachable): {senders} fail with ENETUNREACH: {}",
            hints::mcast_route_fix(netdev)
        )),
        McastRoute::Unknown(text) => Ok(format!(
            "multicast {group}: `ip route get {group}` said \"{text}\", so its route is unknown"
        )),
    }
}

/// On an Ethernet (RoCE) port: the index the examples use (`given`, or
/// their own choice) and what is wrong with it.
pub fn judge_gid(
    dev: &str,
    port: u32,
    rows: &[GidRow],
    given: Option<u32>,
) -> (Option<u32>, Vec<String>) {
    let entries: Vec<hints::GidEntry> = rows
        .iter()
        .filter_map(|r| {
            Some(hints::GidEntry {
                index: u8::try_from(r.index).ok()?,
                ipv4_mapped: r.ipv4().is_some(),
                roce_v2: r.v2(),
            })
        })
        .collect();
    let chosen = hints::choose_gid(&entries)
        .map(u32::from)
        .and_then(|i| rows.iter().find(|r| r.index == i));
    let Some(best) = chosen else {
        return (
            given,
            vec![format!(
                "{dev} port {port} is Ethernet (RoCE) but has no usable GID: give its netdev an IP address"
            )],
        );
    };
    let Some(n) = given else {
        return (Some(best.index), Vec::new());
    };
    let better = |what: &str| {
        format!(
            "GID index {n} of {dev} port {port} is {what}: the examples would choose {} ({}), which rdma_cm uses too: pass --gid-idx {}",
            best.index,
            best.describe(),
            best.index
        )
    };
    let findings = match rows.iter().find(|r| r.index == n) {
        None => vec![better("empty")],
        Some(r) if r.index == best.index => Vec::new(),
        Some(r) if (best.v2() && !r.v2()) || (best.ipv4().is_some() && r.ipv4().is_none()) => {
            vec![better(&r.describe())]
        }
        Some(_) => Vec::new(),
    };
    (Some(n), findings)
}

/// [`check_host`], once per set of options in this process: a mesh host
/// plays a session with one peer after another, each beginning with the
/// doctor, and what it checks on this host does not change between them
/// (a mesh host's faults are made before its run, never during one).
pub fn check_host_once(opts: &DoctorOpts) -> HostCheck {
    static DONE: std::sync::Mutex<Vec<(DoctorOpts, HostCheck)>> = std::sync::Mutex::new(Vec::new());
    let known = DONE
        .lock()
        .ok()
        .and_then(|d| d.iter().find(|(o, _)| o == opts).map(|(_, c)| c.clone()));
    known.unwrap_or_else(|| {
        let check = check_host(opts);
        if let Ok(mut d) = DONE.lock() {
            d.push((opts.clone(), check.clone()));
        }
        check
    })
}

/// Checks this host: see the module's doc.
pub fn check_host(opts: &DoctorOpts) -> HostCheck {
    let mut c = HostCheck::default();
    let devs = devices();
    let dev = chosen_device(&mut c, opts, &devs);
    let have_devinfo = has_devinfo();
    if !have_devinfo && !devs.is_empty() {
        // The examples do not need it: what it would tell is unknown.
        c.notes.push(
            "ibv_devinfo is not installed, so the ports' MTUs are unknown: install ibverbs-utils"
                .into(),
        );
    }
    for d in &devs {
        for p in ports(d) {
            check_port(&mut c, opts, d, p, dev.as_deref(), have_devinfo);
        }
    }
    check_rails(&mut c);
    check_memlock(&mut c, opts);
    check_rdma_cm(&mut c, opts, !devs.is_empty());
    // The RDMA netdev the examples' traffic must leave through: that of
    // --ip, or without it, that of the device.
    let served = match &opts.ip {
        Some(ip) => check_address(&mut c, ip, dev.as_deref()),
        None => dev.as_deref().and_then(netdev_of_device),
    };
    if let Some((d, netdev)) = served {
        for group in &opts.mcast {
            check_mcast_route(&mut c, group, &netdev, &d);
        }
    }
    c
}

/// Each rail port's line, with its NIC's NUMA node, and a finding for a
/// NIC on no node of a host that has several, where `mesh --perf` cannot
/// place its measurements.
fn check_rails(c: &mut HostCheck) {
    let nodes = super::numa::nodes();
    for p in super::ports::this_host() {
        let place = super::numa::nic_place(&p.dev, &p.netdev);
        let node = place
            .node
            .map_or_else(|| "no NUMA node".to_string(), |n| format!("NUMA node {n}"));
        c.lines.push(format!("{}, {node}", rail_line(&p)));
        if let Some(f) = crate::model::numa::unplaced(&p.dev, &place, nodes) {
            if !c.findings.contains(&f) {
                c.findings.push(f);
            }
        }
    }
}

/// A rail port's line: its subnet (the rail), device, port, netdev,
/// address and rate.
fn rail_line(p: &crate::model::rails::Port) -> String {
    let rate = p
        .rate
        .as_deref()
        .map_or(String::new(), |r| format!(", {r}"));
    format!(
        "rail {}: {} port {} on {} {}/{}{rate}",
        p.subnet(),
        p.dev,
        p.port,
        p.netdev,
        p.addr,
        p.prefix
    )
}

/// The device the examples would use (`--dev` if this host has it, else
/// the first of `devs`); a finding when there is none.
fn chosen_device(c: &mut HostCheck, opts: &DoctorOpts, devs: &[String]) -> Option<String> {
    match &opts.dev {
        Some(d) if devs.contains(d) => Some(d.clone()),
        Some(d) => {
            c.findings.push(if devs.is_empty() {
                format!(
                    "no RDMA device {d}: this host has none: {}",
                    hints::NO_DEVICE
                )
            } else {
                format!(
                    "no RDMA device {d}; this host has {}: pass one of them as --dev",
                    devs.join(", ")
                )
            });
            None
        }
        None if devs.is_empty() => {
            c.findings.push(format!(
                "no RDMA device on this host (/sys/class/infiniband is empty): {}",
                hints::NO_DEVICE
            ));
            None
        }
        None => devs.first().cloned(),
    }
}

/// Whether `ibv_devinfo`, which tells the ports' MTUs, is installed.
fn has_devinfo() -> bool {
    output("ibv_devinfo", &["--help"]).is_some()
        || Command::new("ibv_devinfo")
            .arg("-l")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok()
}

/// One port `p` of device `d`: its line, and when it is the examples'
/// (`dev`'s port 1) its state, its GIDs and the host's info.
fn check_port(
    c: &mut HostCheck,
    opts: &DoctorOpts,
    d: &str,
    p: u32,
    dev: Option<&str>,
    have_devinfo: bool,
) {
    let base = format!("{SYS_IB}/{d}/ports/{p}");
    // sysfs says `4: ACTIVE`, `5: LinkUp`.
    let named = |f: &str| {
        let v = read(format!("{base}/{f}")).unwrap_or_default();
        v.split_once(": ").map_or(v.clone(), |(_, n)| n.to_string())
    };
    let (state, phys) = (named("state"), named("phys_state"));
    let link = read(format!("{base}/link_layer"));
    let (active, max) = if have_devinfo {
        output("ibv_devinfo", &["-d", d, "-i", &p.to_string()])
            .map_or((None, None), |t| parse_mtus(&t))
    } else {
        (None, None)
    };
    let mtu = |m: Option<u32>| m.map_or("?".to_string(), |m| m.to_string());
    c.lines.push(format!(
        "device {d} port {p}: {state}, {phys}, link layer {}, active MTU {}, max MTU {}",
        link.as_deref().unwrap_or("?"),
        mtu(active),
        mtu(max)
    ));
    if Some(d) != dev || p != 1 {
        return;
    }
    c.info = HostInfo {
        role: String::new(),
        dev: d.to_string(),
        port: p,
        link_layer: link.clone(),
        gid_index: opts.gid_idx,
        gid_type: None,
        active_mtu: active,
    };
    if !state.contains("ACTIVE") {
        c.findings.push(format!(
            "{d} port {p} is {state} ({phys}): the examples need it ACTIVE: bring its link up (the cable, the switch's port, or `ip link set NETDEV up` under Soft-RoCE)"
        ));
    }
    check_gids(c, opts, d, p, link.as_deref() == Some("Ethernet"));
}

/// The GID table of the examples' port: a line per GID, the one they use
/// marked (on Ethernet, judged as they choose it), and its findings.
fn check_gids(c: &mut HostCheck, opts: &DoctorOpts, d: &str, p: u32, ethernet: bool) {
    let rows = gid_rows(d, p);
    let (used, gid_findings) = if ethernet {
        judge_gid(d, p, &rows, opts.gid_idx)
    } else {
        (opts.gid_idx, Vec::new())
    };
    for r in &rows {
        let mark = if Some(r.index) == used {
            "  <- the examples use this one"
        } else {
            ""
        };
        c.lines.push(format!(
            "  GID [{}] {} ({}{}){mark}",
            r.index,
            r.gid,
            r.kind.as_deref().unwrap_or("type unknown"),
            r.netdev
                .as_ref()
                .map_or(String::new(), |n| format!(", on {n}"))
        ));
    }
    c.findings.extend(gid_findings);
    c.info.gid_index = used;
    c.info.gid_type = used
        .and_then(|u| rows.iter().find(|r| r.index == u))
        .and_then(|r| r.kind.clone());
}

/// Locked memory: the examples' registrations pin pages; `ulimit -l`
/// (or CAP_IPC_LOCK) must allow the largest.
fn check_memlock(c: &mut HostCheck, opts: &DoctorOpts) {
    let limits = fs::read_to_string("/proc/self/limits").unwrap_or_default();
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    let cap = has_cap_ipc_lock(&status);
    let limit = memlock_limit(&limits).flatten();
    c.lines.push(format!(
        "ulimit -l: {}{} (the largest registration, {}'s, is {} KiB)",
        limit.map_or("unlimited".to_string(), |l| format!("{} KiB", l >> 10)),
        if cap { ", lifted by CAP_IPC_LOCK" } else { "" },
        opts.locked_by,
        opts.locked_kib
    ));
    c.findings
        .extend(judge_memlock(limit, cap, opts.locked_kib, &opts.locked_by));
}

/// The program the doctor runs to try rdma_cm: given 127.0.0.1, it makes an
/// event channel and an id, as every rdma_cm example starts, binds them
/// to the loopback, which needs no device, and ends there with a line
/// that says no device serves it. It sends nothing.
pub const CM_PROBE: &str = "rdmacm_server";

/// The crate of [`CM_PROBE`], which the lab builds for every run.
pub const CM_PROBE_PACKAGE: &str = "rdmacm_client_server";

/// What the rdma_cm probe met.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CmProbe {
    /// It made an event channel and an id: rdma_cm works here.
    Works,
    /// Making them failed: its error line.
    Fails(String),
    /// Its run tells nothing about rdma_cm: why.
    Unsure(String),
}

/// Judges a run of [`CM_PROBE`] from its exit status, stdout and stderr.
pub fn judge_cm_probe(exit: Option<i32>, stdout: &str, stderr: &str) -> CmProbe {
    if let Some(why) = crate::model::not_started(exit, stderr) {
        return CmProbe::Unsure(why);
    }
    let first = stderr.lines().map(str::trim).find(|l| !l.is_empty());
    match first {
        Some(l)
            if l.starts_with("rdma_create_event_channel") || l.starts_with("rdma_create_id") =>
        {
            CmProbe::Fails(l.to_string())
        }
        // Past the id: what the bind met is not rdma_cm's availability.
        Some(l) if l.starts_with("rdma_bind_addr") => CmProbe::Works,
        // A device on the loopback (siw on lo): it listened until its
        // time ran out.
        _ if stdout.lines().any(|l| l.starts_with("listening on port")) => CmProbe::Works,
        Some(l) => CmProbe::Unsure(format!("{CM_PROBE} 127.0.0.1 said \"{l}\"")),
        None => CmProbe::Unsure(format!(
            "{CM_PROBE} 127.0.0.1 ended (exit {}) without a line",
            exit.map_or("unknown".to_string(), |c| c.to_string())
        )),
    }
}

/// The probe's path: in `bin_dir`, else beside this binary, else its name
/// (PATH's).
fn cm_probe_program(bin_dir: Option<&Path>) -> PathBuf {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(|d| d.join(CM_PROBE)));
    bin_dir
        .map(|d| d.join(CM_PROBE))
        .into_iter()
        .chain(beside)
        .find(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from(CM_PROBE))
}

/// Runs the probe (bounded: 10 s) and judges it.
fn run_cm_probe(program: &Path) -> CmProbe {
    let out = Command::new("timeout")
        .args(["-k", "2", "10"])
        .arg(program)
        .arg("127.0.0.1")
        .stdin(Stdio::null())
        .output();
    match out {
        Ok(o) => judge_cm_probe(
            o.status.code(),
            &String::from_utf8_lossy(&o.stdout),
            &String::from_utf8_lossy(&o.stderr),
        ),
        Err(e) => CmProbe::Unsure(format!("could not start timeout: {e}")),
    }
}

/// rdma_cm, tried as the examples meet it (see [`CM_PROBE`]); its device
/// node alone is no finding: librdmacm has the kernel load rdma_ucm, and
/// make the node, when a program first asks.
fn check_rdma_cm(c: &mut HostCheck, opts: &DoctorOpts, devices: bool) {
    let node = hints::RDMA_CM_NODE;
    if !devices {
        c.lines
            .push("rdma_cm: not tried, since this host has no RDMA device".into());
        return;
    }
    let was = if Path::new(node).exists() {
        format!("{node} was there")
    } else {
        format!("{node} was not there before: librdmacm has the kernel load rdma_ucm on demand")
    };
    let program = cm_probe_program(opts.bin_dir.as_deref());
    let shown = program.display();
    match run_cm_probe(&program) {
        CmProbe::Works => c.lines.push(format!(
            "rdma_cm: {shown} made an event channel and an id, as the examples do ({was})"
        )),
        CmProbe::Fails(line) => c.findings.push(format!(
            "rdma_cm does not work here: {shown} could not make an event channel and an id, \
             as every rdma_cm example does first: {line}"
        )),
        CmProbe::Unsure(why) => c.notes.push(format!(
            "rdma_cm not tried: {why} (the doctor runs {CM_PROBE} to make an event channel \
             and an id; {was})"
        )),
    }
}

/// (device, netdev) of `dev`'s first port with a netdev.
fn netdev_of_device(dev: &str) -> Option<(String, String)> {
    links()
        .into_iter()
        .find(|(d, _, _)| d == dev)
        .map(|(d, _, n)| (d, n))
}

/// Only the multicast routes of [`check_host`], for `groups`, against the
/// RDMA netdev of `ip` (or of `dev`): what a two-host doctor adds on its
/// own host, whose session checked the rest.
pub fn check_mcast_routes(ip: Option<&str>, dev: Option<&str>, groups: &[String]) -> HostCheck {
    let mut c = HostCheck::default();
    // The address's own findings are the session's to report.
    let served = match ip {
        Some(ip) => check_address(&mut HostCheck::default(), ip, dev),
        None => dev.and_then(netdev_of_device),
    };
    if let Some((d, netdev)) = served {
        for group in groups {
            check_mcast_route(&mut c, group, &netdev, &d);
        }
    }
    c
}

/// Where the kernel sends `group`, against the RDMA netdev `netdev`.
fn check_mcast_route(c: &mut HostCheck, group: &str, netdev: &str, dev: &str) {
    // Not `ip route get GROUP from IP`: for a multicast destination with a
    // source address and no output device, the kernel takes the netdev
    // that has the source, whatever the routes (route.c's "special
    // hack"), so that would always answer the RDMA netdev. The senders
    // resolve the group without a source, by the routing table alone, and
    // so does this.
    let answer = Command::new("ip")
        .args(["-o", "route", "get", group])
        .stdin(Stdio::null())
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
        })
        .unwrap_or_else(|e| format!("ip: {e}"));
    match judge_mcast_route(group, &mcast_route(&answer), netdev, dev, &links()) {
        Ok(line) => c.lines.push(line),
        Err(finding) => c.findings.push(finding),
    }
}

/// Which netdev has `ip`, and which RDMA device serves that netdev: that
/// device and netdev, when one does.
fn check_address(c: &mut HostCheck, ip: &str, dev: Option<&str>) -> Option<(String, String)> {
    let addrs = output("ip", &["-o", "addr", "show"]).unwrap_or_default();
    if netdev_of(&addrs, ip).as_deref() == Some("lo") {
        c.findings.push(format!(
            "{ip} is on the loopback, which no RDMA device serves: rdma_cm cannot use it: give --ip the address of this host's RDMA netdev"
        ));
        return None;
    }
    let Some(netdev) = netdev_of(&addrs, ip) else {
        c.findings.push(format!(
            "{ip} is on no interface of this host: give --ip an address of this host's RDMA netdev"
        ));
        return None;
    };
    let links = links();
    match links.iter().find(|(_, _, n)| *n == netdev) {
        Some((d, p, _)) => {
            c.lines
                .push(format!("address {ip}: on {netdev}, served by {d} port {p}"));
            Some((d.clone(), netdev))
        }
        None => {
            let theirs = dev
                .and_then(|d| links.iter().find(|(ld, _, _)| ld == d))
                .map_or(String::new(), |(d, _, n)| {
                    format!("use an address on {n} ({d}), or ")
                });
            c.findings.push(format!(
                "{ip} is on {netdev}, which no RDMA device serves ({}): {theirs}make one there: `rdma link add rxe1 type rxe netdev {netdev}`",
                hints::NO_DEVICE_FOR_ADDRESS
            ));
            None
        }
    }
}

/// The finding on two hosts whose ports' active MTUs differ: a verbs
/// program that takes its own port's MTU for the path (as
/// ibv_sockets_pingpong and ibv_rc_pingpong do) sends the larger packets,
/// which the other port drops.
pub fn mtu_finding(mine: &HostInfo, theirs: &HostInfo) -> Option<String> {
    let (a, b) = (mine.active_mtu?, theirs.active_mtu?);
    (a != b).then(|| {
        let (server, client) = if mine.role == "server" {
            (a, b)
        } else {
            (b, a)
        };
        format!(
            "the active MTU is {server} on the server host and {client} on the client host: \
             programs that take their own port's MTU send packets the other drops: give both \
             the same MTU (the netdev's MTU on RoCE, the subnet manager's on InfiniBand)"
        )
    })
}

#[cfg(test)]
mod tests;
