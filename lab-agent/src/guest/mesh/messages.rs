//! What the mesh's hosts and its coordinator say to each other, as JSON
//! in `tag HEX` lines of the control channel, and how a pair's peer side
//! turns its result dir into the verdicts it sends.

use super::MeshHostConfig;
use crate::base::rundir::Dir;
use crate::catalog;
use crate::guest::agent::Role;
use crate::model::mesh::{Measure, ScenarioResult, SideReport, Verdict};
use crate::model::rails::Port;
use crate::model::{Addrs, Scenario};
use crate::results::{
    collect, findings_file, findings_of, read_in, read_refused, read_text, side_transcript,
};
use std::path::Path;
use std::process::Command;
use wire::{elements, listed, Field};

pub mod wire;

/// The name of a pair's own result when its session did not come about.
pub const SESSION: &str = "session";

/// The name of the doctor's RC probe in a pair's results.
pub const PROBE: &str = "doctor_rc_probe";

/// The most of one side's transcript a pair sends: enough to read why it
/// failed, bounded so that a round's message stays small.
pub const TRANSCRIPT_MAX: usize = 24 * 1024;

/// The most values (numbers, strings, lists, objects...) one message
/// may hold: a pair's results are a few dozen each, a hello's findings
/// a few. A parsed value costs some 80 bytes however small its text, and
/// the reader holds up to three copies of a message while it reads it
/// (serde's buffer of an object or a list, its values, and the fields
/// read from them), so a million-element list of a few MB would cost it
/// 100 MB or more: refused before it is parsed.
pub const MESSAGE_VALUES: usize = 4096;

/// The longest text kept of one field from a peer (a reason, a detail, a
/// finding): enough to read, bounded so that no host can make a report
/// or a page grow.
pub const FIELD_MAX: usize = 1024;

/// The longest name kept of a host, a netdev, an address, a GID type.
pub const NAME_MAX: usize = 64;

/// How many of a hello's findings are kept.
pub const FINDINGS_MAX: usize = 64;

/// A message of type `T` from a peer, or one line that says what is
/// wrong: a message of more than [`MESSAGE_VALUES`] values is refused
/// before it is parsed. `T` is a [`Field`]: a message of another shape
/// than its type's is read as such, and its reader decides.
fn parse<T: serde::de::DeserializeOwned>(bytes: &[u8], what: &str) -> Result<Field<T>, String> {
    let values = values_in(bytes);
    if values > MESSAGE_VALUES {
        return Err(format!(
            "mesh: a {what} message of more than {MESSAGE_VALUES} values ({values}): refused unread"
        ));
    }
    serde_json::from_slice(bytes).map_err(|e| format!("mesh: a bad {what} message: {e}"))
}

/// `message` as its JSON text.
fn to_text<T: serde::Serialize>(message: &T) -> String {
    serde_json::to_string(message).unwrap_or_default()
}

/// An upper bound on the number of values in a JSON text, counted without
/// parsing it: every value but the first follows a `,` or opens with `[`
/// or `{` outside a string.
fn values_in(bytes: &[u8]) -> usize {
    let (mut n, mut in_string, mut escaped) = (1, false, false);
    for &b in bytes {
        match (in_string, escaped, b) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (true, false, b'"') | (false, _, b'"') => in_string = !in_string,
            (false, _, b',' | b'[' | b'{') => n += 1,
            _ => {}
        }
    }
    n
}

/// At most `max` characters of `t`, every control and format character
/// escaped (but a newline and a tab), and `…` when it was longer.
pub fn cut(t: &str, max: usize) -> String {
    let mut s = crate::base::text::escape_controls(&t.chars().take(max).collect::<String>());
    if t.chars().nth(max).is_some() {
        s.push('…');
    }
    s
}

/// A string field, or "", at most [`FIELD_MAX`] characters.
fn text(f: Field<String>) -> String {
    cut(f.as_read().map_or("", String::as_str), FIELD_MAX)
}

/// A name's field, when it is a string: at most [`NAME_MAX`] characters.
fn name(f: Field<String>) -> Option<String> {
    f.read().map(|t| cut(&t, NAME_MAX))
}

