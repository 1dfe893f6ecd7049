//! srq on Soft-RoCE: every batch shape ends, and the server's receives come
//! over every one of the qp_count connections (the SRQ is shared).

use super::*;

/// The distinct QP numbers of the server's `recv count: N, qp_num: Q` lines.
fn server_qps(o: &Outcome) -> Vec<String> {
    let mut qps: Vec<String> = stdout_of(&o.server)
        .lines()
        .filter_map(|l| {
            l.split_once(", qp_num: ")
                .map(|(_, q)| q.trim().to_string())
        })
        .collect();
    qps.sort();
    qps.dedup();
    qps
}

/// Receives on exactly `n` QPs, and as many client sends as server receives.
fn assert_spread(o: &Outcome, n: usize, msgs: usize) {
    let (s, c) = (stdout_of(&o.server), stdout_of(&o.client));
    assert_eq!(server_qps(o).len(), n, "receives on {n} QPs expected:\n{s}");
    let count = |t: &str, p: &str| t.lines().filter(|l| scenarios::glob_match(p, l)).count();
    assert_eq!(count(s, "recv count: *, qp_num: *"), msgs, "server:\n{s}");
    assert_eq!(count(c, "send count: *, qp_num: *"), msgs, "client:\n{c}");
}

softroce_tests! {
    srq => srq_single_host, srq_two_hosts, |o, _mode| { assert_spread(o, 4, 100); };
    srq_one_qp => srq_one_qp_single_host, srq_one_qp_two_hosts, |o, _mode| { assert_spread(o, 1, 100); };
    srq_8qp_w16 => srq_8qp_w16_single_host, srq_8qp_w16_two_hosts, |o, _mode| { assert_spread(o, 8, 100); };
    srq_c10_w3 => srq_c10_w3_single_host, srq_c10_w3_two_hosts, |o, _mode| { assert_spread(o, 4, 10); };
    srq_c5_w64 => srq_c5_w64_single_host, srq_c5_w64_two_hosts, |o, _mode| { assert_spread(o, 4, 5); };
    srq_no_server => srq_no_server_single_host, srq_no_server_two_hosts, |o, _mode| {
        let c = o.client.as_ref().expect("client ran");
        assert!(c.elapsed_ms.is_some_and(|ms| ms < 10000), "must fail within 10 s: {:?} ms", c.elapsed_ms);
        assert_eq!(c.stderr.lines().count(), 1, "one error line: {}", c.stderr);
    };
}
