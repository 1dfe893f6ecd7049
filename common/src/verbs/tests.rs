use super::*;

#[test]
fn c_enums_keep_unknown_values() {
    assert_eq!(WcStatus::from_raw(5), WcStatus::WrFlushErr);
    assert_eq!(WcStatus::WrFlushErr.code(), 5);
    assert_eq!(WcStatus::from_raw(999), WcStatus::Other(999));
    assert_eq!(WcStatus::Other(999).code(), 999);
    assert_eq!(WcOpcode::from_raw(128), WcOpcode::Recv);
}

#[test]
fn c_str_lossy_stops_at_nul() {
    assert_eq!(
        c_str_lossy(b"SEND operation \0\0\0\0\0\0"),
        "SEND operation "
    );
    assert_eq!(c_str_lossy(b"no nul"), "no nul");
    assert_eq!(c_str_lossy(b""), "");
}

#[test]
fn c_string_rejects_inner_nul() {
    assert!(c_string("device name", "rxe0").is_ok());
    let e = c_string("device name", "rx\0e0").unwrap_err();
    assert!(e.to_string().contains("device name"));
}