/// What a host says of itself when it joins.
#[derive(Debug, Clone, PartialEq)]
pub struct Hello {
    /// Its rank.
    pub rank: usize,
    /// Its host name.
    pub name: String,
    /// Its RDMA address.
    pub ip: String,
    /// The netdev under its RDMA device.
    pub netdev: String,
    /// That netdev's MTU.
    pub mtu: Option<u32>,
    /// The GID type the examples use there.
    pub gid_type: Option<String>,
    /// The subnet of its RDMA address.
    pub subnet: Option<String>,
    /// Its doctor's findings.
    pub findings: Vec<String>,
    /// Why it cannot take part, when it cannot (no RDMA device, no
    /// address): it joins to say so, and is handed no pair.
    pub cannot_run: Option<String>,
    /// Its rail ports (at most [`PORTS_MAX`]).
    pub ports: Vec<Port>,
}

/// The most rail ports a hello may list: more than a node has NICs.
pub const PORTS_MAX: usize = 64;

/// A port as a message's.
fn port_wire(p: &Port) -> wire::Port {
    wire::Port {
        dev: Field::Read(p.dev.clone()),
        port: Field::Read(p.port),
        netdev: Field::Read(p.netdev.clone()),
        addr: Field::Read(p.addr.to_string()),
        prefix: Field::Read(p.prefix),
        rate: p.rate.clone().into(),
    }
}

/// A port of a host's message, or none when a field is missing or wrong.
fn port_of(wire::Obj(p): wire::Obj<wire::Port>) -> Option<Port> {
    Some(Port {
        dev: name(p.dev)?,
        port: p.port.read()?,
        netdev: name(p.netdev)?,
        addr: p.addr.read()?.parse().ok()?,
        prefix: p.prefix.read().filter(|p| *p <= 32)?,
        rate: name(p.rate),
    })
}

impl Hello {
    /// This host, as its doctor sees it.
    pub fn of_this_host(cfg: &MeshHostConfig) -> Hello {
        let pairs: Vec<&Scenario> = catalog::pairs().collect();
        let (locked_kib, locked_by) = catalog::largest_registration(&pairs);
        let check = crate::guest::doctor::check_host(&crate::guest::doctor::DoctorOpts {
            dev: Some(cfg.dev.clone()),
            ip: Some(cfg.ip.clone()),
            gid_idx: cfg.gid_idx,
            locked_kib,
            locked_by: locked_by.to_string(),
            mcast: Vec::new(),
            bin_dir: Some(cfg.bin_dir.clone()),
        });
        let addrs = Command::new("ip")
            .args(["-o", "addr", "show"])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        let netdev = crate::guest::doctor::netdev_of(&addrs, &cfg.ip).unwrap_or_default();
        let mtu = read_text(Path::new(&format!("/sys/class/net/{netdev}/mtu")))
            .and_then(|m| m.trim().parse().ok())
            .filter(|_| !netdev.is_empty());
        Hello {
            rank: cfg.rank,
            name: cfg.name.clone(),
            ip: cfg.ip.clone(),
            subnet: subnet_of(&addrs, &cfg.ip),
            netdev,
            mtu,
            gid_type: check.info.gid_type,
            findings: check.findings,
            cannot_run: None,
            ports: crate::guest::ports::of_devices(
                crate::guest::ports::this_host(),
                &cfg.rail_devs,
            ),
        }
    }

    /// A host that cannot take part, and `why`: its doctor's findings
    /// (on `cfg`'s device and address where it has them), and nothing of
    /// a device or an address.
    pub fn unable(cfg: &MeshHostConfig, why: &str) -> Hello {
        let pairs: Vec<&Scenario> = catalog::pairs().collect();
        let (locked_kib, locked_by) = catalog::largest_registration(&pairs);
        let given = |v: &str| (!v.is_empty()).then(|| v.to_string());
        let check = crate::guest::doctor::check_host(&crate::guest::doctor::DoctorOpts {
            dev: given(&cfg.dev),
            ip: given(&cfg.ip),
            gid_idx: cfg.gid_idx,
            locked_kib,
            locked_by: locked_by.to_string(),
            mcast: Vec::new(),
            bin_dir: Some(cfg.bin_dir.clone()),
        });
        Hello {
            rank: cfg.rank,
            name: cfg.name.clone(),
            ip: String::new(),
            netdev: String::new(),
            mtu: None,
            gid_type: None,
            subnet: None,
            findings: check.findings,
            cannot_run: Some(why.to_string()),
            ports: Vec::new(),
        }
    }

