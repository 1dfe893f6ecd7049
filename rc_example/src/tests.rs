use super::*;

/// Every number at and just past its limits: taken, or refused with a
/// reason that names the option (the fault matrix's limits row).
#[test]
fn every_number_at_and_past_its_limits() {
    common::testkit::assert_limits(
        &cli(),
        read_config,
        &[],
        &[("-p", 1, 65535), ("-i", 1, 255), ("-g", 0, 255)],
    );
}

#[test]
fn remote_con_data_is_checked() {
    let good = CmConData {
        qp_num: 0x11,
        gid: Gid([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1]),
        ..CmConData::default()
    };
    assert!(check_remote_con_data(&good, true).is_ok());
    let no_gid = CmConData {
        gid: Gid::default(),
        ..good
    };
    assert!(
        check_remote_con_data(&no_gid, false).is_ok(),
        "IB needs no GID"
    );
    let e = check_remote_con_data(&no_gid, true).unwrap_err();
    assert!(e.to_string().contains("give the peer -g"), "{e}");
    for qp_num in [0, 0x100_0000, u32::MAX] {
        let bad = CmConData { qp_num, ..good };
        let e = check_remote_con_data(&bad, false).unwrap_err();
        assert!(e.to_string().contains("is not a QP number"), "{e}");
    }
}

#[test]
fn sync_bytes_must_match() {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let mut c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
    let (mut s, _) = l.accept().unwrap();
    let peer = std::thread::spawn(move || {
        sync_byte(&mut s, b'Q').unwrap();
        // Out of step: 'W' where the other side is at 'R'.
        let _ = sync_byte(&mut s, b'W');
    });
    sync_byte(&mut c, b'Q').unwrap();
    let e = sync_byte(&mut c, b'R').unwrap_err();
    assert!(
        e.to_string()
            .contains("the peer sent 'W' where both sides send 'R'"),
        "{e}"
    );
    peer.join().unwrap();
}

fn parse(args: &[&str]) -> std::result::Result<Parsed<Config>, String> {
    cli().read(
        &args.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        read_config,
    )
}

#[test]
fn msg_size_fits_the_longest_message() {
    assert_eq!(MSG_SIZE, 21);
    assert!(MSG_SIZE > RDMAMSGW.len() && MSG_SIZE > RDMAMSGR.len() && MSG_SIZE > MSG.len());
}

#[test]
fn defaults_are_the_manuals_config() {
    let c = ConnOpts::new(DEFAULT_TCP_PORT);
    assert_eq!(parse(&[]), Ok(Parsed::Run(c.clone())));
    assert_eq!((c.tcp_port, c.ib_port, c.gid_idx), (19875, 1, None));
    assert_eq!((c.dev_name, c.server_name), (None, None));
}

/// The long names are ConnOpts' own (tested in `common`).
#[test]
fn every_option() {
    let want = Config {
        dev_name: Some("mlx5_0".into()),
        server_name: Some("host1".into()),
        tcp_port: 1234,
        ib_port: 2,
        gid_idx: Some(3),
    };
    assert_eq!(
        parse(&["-p", "1234", "-d", "mlx5_0", "-i", "2", "-g", "3", "host1"]),
        Ok(Parsed::Run(want))
    );
}

#[test]
fn numbers_as_strtoul_base_0() {
    match parse(&["-p", "0x4000", "-g", "010"]) {
        Ok(Parsed::Run(c)) => assert_eq!((c.tcp_port, c.gid_idx), (0x4000, Some(8))),
        other => panic!("{other:?}"),
    }
}

#[test]
fn help() {
    assert_eq!(parse(&["-h"]), Ok(Parsed::Help));
    assert_eq!(parse(&["--help"]), Ok(Parsed::Help));
}

#[test]
fn bad_values_are_rejected() {
    for args in [
        &["-p", "0"][..],
        &["-p", "65536"],
        &["-p", "abc"],
        &["-p", "-1"],
        &["-i", "0"],
        &["-i", "256"],
        &["-i", "x"],
        &["-g", "-1"],
        &["-g", "256"],
        &["-g", "1.5"],
        &["-d", ""],
        &["-p"],
        &["-x"],
        &["--bogus"],
        &["host1", "host2"],
    ] {
        assert!(parse(args).is_err(), "{args:?} was accepted");
    }
}
