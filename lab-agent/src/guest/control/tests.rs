use super::*;
use proptest::prelude::*;
use std::io::Cursor;
use std::net::TcpListener;

fn pair() -> (Control, Control) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
    let (s, _) = l.accept().unwrap();
    (Control::new(s).unwrap(), Control::new(c).unwrap())
}

const KEY_X: &str = "24b55f955e2940277dd3ab89fe53259779c1cebe5835cec32ad7a63074ef1b0b";
const KEY_Y: &str = "a99f44d5c2b82d1bfe620d0e727d59f5c4aa186c0392cf6900cd40773fe6c746";

fn secret(s: &str) -> Secret {
    Secret::from_text(s, "test").unwrap()
}

/// Runs the serving half in a thread and the peer's here.
fn handshake(
    server: &str,
    client: &str,
) -> (
    Result<Control, HandshakeError>,
    Result<Control, ControlError>,
) {
    let (mut s, mut c) = pair();
    let ss = secret(server);
    let t = std::thread::spawn(move || s.authenticate_server(&ss).map(|()| s));
    let cr = c
        .authenticate_client(&secret(client), Duration::from_secs(5))
        .map(|()| c);
    (t.join().unwrap(), cr)
}

#[test]
fn the_same_secret_opens_a_session_that_carries_lines() {
    let (s, c) = handshake(KEY_X, KEY_X);
    let (mut s, mut c) = (s.unwrap(), c.unwrap());
    c.send("begin x").unwrap();
    assert_eq!(s.recv("begin", Duration::from_secs(2)).unwrap(), "begin x");
    s.send_blob("findings", b"a\nb").unwrap();
    assert_eq!(
        c.expect_blob("findings", Duration::from_secs(2)).unwrap(),
        b"a\nb"
    );
}

#[test]
fn a_wrong_secret_fails_on_both_sides() {
    let (s, c) = handshake(KEY_X, KEY_Y);
    assert!(matches!(s, Err(HandshakeError::Auth(_))));
    let e = c.err().unwrap();
    assert!(matches!(e, ControlError::NotSameSecret), "{e}");
    assert!(e.to_string().contains(AUTH_FAILED), "{e}");
}

#[test]
fn secrets_are_checked() {
    // A pass phrase, however long, is not a key; a key is 64 hex digits.
    for phrase in [
        "short",
        "aaaaaaaaaaaaaaaa",
        &"correct horse battery staple ".repeat(3),
    ] {
        let e = Secret::from_text(phrase, "x").unwrap_err();
        assert!(
            matches!(&e, SecretError::NotAKey { from } if from == "x"),
            "{e:?}"
        );
        let e = e.to_string();
        assert!(
            e.contains("rdma-lab keygen FILE") && !e.contains('\n'),
            "{e}"
        );
    }
    assert!(Secret::from_text(&"g".repeat(64), "x").is_err());
    // Nor is a key that is not random: zeros, the lab's public test key.
    for weak in ["0".repeat(64), keys::VM_TEST_KEY.to_string()] {
        let e = Secret::from_text(&weak, "x").unwrap_err();
        assert!(matches!(e, SecretError::NotRandom { .. }), "{e:?}");
        let e = e.to_string();
        assert!(
            e.contains("not a random key")
                && e.contains("rdma-lab keygen FILE")
                && !e.contains('\n'),
            "{e}"
        );
    }
    assert_eq!(
        Secret::from_text(&format!(" {}\n", KEY_X.to_uppercase()), "x")
            .unwrap()
            .text(),
        KEY_X
    );
    let g = Secret::generate().unwrap();
    assert_eq!(g.text().len(), 64);
    assert_ne!(g, Secret::generate().unwrap());
    assert_eq!(format!("{g:?}"), "Secret(..)");
}