    /// As JSON.
    pub fn to_json(&self) -> String {
        to_text(&wire::Hello {
            rank: Field::Read(self.rank as u64),
            name: Field::Read(self.name.clone()),
            ip: Field::Read(self.ip.clone()),
            netdev: Field::Read(self.netdev.clone()),
            mtu: self.mtu.map(u64::from).into(),
            gid_type: self.gid_type.clone().into(),
            subnet: self.subnet.clone().into(),
            findings: listed(self.findings.clone()),
            cannot_run: self.cannot_run.clone().into(),
            ports: listed(self.ports.iter().map(|p| wire::Obj(port_wire(p)))),
        })
    }

    /// From a host's JSON.
    pub fn from_json(bytes: &[u8]) -> Result<Hello, String> {
        let wire::Obj(h) = parse::<wire::Obj<wire::Hello>>(bytes, "hello")?
            .read()
            .unwrap_or_default();
        let rank = h.rank.read().ok_or("mesh: a hello without a rank")?;
        Ok(Hello {
            rank: usize::try_from(rank).map_err(|e| e.to_string())?,
            name: name(h.name).unwrap_or_default(),
            ip: name(h.ip).unwrap_or_default(),
            netdev: name(h.netdev).unwrap_or_default(),
            mtu: h.mtu.read().and_then(|m| u32::try_from(m).ok()),
            gid_type: name(h.gid_type),
            subnet: name(h.subnet),
            findings: strings(h.findings),
            // A reason, kept as the other texts are, not as a name.
            cannot_run: Some(text(h.cannot_run)).filter(|t| !t.is_empty()),
            ports: elements(h.ports, PORTS_MAX).filter_map(port_of).collect(),
        })
    }
}

/// The strings of a list, or none: at most [`FINDINGS_MAX`] of them (what
/// is not a string is passed over, not counted), each at most
/// [`FIELD_MAX`] characters.
fn strings(list: wire::List<String>) -> Vec<String> {
    (list.read().unwrap_or_default().into_iter())
        .filter_map(Field::read)
        .take(FINDINGS_MAX)
        .map(|t| cut(&t, FIELD_MAX))
        .collect()
}

/// The subnet of `ip` from `ip -o addr show` output: `192.0.2.0/24` for
/// `inet 192.0.2.3/24`.
pub fn subnet_of(ip_o_addr: &str, ip: &str) -> Option<String> {
    let prefix: u32 = ip_o_addr.lines().find_map(|l| {
        let mut words = l.split_whitespace().skip_while(|w| *w != "inet");
        let (a, p) = words.nth(1)?.split_once('/')?;
        (a == ip).then(|| p.parse().ok())?
    })?;
    let addr: std::net::Ipv4Addr = ip.parse().ok()?;
    let mask = u32::MAX.checked_shl(32 - prefix.min(32)).unwrap_or(0);
    let net = std::net::Ipv4Addr::from(u32::from(addr) & mask);
    Some(format!("{net}/{prefix}"))
}

/// What the coordinator tells every host once all have joined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// How long one round may take, in seconds.
    pub round_secs: u64,
    /// How many rounds there are.
    pub rounds: usize,
}

impl Plan {
    /// As JSON.
    pub fn to_json(&self) -> String {
        to_text(&wire::Plan {
            round_secs: Field::Read(self.round_secs),
            rounds: Field::Read(self.rounds as u64),
        })
    }

    /// From the coordinator's JSON.
    pub fn from_json(bytes: &[u8]) -> Result<Plan, String> {
        let wire::Obj(p) = parse::<wire::Obj<wire::Plan>>(bytes, "plan")?
            .read()
            .unwrap_or_default();
        Ok(Plan {
            round_secs: p.round_secs.read().unwrap_or(0).clamp(60, 24 * 3600),
            rounds: usize::try_from(p.rounds.read().unwrap_or(0)).unwrap_or(0),
        })
    }
}

/// A host's part in one round: its side of one pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    /// The round.
    pub round: usize,
    /// Which side this host plays.
    pub role: Role,
    /// The serving host's RDMA address.
    pub server_ip: String,
    /// The peer host's RDMA address.
    pub client_ip: String,
    /// Names the pair's session: its secret is derived from it.
    pub nonce: String,
    /// The scenarios, in order.
    pub scenarios: Vec<String>,
    /// The rail it runs on: 0 for the hosts' RDMA addresses, `k` for the
    /// run's rail `k` (the addresses are then each host's port on it).
    pub rail: usize,
    /// The measurements' QP timeout (`mesh --qp-timeout`), when given.
    pub qp_timeout: Option<u8>,
}

