use super::*;

#[test]
fn arguments() {
    assert_eq!(
        parse_args(&[] as &[&str]).unwrap(),
        "0.0.0.0:0".parse().unwrap()
    );
    assert_eq!(
        parse_args(&["192.0.2.1"]).unwrap(),
        "192.0.2.1:0".parse().unwrap()
    );
    assert_eq!(
        parse_args(&["192.0.2.1", "12345"]).unwrap(),
        "192.0.2.1:12345".parse().unwrap()
    );
    assert!(parse_args(&["192.0.2.1", "x"]).is_err());
    assert!(parse_args(&["192.0.2.1", "70000"]).is_err());
    assert!(parse_args(&["192.0.2.1", "1", "2"]).is_err());
    assert!(parse_args(&["no-such-host.invalid"]).is_err());
    let e = parse_args(&["12345"]).unwrap_err();
    assert!(e.contains("give the address first"), "{e}");
}

/// The fault matrix's limits row for the port operand (0 lets rdma_cm pick the port, as in the paper).
#[test]
fn the_port_at_and_past_its_limits() {
    common::testkit::assert_value_limits("port", 0, 65535, |p| {
        parse_args(&["192.0.2.1".to_string(), p.to_string()]).map(drop)
    });
}
