use super::*;

#[test]
fn an_address_and_a_port_are_required() {
    assert_eq!(
        parse_args(&["192.0.2.1", "12345"]).unwrap(),
        "192.0.2.1:12345".parse().unwrap()
    );
    assert!(parse_args(&[] as &[&str]).is_err());
    assert!(parse_args(&["192.0.2.1"]).is_err());
    assert!(parse_args(&["192.0.2.1", "0"]).is_err());
    assert!(parse_args(&["192.0.2.1", "x"]).is_err());
    assert!(parse_args(&["192.0.2.1", "1", "2"]).is_err());
    assert!(parse_args(&["no-such-host.invalid", "1"]).is_err());
}

/// The fault matrix's limits row for the port operand (a server listens on a port of its own, never 0).
#[test]
fn the_port_at_and_past_its_limits() {
    common::testkit::assert_value_limits("port", 1, 65535, |p| {
        parse_args(&["192.0.2.1".to_string(), p.to_string()]).map(drop)
    });
}
