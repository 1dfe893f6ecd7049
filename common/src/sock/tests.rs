use super::*;
use std::net::TcpListener;
use std::thread;

fn pair() -> (TcpStream, TcpStream) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let c = TcpStream::connect(addr).unwrap();
    let (s, _) = l.accept().unwrap();
    (s, c)
}

#[test]
fn sync_exchanges_both_ways() {
    let (mut a, mut b) = pair();
    let t = thread::spawn(move || {
        let mut got = [0u8; 5];
        sock_sync_data(&mut b, b"world", &mut got).unwrap();
        got
    });
    let mut got = [0u8; 5];
    sock_sync_data(&mut a, b"hello", &mut got).unwrap();
    assert_eq!(&got, b"world");
    assert_eq!(&t.join().unwrap(), b"hello");
}

#[test]
fn sync_reassembles_a_trickling_peer() {
    let (mut a, mut b) = pair();
    let t = thread::spawn(move || {
        let mut buf = [0u8; 1];
        b.read_exact(&mut buf).unwrap();
        for byte in b"abcdef" {
            b.write_all(&[*byte]).unwrap();
            thread::sleep(Duration::from_millis(5));
        }
    });
    let mut got = [0u8; 6];
    sock_sync_data(&mut a, b"Q", &mut got).unwrap();
    assert_eq!(&got, b"abcdef");
    t.join().unwrap();
}

#[test]
fn the_bound_is_per_message_not_per_read() {
    let (mut a, mut b) = pair();
    let t = thread::spawn(move || {
        // A byte every 100 ms: each read is quick, the message never ends.
        for _ in 0..20 {
            if b.write_all(b"x").is_err() {
                break;
            }
            thread::sleep(Duration::from_millis(100));
        }
    });
    let start = Instant::now();
    let mut got = [0u8; 34];
    let e = sync_within(&mut a, b"Q", &mut got, Duration::from_millis(350)).unwrap_err();
    let elapsed = start.elapsed();
    assert!(elapsed < Duration::from_millis(1000), "{elapsed:?}");
    assert!(
        e.to_string()
            .contains("of 34 bytes and no more within 0.35 s"),
        "{e}"
    );
    drop(a);
    t.join().unwrap();
}

#[test]
fn sync_reports_a_peer_that_closes_early() {
    let (mut a, b) = pair();
    drop(b);
    let mut got = [0u8; 34];
    let e = sock_sync_data(&mut a, b"x", &mut got).unwrap_err();
    let s = e.to_string();
    assert!(
        s.contains("closed") || s.contains("reset") || s.contains("pipe"),
        "{s}"
    );
}

#[test]
fn sync_reports_a_short_peer() {
    let (mut a, mut b) = pair();
    let t = thread::spawn(move || {
        let mut buf = [0u8; 1];
        b.read_exact(&mut buf).unwrap();
        b.write_all(b"abc").unwrap();
    });
    let mut got = [0u8; 34];
    let e = sock_sync_data(&mut a, b"x", &mut got).unwrap_err();
    assert!(e.to_string().contains("after 3 of 34 bytes"), "{e}");
    t.join().unwrap();
}

#[test]
fn sock_connect_server_and_client_over_loopback() {
    // Pick a free port, then release it for sock_connect to bind.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = thread::spawn(move || sock_connect(None, port));
    let mut client = None;
    for _ in 0..200 {
        match sock_connect(Some("127.0.0.1"), port) {
            Ok(c) => {
                client = Some(c);
                break;
            }
            Err(_) => thread::sleep(Duration::from_millis(10)),
        }
    }
    let mut client = client.expect("client could not connect");
    let mut server = server.join().unwrap().unwrap();
    let t = thread::spawn(move || {
        let mut r = [0u8; 1];
        sock_sync_data(&mut server, b"Q", &mut r).unwrap();
        r
    });
    let mut r = [0u8; 1];
    sock_sync_data(&mut client, b"R", &mut r).unwrap();
    assert_eq!(&r, b"Q");
    assert_eq!(&t.join().unwrap(), b"R");
}

#[test]
fn sock_connect_to_a_closed_port_fails_clearly() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let e = sock_connect(Some("127.0.0.1"), port).unwrap_err();
    assert!(e.to_string().contains("connect to 127.0.0.1"), "{e}");
    assert_eq!(e.errno(), Some(libc::ECONNREFUSED));
}

#[test]
fn sock_connect_to_a_bad_name_fails_clearly() {
    let e = sock_connect(Some("no-such-host.invalid"), 1).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("getaddrinfo failed for no-such-host.invalid"),
        "{e}"
    );
}
