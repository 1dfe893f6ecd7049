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

fn count(text: &str, pattern: &str) -> usize {
    text.lines()
        .filter(|l| scenarios::glob_match(pattern, l))
        .count()
}

/// Receives on exactly `n` QPs, as many client sends as server receives,
/// and one server send (and client receive) per batch of `max_wr`.
fn assert_spread(o: &Outcome, n: usize, msgs: usize, max_wr: usize) {
    let (s, c) = (stdout_of(&o.server), stdout_of(&o.client));
    assert_eq!(server_qps(o).len(), n, "receives on {n} QPs expected:\n{s}");
    assert_eq!(count(s, "recv count: *, qp_num: *"), msgs, "server:\n{s}");
    assert_eq!(count(c, "send count: *, qp_num: *"), msgs, "client:\n{c}");
    let batches = msgs.div_ceil(max_wr);
    assert_eq!(count(s, "send count: *"), batches, "server:\n{s}");
    assert_eq!(count(c, "recv count: *"), batches, "client:\n{c}");
}

/// The surviving side failed with one line, soon after its peer died.
fn assert_noticed(side: &Option<xtask::SideOutcome>) {
    let side = side.as_ref().expect("side ran");
    assert_eq!(
        side.stderr.lines().count(),
        1,
        "one error line: {}",
        side.stderr
    );
    assert!(
        side.elapsed_ms.is_some_and(|ms| ms < 20_000),
        "must fail soon after the peer died: {:?} ms",
        side.elapsed_ms
    );
}

softroce_tests! {
    srq => srq_single_host, srq_two_hosts, |o, _mode| { assert_spread(o, 4, 100, 64); };
    srq_one_qp => srq_one_qp_single_host, srq_one_qp_two_hosts, |o, _mode| { assert_spread(o, 1, 100, 64); };
    srq_8qp_w16 => srq_8qp_w16_single_host, srq_8qp_w16_two_hosts, |o, _mode| { assert_spread(o, 8, 100, 16); };
    srq_c10_w3 => srq_c10_w3_single_host, srq_c10_w3_two_hosts, |o, _mode| { assert_spread(o, 4, 10, 3); };
    srq_c5_w64 => srq_c5_w64_single_host, srq_c5_w64_two_hosts, |o, _mode| { assert_spread(o, 4, 5, 64); };
    srq_q8_w3 => srq_q8_w3_single_host, srq_q8_w3_two_hosts, |o, _mode| { assert_spread(o, 8, 20, 3); };
    srq_c2_q4 => srq_c2_q4_single_host, srq_c2_q4_two_hosts, |o, _mode| { assert_spread(o, 2, 2, 64); };
    srq_client_dies => srq_client_dies_single_host, srq_client_dies_two_hosts, |o, _mode| { assert_noticed(&o.server); };
    srq_server_dies => srq_server_dies_single_host, srq_server_dies_two_hosts, |o, _mode| { assert_noticed(&o.client); };
    srq_no_such_host => srq_no_such_host_single_host, srq_no_such_host_two_hosts, |o, _mode| { assert_noticed(&o.client); };
    srq_no_server => srq_no_server_single_host, srq_no_server_two_hosts, |o, _mode| {
        let c = o.client.as_ref().expect("client ran");
        assert!(c.elapsed_ms.is_some_and(|ms| ms < 10000), "must fail within 10 s: {:?} ms", c.elapsed_ms);
        assert_eq!(c.stderr.lines().count(), 1, "one error line: {}", c.stderr);
    };
}
