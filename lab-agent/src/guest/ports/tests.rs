use super::*;

/// `ip -o -4 addr show` of a host with two rails, a management NIC and a
/// VLAN, as iproute2 6.1 prints it.
const IP: &str = "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever
2: eno1    inet 10.1.2.3/16 brd 10.1.255.255 scope global eno1\\       valid_lft forever preferred_lft forever
3: ens4    inet 192.0.2.3/24 brd 192.0.2.255 scope global ens4\\       valid_lft forever preferred_lft forever
4: ens5    inet 198.51.100.3/24 brd 198.51.100.255 scope global ens5\\       valid_lft forever preferred_lft forever
5: ens6.5@ens6    inet 203.0.113.3/25 scope global ens6.5\\       valid_lft forever preferred_lft forever
";

#[test]
fn the_addresses_of_ip_are_read() {
    let a = ipv4_addrs(IP);
    assert_eq!(a.len(), 5);
    assert_eq!(a[2], ("ens4".to_string(), "192.0.2.3".parse().unwrap(), 24));
    assert_eq!(
        a[4],
        ("ens6.5".to_string(), "203.0.113.3".parse().unwrap(), 25)
    );
    assert!(ipv4_addrs("garbage\n7: x inet nope/24\n").is_empty());
}

#[test]
fn active_ports_with_an_address_are_the_rail_ports() {
    let links = [
        ("rxe1".to_string(), 1, "ens5".to_string()),
        ("rxe0".to_string(), 1, "ens4".to_string()),
        // Seen twice (rdma link and a GID's netdev): one port.
        ("rxe0".to_string(), 1, "ens4".to_string()),
        // Down: not a rail port.
        ("rxe2".to_string(), 1, "ens6.5".to_string()),
        // No address on its netdev.
        ("rxe3".to_string(), 1, "ens7".to_string()),
    ];
    let ports = rail_ports(
        &links,
        &ipv4_addrs(IP),
        |d, _| d != "rxe2",
        |d, _| (d == "rxe0").then(|| "10 Gb/sec (1X QDR)".to_string()),
    );
    let seen: Vec<String> = ports
        .iter()
        .map(|p| format!("{}/{} {} {}", p.dev, p.port, p.netdev, p.subnet()))
        .collect();
    assert_eq!(
        seen,
        ["rxe0/1 ens4 192.0.2.0/24", "rxe1/1 ens5 198.51.100.0/24"]
    );
    assert_eq!(ports[0].rate.as_deref(), Some("10 Gb/sec (1X QDR)"));
    assert_eq!(ports[1].rate, None);
    // `--dev rxe1`: only its port; no --dev: every one.
    let only = of_devices(ports.clone(), &["rxe1".to_string()]);
    assert_eq!(only.len(), 1);
    assert_eq!(only[0].dev, "rxe1");
    assert_eq!(of_devices(ports.clone(), &[]), ports);
}
