//! Hostile stand-ins against a real serving agent on 127.0.0.1, no VM and
//! no RDMA device: each attacks the control channel, and the serving side
//! must run nothing, write nothing outside its private result dir, and say
//! what happened in one line within the stated bound.

// The lab's functions stay short (threshold in clippy.toml); CI denies it.
#![warn(clippy::too_many_lines)]

mod serving;

use rdma_lab::guest::agent::Role;
use rdma_lab::guest::control::{Control, Secret, AUTH_FAILED, HANDSHAKE_SECS, HELLO};
use serving::*;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

#[test]
fn a_stranger_without_the_secret_runs_nothing() {
    let a = Serving::start(3);
    // The old protocol: a hello, then the names, with no proof at all.
    let mut s = a.connect();
    s.write_all(b"hello rdma-examples lab 1\nscenarios 646f63746f725f6e6f5f72646d615f75636d\n")
        .unwrap();
    let answer = read_all(&mut s);
    assert!(!answer.contains("accepted"), "{answer}");
    let (code, log, a) = a.finish(10);
    assert_eq!(code, 1, "{log}");
    assert_eq!(
        lines_with(&log, &format!("not `{HELLO} NONCE`")).len(),
        1,
        "{log}"
    );
    assert!(a.ran().is_empty(), "{:?}", a.ran());
}

#[test]
fn a_wrong_secret_is_told_in_one_line_and_the_host_names_the_peer() {
    let a = Serving::start(3);
    let mut c = Control::new(a.connect()).unwrap();
    let wrong = Secret::generate().unwrap();
    let e = c
        .authenticate_client(&wrong, Duration::from_secs(5))
        .unwrap_err()
        .to_string();
    assert!(e.contains(AUTH_FAILED) && !e.contains('\n'), "{e}");
    drop(c);
    let (code, log, a) = a.finish(10);
    assert_eq!(code, 1);
    let failed = lines_with(&log, AUTH_FAILED);
    assert_eq!(failed.len(), 1, "{log}");
    assert!(failed[0].contains("the peer at 127.0.0.1:"), "{log}");
    assert!(a.ran().is_empty());
}

/// The serving host's challenge to `hello`: its nonce and proof.
fn challenge(s: &mut TcpStream, hello: &str) -> String {
    s.write_all(format!("{hello}\n").as_bytes()).unwrap();
    let mut line = Vec::new();
    let mut b = [0u8];
    while s.read(&mut b).unwrap() == 1 && b[0] != b'\n' {
        line.push(b[0]);
    }
    String::from_utf8(line).unwrap()
}

#[test]
fn a_replayed_handshake_is_refused() {
    use hmac::{Hmac, Mac};
    // A legitimate handshake, recorded as an eavesdropper would.
    let first = Serving::start(3);
    let mut s = first.connect();
    let hello = format!("{} {}", rdma_lab::guest::control::HELLO, "11".repeat(32));
    let ch = challenge(&mut s, &hello);
    let ns = rdma_lab::guest::control::unhex(ch.split(' ').nth(1).unwrap()).unwrap();
    let mut m = Hmac::<sha2::Sha256>::new_from_slice(SECRET.as_bytes()).unwrap();
    m.update(b"rdma-examples lab client");
    m.update(&[0x11; 32]);
    m.update(&ns);
    let proof = format!(
        "proof {}\n",
        rdma_lab::guest::control::hex(&m.finalize().into_bytes())
    );
    s.write_all(proof.as_bytes()).unwrap();
    let mut answer = [0u8; 80];
    let n = s.read(&mut answer).unwrap();
    assert!(
        String::from_utf8_lossy(&answer[..n]).contains("authenticated"),
        "the recorded handshake was a good one"
    );
    drop(s);
    // The same lines, played to a host with the same secret: its nonce is
    // new, so the old proof is not a proof.
    let second = Serving::start(3);
    let mut s = second.connect();
    let ch2 = challenge(&mut s, &hello);
    assert_ne!(ch, ch2);
    s.write_all(proof.as_bytes()).unwrap();
    assert_eq!(read_all(&mut s).trim(), AUTH_FAILED);
    let (code, log, second) = second.finish(10);
    assert_eq!(code, 1);
    assert_eq!(lines_with(&log, AUTH_FAILED).len(), 1, "{log}");
    assert!(second.ran().is_empty());
}

