use super::*;

#[test]
fn event_names_come_from_librdmacm() {
    assert_eq!(event_name(CmEventType::Rejected), "RDMA_CM_EVENT_REJECTED");
    assert_eq!(
        event_name(CmEventType::AddrError),
        "RDMA_CM_EVENT_ADDR_ERROR"
    );
}

#[test]
fn only_an_ipv4_group_without_a_route_gets_the_route_hint() {
    let group: SocketAddr = "239.255.1.1:0".parse().unwrap();
    let h = mcast_route_hint(&group, libc::ENETUNREACH).unwrap();
    assert!(
        h.starts_with("no route sends 239.255.1.1 out of an RDMA netdev")
            && h.contains("`ip route add 224.0.0.0/4 dev NETDEV`"),
        "{h}"
    );
    assert_eq!(mcast_route_hint(&group, libc::ENODEV), Some(h));
    assert_eq!(mcast_route_hint(&group, libc::ETIMEDOUT), None);
    let unicast: SocketAddr = "192.0.2.1:0".parse().unwrap();
    assert_eq!(mcast_route_hint(&unicast, libc::ENETUNREACH), None);
    let v6: SocketAddr = "[ff0e::1]:0".parse().unwrap();
    assert_eq!(mcast_route_hint(&v6, libc::ENETUNREACH), None);
}

#[test]
fn rejected_connect_reads_as_connection_refused() {
    let e = expect_established("rdma_connect", CmEventType::Rejected, 8)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("rdma_connect failed: Connection refused (ECONNREFUSED)"),
        "{e}"
    );
    assert!(e.ends_with("(RDMA_CM_EVENT_REJECTED, status 8)"), "{e}");
    assert!(expect_established("x", CmEventType::Established, 0).is_ok());
}
