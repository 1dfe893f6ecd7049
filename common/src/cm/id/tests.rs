use super::*;

#[test]
fn conn_param_is_copied_whole() {
    let p = ConnParam {
        private_data: vec![0x12, 0x34],
        responder_resources: 2,
        initiator_depth: 2,
        retry_count: 5,
        rnr_retry_count: 5,
        ..ConnParam::default()
    };
    let raw = p.to_raw().unwrap();
    assert_eq!(raw.private_data_len, 2);
    assert!(!raw.private_data.is_null());
    assert_eq!((raw.retry_count, raw.rnr_retry_count), (5, 5));
    assert!(ConnParam::default()
        .to_raw()
        .unwrap()
        .private_data
        .is_null());
    assert!(ConnParam {
        private_data: vec![0; 256],
        ..ConnParam::default()
    }
    .to_raw()
    .is_err());
}
