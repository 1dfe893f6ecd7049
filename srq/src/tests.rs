use super::*;

/// Every number at and just past its limits: taken, or refused with a
/// reason that names the option (the fault matrix's limits row).
#[test]
fn every_number_at_and_past_its_limits() {
    let max = i32::MAX as u64;
    common::testkit::assert_limits(
        &cli(),
        read_config,
        &["-a", "h"],
        &[
            ("-p", 1, 65535),
            ("-c", 1, max),
            ("-l", 1, max),
            ("-q", 1, max),
            ("-w", 1, max),
        ],
    );
}

fn parse(a: &[&str]) -> std::result::Result<Config, String> {
    cli().config_of(a, read_config)
}

#[test]
fn defaults_are_the_manuals() {
    let c = parse(&["-a", "192.0.2.1"]).unwrap();
    assert_eq!(c.base.server_port, "51216");
    assert_eq!(
        (c.base.msg_count, c.base.msg_length, c.qp_count, c.max_wr),
        (100, 100000, 4, 64)
    );
    assert!(!c.base.server);
    assert!(parse(&["-s", "-a", "x"]).unwrap().base.server);
}

#[test]
fn bad_values_are_rejected() {
    for bad in [
        &["-q", "0"][..],
        &["-w", "0"],
        &["-c", "0"],
        &["-l", "0"],
        &["-c", "-5"],
        &["-w", "abc"],
        &["-p", "70000"],
        &["-x"],
        &["extra"],
    ] {
        assert!(parse(bad).is_err(), "{bad:?}");
    }
    // atoi reads decimal: the same text means the same count to a C peer.
    assert_eq!(parse(&["-c", "010"]).unwrap().base.msg_count, 10);
    assert!(parse(&["-c", "0x10"]).is_err());
}
