use super::*;
use std::net::Ipv6Addr;

fn ntop(s: &str) -> String {
    inet_ntop6(&s.parse::<Ipv6Addr>().unwrap().octets())
}

#[test]
fn prints_as_glibc_inet_ntop() {
    assert_eq!(ntop("::ffff:239.255.1.1"), "::ffff:239.255.1.1");
    assert_eq!(ntop("ff12:401b:ffff::1"), "ff12:401b:ffff::1");
    assert_eq!(ntop("ff0e::1"), "ff0e::1");
    assert_eq!(ntop("::"), "::");
    assert_eq!(ntop("::1"), "::1");
    // IPv4-compatible: glibc keeps the dotted tail, Rust does not.
    assert_eq!(ntop("::1.2.3.4"), "::1.2.3.4");
    assert_eq!(ntop("1::"), "1::");
    assert_eq!(ntop("1:0:0:1:0:0:0:1"), "1:0:0:1::1");
    assert_eq!(ntop("1:0:0:1:0:0:1:1"), "1::1:0:0:1:1");
    assert_eq!(ntop("1:2:3:4:5:6:7:8"), "1:2:3:4:5:6:7:8");
    assert_eq!(ntop("1:0:2:3:4:5:6:7"), "1:0:2:3:4:5:6:7");
    assert_eq!(ntop("fe80::1a:feff:fe39:e25a"), "fe80::1a:feff:fe39:e25a");
}

#[test]
fn numeric_addresses_resolve_without_dns() {
    assert_eq!(
        get_addr("239.255.1.1"),
        Ok("239.255.1.1:0".parse().unwrap())
    );
    assert_eq!(get_addr("ff0e::1"), Ok("[ff0e::1]:0".parse().unwrap()));
    let e = get_addr("no-such-host.invalid").unwrap_err();
    // The resolver's reason follows the original's text.
    assert!(
        e.starts_with(
            "getaddrinfo failed - invalid hostname or IP address: no-such-host.invalid ("
        ) && e.len() > 75,
        "{e}"
    );
}