#[test]
fn a_secret_file_open_to_others_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s");
    std::fs::write(&f, format!("{KEY_X}\n")).unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
    let e = Secret::from_file(&f).unwrap_err();
    assert!(
        matches!(
            e,
            SecretError::NotPrivate {
                source: crate::base::fsafe::NotPrivateFile::OpenToOthers(0o644),
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("chmod 600"), "{e}");
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(Secret::from_file(&f).unwrap().text(), KEY_X);
}

#[test]
fn a_forged_or_replayed_line_is_refused() {
    let (s, c) = handshake(KEY_X, KEY_X);
    let (mut s, mut c) = (s.unwrap(), c.unwrap());
    // A stranger's line: no MAC, then a MAC of the wrong key.
    c.send_raw("begin doctor_no_rdma_ucm").unwrap();
    let e = s.recv("begin", Duration::from_secs(2)).unwrap_err();
    assert!(matches!(e, ControlError::NoMac(_)), "{e}");
    c.send_raw(&format!("{} begin x", "ab".repeat(32))).unwrap();
    let e = s.recv("begin", Duration::from_secs(2)).unwrap_err();
    assert!(matches!(e, ControlError::BadMac(_)), "{e}");
    // A real line, sent twice: the copy has the old sequence number.
    let k = c.keys.as_mut().unwrap();
    let tag = k.tag(b'c', k.sent, "done x");
    let line = format!("{} done x", hex(&tag));
    c.send_raw(&line).unwrap();
    c.send_raw(&line).unwrap();
    assert_eq!(s.recv("done", Duration::from_secs(2)).unwrap(), "done x");
    assert!(matches!(
        s.recv("done", Duration::from_secs(2)),
        Err(ControlError::BadMac(_))
    ));
    // Our own line sent back to us (reflection) is not the peer's.
    let k = s.keys.as_ref().unwrap();
    let mine = format!("{} ready x", hex(&k.tag(b's', k.received, "ready x")));
    c.send_raw(&mine).unwrap();
    assert!(matches!(
        s.recv("ready", Duration::from_secs(2)),
        Err(ControlError::BadMac(_))
    ));
}

#[test]
fn a_line_is_bounded_in_size_and_in_time() {
    let (mut s, mut c) = pair();
    c.writer.write_all(&vec![b'a'; 200_000]).unwrap();
    let e = s.recv("hello", Duration::from_secs(5)).unwrap_err();
    assert!(matches!(e, ControlError::TooLong { .. }), "{e}");
    // One byte a while: the whole line has the deadline, not each read.
    let (mut s, c) = pair();
    let t = std::thread::spawn(move || {
        for _ in 0..30 {
            if (&c.writer).write_all(b"x").is_err() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    let started = Instant::now();
    let e = s.recv("hello", Duration::from_secs(1)).unwrap_err();
    assert!(matches!(e, ControlError::TimedOut { secs: 1, .. }), "{e}");
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    drop(s);
    t.join().unwrap();
}

#[test]
fn a_peer_that_stops_reading_cannot_hold_a_write() {
    let (mut s, c) = pair();
    s.write_within = Duration::from_millis(500);
    let started = Instant::now();
    let blob = vec![b'x'; 1 << 20];
    let e = (0..200)
        .find_map(|_| s.send_blob("file stdout", &blob).err())
        .expect("the socket buffers fill up");
    assert!(
        matches!(
            e,
            ControlError::SendTimedOut { .. } | ControlError::Send { .. }
        ),
        "{e}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    drop(c);
}

#[test]
fn a_peer_that_reads_a_trickle_cannot_hold_a_line_past_its_deadline() {
    let (mut s, c) = pair();
    s.write_within = Duration::from_millis(500);
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop = done.clone();
    let t = std::thread::spawn(move || {
        let mut b = [0u8; 1];
        // 20 s of trickle: far past the deadline, so that a write it
        // held would show, on a loaded machine too.
        for _ in 0..200 {
            if stop.load(std::sync::atomic::Ordering::Relaxed) || (&c.writer).read(&mut b).is_err()
            {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    let started = Instant::now();
    let e = s
        .send_blob("file stdout", &vec![b'x'; 4 << 20])
        .unwrap_err();
    assert!(
        matches!(
            e,
            ControlError::SendTimedOut { .. } | ControlError::Send { .. }
        ),
        "{e}"
    );
    // The blob's encoding and MAC come first, slow in a debug build on
    // a loaded machine: the bound is well over them and well under the
    // trickle.
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    drop(s);
    t.join().unwrap();
}

#[test]
fn what_a_peer_said_is_shown_short_and_escaped() {
    assert_eq!(shown("a\x1b[2Jb"), "a\\u{1b}[2Jb");
    let long = "x".repeat(1000);
    assert_eq!(shown(&long).chars().count(), 61);
}

proptest! {
    #[test]
    fn the_decoder_takes_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..4096), max in 0usize..600) {
        let mut r = std::io::BufReader::with_capacity(64, Cursor::new(bytes.clone()));
        loop {
            match read_line_bounded(&mut r, max, || Ok(())) {
                Ok(line) => {
                    prop_assert!(line.len() <= max && line.capacity() <= max.max(1));
                    prop_assert!(!line.contains(&b'\n'));
                }
                Err(RecvError::TooLong(m)) => { prop_assert_eq!(m, max); break; }
                Err(RecvError::Closed) => break,
                Err(e) => prop_assert!(false, "{e:?}"),
            }
        }
    }

    #[test]
    fn session_lines_of_any_text_never_panic(line in ".{0,200}") {
        let mut k = Keys { key: [7; 32], me: b's', sent: 0, received: 0 };
        let _ = open_line(&mut k, &line);
        let _ = crate::model::session::body_of(&line);
        let _ = shown(&line);
    }
}

/// Each failure reads as the one line the lab has always printed for it.
#[test]
fn control_errors_read_as_before() {
    let said = |e: ControlError| e.to_string();
    assert_eq!(
        said(ControlError::Closed { want: "end".into() }),
        "control: the peer closed while we waited for `end`"
    );
    assert_eq!(
        said(ControlError::TimedOut {
            want: "ready x".into(),
            secs: 7
        }),
        "control: no `ready x` from the peer within 7 s"
    );
    assert_eq!(
        said(ControlError::Unexpected {
            got: "oops".into(),
            want: "host ...".into()
        }),
        "control: got `oops`, wanted `host ...`"
    );
    assert_eq!(
        said(ControlError::NotAHello("hi".into())),
        format!(
            "control: the peer said `hi`, not `{HELLO} NONCE`: run the same version of the lab \
             on both hosts"
        )
    );
    assert_eq!(
        said(ControlError::NotAChallenge("x".into())),
        "control: the serving host said `x`, not a challenge: run the same version of the lab \
         on both hosts"
    );
    assert_eq!(
        said(ControlError::SendTimedOut {
            line: "l".into(),
            secs: 3
        }),
        "control: sending `l`: not taken by the peer within 3 s"
    );
}
