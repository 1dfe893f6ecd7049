//! Stand-in mesh hosts on loopback for the coordinator's tests: each joins
//! over the real authenticated channel and answers every pair with a
//! recorded result, or misbehaves as a test asks ([`Behaviour`]); and the
//! strangers that come to the coordinator's port ([`Strangers`]).
#![allow(dead_code)] // Each test binary uses a part of it.

use super::serving;
use rdma_lab::catalog::perf::{SEND_LAT, WRITE_BW, WRITE_BW_BACK};
use rdma_lab::guest::agent::Role;
use rdma_lab::guest::control::{unhex, Control, Secret};
use rdma_lab::guest::mesh::coordinator::{coordinate, CoordConfig};
use rdma_lab::guest::mesh::messages::{assignments_from_json, done_json, Assignment, Done, Hello};
use rdma_lab::model::mesh::{
    Measure, MeshRun, Pattern, PerfLimits, ScenarioResult, SideReport, Verdict,
};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// Who else comes to the coordinator's port.
#[derive(Clone, Copy, PartialEq)]
pub enum Strangers {
    None,
    /// [`hostile_strangers`].
    Hostile,
    /// [`flood`].
    Flood,
}

/// What a stand-in does.
#[derive(Clone, Copy, PartialEq)]
pub enum Behaviour {
    /// Answers every pair: passes, or fails when either host is `bad`.
    Plays,
    /// Goes away when handed its `n`th pair.
    DiesAt(usize),
    /// Joins to say it cannot take part (no RDMA device), then goes.
    CannotRun,
    /// Plays, and its doctor found something.
    Finding,
    /// Answers every pair with a not-run verdict whose reason is 1 MB.
    LongReason,
    /// Answers its first pair with a million-element list (4 MB as sent).
    HugeList,
    /// Another process holds its pairs' port: as a pair's serving host it
    /// says so, and its peers, who cannot reach it, fail their session.
    PortHeld,
    /// Plays, and its second NIC is on a subnet no other host has, not on
    /// the second rail with the others'.
    WrongRail,
    /// Plays, and its port's counters show 37 packets lost during each of
    /// its pairs: every link of it is lossy, though all pass.
    Lossy,
    /// Plays, and its links measure a tenth of the others' bandwidth
    /// (the mesh runs with `--perf`).
    Slow,
    /// Plays, and its links measure a tenth of the others' bandwidth in
    /// the busy rounds only, never alone (`--perf`).
    SlowInRounds,
    /// Plays, and its second NIC's (rxe1's, on 198.51.100.0/24) links
    /// measure a tenth of the others' bandwidth (`--perf --rails`).
    SlowNic,
    /// Plays, and every pair on its second NIC fails (`--rails`).
    BadNic,
    /// Plays, and its transcripts are full of escape sequences (a window
    /// title, a screen clear, a red "ALL PASSED") and direction overrides
    /// ([`ESCAPES`]).
    Escapes,
    /// Plays while every link loses 0.8% of its packets (each host 4 of
    /// its 500), and counts ten times the packets it sent and none of
    /// those it lost: its links' shares look clean, beside every other.
    InflatesSent,
    /// Plays, with `--perf`, and lies about what its links moved: its own
    /// perftest's figures (which its peers' perftest relays into their
    /// reports) and every report it writes itself.
    Lies(Lie),
}

/// How a lying host's figures differ from what its links moved.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Lie {
    /// This many times the messages it completed.
    Times(f64),
    /// Its count of messages negative.
    Negative,
    /// A message size whose product with the count is infinite.
    Infinite,
}

/// What an [`Behaviour::Escapes`] host puts in each of its transcripts.
pub const ESCAPES: &str =
    "\x1b]0;owned\x07\x1b[2J\x1b[31mALL PASSED\x1b[0m \u{202e}txt.exe\u{2066} \
                           \u{9b}31m\u{200b}\r\n";

/// A stand-in's address on 198.51.100.0/24, its second NIC's.
pub fn second_nic(rank: usize) -> String {
    format!("198.51.100.{}", rank % 250 + 1)
}

