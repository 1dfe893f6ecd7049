use super::*;

/// Every number at and just past its limits: taken, or refused with a
/// reason that names the option (the fault matrix's limits row).
#[test]
fn every_number_at_and_past_its_limits() {
    let max = i32::MAX as u64;
    common::testkit::assert_limits(
        &cli(),
        read_params,
        &["-m", "239.255.1.1"],
        &[("-c", 0, max), ("-l", 0, max - GRH_SIZE as u64)],
    );
}

fn parse(a: &[&str]) -> std::result::Result<Params, String> {
    cli().config_of(a, read_params)
}

#[test]
fn defaults_are_the_originals() {
    let p = parse(&["-m", "239.255.1.1"]).unwrap();
    assert_eq!(
        p,
        Params {
            sender: false,
            bind_addr: None,
            mcast_addr: "239.255.1.1".into(),
            server_port: "51216".into(),
            msg_count: 4,
            msg_length: 64,
        }
    );
}

#[test]
fn every_option() {
    let p = parse(&[
        "-s",
        "-b",
        "192.0.2.1",
        "-m",
        "239.255.1.1",
        "-p",
        "1234",
        "-c",
        "20",
        "-l",
        "512",
    ])
    .unwrap();
    assert!(p.sender);
    assert_eq!(p.bind_addr.as_deref(), Some("192.0.2.1"));
    assert_eq!(p.server_port, "1234");
    assert_eq!((p.msg_count, p.msg_length), (20, 512));
}

#[test]
fn bad_command_lines() {
    assert_eq!(
        parse(&[]).unwrap_err(),
        "multicast address must be specified with -m"
    );
    assert_eq!(
        parse(&["-s", "-c", "2"]).unwrap_err(),
        "multicast address must be specified with -m"
    );
    for (opt, bad) in [("-c", "x"), ("-c", "-1"), ("-l", "big"), ("-l", "-5")] {
        let e = parse(&["-m", "239.255.1.1", opt, bad]).unwrap_err();
        assert!(e.contains(bad), "{opt} {bad}: {e}");
    }
    assert!(parse(&["-m", "239.255.1.1", "-h"]).is_err());
    assert!(parse(&["-m", "239.255.1.1", "-x"]).is_err());
    assert!(parse(&["-m", "239.255.1.1", "extra"]).is_err());
}

#[test]
fn unresolvable_addresses_say_so() {
    let e = getaddrinfo("mcast", "no-such-host.invalid").unwrap_err();
    let e = e.to_string();
    assert!(
        e.starts_with("rdma_getaddrinfo (mcast): getaddrinfo failed - invalid hostname or IP address: no-such-host.invalid ("),
        "{e}"
    );
}
