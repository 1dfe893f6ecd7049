use super::*;
use std::io::{BufRead, Write};
use std::net::TcpListener;

/// The QP timeout the coordinator hands a pair reaches the pair's
/// programs; without one, perftest's own.
#[test]
fn a_pairs_qp_timeout_reaches_its_agent() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = host(7471, &Secret::generate().unwrap(), tmp.path());
    let a = Assignment {
        round: 0,
        role: Role::Client,
        server_ip: "10.0.0.1".into(),
        client_ip: "10.0.0.2".into(),
        nonce: "ab".into(),
        scenarios: Vec::new(),
        rail: 0,
        qp_timeout: Some(20),
    };
    let out = cfg.out.clone();
    assert_eq!(pair_agent(&cfg, &a, out.clone()).params.qp_timeout, 20);
    let a = Assignment {
        qp_timeout: None,
        ..a
    };
    assert_eq!(
        pair_agent(&cfg, &a, out).params.qp_timeout,
        crate::model::params::PERFTEST_QP_TIMEOUT
    );
}

/// A host of the mesh on `port`, its results in `out`.
fn host(port: u16, secret: &Secret, out: &std::path::Path) -> MeshHostConfig {
    MeshHostConfig {
        ib_port: 1,
        rank: 1,
        coordinator: "coordinator.test".into(),
        port,
        name: "node001".into(),
        ip: "10.0.0.2".into(),
        dev: "rxe0".into(),
        gid_idx: None,
        rail_devs: Vec::new(),
        pin: true,
        bin_dir: PathBuf::from("/nonexistent"),
        out: Dir::open(out).unwrap(),
        wait_secs: 20,
        secret: secret.clone(),
    }
}

/// Another process holds the pair's port (the mesh port plus one) on
/// the serving host: the pair's session says so as its own verdict,
/// not a failure that would blame a host or the link.
#[test]
fn a_pair_port_held_by_another_process_is_its_own_verdict() {
    let held = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = held.local_addr().unwrap().port() - PAIR_PORT_OFFSET;
    let out = tempfile::tempdir().unwrap();
    let cfg = MeshHostConfig {
        ip: "127.0.0.1".into(),
        ..host(port, &Secret::generate().unwrap(), out.path())
    };
    let a = Assignment {
        rail: 0,
        round: 0,
        role: Role::Server,
        server_ip: "127.0.0.1".into(),
        client_ip: "127.0.0.2".into(),
        nonce: "ab".into(),
        scenarios: vec!["rc_example".into()],
        qp_timeout: None,
    };
    let results = play(&cfg, &a, &cfg.out.numbered_dir("round0-server").unwrap());
    let want = format!(
        "port {} on node001 is in use by another process",
        port + PAIR_PORT_OFFSET
    );
    assert!(
        results
            .iter()
            .any(|r| r.verdict == Verdict::PortHeld(want.clone())),
        "{results:?}"
    );
    drop(held);
}

/// The coordinator's name has two addresses; a stranger listens on the
/// first and answers every hello with a false refusal. The host tries
/// the second and joins (before, it began again from the first after
/// every failed handshake, and never joined).
#[test]
fn a_stranger_on_one_address_of_the_name_keeps_no_host_out() {
    let decoy = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = decoy.local_addr().unwrap().port();
    let Ok(real) = TcpListener::bind(("127.0.0.2", port)) else {
        panic!("127.0.0.2:{port} is taken: run the test again");
    };
    std::thread::spawn(move || {
        for s in decoy.incoming().flatten() {
            let mut hello = String::new();
            let _ = std::io::BufReader::new(&s).read_line(&mut hello);
            let _ = (&s).write_all(b"authentication failed\n");
        }
    });
    let secret = Secret::generate().unwrap();
    let theirs = secret.clone();
    std::thread::spawn(move || {
        for s in real.incoming().flatten() {
            let mut c = Control::new(s).unwrap();
            if c.authenticate_server(&theirs).is_ok() {
                let _ = c.send("joined");
                std::thread::sleep(Duration::from_secs(2));
            }
        }
    });
    let addrs: Vec<SocketAddr> = ["127.0.0.1", "127.0.0.2"]
        .iter()
        .map(|ip| format!("{ip}:{port}").parse().unwrap())
        .collect();
    let started = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let mut c = connect_via(&host(port, &secret, tmp.path()), &|_| addrs.clone()).unwrap();
    assert_eq!(c.recv("joined", Duration::from_secs(5)).unwrap(), "joined");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_host_without_perftest_refuses_the_measurements_and_nothing_else() {
    let empty = tempfile::tempdir().unwrap();
    let with = tempfile::tempdir().unwrap();
    std::fs::write(with.path().join("ib_write_bw"), "").unwrap();
    let find = |n: &str| catalog::find(n).unwrap();
    let bw = find(catalog::perf::WRITE_BW);
    let lat = find(catalog::perf::SEND_LAT);
    assert!(missing_perftest(bw, empty.path().as_os_str())
        .unwrap()
        .contains("apt-get install --no-install-recommends perftest"));
    assert_eq!(missing_perftest(bw, with.path().as_os_str()), None);
    assert!(missing_perftest(lat, with.path().as_os_str()).is_some());
    assert_eq!(
        missing_perftest(find("rc_example"), empty.path().as_os_str()),
        None
    );
}

/// A pair on rail `k` meets on the mesh port plus one plus `k`, its
/// serving host letting in only the peer's address on that rail: a
/// flood from anywhere else is closed before it takes a handshake's
/// slot (`lab/tests/hostile_mesh.rs` floods such a port).
#[test]
fn a_rails_session_port_is_its_own_and_lets_in_its_peer_only() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = host(7471, &Secret::generate().unwrap(), tmp.path());
    let port = |dev: &str, addr: &str| crate::model::rails::Port {
        dev: dev.into(),
        port: 1,
        netdev: format!("n{dev}"),
        addr: addr.parse().unwrap(),
        prefix: 24,
        rate: None,
    };
    let ports = [port("rxe0", "10.0.0.2"), port("rxe3", "172.16.3.2")];
    let a = Assignment {
        round: 4,
        role: Role::Server,
        server_ip: "172.16.3.2".into(),
        client_ip: "172.16.3.9".into(),
        nonce: "ab".into(),
        scenarios: Vec::new(),
        rail: 3,
        qp_timeout: None,
    };
    let on = on_rail_of(&cfg, &a, &ports).unwrap();
    let agent = pair_agent(&on, &a, on.out.clone());
    assert_eq!(agent.port, 7471 + PAIR_PORT_OFFSET + 3);
    assert_eq!(
        agent.allow,
        ["172.16.3.9".parse::<std::net::IpAddr>().unwrap()]
    );
    assert_eq!(agent.ip, "172.16.3.2");
    assert!(on.out.path().ends_with("rail3"));
}
