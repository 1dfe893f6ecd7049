//! Peers that send more than a line may hold: the serving agent refuses
//! them and stays small. A test binary of its own, so that the peak memory
//! of this process's children is the attacked agents' alone.

// The lab's functions stay short (threshold in clippy.toml); CI denies it.
#![warn(clippy::too_many_lines)]

mod serving;

use serving::*;
use std::io::Write;

#[test]
fn an_oversized_line_is_refused_and_memory_stays_small() {
    let a = Serving::start(3);
    let mut s = a.connect();
    let chunk = vec![b'h'; 1 << 20];
    // The host closes after its bound; what is left is not sent.
    let sent = (0..600).take_while(|_| s.write_all(&chunk).is_ok()).count();
    assert!(sent < 600, "the host read 600 MiB without a newline");
    let (code, log, a) = a.finish(10);
    assert_children_stayed_small();
    assert_eq!(code, 1);
    let said = lines_with(&log, "longer than 256 bytes");
    assert_eq!(said.len(), 1, "{log}");
    // What it echoes of the line is a short prefix.
    assert!(log.len() < 4096, "{} bytes of log", log.len());
    assert!(a.ran().is_empty());
}

#[test]
fn an_oversized_line_in_a_session_is_refused() {
    let a = Serving::start(5);
    let c = a.session();
    let mut s = c.stream();
    let chunk = vec![b'a'; 1 << 20];
    let sent = (0..100).take_while(|_| s.write_all(&chunk).is_ok()).count();
    assert!(sent < 100);
    let (code, log, _) = a.finish(10);
    assert_children_stayed_small();
    assert_eq!(code, 1);
    assert!(log.contains("longer than 65536 bytes"), "{log}");
}