/// A stand-in's eight rail ports, as a GPU node's: rxe0 on its address's
/// 10.0.0.0/8, rxe1 on 198.51.100.0/24 (or, `wrong`, on 203.0.113.0/24),
/// rxe2 to rxe7 each on a 172.16.N.0/24 of its own.
fn rail_ports(rank: usize, wrong: bool) -> Vec<rdma_lab::model::rails::Port> {
    let port = |dev: String, addr: String, prefix| rdma_lab::model::rails::Port {
        netdev: format!("n{dev}"),
        dev,
        port: 1,
        addr: addr.parse().unwrap(),
        prefix,
        rate: Some("100 Gb/sec (4X EDR)".into()),
    };
    let second = if wrong { "203.0.113" } else { "198.51.100" };
    let host = rank % 250 + 1;
    let mut ports = vec![
        port(
            "rxe0".into(),
            format!("10.{}.{}.1", rank / 256, rank % 256),
            8,
        ),
        port("rxe1".into(), format!("{second}.{host}"), 24),
    ];
    for n in 2..8 {
        ports.push(port(format!("rxe{n}"), format!("172.16.{n}.{host}"), 24));
    }
    ports
}

/// The faults every stand-in plays along with: pairs with the `bad`
/// address fail; pairs served by the `held` address (its port held by
/// another process) fail to open their session on the peer's side.
#[derive(Clone)]
pub struct Faults {
    pub bad: String,
    pub held: Option<String>,
    /// The address of the host whose links measure a tenth of the others'
    /// bandwidth, and whether only in the busy rounds (not alone).
    pub slow: Option<(String, bool)>,
    /// An address whose pairs fail, besides `bad` (a NIC's).
    pub bad_nic: Option<String>,
    /// The address of the host that lies about its figures, and how.
    pub liar: Option<(String, Lie)>,
    /// The packets each host loses of the 500 it is sent in each pair.
    pub usual_lost: u64,
}

/// What the stand-in of a host without a device says, and its doctor.
pub const NO_DEVICE: &str = "no RDMA device on this host (/sys/class/infiniband is empty): load \
                         your HCA's driver";
pub const NO_DEVICE_FINDING: &str = "no RDMA device on this host (/sys/class/infiniband is \
                                 empty): load your HCA's driver, or make a Soft-RoCE device";

/// The doctor's finding of the `Finding` stand-in.
pub const LOW_MEMLOCK: &str = "`ulimit -l` is 64 KiB, below the 1960 KiB that apm registers";

/// Every (round, server, client) the stand-ins were handed, as the
/// clients saw them.
pub type Seen = Arc<Mutex<Vec<(usize, String, String, Instant, Instant)>>>;

/// A free loopback port for the coordinator.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The recorded result of one pair: the RC probe and rc_example, failed
/// when `bad` is one of the pair's addresses.
pub fn recorded(a: &Assignment, faults: &Faults) -> Vec<ScenarioResult> {
    let bad = &faults.bad;
    let nic = faults.bad_nic.as_ref();
    let verdict = if a.server_ip == *bad
        || a.client_ip == *bad
        || nic == Some(&a.server_ip)
        || nic == Some(&a.client_ip)
    {
        Verdict::Fail
    } else {
        Verdict::Pass
    };
    let result = |s: &str, log: String| ScenarioResult {
        scenario: s.to_string(),
        verdict: verdict.clone(),
        detail: String::new(),
        server_log: Some("=== server (exit 0) ===\n".into()),
        client_log: Some(format!("=== client (exit 0) ===\n{log}")),
        unstarted: None,
    };
    let has = |s: &str| a.scenarios.iter().any(|n| n == s);
    let mut results: Vec<ScenarioResult> = ["doctor_rc_probe", "rc_example"]
        .iter()
        .filter(|s| has("rc_example") || **s == "doctor_rc_probe" && !has(WRITE_BW))
        .map(|s| result(s, String::new()))
        .collect();
    // perftest's figures: each direction's bandwidth ([`report`]), 2 usec.
    if has(WRITE_BW) {
        results.push(result(WRITE_BW, report(a, faults, &a.client_ip)));
    }
    if has(WRITE_BW_BACK) {
        results.push(result(WRITE_BW_BACK, report(a, faults, &a.server_ip)));
    }
    if has(SEND_LAT) {
        results.push(result(SEND_LAT, "t_typical: 2.00,\n".into()));
    }
    results
}

/// The messages a direction of pair `a` completed in its 2 s, 1 MB each:
/// 2000 (8 Gb/s), or a tenth on the slow host's links (in the busy rounds
/// only, when it is so).
pub fn messages(a: &Assignment, faults: &Faults) -> u64 {
    let alone = !a.scenarios.iter().any(|n| n == "rc_example");
    let slow = faults.slow.as_ref().is_some_and(|(ip, rounds_only)| {
        (a.server_ip == *ip || a.client_ip == *ip) && !(alone && *rounds_only)
    });
    if slow {
        200
    } else {
        2000
    }
}

