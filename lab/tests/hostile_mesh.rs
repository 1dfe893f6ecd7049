//! A mesh against hostile parties that hold its secret or stand at its
//! ports, on 127.0.0.1 and 127.0.0.2 only: a host whose transcripts are
//! full of escape sequences, against the coordinator; a coordinator that
//! hands out a QP timeout no QP has, and a flood of a pair's session
//! port, against the real binary as a mesh host.

mod serving;
mod standins;

use rdma_lab::base::rundir::Dir;
use rdma_lab::guest::control::{hex, Control, Secret};
use rdma_lab::guest::mesh::coordinator::{coordinate, CoordConfig};
use rdma_lab::guest::mesh::messages::{done_from_json, Plan};
use rdma_lab::model::mesh::{Pattern, Verdict};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// Every regular file under `dir`.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let t = e.file_type().unwrap();
            if t.is_dir() {
                todo.push(e.path());
            } else if t.is_file() {
                found.push(e.path());
            }
        }
    }
    found
}

/// What in `bytes` a terminal could obey or that reads other than it is: a
/// control character but a newline or a tab, a format character (U+202E),
/// or a byte that is no UTF-8 (a lone 0x9b is an 8-bit CSI).
fn raw_in(bytes: &[u8]) -> Option<String> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Some("a byte that is not UTF-8".into());
    };
    text.chars()
        .find(|&c| {
            (c.is_control() && c != '\n' && c != '\t') || rdma_lab::base::text::is_invisible(c)
        })
        .map(|c| format!("{c:?}"))
}

/// The files under `dir` that hold a raw byte ([`raw_in`]), with it.
fn raw_files(dir: &Path) -> Vec<(PathBuf, String)> {
    files_under(dir)
        .into_iter()
        .filter_map(|f| Some((f.clone(), raw_in(&std::fs::read(&f).ok()?)?)))
        .collect()
}

/// A host (rank 1 of three, with `--rails`) whose transcripts carry a
/// window title, a screen clear, a red "ALL PASSED" and direction
/// overrides ([`standins::ESCAPES`]): no file under the result root holds
/// a raw byte of them, on any rail, and what the reports print of them is
/// escaped too (before, each transcript file held them raw, and a `cat`
/// of it obeyed them).
#[test]
fn a_hosts_escape_sequences_reach_no_file_under_the_result_root() {
    let port = standins::free_port();
    let addr: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let secret = Secret::generate().unwrap();
    let out = tempfile::tempdir().unwrap();
    let cfg = CoordConfig {
        listen: addr,
        size: 3,
        names: Vec::new(),
        pattern: Pattern::AllPairs,
        scenarios: vec!["rc_example".into()],
        wait_secs: 30,
        secret: secret.clone(),
        out: Dir::open(out.path()).unwrap(),
        mcast_all: false,
        serial: false,
        rails: true,
        allow: Vec::new(),
        perf: None,
    };
    let how = |r| match r {
        1 => standins::Behaviour::Escapes,
        _ => standins::Behaviour::Plays,
    };
    let hosts = standins::stand_ins(addr, &secret, 0..=2, how, Duration::ZERO);
    let run = coordinate(&cfg, &mut |_| {}).unwrap();
    for h in hosts {
        h.join().unwrap();
    }
    assert_eq!(raw_files(out.path()), Vec::new());
    // Its transcripts were written, escaped, on every rail it played.
    let escaped: Vec<PathBuf> = files_under(out.path())
        .into_iter()
        .filter(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .contains("\\x1b]0;owned\\x07")
        })
        .collect();
    assert!(
        escaped
            .iter()
            .any(|f| f.to_string_lossy().contains("/rail")),
        "{escaped:?}"
    );
    assert!(
        escaped
            .iter()
            .any(|f| !f.to_string_lossy().contains("/rail")),
        "{escaped:?}"
    );
    let logs = run.cells.iter().flat_map(|c| &c.results);
    for log in logs.flat_map(|r| [&r.server_log, &r.client_log]).flatten() {
        assert_eq!(raw_in(log.as_bytes()), None, "{log:?}");
    }
}

/// The test's own coordinator on 127.0.0.1 and the real binary as rank 1
/// of two, joined: the session, the process, its result root and the
/// coordinator's port (the pairs meet on the next).
struct RealHost {
    c: Control,
    child: Child,
    out: tempfile::TempDir,
    port: u16,
    secret: Secret,
}

