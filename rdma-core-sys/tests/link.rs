//! The static inline verbs resolve to the C wrappers built from the
//! headers: a missing or misnamed wrapper fails this test at link time.

#[test]
fn static_inline_verbs_link() {
    let wrappers: [usize; 6] = [
        rdma_core_sys::ibv_post_send as *const () as usize,
        rdma_core_sys::ibv_post_recv as *const () as usize,
        rdma_core_sys::ibv_post_srq_recv as *const () as usize,
        rdma_core_sys::ibv_poll_cq as *const () as usize,
        rdma_core_sys::ibv_req_notify_cq as *const () as usize,
        rdma_core_sys::___ibv_query_port as *const () as usize,
    ];
    assert!(wrappers.iter().all(|&f| f != 0));
    let mut sorted = wrappers;
    sorted.sort_unstable();
    sorted
        .windows(2)
        .for_each(|w| assert_ne!(w[0], w[1], "two verbs share one wrapper"));
}

#[test]
fn enums_keep_the_headers_values() {
    use rdma_core_sys::*;
    // Wire- and ABI-visible values the examples rely on (verbs.h).
    assert_eq!(ibv_mtu::IBV_MTU_1024, 3);
    assert_eq!(ibv_qp_state::IBV_QPS_RTS, 3);
    assert_eq!(ibv_wr_opcode::IBV_WR_RDMA_READ, 4);
    assert_eq!(ibv_access_flags::IBV_ACCESS_REMOTE_READ.0, 4);
    assert_eq!(ibv_send_flags::IBV_SEND_SIGNALED.0, 2);
    assert_eq!(rdma_port_space::RDMA_PS_UDP, 0x0111);
    assert_eq!(RAI_PASSIVE, 1);
}