/// The QP timeouts a pair takes: a QP's 5-bit field, without 0 (none).
pub const QP_TIMEOUTS_LOW: u64 = 1;
/// See [`QP_TIMEOUTS_LOW`].
pub const QP_TIMEOUTS_HIGH: u64 = 31;

/// The most rails a round hands one pair: more than a node has NICs.
pub const RAILS_MAX: usize = 16;

/// A round's assignments of one host as JSON: the one as an object, or
/// several (one a rail) as a list.
pub fn assignments_json(list: &[Assignment]) -> String {
    match list {
        [one] => to_text(&one.to_wire()),
        _ => to_text(&wire::Assignments::Rails(
            list.iter()
                .map(|a| Field::Read(wire::Obj(a.to_wire())))
                .collect(),
        )),
    }
}

/// How many rails a round's assignments name, read or not: a list's
/// length (at most [`RAILS_MAX`]), else one.
pub fn assignments_count(bytes: &[u8]) -> usize {
    match parse(bytes, "pair").map(Field::read) {
        Ok(Some(wire::Assignments::Rails(list))) => list.len().clamp(1, RAILS_MAX),
        _ => 1,
    }
}

/// A round's assignments from the coordinator's JSON: an object, or a
/// list of at most [`RAILS_MAX`], each on a rail of its own.
pub fn assignments_from_json(bytes: &[u8]) -> Result<Vec<Assignment>, String> {
    // A message of neither shape reads as an empty pair, refused for its
    // role as the old reader refused it.
    let whole = wire::Assignments::One(Box::default());
    let list = match parse(bytes, "pair")?.read().unwrap_or(whole) {
        wire::Assignments::Rails(list) if list.len() > RAILS_MAX => {
            return Err(format!(
                "mesh: a round of {} rails, more than {RAILS_MAX}",
                list.len()
            ))
        }
        wire::Assignments::Rails(list) => list
            .into_iter()
            .map(|a| Assignment::from_wire(a.read().unwrap_or_default().0))
            .collect::<Result<Vec<_>, _>>()?,
        wire::Assignments::One(a) => vec![Assignment::from_wire(a.0)?],
    };
    for (i, a) in list.iter().enumerate() {
        if list[..i].iter().any(|b| b.rail == a.rail) {
            return Err(format!("mesh: rail {} handed out twice in a round", a.rail));
        }
    }
    Ok(list)
}

impl Assignment {
    /// The two sides' addresses, as the judge takes them.
    pub fn addrs(&self) -> Addrs {
        Addrs {
            server_ip: self.server_ip.clone(),
            client_ip: self.client_ip.clone(),
        }
    }

    /// As JSON.
    pub fn to_json(&self) -> String {
        to_text(&self.to_wire())
    }

    /// As a message's.
    fn to_wire(&self) -> wire::Assignment {
        wire::Assignment {
            round: Field::Read(self.round as u64),
            role: Field::Read(self.role.as_str().into()),
            server_ip: Field::Read(self.server_ip.clone()),
            client_ip: Field::Read(self.client_ip.clone()),
            nonce: Field::Read(self.nonce.clone()),
            scenarios: listed(self.scenarios.clone()),
            rail: Field::Read(self.rail as u64),
            qp_timeout: self.qp_timeout.map(u64::from).into(),
        }
    }

    /// From the coordinator's JSON; addresses and names are checked as a
    /// command line's would be, since they reach the programs.
    pub fn from_json(bytes: &[u8]) -> Result<Assignment, String> {
        let wire::Obj(a) = parse::<wire::Obj<wire::Assignment>>(bytes, "pair")?
            .read()
            .unwrap_or_default();
        Assignment::from_wire(a)
    }