impl RealHost {
    /// Starts the rank, takes its hello and sends it a plan of one round.
    fn join() -> RealHost {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let secret = Secret::generate().unwrap();
        let out = tempfile::tempdir().unwrap();
        let key = serving::key_file(out.path(), secret.text());
        let child = serving::mesh_rank1(port)
            .args([
                "--ip",
                "127.0.0.1",
                "--dev",
                "rxe0",
                "--bin-dir",
                "/nonexistent",
            ])
            .args(["--wait", "30", "--secret-file"])
            .arg(&key)
            .arg("--out")
            .arg(out.path().join("out"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        l.set_nonblocking(true).unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        let stream = loop {
            if let Ok((s, _)) = l.accept() {
                s.set_nonblocking(false).unwrap();
                break s;
            }
            assert!(Instant::now() < deadline, "the rank did not come");
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut c = Control::new(stream).unwrap();
        c.authenticate_server(&secret).unwrap();
        c.expect_blob("hello", Duration::from_secs(60)).unwrap();
        let plan = Plan {
            round_secs: 60,
            rounds: 1,
        };
        c.send_blob("plan", plan.to_json().as_bytes()).unwrap();
        RealHost {
            c,
            child,
            out,
            port,
            secret,
        }
    }

    /// Hands it `assignment` (JSON) as a round's pair: its `done`.
    fn pair(&mut self, assignment: &serde_json::Value) -> rdma_lab::guest::mesh::messages::Done {
        let json = assignment.to_string();
        self.c
            .send(&format!("pair {}", hex(json.as_bytes())))
            .unwrap();
        let done = self
            .c
            .expect_blob("done", Duration::from_secs(120))
            .unwrap();
        done_from_json(&done).unwrap()
    }

    /// Lets it go: it ends, with its stderr.
    fn bye(mut self) -> (Option<i32>, String) {
        self.c.send("bye").unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.child.try_wait().unwrap().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let out = self.child.wait_with_output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

/// A pair for the host on 127.0.0.1, serving, with `qp_timeout`.
fn serving_pair(nonce: &str, qp_timeout: serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "round": 0, "role": "server", "server_ip": "127.0.0.1", "client_ip": "127.0.0.1",
        "nonce": nonce, "scenarios": [rdma_lab::catalog::perf::WRITE_BW], "rail": 0,
        "qp_timeout": qp_timeout,
    })
}

/// A coordinator that holds the secret hands the host pairs whose QP
/// timeout no QP has (0, past 31, negative, a fraction, a string, a
/// number past any integer): each is that pair's failure, said in one
/// line, nothing runs and nothing listens for it, and the host goes on to
/// the next and leaves at `bye`.
#[test]
fn a_qp_timeout_out_of_range_from_a_coordinator_is_refused() {
    let mut h = RealHost::join();
    let bad = serde_json::json!([0, 32, 99, 255, -1, 7.5, "7", 1e30]);
    for t in bad.as_array().unwrap() {
        let done = h.pair(&serving_pair("ab", t.clone()));
        assert_eq!(done.results.len(), 1, "{t}: {done:?}");
        let r = &done.results[0];
        assert_eq!(r.verdict, Verdict::Fail, "{t}: {r:?}");
        assert!(
            r.detail.contains("QP timeout") && r.detail.contains("not 1 to 31"),
            "{t}: {r:?}"
        );
        assert!(!r.detail.contains('\n'));
        let pairs_port = ("127.0.0.1", h.port + 1);
        assert!(
            std::net::TcpStream::connect(pairs_port).is_err(),
            "{t}: it listens"
        );
    }
    let ran: Vec<PathBuf> = files_under(h.out.path())
        .into_iter()
        .filter(|f| f.to_string_lossy().contains("/round"))
        .collect();
    assert_eq!(ran, Vec::<PathBuf>::new());
    let (code, err) = h.bye();
    assert_eq!(code, Some(0), "{err}");
}

/// Opens the session of a pair as its peer, from 127.0.0.1, at `port`,
/// trying again until `secs` have passed: when it opened, if it did.
fn open_pair_session(port: u16, secret: &Secret, secs: u64) -> Option<Instant> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < deadline {
        if let Ok(s) = std::net::TcpStream::connect(("127.0.0.1", port)) {
            let mut c = Control::new(s).unwrap();
            if c.authenticate_client(secret, Duration::from_secs(5))
                .is_ok()
            {
                return Some(Instant::now());
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

/// A flood of new connections from another host (127.0.0.2) at the port
/// a pair's serving host listens on (the mesh port plus one, plus the
/// rail: `guest::mesh`'s tests check that a rail's pair has its own and
/// lets in its peer's address only), each held open and silent: the
/// pair's peer still opens its session, within seconds.
#[test]
fn a_flood_of_a_pairs_session_port_keeps_no_host_out() {
    let mut h = RealHost::join();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flood = standins::flood(h.port + 1, stop.clone());
    let json = serving_pair("cd", serde_json::Value::Null).to_string();
    h.c.send(&format!("pair {}", hex(json.as_bytes()))).unwrap();
    let started = Instant::now();
    let opened = open_pair_session(h.port + 1, &h.secret.derive("pair cd"), 60);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    flood.join().unwrap();
    let opened = opened.expect("the peer opened the pair's session");
    assert!(
        opened - started < Duration::from_secs(30),
        "{:?}",
        opened - started
    );
    h.c.expect_blob("done", Duration::from_secs(120)).unwrap();
    let (code, err) = h.bye();
    assert_eq!(code, Some(0), "{err}");
}
