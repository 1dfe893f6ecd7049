use super::*;

fn conn(args: &[&str]) -> Result<ConnOpts, String> {
    let cli = crate::cli::Cli {
        // ConnOpts::read refuses a second operand itself.
        operands: 2,
        ..ConnOpts::cli("t", "", Default::default(), Vec::new())
    };
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    ConnOpts::read(&cli.parse(&args)?, 19875)
}

#[test]
fn lengths_the_memlock_limit_cannot_pin_are_refused() {
    let l = ExchangeOpts::defaults(1000);
    // Two buffers of one page each.
    assert!(l.check_memlock_with(Some(8192), false).is_ok());
    let e = l.check_memlock_with(Some(8191), false).unwrap_err();
    assert_eq!(
        e,
        "-l 1000 needs 8 KiB of locked memory for its two buffers, and `ulimit -l` \
         is 7 KiB: raise it, grant CAP_IPC_LOCK, or give a smaller -l"
    );
    assert!(l.check_memlock_with(Some(0), true).is_ok(), "CAP_IPC_LOCK");
    assert!(l.check_memlock_with(None, false).is_ok(), "unlimited");
    assert!(has_cap_ipc_lock("Name:\tx\nCapEff:\t000001ffffffffff\n"));
    assert!(!has_cap_ipc_lock("CapEff:\t0000000000000000\n"));
    assert!(!has_cap_ipc_lock(""));
}

#[test]
fn lengths_the_port_cannot_carry_are_refused() {
    let gib = 1 << 30;
    assert!(ExchangeOpts::defaults(gib).check_max_msg(1 << 30).is_ok());
    let e = ExchangeOpts::defaults(gib + 1)
        .check_max_msg(1 << 30)
        .unwrap_err();
    assert_eq!(
        e,
        "-l 1073741825 is longer than the largest message the port carries \
         (max_msg_sz 1073741824): give a smaller -l"
    );
}

#[test]
fn lengths_the_host_cannot_hold_are_refused() {
    let meminfo = "MemTotal:        2000000 kB\nMemAvailable:    1000000 kB\n";
    let fits = ExchangeOpts::defaults(400_000_000);
    assert!(fits.check_memory(meminfo).is_ok());
    let too_big = ExchangeOpts::defaults(600_000_000);
    let e = too_big.check_memory(meminfo).unwrap_err();
    assert!(e.contains("1144 MiB of pinned memory"), "{e}");
    assert!(e.contains("976 MiB available"), "{e}");
    assert!(
        too_big.check_memory("MemTotal: 1 kB\n").is_ok(),
        "unknown: not checked"
    );
}

#[test]
fn shared_options_short_and_long() {
    let short = conn(&["-p", "1234", "-d", "mlx5_0", "-i", "2", "-g", "3", "host1"]);
    let long = conn(&[
        "--port",
        "1234",
        "--ib-dev",
        "mlx5_0",
        "--ib-port",
        "2",
        "--gid-idx",
        "3",
        "host1",
    ]);
    let want = ConnOpts {
        server_name: Some("host1".into()),
        tcp_port: 1234,
        dev_name: Some("mlx5_0".into()),
        ib_port: 2,
        gid_idx: Some(3),
    };
    assert_eq!(short, Ok(want.clone()));
    assert_eq!(long, Ok(want));
}

#[test]
fn conn_opts_defaults_values_and_errors() {
    let d = conn(&[]).unwrap();
    assert_eq!(
        (d.tcp_port, d.ib_port, d.gid_idx, d.dev_name, d.server_name),
        (19875, 1, None, None, None)
    );
    let c = conn(&[
        "-p",
        "0x10",
        "-d",
        "rxe0",
        "-i",
        "2",
        "--gid-idx",
        "3",
        "host",
    ])
    .unwrap();
    assert_eq!(
        c,
        ConnOpts {
            server_name: Some("host".into()),
            tcp_port: 16,
            dev_name: Some("rxe0".into()),
            ib_port: 2,
            gid_idx: Some(3),
        }
    );
    assert_eq!(conn(&["-p", "1", "-p", "2"]).unwrap().tcp_port, 2);
    for bad in [
        &["-p", "0"][..],
        &["-i", "256"],
        &["-g", "x"],
        &["-d", ""],
        &["a", "b"],
    ] {
        assert!(conn(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn accepts_what_strtoul_base_0_accepts() {
    assert_eq!(parse_c_ulong("19875"), Some(19875));
    assert_eq!(parse_c_ulong("0x10"), Some(16));
    assert_eq!(parse_c_ulong("0X1f"), Some(31));
    assert_eq!(parse_c_ulong("010"), Some(8));
    assert_eq!(parse_c_ulong("0"), Some(0));
}

#[test]
fn rejects_what_strtoul_would_silently_mangle() {
    for bad in [
        "",
        "abc",
        "12abc",
        "-1",
        "+3",
        "0x",
        "09",
        "99999999999999999999999",
        " ",
    ] {
        assert_eq!(parse_c_ulong(bad), None, "{bad:?}");
    }
}

#[test]
fn option_numbers_name_the_option() {
    assert_eq!(number_in_range("C", "50", 0, 100), Ok(50));
    // atoi options are decimal: a C peer given the same text agrees.
    assert_eq!(number_in_range("C", "010", 0, 100), Ok(10));
    assert!(number_in_range("C", "0x10", 0, 100).is_err());
    assert!(number_in_range("C", "-1", 0, 100).is_err());
    assert_eq!(
        number_in_range("C", "x", 0, 100),
        Err("invalid value 'x' for -C (expected 0..100)".to_string())
    );
    assert!(number_in_range("c", "0", 1, 100).is_err());
    let mut o = getopts::Options::new();
    o.optopt("w", "", "", "");
    let m = o.parse(["-w", "7"]).unwrap();
    assert_eq!(opt_number(&m, "w", 1, 9), Ok(Some(7)));
    let mut o = getopts::Options::new();
    o.optmulti("w", "", "", "");
    let m = o.parse(["-w", "x", "-w", "8"]).unwrap();
    assert_eq!(opt_number(&m, "w", 1, 9), Ok(Some(8)), "the last counts");
    let m = o.parse(Vec::<String>::new()).unwrap();
    assert_eq!(opt_number(&m, "w", 1, 9), Ok(None));
}

#[test]
fn range_is_inclusive() {
    assert_eq!(parse_in_range("1", 1, 255), Some(1));
    assert_eq!(parse_in_range("255", 1, 255), Some(255));
    assert_eq!(parse_in_range("0", 1, 255), None);
    assert_eq!(parse_in_range("256", 1, 255), None);
}