/// The report of the direction of pair `a` that `sender` writes, as the
/// client's transcript has it: the messages completed in its 2 s, 1 MB
/// each, and perftest's own figure at 0, as an emulated CPU's clock
/// leaves it (the bandwidth is read from the count). A liar's figures
/// where it sent them (its peer's perftest relays them) or where it
/// writes the transcript itself.
pub fn report(a: &Assignment, faults: &Faults, sender: &str) -> String {
    report_by(a, faults, sender, &a.client_ip)
}

/// [`report`] as the host at `writer` writes it.
fn report_by(a: &Assignment, faults: &Faults, sender: &str, writer: &str) -> String {
    let n = messages(a, faults) as f64;
    let lie = faults
        .liar
        .as_ref()
        .filter(|(ip, _)| ip == sender || ip == writer)
        .map(|(_, lie)| *lie);
    let (size, n) = match lie {
        None => (1e6, n),
        Some(Lie::Times(f)) => (1e6, n * f),
        Some(Lie::Negative) => (1e6, -n),
        Some(Lie::Infinite) => (1e308, n),
    };
    format!("MsgSize: {size},\nn_iterations: {n},\nBW_average: 0.000000,\n")
}

/// A stand-in's own side of pair `a`: each measurement's report as its
/// side's perftest writes it (its own figure where it sends, its copy of
/// its peer's where it receives) and the bytes its port received
/// meanwhile (a liar counts what it claims).
pub fn own_side(a: &Assignment, faults: &Faults) -> SideReport {
    let me = if a.role == Role::Server {
        &a.server_ip
    } else {
        &a.client_ip
    };
    let times = match faults.liar.as_ref() {
        Some((ip, Lie::Times(f))) if ip == me => *f,
        _ => 1.0,
    };
    let has = |s: &str| a.scenarios.iter().any(|n| n == s);
    let mut measures = Vec::new();
    for (scenario, sender) in [(WRITE_BW, &a.client_ip), (WRITE_BW_BACK, &a.server_ip)] {
        if has(scenario) {
            let bytes = if sender == me {
                4000.0
            } else {
                messages(a, faults) as f64 * 1e6 * times
            };
            measures.push(Measure {
                scenario: scenario.into(),
                report: report_by(a, faults, sender, me),
                received: vec![("port_rcv_data".into(), (bytes / 4.0) as u64)],
                mtu: Some(4096),
            });
        }
    }
    if has(SEND_LAT) {
        measures.push(Measure {
            scenario: SEND_LAT.into(),
            report: "t_typical: 2.00,\n".into(),
            ..Measure::default()
        });
    }
    SideReport {
        rank: 0,
        measures,
        elapsed_ms: Some(1000),
    }
}

/// One stand-in host: join as `rank`, then answer until `bye`.
pub fn stand_in(
    rank: usize,
    addr: SocketAddr,
    secret: Secret,
    how: Behaviour,
    faults: Faults,
    seen: Seen,
    hold: Duration,
) {
    // As a real host does: connect and prove the secret, again and again
    // while the coordinator's handshakes are all under way.
    let mut c = (0..600)
        .find_map(|_| {
            let c = TcpStream::connect(addr).ok().and_then(|s| {
                let mut c = Control::new(s).ok()?;
                c.authenticate_client(&secret, Duration::from_secs(30))
                    .ok()?;
                Some(c)
            });
            if c.is_none() {
                thread::sleep(Duration::from_millis(200));
            }
            c
        })
        .expect("the coordinator lets this host in");
    let hello = Hello {
        rank,
        name: format!("node{rank:03}"),
        ip: format!("10.{}.{}.1", rank / 256, rank % 256),
        netdev: "eth0".into(),
        mtu: Some(1500),
        gid_type: Some("RoCE v2".into()),
        subnet: Some("10.0.0.0/8".into()),
        findings: match how {
            Behaviour::Finding => vec![LOW_MEMLOCK.into()],
            Behaviour::CannotRun => vec![NO_DEVICE_FINDING.into()],
            _ => Vec::new(),
        },
        cannot_run: (how == Behaviour::CannotRun).then(|| NO_DEVICE.into()),
        ports: rail_ports(rank, how == Behaviour::WrongRail),
    };
    c.send_blob("hello", hello.to_json().as_bytes()).unwrap();
    let wait = Duration::from_secs(120);
    if how == Behaviour::CannotRun {
        // Let go at once, without a plan.
        assert_eq!(c.recv("bye", wait).unwrap(), "bye");
        return;
    }
    let _plan = c.expect_blob("plan", wait).unwrap();
    let mut pairs = 0;
    loop {
        let Ok(line) = c.recv_max("a round", wait, 1 << 20) else {
            return;
        };
        let (word, rest) = line.split_once(' ').unwrap_or((line.as_str(), ""));
        match word {
            "bye" => return,
            "idle" => c.send("idle").unwrap(),
            "pair" => {
                pairs += 1;
                if how == Behaviour::DiesAt(pairs) {
                    return;
                }
                if how == Behaviour::HugeList {
                    let list = format!("[{}0]", "0,".repeat(1_000_000));
                    c.send_blob("done", list.as_bytes()).unwrap();
                    continue;
                }
                // One `done` a rail, in the order handed out.
                for a in assignments_from_json(&unhex(rest).unwrap()).unwrap() {
                    let done = answer(rank, how, &a, &faults, &seen, hold);
                    c.send_blob("done", done_json(&done).as_bytes()).unwrap();
                }
            }
            other => panic!("rank {rank}: unexpected `{other}`"),
        }
    }
}

