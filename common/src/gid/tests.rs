use super::*;
use std::net::Ipv6Addr;

fn gid(s: &str) -> Gid {
    Gid(s.parse::<Ipv6Addr>().unwrap().octets())
}

#[test]
fn roce_v2_ipv4_gid_is_preferred() {
    let link_local = gid("fe80::5054:ff:fe12:3401");
    let v4 = gid("::ffff:192.0.2.1");
    let entries = vec![
        (0, link_local, Some("IB/RoCE v1".to_string())),
        (1, link_local, Some("RoCE v2".to_string())),
        (2, v4, Some("IB/RoCE v1".to_string())),
        (3, v4, Some("RoCE v2".to_string())),
    ];
    assert_eq!(choose_roce_gid(&entries), Some((3, v4)));
    // Without type information, the IPv4-mapped one still wins.
    let untyped: Vec<_> = entries.iter().map(|(i, g, _)| (*i, *g, None)).collect();
    assert_eq!(choose_roce_gid(&untyped), Some((2, v4)));
    // No IPv4 address: the RoCE v2 link-local GID.
    assert_eq!(choose_roce_gid(&entries[..2]), Some((1, link_local)));
    assert_eq!(choose_roce_gid(&[]), None);
}
