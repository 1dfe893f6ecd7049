use super::*;

/// Every number at and just past its limits: taken, or refused with a
/// reason that names the option (the fault matrix's limits row).
#[test]
fn every_number_at_and_past_its_limits() {
    let max = i32::MAX as u64;
    common::testkit::assert_limits(
        &cli(),
        read_config,
        &["-m", "239.255.1.1"],
        &[
            ("-c", 1, 1024),
            ("-C", 0, max / 2),
            ("-S", 0, max - GRH_SIZE as u64),
        ],
    );
}

fn config(a: &[&str]) -> Config {
    cli().config_of(a, read_config).unwrap()
}

fn usage_error(a: &[&str]) -> String {
    cli().config_of(a, read_config).unwrap_err()
}

#[test]
fn defaults_are_the_originals() {
    let c = config(&["-m", "239.255.1.1"]);
    assert_eq!(
        c,
        Config {
            dst_addr: "239.255.1.1".into(),
            ..Config::default()
        }
    );
    assert_eq!(c.connections, 1);
    assert_eq!(c.message_count, 10);
    assert_eq!(c.message_size, 100);
    assert_eq!(c.port_space, PortSpace::Udp);
    assert!(!c.is_sender && !c.unmapped_addr && c.src_addr.is_none());
}

#[test]
fn every_option() {
    let c = config(&[
        "-s",
        "-b",
        "192.0.2.1",
        "-m",
        "239.255.1.1",
        "-c",
        "2",
        "-C",
        "50",
        "-S",
        "1000",
        "-p",
        "0x2",
    ]);
    assert!(c.is_sender);
    assert_eq!(c.src_addr.as_deref(), Some("192.0.2.1"));
    assert_eq!(
        (c.connections, c.message_count, c.message_size),
        (2, 50, 1000)
    );
    assert_eq!(c.port_space, PortSpace::Ipoib);
    let c = config(&[
        "-M",
        "ff0e::1",
        "-b",
        "192.0.2.1",
        "-p",
        "0x111",
        "-C0",
        "-S0",
    ]);
    assert!(c.unmapped_addr);
    assert_eq!(c.dst_addr, "ff0e::1");
    assert_eq!((c.message_count, c.message_size), (0, 0));
    // getopt: the last of a repeated option counts.
    assert_eq!(config(&["-m", "a", "-m", "b"]).dst_addr, "b");
}

#[test]
fn bad_command_lines_are_usage_errors() {
    assert!(usage_error(&[]).contains("-m or -M"));
    assert!(usage_error(&["-s"]).contains("-m or -M"));
    assert!(usage_error(&["-M", "ff0e::1"]).contains("requires binding"));
    assert!(usage_error(&["-m", "a", "-M", "b", "-b", "c"]).contains("replaces"));
    for (opt, bad) in [
        ("-C", "x"),
        ("-C", "-1"),
        ("-S", "big"),
        ("-S", "1e3"),
        ("-c", "0"),
        ("-c", "two"),
        ("-p", "7"),
        ("-p", "udp"),
    ] {
        let e = usage_error(&["-m", "239.255.1.1", opt, bad]);
        assert!(e.contains(bad), "{opt} {bad}: {e}");
    }
    assert!(!usage_error(&["-m", "239.255.1.1", "-h"]).is_empty());
    assert!(usage_error(&["-m", "239.255.1.1", "extra"]).contains("extra"));
    assert!(!usage_error(&["-m"]).is_empty());
}

#[test]
fn unresolvable_addresses_say_so() {
    let e = get_addr_or_err("no-such-host.invalid").unwrap_err();
    let e = e.to_string();
    assert!(
        e.starts_with(
            "getaddrinfo failed - invalid hostname or IP address: no-such-host.invalid ("
        ),
        "{e}"
    );
}