    /// [`Assignment::from_json`] of a parsed message.
    fn from_wire(a: wire::Assignment) -> Result<Assignment, String> {
        let role = match text(a.role).as_str() {
            "server" => Role::Server,
            "client" => Role::Client,
            other => return Err(format!("mesh: a pair with the role `{other}`")),
        };
        let ip = |k: &str, f: Field<String>| -> Result<String, String> {
            let t = text(f);
            t.parse::<std::net::IpAddr>()
                .map(|_| t.clone())
                .map_err(|_| format!("mesh: a pair whose {k} is not an address"))
        };
        let scenarios = strings(a.scenarios);
        if let Some(bad) = scenarios.iter().find(|n| catalog::find(n).is_none()) {
            return Err(format!(
                "mesh: a pair with the unknown scenario `{}`: run the same lab on every host",
                crate::base::text::shown(bad)
            ));
        }
        let bad_timeout = |t: &dyn std::fmt::Display| {
            Err(format!("mesh: a pair with the QP timeout {t}, not 1 to 31"))
        };
        Ok(Assignment {
            round: a.round.read().unwrap_or(0) as usize,
            role,
            server_ip: ip("server_ip", a.server_ip)?,
            client_ip: ip("client_ip", a.client_ip)?,
            nonce: text(a.nonce),
            scenarios,
            rail: match a.rail.read() {
                None => 0,
                Some(r) if r < RAILS_MAX as u64 => r as usize,
                Some(r) => {
                    return Err(format!(
                        "mesh: a pair on rail {r}, past the last ({})",
                        RAILS_MAX - 1
                    ))
                }
            },
            qp_timeout: match a.qp_timeout {
                Field::Absent => None,
                Field::Read(t @ QP_TIMEOUTS_LOW..=QP_TIMEOUTS_HIGH) => Some(t as u8),
                Field::Read(t) => return bad_timeout(&t),
                Field::Unread(t) => return bad_timeout(&t),
            },
        })
    }
}

/// A verdict's word in JSON.
fn verdict_word(v: &Verdict) -> (&'static str, String) {
    match v {
        Verdict::Pass => ("pass", String::new()),
        Verdict::Fail => ("fail", String::new()),
        Verdict::Skip => ("skip", String::new()),
        Verdict::NotRun(why) => ("not-run", why.clone()),
        Verdict::PortHeld(why) => ("port-held", why.clone()),
    }
}

/// A pair's results as JSON.
pub fn results_json(results: &[ScenarioResult]) -> String {
    to_text(&results_wire(results))
}

/// A pair's results as a message's.
fn results_wire(results: &[ScenarioResult]) -> wire::List<wire::Obj<wire::Verdict>> {
    listed(results.iter().map(|r| {
        let (word, why) = verdict_word(&r.verdict);
        wire::Obj(wire::Verdict {
            scenario: Field::Read(r.scenario.clone()),
            verdict: Field::Read(word.into()),
            why: Field::Read(why),
            detail: Field::Read(r.detail.clone()),
            unstarted: r.unstarted.clone().into(),
            server_log: r.server_log.clone().into(),
            client_log: r.client_log.clone().into(),
        })
    }))
}

/// The most loss counters a `done` may carry.
pub const COUNTERS_MAX: usize = 64;

/// The most measurements a host's own side may list: a pair runs three.
pub const MEASURES_MAX: usize = 8;

/// The longest perftest report kept of one side of a measurement: its
/// `key: value` lines, a few hundred characters.
pub const REPORT_MAX: usize = 4096;

/// A host's `done`: its side's results, the loss counters of its port
/// that rose while the pair ran ([`crate::guest::counters::rose`]), and
/// its own word on its side, which its peer cannot write for it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Done {
    /// The scenarios' results.
    pub results: Vec<ScenarioResult>,
    /// Each counter that rose, and by how much.
    pub counters: Vec<(String, u64)>,
    /// Its own side, its rank left to whoever knows who sent it; `None`
    /// from a host that did not give it.
    pub side: Option<SideReport>,
}

impl Done {
    /// A `done` of a pair whose session did not come about, and why: its
    /// side measured nothing, which it says, so that its peer's word
    /// alone makes no figure that counts beyond their link.
    pub fn failed(why: &str) -> Done {
        Done {
            results: vec![super::failed_session(why)],
            counters: Vec::new(),
            side: Some(SideReport::default()),
        }
    }

