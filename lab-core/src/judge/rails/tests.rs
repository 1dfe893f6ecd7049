use super::*;
use crate::model::mesh::testkit::{port, swapped_run};
use crate::model::rails::{rails, Port};

fn fabric(with: &[(&str, &[(&str, &str)])]) -> Vec<String> {
    let hosts: Vec<(String, Vec<Port>)> = with
        .iter()
        .map(|(h, ps)| {
            (
                h.to_string(),
                ps.iter().map(|(d, a)| port(d, a, 24)).collect(),
            )
        })
        .collect();
    let names: Vec<&str> = with.iter().map(|(h, _)| *h).collect();
    findings(&names, &rails(&hosts))
        .into_iter()
        .map(|(at, text)| {
            assert!(text.starts_with(names[at]), "{text} names {}", names[at]);
            text
        })
        .collect()
}

#[test]
fn two_full_rails_have_no_finding() {
    let two = [("rxe0", "192.0.2.1"), ("rxe1", "198.51.100.1")];
    let two_b = [("rxe0", "192.0.2.2"), ("rxe1", "198.51.100.2")];
    let two_c = [("rxe0", "192.0.2.3"), ("rxe1", "198.51.100.3")];
    assert!(fabric(&[("node0", &two), ("node1", &two_b), ("node2", &two_c)]).is_empty());
}

#[test]
fn a_host_missing_from_a_rail_is_named_with_the_rail() {
    let f = fabric(&[
        ("node0", &[("rxe0", "192.0.2.1"), ("rxe1", "198.51.100.1")]),
        ("node1", &[("rxe0", "192.0.2.2"), ("rxe1", "198.51.100.2")]),
        ("node2", &[("rxe0", "192.0.2.3")]),
    ]);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].starts_with("node2 has no port on rail 198.51.100.0/24, which every other host is on"),
        "{f:?}"
    );
}

#[test]
fn a_nic_on_the_wrong_subnet_is_named_as_that_nic() {
    let f = fabric(&[
        ("node0", &[("rxe0", "192.0.2.1"), ("rxe1", "198.51.100.1")]),
        ("node1", &[("rxe0", "192.0.2.2"), ("rxe1", "198.51.100.2")]),
        ("node2", &[("rxe0", "192.0.2.3"), ("rxe1", "203.0.113.3")]),
    ]);
    assert_eq!(
        f,
        ["node2 rxe1 is on 203.0.113.0/24, not on rail 198.51.100.0/24 as every other host's port: a NIC on the wrong subnet (the address of nrxe1)"]
    );
}

#[test]
fn a_lone_port_and_a_missing_rail_of_other_hosts_are_each_named() {
    let f = fabric(&[
        ("node0", &[("rxe0", "192.0.2.1"), ("rxe1", "198.51.100.1")]),
        ("node1", &[("rxe0", "192.0.2.2"), ("rxe1", "198.51.100.2")]),
        ("node2", &[("rxe0", "192.0.2.3")]),
        (
            "node3",
            &[
                ("rxe0", "192.0.2.4"),
                ("rxe1", "198.51.100.4"),
                ("rxe2", "203.0.113.4"),
            ],
        ),
    ]);
    assert_eq!(
        f,
        [
            "node2 has no port on rail 198.51.100.0/24, which every other host is on: its NIC there is down, has no address, or is miscabled",
            "node3 rxe2 is on 203.0.113.0/24, which no other host has a port on: a wrong address on nrxe2, or the only port cabled to that plane",
        ]
    );
}

#[test]
fn two_hosts_on_different_subnets_each_have_a_lone_port_and_neither_is_blamed() {
    let f = fabric(&[
        ("node0", &[("rxe0", "192.0.2.1"), ("rxe1", "198.51.100.1")]),
        ("node1", &[("rxe0", "192.0.2.2"), ("rxe1", "203.0.113.2")]),
    ]);
    assert_eq!(
        f,
        [
            "node0 rxe1 is on 198.51.100.0/24, which no other host has a port on: a wrong address on nrxe1, or the only port cabled to that plane",
            "node1 rxe1 is on 203.0.113.0/24, which no other host has a port on: a wrong address on nrxe1, or the only port cabled to that plane",
        ]
    );
}

#[test]
fn many_lone_ports_of_one_host_are_counted_in_one_finding() {
    let ports: Vec<(String, String)> = (0..64)
        .map(|i| (format!("rxe{i}"), format!("10.{i}.0.9")))
        .collect();
    let ports: Vec<(&str, &str)> = ports
        .iter()
        .map(|(d, a)| (d.as_str(), a.as_str()))
        .collect();
    let f = fabric(&[
        ("node0", &[("rxe0", "192.0.2.1")]),
        ("node1", &[("rxe0", "192.0.2.2")]),
        ("node2", &ports),
    ]);
    assert_eq!(f.len(), 2, "{f:#?}");
    assert!(
        f[0].starts_with(
            "node2 has 64 ports on subnets no other host has a port on (rxe0 on 10.0.0.0/24"
        ),
        "{f:?}"
    );
    assert!(
        f[1].starts_with("node2 has no port on rail 192.0.2.0/24"),
        "{f:?}"
    );
}

#[test]
fn thousands_of_hosts_on_eight_rails_are_judged_at_once() {
    let hosts: Vec<(String, Vec<Port>)> = (0..4096)
        .map(|h| {
            let ports = (0..8)
                .map(|r| {
                    port(
                        &format!("mlx5_{r}"),
                        &format!("10.{r}.{}.{}", h / 250, h % 250 + 1),
                        16,
                    )
                })
                .collect();
            (format!("node{h}"), ports)
        })
        .collect();
    let names: Vec<&str> = hosts.iter().map(|(h, _)| h.as_str()).collect();
    let started = std::time::Instant::now();
    let r = rails(&hosts);
    assert_eq!(r.len(), 8);
    assert!(findings(&names, &r).is_empty());
    // Linear work: well under a second here (it took minutes before).
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn one_host_alone_has_no_rail_finding() {
    assert!(fabric(&[("node0", &[("rxe0", "192.0.2.1")])]).is_empty());
}

#[test]
fn a_host_whose_devices_are_in_another_order_is_said() {
    let run = swapped_run();
    assert_eq!(run.rail_devs(1), [Some("rxe1".into()), Some("rxe0".into())]);
    assert_eq!(
        device_order(&run),
        ["node1: rail 0 rxe1, rail 1 rxe0, where most hosts have rail 0 rxe0, rail 1 rxe1"]
    );
    // Said, not found: the diagnosis of the healthy run is empty.
    assert!(crate::judge::mesh::diagnose(&run).is_empty());
}

#[test]
fn a_port_missing_from_a_rail_is_not_another_order() {
    let mut run = swapped_run();
    run.hosts[1].ports = vec![port("rxe0", "192.0.2.2", 24)];
    // node1 now has rail 0 on rxe0, as most, and no port on rail 1.
    assert_eq!(run.rail_devs(1), [Some("rxe0".into()), None]);
    assert!(device_order(&run).is_empty());
}
