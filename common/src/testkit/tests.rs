use super::*;
use std::time::Duration;

#[test]
fn sees_a_listener_and_only_a_listener() {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    assert!(wait_tcp_listen(port, Duration::from_secs(2)));
    drop(l);
    assert!(!wait_tcp_listen(port, Duration::from_millis(100)));
}
