use super::*;

#[test]
fn messages_are_the_papers() {
    assert_eq!(
        Side::Passive.message(42),
        "message from passive/server side with pid 42"
    );
    assert_eq!(
        Side::Active.message(7),
        "message from active/client side with pid 7"
    );
}

#[test]
fn message_travels_as_the_whole_nul_terminated_buffer() {
    let text = Side::Active.message(7);
    let buf = message_buffer(&text);
    assert_eq!(buf.len(), 1024);
    assert_eq!(&buf[..text.len()], text.as_bytes());
    assert!(buf[text.len()..].iter().all(|&b| b == 0));
    assert_eq!(c_str_lossy(&buf), text);
    // Too long for the buffer: cut to 1023 bytes, the NUL still last.
    let long = "x".repeat(2000);
    let buf = message_buffer(&long);
    assert_eq!(buf.len(), 1024);
    assert_eq!(buf[1023], 0);
    assert_eq!(c_str_lossy(&buf), long[..1023]);
}

#[test]
fn constants_are_the_papers() {
    // build_qp_attr only reads the CQ pointer; the values are what matter.
    assert_eq!(BUFFER_SIZE, 1024);
    assert_eq!(TIMEOUT_IN_MS, 500);
    assert_eq!(CQ_ENTRIES, 10);
}
