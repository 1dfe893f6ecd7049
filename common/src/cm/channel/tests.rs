use super::*;

#[test]
fn event_channel_on_a_host_without_rdma_fails_clearly_or_works() {
    // rdma_create_event_channel needs /dev/infiniband/rdma_cm.
    match EventChannel::new() {
        Ok(ch) => assert!(ch.fd() >= 0),
        Err(e) => assert!(
            e.to_string()
                .starts_with("rdma_create_event_channel failed: "),
            "{e}"
        ),
    }
}
