use super::*;

/// Every number at and just past its limits: taken, or refused with a
/// reason that names the option (the fault matrix's limits row).
#[test]
fn every_number_at_and_past_its_limits() {
    let max = i32::MAX as u64;
    common::testkit::assert_limits(
        &cli(),
        read_config,
        &[],
        &[
            ("-p", 1, 65535),
            ("-i", 1, 255),
            ("-g", 0, 255),
            ("-s", 1, MAX_MSG_SIZE),
            ("-n", 1, max),
        ],
    );
}

use std::net::TcpListener;
use std::thread;

fn parse(args: &[&str]) -> std::result::Result<Parsed<Config>, String> {
    cli().read(
        &args.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        read_config,
    )
}

fn config(args: &[&str]) -> Config {
    match parse(args) {
        Ok(Parsed::Run(c)) => c,
        other => panic!("{args:?}: {other:?}"),
    }
}

#[test]
fn defaults_are_the_originals_constants() {
    let c = config(&[]);
    assert_eq!(c, Config::default());
    assert_eq!(c.conn.tcp_port, 6543);
    assert_eq!(c.conn.dev_name, None, "device index 0");
    assert_eq!(c.conn.ib_port, 1);
    assert_eq!(c.conn.gid_idx, None);
    assert_eq!(c.size, 128);
    assert_eq!(c.iters, None, "one message, no ping-pong");
    assert!(c.is_server());
}

#[test]
fn a_host_argument_makes_a_client() {
    let c = config(&["192.0.2.1"]);
    assert_eq!(c.conn.server_name.as_deref(), Some("192.0.2.1"));
    assert!(!c.is_server());
}

#[test]
fn every_option_short_and_long() {
    let want = Config {
        conn: ConnOpts {
            server_name: Some("host1".into()),
            tcp_port: 1234,
            dev_name: Some("mlx5_0".into()),
            ib_port: 2,
            gid_idx: Some(3),
        },
        size: 4096,
        iters: Some(1000),
    };
    assert_eq!(
        config(&[
            "-p", "1234", "-d", "mlx5_0", "-i", "2", "-g", "3", "-s", "4096", "-n", "1000", "host1"
        ]),
        want
    );
    // The shared options' long names are tested with ConnOpts.
    let own_long = config(&[
        "-p", "1234", "-d", "mlx5_0", "-i", "2", "-g", "3", "--size", "4096", "--iters", "1000",
        "host1",
    ]);
    assert_eq!(own_long, want);
}

#[test]
fn numbers_as_strtoul_base_0_and_limits() {
    let c = config(&["-p", "0x1980", "-g", "010", "-s", "0x1000", "-n", "1"]);
    assert_eq!(
        (c.conn.tcp_port, c.conn.gid_idx, c.size, c.iters),
        (6528, Some(8), 4096, Some(1))
    );
    let c = config(&[
        "-s",
        "2147483648",
        "-n",
        "2147483647",
        "-g",
        "0",
        "-p",
        "65535",
    ]);
    assert_eq!(
        (c.size, c.iters, c.conn.gid_idx, c.conn.tcp_port),
        (1 << 31, Some(i32::MAX as u32), Some(0), 65535)
    );
}

#[test]
fn help() {
    assert_eq!(parse(&["-h"]), Ok(Parsed::Help));
    assert_eq!(parse(&["--help"]), Ok(Parsed::Help));
}

#[test]
fn bad_values_are_rejected_with_the_reason() {
    for (args, why) in [
        (&["-n", "0"][..], "invalid iteration count '0' for -n"),
        (&["-n", "-1"], "for -n"),
        (&["-n", "2147483648"], "for -n"),
        (&["-n", "ten"], "for -n"),
        (&["-s", "0"], "invalid message size '0' for -s"),
        (
            &["-s", "68719476736"],
            "invalid message size '68719476736' for -s",
        ),
        (&["-s", "2147483649"], "for -s"),
        (&["-s", "4k"], "for -s"),
        (&["-p", "0"], "invalid TCP port '0' for -p"),
        (&["-p", "65536"], "for -p"),
        (&["-p", "abc"], "for -p"),
        (&["-i", "0"], "invalid IB port '0' for -i"),
        (&["-i", "256"], "for -i"),
        (&["-g", "-1"], "invalid GID index '-1' for -g"),
        (&["-g", "256"], "for -g"),
        (&["-d", ""], "empty device name"),
        (&["-p"], "Argument to option 'p' missing"),
        (&["-x"], "Unrecognized option"),
        (&["--bogus"], "Unrecognized option"),
        (&["host1", "host2"], "unexpected argument 'host2'"),
    ] {
        match parse(args) {
            Err(e) => assert!(e.contains(why), "{args:?}: {e}"),
            Ok(c) => panic!("{args:?} was accepted: {c:?}"),
        }
    }
}