#[test]
fn a_forged_line_in_the_middle_of_a_session_ends_it() {
    let a = Serving::start(5);
    let c = a.session();
    // A stranger on the path injects a scenario name, with a made-up MAC.
    let forged = format!(
        "{} scenarios {}\n",
        "ab".repeat(32),
        rdma_lab::guest::control::hex(b"srq")
    );
    c.stream().write_all(forged.as_bytes()).unwrap();
    let (code, log, a) = a.finish(10);
    assert_eq!(code, 1);
    assert_eq!(lines_with(&log, "bad MAC").len(), 1, "{log}");
    assert!(a.ran().is_empty());
}

#[test]
fn an_authenticated_peer_cannot_make_a_real_host_change_itself() {
    let a = Serving::start(5);
    let mut c = a.session();
    let asked = "doctor_no_rdma_ucm mckey_device_removed lab_peer_never_comes";
    c.send_blob("scenarios", asked.as_bytes()).unwrap();
    let refused = c.expect_blob("accepted", Duration::from_secs(10)).unwrap();
    let refused: Vec<rdma_lab::model::Skip> = serde_json::from_slice(&refused).unwrap();
    for name in asked.split(' ') {
        let skip = refused
            .iter()
            .find(|s| s.scenario == name)
            .unwrap_or_else(|| panic!("{name} not refused: {refused:?}"));
        assert!(
            skip.reason
                .starts_with("the serving host refused it: VMs only"),
            "{skip:?}"
        );
    }
    drop(c);
    let (code, log, a) = a.finish(60);
    assert_eq!(code, 1, "the session ends when the peer goes:\n{log}");
    assert_eq!(
        lines_with(&log, "the serving host refused it").len(),
        3,
        "{log}"
    );
    assert!(a.ran().is_empty(), "{:?}", a.ran());
}

#[test]
fn the_doctors_serving_host_runs_its_probe_only() {
    let a = Serving::start_with(5, |c| c.doctor_only = true);
    let mut c = a.session();
    c.send_blob("scenarios", b"rc_example").unwrap();
    let refused = c.expect_blob("accepted", Duration::from_secs(10)).unwrap();
    let refused: Vec<rdma_lab::model::Skip> = serde_json::from_slice(&refused).unwrap();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0].scenario, "rc_example");
    assert!(
        refused[0]
            .reason
            .starts_with("the serving host refused it: the doctor's session runs its probe only"),
        "{refused:?}"
    );
}

/// A peer that trickles its hello is cut off at the handshake's bound
/// while the host goes on waiting for its real peer.
#[test]
fn a_peer_that_trickles_is_cut_off_at_the_handshake_bound() {
    let wait = HANDSHAKE_SECS + 5;
    let a = Serving::start(wait as u32);
    let mut s = a.connect();
    let t = std::thread::spawn(move || {
        for _ in 0..200 {
            if s.write_all(b"h").is_err() {
                break;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    });
    let (code, log, _) = a.finish(wait + 10);
    t.join().unwrap();
    assert_eq!(code, 1);
    let cut = lines_with(&log, &format!("within {HANDSHAKE_SECS} s"));
    assert_eq!(cut.len(), 1, "{log}");
    // The trickle would go on for 40 s; the bound cuts it at 10 (with room
    // for a loaded machine), and the host's own wait ends later.
    let at: f64 = cut[0][1..]
        .split(']')
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        at >= (HANDSHAKE_SECS - 1) as f64 && at < (HANDSHAKE_SECS + 4) as f64,
        "{log}"
    );
    assert!(
        log.contains("no peer with this host's secret came to 127.0.0.1:"),
        "{log}"
    );
}

#[test]
fn escape_sequences_from_a_peer_never_reach_the_log() {
    let a = Serving::start(2);
    let mut s = a.connect();
    s.write_all(b"hello \x1b]0;owned\x07\x1b[2J\x9b`touch /tmp/x`\n")
        .unwrap();
    let _ = read_all(&mut s);
    let (_, _, a) = a.finish(10);
    let raw = std::fs::read(a.out().join("agent.log")).unwrap();
    assert!(!raw.contains(&0x1b) && !raw.contains(&0x07), "{raw:?}");
    let log = String::from_utf8_lossy(&raw);
    assert!(log.contains("\\u{1b}"), "{log}");
}

#[test]
fn a_peer_outside_allow_is_turned_away_before_it_speaks() {
    let a = Serving::start_with(2, |c| c.allow = vec!["192.0.2.200".parse().unwrap()]);
    let mut s = a.connect();
    assert_eq!(read_all(&mut s), "");
    let (code, log, _) = a.finish(10);
    assert_eq!(code, 1);
    assert_eq!(
        lines_with(&log, "refused a connection from 127.0.0.1:").len(),
        1,
        "{log}"
    );
}

#[test]
fn a_secret_file_others_can_read_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let f: &Path = &dir.path().join("secret");
    std::fs::write(f, SECRET).unwrap();
    std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o640)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rdma-lab"))
        .args([
            "doctor",
            "--dev",
            "rxe0",
            "--ip",
            "127.0.0.1",
            "--peer",
            "127.0.0.2",
        ])
        .arg("--secret-file")
        .arg(f)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("chmod 600"), "{err}");
    // And a peer with no secret at all is told so, at once.
    let out = Command::new(env!("CARGO_BIN_EXE_rdma-lab"))
        .args(["lab", "--local", "--ip", "127.0.0.1", "--peer", "127.0.0.2"])
        .env_remove(rdma_lab::guest::control::SECRET_ENV)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(err.contains("no secret for the session"), "{err}");
}

