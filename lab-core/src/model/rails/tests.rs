use super::*;
use crate::model::mesh::testkit::port;

#[test]
fn a_subnet_keeps_the_network_bits() {
    let a: Ipv4Addr = "198.51.100.77".parse().unwrap();
    assert_eq!(Subnet::of(a, 24).to_string(), "198.51.100.0/24");
    assert_eq!(Subnet::of(a, 16).to_string(), "198.51.0.0/16");
    assert_eq!(Subnet::of(a, 32).to_string(), "198.51.100.77/32");
    assert_eq!(Subnet::of(a, 0).to_string(), "0.0.0.0/0");
    assert_eq!(Subnet::of(a, 40).to_string(), "198.51.100.77/32");
}

#[test]
fn ports_on_one_subnet_make_one_rail_in_subnet_order() {
    let hosts = vec![
        (
            "node0".to_string(),
            vec![
                port("rxe1", "198.51.100.1", 24),
                port("rxe0", "192.0.2.1", 24),
            ],
        ),
        (
            "node1".to_string(),
            vec![
                port("rxe0", "192.0.2.2", 24),
                port("rxe1", "198.51.100.2", 24),
            ],
        ),
        ("node2".to_string(), vec![port("rxe0", "192.0.2.3", 24)]),
    ];
    let r = rails(&hosts);
    let seen: Vec<(String, Vec<&str>)> = r
        .iter()
        .map(|r| {
            let mut hosts: Vec<&str> = r.ports.iter().map(|(h, _)| h.as_str()).collect();
            hosts.dedup();
            (r.subnet.to_string(), hosts)
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("192.0.2.0/24".to_string(), vec!["node0", "node1", "node2"]),
            ("198.51.100.0/24".to_string(), vec!["node0", "node1"]),
        ]
    );
    assert_eq!(r[1].ports[0].1.dev, "rxe1");
}

#[test]
fn a_ports_link_rate_is_the_number_sysfs_starts_with() {
    let with = |rate: Option<&str>| Port {
        rate: rate.map(str::to_string),
        ..port("rxe0", "192.0.2.1", 24)
    };
    assert_eq!(with(Some("100 Gb/sec (4X EDR)")).gbps(), Some(100.0));
    assert_eq!(with(Some("2.5 Gb/sec (1X SDR)")).gbps(), Some(2.5));
    assert_eq!(with(Some("0 Gb/sec")).gbps(), None);
    assert_eq!(with(Some("fast")).gbps(), None);
    assert_eq!(with(Some("10 Mb/sec")).gbps(), None);
    assert_eq!(with(None).gbps(), None);
}

#[test]
fn rail_0_is_a_subnet_whatever_the_devices_are_called() {
    // node1 of the fabric with its devices made in the other order.
    let swapped = [
        port("rxe0", "198.51.100.2", 24),
        port("rxe1", "192.0.2.2", 24),
    ];
    let coordinator = Some("192.0.2.1".parse().unwrap());
    assert_eq!(rail0_port(&swapped, coordinator).unwrap().dev, "rxe1");
    // The control elsewhere (a management network): the lowest subnet.
    let elsewhere = Some("10.1.0.5".parse().unwrap());
    assert_eq!(rail0_port(&swapped, elsewhere).unwrap().dev, "rxe1");
    assert_eq!(rail0_port(&swapped, None).unwrap().dev, "rxe1");
    // The coordinator's subnet wins over a lower one.
    let lower = [
        port("mlx5_0", "10.0.0.2", 8),
        port("mlx5_1", "192.0.2.2", 24),
    ];
    assert_eq!(rail0_port(&lower, coordinator).unwrap().dev, "mlx5_1");
    assert_eq!(rail0_port(&lower, None).unwrap().dev, "mlx5_0");
    assert_eq!(rail0_port(&[], coordinator), None);
}
