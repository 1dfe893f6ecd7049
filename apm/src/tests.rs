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
            ("-d", 0, 65535),
            ("-r", 0, 255),
            ("-m", 0, max),
            ("-w", 0, max),
        ],
    );
}

fn parse(a: &[&str]) -> std::result::Result<Config, String> {
    cli().config_of(a, read_config)
}

#[test]
fn defaults_and_w_option() {
    let c = parse(&["-a", "192.0.2.1"]).unwrap();
    assert_eq!(
        (c.base.msg_count, c.base.msg_length, c.msec_delay),
        (100, 1000000, 500)
    );
    assert_eq!(c.migrate_after, None);
    assert_eq!(parse(&["-s", "-w", "10"]).unwrap().msec_delay, 10);
    assert_eq!(parse(&["-s", "-w", "0"]).unwrap().msec_delay, 0);
}

#[test]
fn checks_of_main() {
    let c = parse(&[]).unwrap();
    assert_eq!(
        check_config(&c).unwrap_err(),
        "server address must be specified for client mode"
    );
    let c = parse(&["-s", "-d", "3"]).unwrap();
    assert_eq!(
        check_config(&c).unwrap_err(),
        "-d and -r must be used together"
    );
    let c = parse(&["-s", "-d", "3", "-r", "2"]).unwrap();
    assert!(check_config(&c).is_ok() && c.alt_path_given());
    let c = parse(&["-a", "x", "-c", "5", "-m", "6"]).unwrap();
    assert!(check_config(&c).is_err());
    let c = parse(&["-a", "x", "-c", "5", "-m", "4"]).unwrap();
    assert!(check_config(&c).is_ok());
    for bad in [
        &["-c", "0"][..],
        &["-m", "-1"],
        &["-w", "x"],
        &["-d", "70000"],
        &["-r", "256"],
    ] {
        assert!(parse(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn private_data_of_any_padded_length() {
    assert_eq!(
        get_alt_dlid_from_private_data(&[0x12, 0x34]).unwrap(),
        0x1234
    );
    let mut padded = vec![0u8; 56];
    padded[1] = 7;
    assert_eq!(get_alt_dlid_from_private_data(&padded).unwrap(), 7);
    let e = get_alt_dlid_from_private_data(&[1]).unwrap_err();
    assert_eq!(e.to_string(), "unexpected private data len: 1");
}