/// A hundred strangers from another host hold idle connections open, more
/// than the serving host handshakes at once, and six more from the peer's
/// own address: its peer still opens its
/// session within the bound of one handshake (before, handshakes ran one
/// at a time, 10 s each, and six idle connections kept the peer out).
#[test]
fn strangers_holding_connections_delay_the_peer_never_deny_it() {
    let a = Serving::start(60);
    let stranger = std::net::Ipv4Addr::new(127, 0, 0, 2);
    let mut held: Vec<TcpStream> = (0..100).map(|_| connect_from(stranger, a.port())).collect();
    // And the review's six, from the peer's own address.
    held.extend((0..6).map(|_| a.connect()));
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    let c = a.session();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    drop(c);
    drop(held);
    let (_, log, a) = a.finish(30);
    assert_eq!(
        lines_with(&log, "the peer connected from 127.0.0.1:").len(),
        1,
        "{log}"
    );
    let full = format!(
        "127.0.0.2 has {} handshakes under way",
        rdma_lab::guest::gate::PER_SOURCE
    );
    assert_eq!(lines_with(&log, &full).len(), 1, "{log}");
    assert!(a.ran().is_empty());
}

/// Accepts one connection on `l` within `secs`.
fn accept_within(l: &std::net::TcpListener, secs: u64) -> TcpStream {
    l.set_nonblocking(true).unwrap();
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Ok((s, _)) = l.accept() {
            s.set_nonblocking(false).unwrap();
            return s;
        }
        assert!(Instant::now() < deadline, "no connection within {secs} s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The real binary as the peer of a serving host on 127.0.0.1:`port`,
/// with the session's key in a file of its own and `--wait WAIT`; its
/// dir, which holds its results in `out`.
fn peer_of(port: &str, wait: &str) -> (std::process::Child, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("secret");
    std::fs::write(&f, SECRET).unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
    let mut cfg = loopback_agent(
        Role::Client,
        dir.path().join("out"),
        f,
        port.parse().unwrap(),
        wait.parse().unwrap(),
    );
    cfg.scenarios = vec!["rc_example".into()];
    let config = dir.path().join("agent.json");
    std::fs::write(&config, cfg.to_json()).unwrap();
    let peer = Command::new(env!("CARGO_BIN_EXE_rdma-lab"))
        .arg("agent")
        .arg("--config")
        .arg(&config)
        .env_remove(rdma_lab::guest::control::SECRET_ENV)
        .stdout(std::process::Stdio::null())
        // A few lines at most: the pipe's buffer holds them unread.
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    (peer, dir)
}

/// A stranger at the serving host's address holds the peer's first
/// connection without a word, then lies that its proof failed: the real
/// peer (the binary) tries fresh connections until one reaches a host that
/// holds the secret (before, it waited 60 s on the first and gave up).
#[test]
fn the_peer_tries_fresh_connections_until_its_wait_ends() {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port().to_string();
    // Its dir lives as long as it runs.
    let (mut peer, _dir) = peer_of(&port, "60");
    let silent = accept_within(&l, 10);
    let mut liar = accept_within(&l, 30);
    liar.write_all(format!("{AUTH_FAILED}\n").as_bytes())
        .unwrap();
    let mut real = Control::new(accept_within(&l, 10)).unwrap();
    let secret = Secret::from_text(SECRET, "test").unwrap();
    let opened = real.authenticate_server(&secret);
    let _ = peer.kill();
    let _ = peer.wait();
    assert!(opened.is_ok(), "{opened:?}");
    drop(silent);
}

/// `rdma-lab doctor --peer` with `--secret-file file` (or the environment's
/// `secret`): its exit status and stderr, killed after 10 s.
fn doctor_with_secret(file: Option<&Path>, env: Option<&str>) -> (Option<i32>, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rdma-lab"));
    cmd.args([
        "doctor",
        "--dev",
        "rxe0",
        "--ip",
        "127.0.0.1",
        "--peer",
        "127.0.0.2",
    ])
    .args(["--wait", "1"])
    .env_remove(rdma_lab::guest::control::SECRET_ENV)
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::piped());
    if let Some(f) = file {
        cmd.arg("--secret-file").arg(f);
    }
    if let Some(s) = env {
        cmd.env(rdma_lab::guest::control::SECRET_ENV, s);
    }
    ended_within(cmd.spawn().unwrap(), 10)
}

/// Waits for `child` to end, for at most `secs`, then ends it: its exit
/// code and its stderr (piped).
fn ended_within(mut child: std::process::Child, secs: u64) -> (Option<i32>, String) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.code(), err)
}