/// A stand-in's `done` for one rail's pair `a`.
fn answer(
    rank: usize,
    how: Behaviour,
    a: &Assignment,
    faults: &Faults,
    seen: &Seen,
    hold: Duration,
) -> Done {
    let results = if how == Behaviour::PortHeld && a.role == Role::Server {
        vec![ScenarioResult {
            scenario: "session".into(),
            verdict: Verdict::PortHeld(format!(
                "port 7472 on node{rank:03} is in use by another process"
            )),
            detail: String::new(),
            server_log: None,
            client_log: None,
            unstarted: None,
        }]
    } else if faults.held.as_ref() == Some(&a.server_ip) && a.role == Role::Client {
        vec![ScenarioResult {
            scenario: "session".into(),
            verdict: Verdict::Fail,
            detail: "no session with the serving host".into(),
            server_log: None,
            client_log: None,
            unstarted: None,
        }]
    } else if how == Behaviour::LongReason {
        vec![ScenarioResult {
            scenario: "rc_example".into(),
            verdict: Verdict::NotRun("x".repeat(1 << 20)),
            detail: String::new(),
            server_log: None,
            client_log: None,
            unstarted: None,
        }]
    } else if a.role == Role::Client {
        // The pair's own time, as a real pair takes some; the schedule's
        // record is rail 0's.
        let began = Instant::now();
        thread::sleep(hold);
        if a.rail == 0 {
            seen.lock().unwrap().push((
                a.round,
                a.server_ip.clone(),
                a.client_ip.clone(),
                began,
                Instant::now(),
            ));
        }
        let mut results = recorded(a, faults);
        if how == Behaviour::Escapes {
            for r in &mut results {
                for log in [&mut r.server_log, &mut r.client_log] {
                    *log = Some(format!("{ESCAPES}{}", log.take().unwrap_or_default()));
                }
            }
        }
        results
    } else {
        Vec::new()
    };
    let mut counters = vec![
        ("sent_pkts".to_string(), 500),
        ("rcvd_pkts".to_string(), 500),
    ];
    if faults.usual_lost > 0 {
        counters.push(("rcvd_seq_err".to_string(), faults.usual_lost));
    }
    match how {
        Behaviour::Lossy => counters.push(("rcvd_seq_err".to_string(), 37)),
        Behaviour::InflatesSent => {
            counters = vec![
                ("sent_pkts".to_string(), 5000),
                ("rcvd_pkts".to_string(), 500),
            ];
        }
        _ => {}
    }
    Done {
        results,
        counters,
        side: Some(own_side(a, faults)),
    }
}

/// A fresh dir for a run's results, in memory where the machine has
/// `/dev/shm`: the 256-host runs write 130560 transcript files, which a
/// slow disk took a minute to create and another to remove, most of the
/// host tests' time.
fn run_dir() -> tempfile::TempDir {
    let shm = std::path::Path::new("/dev/shm");
    shm.is_dir()
        .then(|| tempfile::tempdir_in(shm).ok())
        .flatten()
        .unwrap_or_else(|| tempfile::tempdir().unwrap())
}