    /// The `done` as far as the coordinator keeps it: only the scenarios
    /// the host was `assigned` (and the session's and the probe's own),
    /// each once, their texts cut to size. A host cannot make the report,
    /// the page or the transcripts' files grow past what its pair ran.
    pub fn kept(self, assigned: &[String]) -> Done {
        let known = |name: &str| assigned.iter().any(|a| a == name);
        let mut results: Vec<ScenarioResult> = Vec::new();
        for r in self.results {
            let own = [SESSION, PROBE].contains(&r.scenario.as_str());
            if !(known(&r.scenario) || own) || results.iter().any(|k| k.scenario == r.scenario) {
                continue;
            }
            results.push(ScenarioResult {
                detail: cut(&r.detail, FIELD_MAX),
                // Only a failure can be one of a program that never started.
                unstarted: r
                    .unstarted
                    .as_deref()
                    .filter(|_| r.verdict == Verdict::Fail)
                    .map(|u| cut(u, FIELD_MAX)),
                verdict: match r.verdict {
                    Verdict::NotRun(why) => Verdict::NotRun(cut(&why, FIELD_MAX)),
                    Verdict::PortHeld(why) => Verdict::PortHeld(cut(&why, FIELD_MAX)),
                    v => v,
                },
                server_log: r.server_log.map(bounded),
                client_log: r.client_log.map(bounded),
                ..r
            });
        }
        let side = self.side.map(|mut s| {
            let mut seen = Vec::new();
            s.measures.retain(|m| {
                let first = known(&m.scenario) && !seen.contains(&m.scenario);
                seen.push(m.scenario.clone());
                first
            });
            s
        });
        Done {
            results,
            side,
            ..self
        }
    }
}

/// A host's own side as a message's.
fn side_wire(s: &SideReport) -> wire::Obj<wire::Side> {
    wire::Obj(wire::Side {
        measures: listed(s.measures.iter().map(|m| {
            wire::Obj(wire::Measure {
                scenario: Field::Read(m.scenario.clone()),
                report: Field::Read(m.report.clone()),
                received: listed(m.received.clone()),
                mtu: m.mtu.map(u64::from).into(),
            })
        })),
        elapsed_ms: s.elapsed_ms.into(),
    })
}

/// A list of counters (`[name, rise]` pairs) of a host's message: at most
/// [`COUNTERS_MAX`], names cut; what is not such a pair is left out.
fn counters_of(list: wire::List<(String, u64)>) -> Vec<(String, u64)> {
    elements(list, COUNTERS_MAX)
        .map(|(name, rise)| (cut(&name, NAME_MAX), rise))
        .collect()
}

/// A host's own side from its message: at most [`MEASURES_MAX`]
/// measurements, each report cut at [`REPORT_MAX`] characters; its rank
/// is not its to say.
fn side_of(wire::Obj(s): wire::Obj<wire::Side>) -> SideReport {
    let measure = |wire::Obj(m): wire::Obj<wire::Measure>| {
        Some(Measure {
            scenario: cut(&m.scenario.read()?, NAME_MAX),
            report: cut(&m.report.read()?, REPORT_MAX),
            received: counters_of(m.received),
            mtu: m.mtu.read().and_then(|u| u32::try_from(u).ok()),
        })
    };
    SideReport {
        rank: 0,
        measures: elements(s.measures, MEASURES_MAX)
            .filter_map(measure)
            .collect(),
        elapsed_ms: s.elapsed_ms.read(),
    }
}

/// A `done` as JSON.
pub fn done_json(done: &Done) -> String {
    to_text(&wire::Done {
        results: results_wire(&done.results),
        counters: listed(done.counters.clone()),
        side: done.side.as_ref().map(side_wire).into(),
    })
}

/// A host's `done` from its JSON: an object of results, counters and its
/// own side, or a bare list of results (no counters, no side).
pub fn done_from_json(bytes: &[u8]) -> Result<Done, String> {
    let d = match parse(bytes, "done")?.read() {
        Some(wire::DoneOrList::List(list)) => {
            return Ok(Done {
                results: results_of(Field::Read(list))?,
                ..Done::default()
            })
        }
        Some(wire::DoneOrList::Done(wire::Obj(d))) => d,
        None => return Err("mesh: a done message without results".into()),
    };
    if matches!(d.results, Field::Absent) {
        return Err("mesh: a done message without results".into());
    }
    Ok(Done {
        results: results_of(d.results)?,
        counters: counters_of(d.counters),
        side: d.side.read().map(side_of),
    })
}

