use super::*;

/// A real ibv_rc_pingpong client transcript (rdma-core 44, Soft-RoCE).
const RC_PINGPONG: &str =
    "  local address:  LID 0x0000, QPN 0x000011, PSN 0x2d1f4e, GID ::ffff:192.0.2.1
  remote address: LID 0x0000, QPN 0x000012, PSN 0x8a5e0c, GID ::ffff:192.0.2.1
8192000 bytes in 0.25 seconds = 262.34 Mbit/sec
1000 iters in 0.25 seconds = 249.81 usec/iter
";

#[test]
fn parses_ibv_rc_pingpong_summary() {
    let s = parse_summary(RC_PINGPONG).unwrap();
    assert_eq!(s.bytes, 8_192_000);
    assert_eq!(s.iters, 1000);
    assert!((s.secs - 0.25).abs() < 1e-9);
    assert!((s.mbit_per_sec - 262.34).abs() < 1e-9);
    assert!((s.usec_per_iter - 249.81).abs() < 1e-9);
}

#[test]
fn needs_both_lines() {
    assert_eq!(
        parse_summary("1000 iters in 0.25 seconds = 249.81 usec/iter\n"),
        None
    );
    assert_eq!(
        parse_summary("8192000 bytes in 0.25 seconds = 262.34 Mbit/sec\n"),
        None
    );
    assert_eq!(parse_summary("garbage"), None);
    assert_eq!(
        parse_summary("x bytes in 0.25 seconds = 1 Mbit/sec\n1 iters in 1 seconds = 1 usec/iter"),
        None
    );
}

#[test]
fn runs_alternate_and_have_unique_names() {
    let names: Vec<&str> = crate::catalog::bench_runs()
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    let mut dedup = names.clone();
    dedup.sort_unstable();
    dedup.dedup();
    assert_eq!(dedup.len(), names.len());
    for pair in crate::catalog::bench_runs().chunks(2) {
        assert!(pair[0].name.starts_with("bench_rc_"));
        assert!(pair[1].name.starts_with("bench_sockets_"));
    }
    assert!(
        crate::catalog::bench_runs().len() >= 6,
        "at least 3 runs each"
    );
}
