use super::*;

#[test]
fn the_rdma_cm_hint_names_only_what_is_missing() {
    let none = rdma_cm_hint(true, false).unwrap();
    assert!(none.starts_with("no RDMA device on this host: "), "{none}");
    assert!(!none.contains("rdma_cm is missing"), "{none}");
    assert_eq!(rdma_cm_hint(false, false), Some(none));
    let node = rdma_cm_hint(false, true).unwrap();
    assert!(
        node.contains("/dev/infiniband/rdma_cm is missing"),
        "{node}"
    );
    assert_eq!(rdma_cm_hint(true, true), None);
}