/// A secret file is the user's own regular file, and a key: a link to
/// one, a mode-600 file another user owns, a FIFO (which blocked the lab
/// forever) and a pass phrase are each refused at once in one line saying
/// what to do (before, all four were taken, or hung).
#[test]
fn a_secret_file_must_be_the_users_own_key() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("key");
    std::fs::write(&key, SECRET).unwrap();
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&key, &link).unwrap();
    let theirs = dir.path().join("theirs");
    std::fs::copy(&key, &theirs).unwrap();
    std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o600)).unwrap();
    // Another user's file, where this test may make one (as root).
    let root = nix::unistd::geteuid().is_root();
    if root {
        std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
    }
    let fifo = dir.path().join("fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let phrase = dir.path().join("phrase");
    std::fs::write(&phrase, "aaaaaaaaaaaaaaaa\n").unwrap();
    std::fs::set_permissions(&phrase, std::fs::Permissions::from_mode(0o600)).unwrap();
    let cases = [
        (&link, "symbolic link"),
        (&theirs, "owned by nobody"),
        (&fifo, "not a regular file"),
        (&phrase, "rdma-lab keygen FILE"),
    ];
    for (f, says) in cases.into_iter().filter(|(f, _)| root || *f != &theirs) {
        let (code, err) = doctor_with_secret(Some(f), None);
        assert_eq!(code, Some(1), "{}: {err}", f.display());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{}: {err}", f.display());
    }
    let (code, err) = doctor_with_secret(None, Some("correct horse battery staple"));
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("rdma-lab keygen FILE") && err.lines().count() == 1,
        "{err}"
    );
}

/// The key the lab's VM scenarios share, as anyone can copy it from the
/// scenarios in every binary (`rdma-lab list --full`).
fn the_test_key() -> String {
    rdma_lab::catalog::all()
        .iter()
        .flat_map(|s| [&s.server, &s.client])
        .flatten()
        .flat_map(|c| c.args.iter())
        .flat_map(|a| a.split(|c: char| !c.is_ascii_hexdigit()))
        .find(|w| w.len() == 64)
        .expect("the scenarios carry a key")
        .to_string()
}

