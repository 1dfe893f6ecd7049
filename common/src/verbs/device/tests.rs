use super::*;

fn gid(s: &str) -> Gid {
    Gid(s.parse::<Ipv6Addr>().unwrap().octets())
}
#[test]
fn gid_prints_as_the_manual_does() {
    let g = gid("::ffff:192.0.2.1");
    assert_eq!(
        g.to_string(),
        "00:00:00:00:00:00:00:00:00:00:ff:ff:c0:00:02:01"
    );
    assert_eq!(g.ipv4_mapped(), Some(Ipv4Addr::new(192, 0, 2, 1)));
    assert!(!g.is_zero());
    assert!(Gid::default().is_zero());
    assert_eq!(Gid::from_raw(&g.to_raw()), g);
}

#[test]
fn device_list_on_a_host_without_rdma_is_empty_or_a_clear_error() {
    // This host may or may not have RDMA: either outcome must be well-formed.
    match DeviceList::new() {
        Ok(list) => assert_eq!(list.iter().count(), list.len()),
        Err(e) => assert!(
            e.to_string().starts_with("ibv_get_device_list failed: "),
            "{e}"
        ),
    }
}