#[test]
fn client_to_a_closed_port_fails_clearly() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let e = init_cli_sock_ctx("127.0.0.1", port).unwrap_err();
    let s = e.to_string();
    assert!(
        s.starts_with(&format!(
            "fail to connect to server 127.0.0.1, port {port}: connect to 127.0.0.1:{port} failed: Connection refused"
        )),
        "{s}"
    );
    assert_eq!(e.errno(), Some(111));
}

#[test]
fn unresolvable_server_fails_clearly() {
    let e = init_cli_sock_ctx("no-such-host.invalid", 6543).unwrap_err();
    assert!(
        e.to_string().starts_with(
            "fail to connect to server no-such-host.invalid, port 6543: getaddrinfo failed"
        ),
        "{e}"
    );
}

/// The side channel of both programs over loopback: the server sends
/// first, the client receives first, each in one message.
#[test]
fn side_channel_exchange_in_the_originals_order() {
    let listener = init_serv_sock_ctx(0).unwrap();
    let port = listener.local_addr().unwrap().as_socket().unwrap().port();
    let client = thread::spawn(move || {
        let mut s = init_cli_sock_ctx("127.0.0.1", port).unwrap();
        let mine = ConnInfo {
            lid: 2,
            qp_num: 190,
            gid: None,
        };
        let mut cfg = Config::default();
        cfg.conn.server_name = Some("127.0.0.1".into());
        let theirs = exchange_conn_info(&mut s, &cfg, &mine).unwrap();
        let mut m = [0u8; MrInfo::SIZE];
        let local = MrInfo {
            buf_addr: 0x5608_0cd3_6870,
            buf_len: 128,
            rkey: 263107,
        };
        exchange_data(&mut s, false, &local.encode(), &mut m).unwrap();
        (theirs, MrInfo::decode(&m).unwrap())
    });
    let mut s = accept_sock_cli(&listener).unwrap();
    let cfg = Config::default();
    let mine = ConnInfo {
        lid: 1,
        qp_num: 189,
        gid: None,
    };
    let theirs = exchange_conn_info(&mut s, &cfg, &mine).unwrap();
    assert_eq!((theirs.lid, theirs.qp_num, theirs.gid), (2, 190, None));
    let mut m = [0u8; MrInfo::SIZE];
    let local = MrInfo {
        buf_addr: 0x5628_c04a_6870,
        buf_len: 128,
        rkey: 7,
    };
    exchange_data(&mut s, true, &local.encode(), &mut m).unwrap();
    assert_eq!(MrInfo::decode(&m).unwrap().rkey, 263107);
    let (c_conn, c_mr) = client.join().unwrap();
    assert_eq!((c_conn.lid, c_conn.qp_num), (1, 189));
    assert_eq!(c_mr, local);
}

#[test]
fn a_peer_that_closes_mid_exchange_is_an_error() {
    let listener = init_serv_sock_ctx(0).unwrap();
    let port = listener.local_addr().unwrap().as_socket().unwrap().port();
    let t = thread::spawn(move || drop(TcpStream::connect(("127.0.0.1", port)).unwrap()));
    let mut s = accept_sock_cli(&listener).unwrap();
    t.join().unwrap();
    let local = ConnInfo::default();
    let e = exchange_conn_info(&mut s, &Config::default(), &local).unwrap_err();
    let s = e.to_string();
    assert!(s.starts_with("fail to exchange conn info: "), "{s}");
    assert!(
        s.contains("closed") || s.contains("reset") || s.contains("pipe"),
        "{s}"
    );
}

#[test]
fn the_message_fits_the_default_buffer() {
    assert_eq!(MSG.len(), 19);
    assert!(MSG.len() <= DEFAULT_SIZE);
    assert_eq!(c_str_lossy(MSG), "hello from server\n");
}