/// `rdma-lab mesh` with `key` on its standard input (`--secret-stdin`):
/// its exit status and stderr.
fn mesh_with_secret(key: &str) -> (Option<i32>, String) {
    let mut child = mesh_rank1(1)
        .args(["--wait", "1", "--secret-stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{key}").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A key of 64 zeros and the lab's own test key (in every binary, in its
/// VM scenarios) are refused on a real host, from a file, the environment
/// or standard input, in one line that says to run `rdma-lab keygen`
/// (before, both were taken: a format check only).
#[test]
fn the_zero_key_and_the_test_key_are_refused_on_a_real_host() {
    let dir = tempfile::tempdir().unwrap();
    for key in ["0".repeat(64), the_test_key()] {
        let f = key_file(dir.path(), &key);
        for (code, err) in [
            doctor_with_secret(Some(&f), None),
            doctor_with_secret(None, Some(&key)),
            mesh_with_secret(&key),
        ] {
            assert_eq!(code, Some(1), "{key}: {err}");
            assert_eq!(err.lines().count(), 1, "{key}: {err}");
            assert!(
                err.contains("not a random key") && err.contains("rdma-lab keygen"),
                "{key}: {err}"
            );
        }
    }
}

/// `rdma-lab keygen FILE` writes a new key, mode 600, and never
/// overwrites a file.
#[test]
fn keygen_writes_a_key_only_its_owner_reads() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("key");
    let out = Command::new(env!("CARGO_BIN_EXE_rdma-lab"))
        .arg("keygen")
        .arg(&key)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta = std::fs::metadata(&key).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let text = std::fs::read_to_string(&key).unwrap();
    assert!(Secret::from_file(&key).is_ok());
    assert!(text.trim().len() == 64 && text.trim().bytes().all(|b| b.is_ascii_hexdigit()));
    // keygen never overwrites.
    let again = Command::new(env!("CARGO_BIN_EXE_rdma-lab"))
        .arg("keygen")
        .arg(&key)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&key).unwrap(), text);
}

/// The real binary as the peer ([`peer_of`], waiting 20 s), and this test
/// as its serving host, holding the secret: the peer, its dir and the
/// session, the handshake done.
fn serving_the_peer() -> (std::process::Child, tempfile::TempDir, Control) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port().to_string();
    let (peer, dir) = peer_of(&port, "20");
    let mut c = Control::new(accept_within(&l, 10)).unwrap();
    c.authenticate_server(&Secret::from_text(SECRET, "test").unwrap())
        .unwrap();
    (peer, dir, c)
}

/// Waits for `peer` to end, for at most `secs`, then ends it.
fn end_of(peer: std::process::Child, secs: u64) {
    ended_within(peer, secs);
}

/// A serving host (here a stand-in that holds the secret) refuses the
/// peer's scenario with escape sequences and a direction override in its
/// reason, and "refuses" names the peer never asked for: the peer keeps
/// only its own names, each reason escaped (before, the text reached the
/// peer's report and terminal as sent: "SKIP NAME" with the stranger's
/// name).
#[test]
fn refusals_from_the_serving_host_are_escaped_and_only_of_names_asked() {
    let (peer, dir, mut c) = serving_the_peer();
    let asked = c.expect_blob("scenarios", Duration::from_secs(10)).unwrap();
    assert_eq!(asked, b"rc_example");
    let evil = serde_json::json!([
        {"scenario": "rc_example", "reason": "VMs only\x1b]0;owned\x07 \u{202e}txt.exe\u{2066}"},
        {"scenario": "\x1b[2Jstranger\u{200b}", "reason": "not asked"},
        {"scenario": "srq", "reason": "not asked either"},
    ]);
    c.send_blob("accepted", evil.to_string().as_bytes())
        .unwrap();
    drop(c);
    end_of(peer, 20);
    let out = rdma_lab::base::rundir::Dir::open(&dir.path().join("out")).unwrap();
    let skips = rdma_lab::results::read_refused(&out);
    let names: Vec<&str> = skips.iter().map(|s| s.scenario.as_str()).collect();
    assert_eq!(names, ["rc_example"], "{skips:?}");
    let why = &skips[0].reason;
    assert!(
        !why.chars()
            .any(|c| c.is_control() || rdma_lab::base::text::is_invisible(c)),
        "{why:?}"
    );
    assert!(why.contains("\\u{202e}"), "{why}");
}

/// A serving host that holds the secret answers the peer's list with
/// refusals that are not the lab's: a JSON string full of escape
/// sequences where a list belongs, a list whose names are numbers, bytes
/// that are not JSON. The peer refuses in one line that names the
/// serving host and says what to do, with none of the sender's bytes raw,
/// and exits 1.
#[test]
fn refusals_the_peer_cannot_read_end_it_in_one_clean_line() {
    let answers: [&[u8]; 3] = [
        br#""\u001b]0;owned\u0007\u001b[2J\u202etxt.exe""#,
        br#"[{"scenario": 7, "reason": "\u001b[31mALL PASSED"}]"#,
        b"\x1b[2J\x9b31m not json",
    ];
    for answer in answers {
        let (peer, _dir, mut c) = serving_the_peer();
        c.expect_blob("scenarios", Duration::from_secs(10)).unwrap();
        c.send_blob("accepted", answer).unwrap();
        let (code, err) = ended_within(peer, 20);
        assert_eq!(code, Some(1), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("the serving host's refusals are not the lab's")
                && err.contains("run the same version of the lab on both hosts"),
            "{err}"
        );
        let raw = err
            .trim_end()
            .chars()
            .find(|&c| c.is_control() || rdma_lab::base::text::is_invisible(c));
        assert_eq!(raw, None, "{err:?}");
    }
}

