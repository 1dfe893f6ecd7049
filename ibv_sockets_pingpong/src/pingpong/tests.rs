use super::*;

#[test]
fn summary_lines_are_rc_pingpongs() {
    let text = format_summary(4096, 1000, Duration::from_micros(90_000));
    assert_eq!(
        text,
        "8192000 bytes in 0.09 seconds = 728.18 Mbit/sec\n1000 iters in 0.09 seconds = 90.00 usec/iter\n"
    );
    // Both directions: 2 x 128 B x 3 iterations.
    assert!(format_summary(128, 3, Duration::from_secs(1)).starts_with("768 bytes in 1.00 seconds"));
}