/// A mesh run of `n` stand-ins (`absent` never start), each pair on every
/// rail too when `rails` (`--rails`): the run, what the stand-ins saw, its
/// wall time and the time until the transcripts were being written (the
/// coordinating alone).
pub fn mesh(
    n: usize,
    absent: &[usize],
    odd: Option<(usize, Behaviour)>,
    bad: usize,
    hold: Duration,
    strangers: Strangers,
    rails: bool,
) -> (MeshRun, Seen, (Duration, Duration)) {
    let port = free_port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let secret = Secret::generate().unwrap();
    let seen: Seen = Arc::default();
    let out = run_dir();
    let cfg = CoordConfig {
        listen: addr,
        size: n,
        // The launcher's names, as Slurm or --ssh give them, for the small
        // meshes (a name that does not resolve here costs the resolver's
        // timeout once); the 256-host one is a launcher's by flags.
        names: if n <= 16 {
            (0..n).map(|r| format!("node{r:03}")).collect()
        } else {
            Vec::new()
        },
        pattern: Pattern::AllPairs,
        scenarios: vec!["rc_example".into()],
        wait_secs: if absent.is_empty() { 120 } else { 5 },
        secret: secret.clone(),
        out: rdma_lab::base::rundir::Dir::open(out.path()).unwrap(),
        mcast_all: false,
        serial: false,
        rails,
        allow: Vec::new(),
        perf: matches!(
            odd,
            Some((
                _,
                Behaviour::Slow | Behaviour::SlowInRounds | Behaviour::SlowNic | Behaviour::Lies(_)
            ))
        )
        .then(PerfLimits::default),
    };
    let bad_ip = format!("10.{}.{}.1", bad / 256, bad % 256);
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let gate = Gate::default();
    let hostile: Vec<_> = match strangers {
        Strangers::None => Vec::new(),
        Strangers::Hostile => hostile_strangers(addr, &gate),
        Strangers::Flood => vec![flood(port, stop.clone())],
    };
    let hosts: Vec<_> = (0..n)
        .filter(|r| !absent.contains(r))
        .map(|r| {
            let how = match odd {
                Some((who, how)) if who == r => how,
                _ => Behaviour::Plays,
            };
            let (secret, seen) = (secret.clone(), seen.clone());
            let faults = Faults {
                bad: bad_ip.clone(),
                held: match odd {
                    Some((k, Behaviour::PortHeld)) => Some(format!("10.{}.{}.1", k / 256, k % 256)),
                    _ => None,
                },
                slow: match odd {
                    Some((k, Behaviour::Slow)) => {
                        Some((format!("10.{}.{}.1", k / 256, k % 256), false))
                    }
                    Some((k, Behaviour::SlowInRounds)) => {
                        Some((format!("10.{}.{}.1", k / 256, k % 256), true))
                    }
                    Some((k, Behaviour::SlowNic)) => Some((second_nic(k), false)),
                    _ => None,
                },
                bad_nic: match odd {
                    Some((k, Behaviour::BadNic)) => Some(second_nic(k)),
                    _ => None,
                },
                liar: match odd {
                    Some((k, Behaviour::Lies(lie))) => {
                        Some((format!("10.{}.{}.1", k / 256, k % 256), lie))
                    }
                    _ => None,
                },
                usual_lost: if matches!(odd, Some((_, Behaviour::InflatesSent))) {
                    4
                } else {
                    0
                },
            };
            let (gate, wait) = (gate.clone(), strangers == Strangers::Hostile);
            thread::spawn(move || {
                if wait {
                    gate.wait_for(HOSTILE);
                }
                stand_in(r, addr, secret, how, faults, seen, hold)
            })
        })
        .collect();
    let t0 = Instant::now();
    let mut coordinated = None;
    let run = coordinate(&cfg, &mut |l| {
        if l.starts_with("mesh: writing") {
            coordinated = Some(t0.elapsed());
        }
        if std::env::var_os("MESH_SAY").is_some() {
            eprintln!("{:.2} {l}", t0.elapsed().as_secs_f64());
        }
    })
    .expect("the coordinator runs");
    let took = (t0.elapsed(), coordinated.unwrap_or_default());
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for h in hosts.into_iter().chain(hostile) {
        h.join().unwrap();
    }
    (run, seen, took)
}

/// A mesh run of `n` stand-ins, all joined, no pair failing by address and
/// no stranger, in which host `who` behaves as `how`.
pub fn mesh_with_one(
    n: usize,
    who: usize,
    how: Behaviour,
) -> (MeshRun, Seen, (Duration, Duration)) {
    mesh(
        n,
        &[],
        Some((who, how)),
        99,
        Duration::ZERO,
        Strangers::None,
        false,
    )
}