/// What a hostile serving host puts in everything it sends: a window
/// title, a screen clear, a red "ALL PASSED", a direction override, an
/// 8-bit CSI that is no UTF-8.
const EVIL: &[u8] =
    b"\x1b]0;owned\x07\x1b[2J\x1b[31mALL PASSED\x1b[0m \xe2\x80\xaetxt.exe \x9b31m\n";

/// One scenario of the lockstep, as a serving host plays it with the
/// real peer: its side's result files are `EVIL`.
fn serve_evil(c: &mut Control, name: &str) {
    let step = Duration::from_secs(120);
    c.send(&format!("begin {name}")).unwrap();
    c.send(&format!("ready {name}")).unwrap();
    c.expect(&format!("done {name}"), step).unwrap();
    c.send(&format!("end {name}")).unwrap();
    for ext in ["stdout", "stderr", "status", "leftover"] {
        c.send_blob(&format!("file {ext}"), EVIL).unwrap();
    }
    c.send(&format!("sent {name}")).unwrap();
}

/// A serving host that holds the secret sends its doctor's findings, its
/// device and its result files full of escape sequences: no file of the
/// peer's result dir holds a raw byte of them (before, each was written
/// as sent, and a `cat` of a transcript obeyed them).
#[test]
fn a_serving_hosts_escape_sequences_reach_no_file_of_the_peers() {
    let (peer, dir, mut c) = serving_the_peer();
    let step = Duration::from_secs(60);
    c.expect_blob("scenarios", step).unwrap();
    c.send_blob("accepted", b"[]").unwrap();
    c.send_blob("findings", EVIL).unwrap();
    c.send_blob("host", EVIL).unwrap();
    c.expect_blob("findings", step).unwrap();
    c.expect_blob("host", step).unwrap();
    serve_evil(&mut c, "doctor_rc_probe");
    serve_evil(&mut c, "rc_example");
    end_of(peer, 60);
    let out = dir.path().join("out");
    let written = std::fs::read(out.join("rc_example.server.stdout")).unwrap();
    assert!(String::from_utf8_lossy(&written).contains("\\x1b]0;owned"));
    for e in std::fs::read_dir(&out).unwrap().flatten() {
        let bytes = std::fs::read(e.path()).unwrap();
        let text = std::str::from_utf8(&bytes).unwrap_or_else(|_| panic!("{:?}", e.path()));
        let raw = text.chars().find(|&c| {
            (c.is_control() && c != '\n' && c != '\t') || rdma_lab::base::text::is_invisible(c)
        });
        assert_eq!(raw, None, "{:?}", e.path());
    }
}

/// Another user (nobody) made the default result dirs first, both the
/// build's `target/mesh` and `./rdma-lab` beside a copy, and planted links
/// where the results go to a file only root may write: root's run refuses
/// in one line naming the dir and its owner, and the file is unchanged
/// (before, the run took the dirs as its own).
#[test]
fn a_result_dir_another_user_made_first_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let victim = t.path().join("victim");
    std::fs::write(&victim, "root's alone\n").unwrap();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o600)).unwrap();
    let target = t.path().join("target");
    std::fs::create_dir(&target).unwrap();
    let root = nix::unistd::geteuid().is_root();
    for (dir, link) in [
        (target.join("mesh"), "pairs"),
        (t.path().join("rdma-lab"), "mesh"),
    ] {
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        std::os::unix::fs::symlink(&victim, dir.join(link)).unwrap();
        // As root, the dirs become nobody's; otherwise they stay this
        // user's, open to everyone, which is refused as well.
        if root {
            std::os::unix::fs::chown(&dir, Some(65534), Some(65534)).unwrap();
        }
    }
    let key = key_file(t.path(), SECRET);
    let out = mesh_rank1(1)
        .args(["--wait", "1", "--secret-file"])
        .arg(&key)
        .current_dir(t.path())
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let says = if root {
        "belongs to nobody, not to you (root)"
    } else {
        "is writable by other users (mode 777)"
    };
    assert!(
        err.contains(says) && err.contains(&t.path().display().to_string()),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "root's alone\n");
}