/// A pair's results from a host's JSON list.
pub fn results_from_json(bytes: &[u8]) -> Result<Vec<ScenarioResult>, String> {
    results_of(parse(bytes, "done")?)
}

/// The results of a message's list.
fn results_of(list: wire::List<wire::Obj<wire::Verdict>>) -> Result<Vec<ScenarioResult>, String> {
    let list = list
        .read()
        .ok_or("mesh: a done message that is not a list")?;
    Ok(list
        .into_iter()
        .map(|r| {
            let wire::Obj(r) = r.read().unwrap_or_default();
            ScenarioResult {
                scenario: cut(&text(r.scenario), NAME_MAX),
                verdict: match text(r.verdict).as_str() {
                    "pass" => Verdict::Pass,
                    "fail" => Verdict::Fail,
                    "skip" => Verdict::Skip,
                    "port-held" => Verdict::PortHeld(text(r.why)),
                    _ => Verdict::NotRun(text(r.why)),
                },
                detail: text(r.detail),
                server_log: r.server_log.read().map(|t| transcript(&t)),
                client_log: r.client_log.read().map(|t| transcript(&t)),
                unstarted: r.unstarted.read().map(|u| cut(&u, FIELD_MAX)),
            }
        })
        .collect())
}

/// A transcript from a host as the coordinator keeps it: every control
/// and format character escaped but newlines and tabs (a `cat` of the
/// file it is written to must obey no escape sequence of the host's), at
/// most [`TRANSCRIPT_MAX`] bytes once escaped (cut first, so that
/// escaping a long one costs no more than a short one's).
pub fn transcript(t: &str) -> String {
    bounded(crate::base::text::escape_controls(&bounded(t.to_string())))
}

/// At most [`TRANSCRIPT_MAX`] bytes of a transcript, cut at a character.
pub fn bounded(mut t: String) -> String {
    if t.len() > TRANSCRIPT_MAX {
        let mut at = TRANSCRIPT_MAX;
        while !t.is_char_boundary(at) {
            at -= 1;
        }
        t.truncate(at);
        t.push_str("\n[cut]\n");
    }
    t
}

/// The probe's result: what the pair's path finding says, once it ran.
fn probe_result(out: &Dir) -> Option<ScenarioResult> {
    let text = read_in(out, &findings_file("path"))?;
    let findings = findings_of(&text);
    let texts: Vec<&str> = findings.iter().map(|f| f.text.as_str()).collect();
    Some(ScenarioResult {
        scenario: PROBE.into(),
        verdict: if findings.is_empty() {
            Verdict::Pass
        } else {
            Verdict::Fail
        },
        // A probe that never started is said in its finding's own words,
        // whatever else was found on the path (the MTUs).
        unstarted: findings
            .iter()
            .find(|f| f.probe_unstarted.is_some())
            .map(|f| f.text.clone()),
        detail: texts.join("; "),
        server_log: None,
        client_log: None,
    })
}

/// The verdicts of a pair from the peer's result dir `out` (which holds
/// both sides' files): the probe, then each scenario judged as the lab
/// judges it, the serving host's refusals as skipped.
pub fn judge_pair(names: &[String], out: &Dir, addrs: &Addrs) -> Vec<ScenarioResult> {
    let refused = read_refused(out);
    let mut results: Vec<ScenarioResult> = probe_result(out).into_iter().collect();
    let list: Vec<&Scenario> = names
        .iter()
        .filter_map(|n| catalog::find(n))
        .filter(|s| !refused.iter().any(|r| r.scenario == s.name))
        .collect();
    for (s, o) in list.iter().zip(collect(&list, out, out)) {
        let failures = crate::judge::check(s, &o, Some(addrs));
        results.push(ScenarioResult::judged(
            &s.name,
            &failures,
            crate::judge::unstarted(s, &o),
            o.server
                .as_ref()
                .map(|x| transcript(&side_transcript("server", x))),
            o.client
                .as_ref()
                .map(|x| transcript(&side_transcript("client", x))),
        ));
    }
    results.extend(refused.into_iter().map(|r| ScenarioResult {
        scenario: r.scenario,
        verdict: Verdict::Skip,
        detail: r.reason,
        server_log: None,
        client_log: None,
        unstarted: None,
    }));
    results
}

#[cfg(test)]
mod tests;