/// How many strangers have connected, for the hosts to wait on: the
/// strangers are at the port before the hosts come, however late a loaded
/// machine starts their threads (else a run could end before they came).
#[derive(Clone, Default)]
pub struct Gate(Arc<(Mutex<usize>, std::sync::Condvar)>);

impl Gate {
    /// One more stranger has connected.
    pub fn arrived(&self) {
        let (n, cv) = &*self.0;
        *n.lock().unwrap() += 1;
        cv.notify_all();
    }

    /// Waits until `count` strangers have connected, for at most 60 s.
    pub fn wait_for(&self, count: usize) {
        let (n, cv) = &*self.0;
        let guard = n.lock().unwrap();
        let _ = cv
            .wait_timeout_while(guard, Duration::from_secs(60), |n| *n < count)
            .unwrap();
    }
}

/// The number of strangers [`hostile_strangers`] sends.
pub const HOSTILE: usize = 5;

/// Strangers at the coordinator's port before the hosts come: one with a
/// wrong secret, one that sends a megabyte without a newline, one that
/// trickles a byte a second, one that says nothing, one that sends shell
/// metacharacters as its hello. None holds the secret.
pub fn hostile_strangers(addr: SocketAddr, gate: &Gate) -> Vec<thread::JoinHandle<()>> {
    use std::io::Write as _;
    // Until the coordinator listens: on loaded cores that took more than
    // the 5 s these tries once allowed.
    let connect = move || {
        (0..1200).find_map(|_| {
            TcpStream::connect(addr).ok().or_else(|| {
                thread::sleep(Duration::from_millis(50));
                None
            })
        })
    };
    let g = gate.clone();
    let mut v = vec![thread::spawn(move || {
        let s = connect().expect("the coordinator listens within 60 s");
        g.arrived();
        let mut c = Control::new(s).unwrap();
        let wrong = Secret::generate().unwrap();
        assert!(c
            .authenticate_client(&wrong, Duration::from_secs(30))
            .is_err());
    })];
    let raw: [fn(&mut TcpStream); 4] = [
        |s| {
            let _ = s.write_all(&vec![b'x'; 1 << 20]);
        },
        |s| {
            for _ in 0..15 {
                if s.write_all(b"h").is_err() {
                    return;
                }
                thread::sleep(Duration::from_secs(1));
            }
        },
        |_| thread::sleep(Duration::from_secs(15)),
        |s| {
            let _ = s.write_all(b"hello rdma-examples lab 2 $(reboot); `id` | rm -rf /\n");
            thread::sleep(Duration::from_secs(2));
        },
    ];
    for act in raw {
        let g = gate.clone();
        v.push(thread::spawn(move || {
            let mut s = connect().expect("the coordinator listens within 60 s");
            g.arrived();
            act(&mut s);
        }));
    }
    v
}

/// A flood from another host (127.0.0.2) until `stop`: eight threads
/// open new connections as fast as they can, each holding its last 300
/// open and silent.
pub fn flood(port: u16, stop: Arc<std::sync::atomic::AtomicBool>) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let stop = stop.clone();
                thread::spawn(move || {
                    let from = std::net::Ipv4Addr::new(127, 0, 0, 2);
                    let mut held = std::collections::VecDeque::new();
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        match serving::try_connect_from(from, port) {
                            Some(s) => held.push_back(s),
                            None => thread::sleep(Duration::from_millis(10)),
                        }
                        if held.len() > 300 {
                            held.pop_front();
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            let _ = t.join();
        }
    })
}

impl Faults {
    /// No fault: every pair passes.
    pub fn none() -> Faults {
        Faults {
            bad: String::new(),
            held: None,
            slow: None,
            bad_nic: None,
            liar: None,
            usual_lost: 0,
        }
    }
}

/// The stand-ins of `ranks`, joining the coordinator at `addr` with
/// `secret`, each behaving as `how` says of its rank, no fault anywhere,
/// each holding its pairs `hold`.
pub fn stand_ins(
    addr: SocketAddr,
    secret: &Secret,
    ranks: std::ops::RangeInclusive<usize>,
    how: impl Fn(usize) -> Behaviour,
    hold: Duration,
) -> Vec<thread::JoinHandle<()>> {
    ranks
        .map(|r| {
            let (secret, how) = (secret.clone(), how(r));
            thread::spawn(move || {
                stand_in(r, addr, secret, how, Faults::none(), Seen::default(), hold)
            })
        })
        .collect()
}
