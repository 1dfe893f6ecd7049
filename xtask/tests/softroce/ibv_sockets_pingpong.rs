//! ibv_sockets_pingpong on Soft-RoCE.

use super::*;
use xtask::bench::parse_summary;

/// The `-n` run's summaries, read with the parser the bench (and the
/// ibv_rc_pingpong test) uses: both sides moved 100 x 4096 B each way.
fn summaries_parse(o: &Outcome) {
    for (side, out) in [("server", &o.server), ("client", &o.client)] {
        let text = stdout_of(out);
        let s = parse_summary(text).unwrap_or_else(|| panic!("{side}: no summary lines:\n{text}"));
        assert_eq!((s.bytes, s.iters), (819_200, 100), "{side}: {s:?}");
        assert!(
            s.usec_per_iter > 0.0 && s.mbit_per_sec > 0.0,
            "{side}: {s:?}"
        );
    }
}

softroce_tests! {
    ibv_sockets_pingpong => ibv_sockets_pingpong_single_host, ibv_sockets_pingpong_two_hosts, |o, mode| {
        // The client reports the server's GID, which differs across two VMs.
        let s = stdout_of(&o.server);
        let want = if mode == Mode::TwoHosts { "::ffff:192.0.2.2" } else { "::ffff:192.0.2.1" };
        assert!(has_line(s, &format!("remote gid: {want}")), "server should see the client's GID:\n{s}");
    };
    ibv_sockets_pingpong_n100_s4096 => ibv_sockets_pingpong_n100_s4096_single_host, ibv_sockets_pingpong_n100_s4096_two_hosts, |o, _mode| {
        summaries_parse(o);
    };
    ibv_sockets_pingpong_n0 => ibv_sockets_pingpong_n0_single_host, ibv_sockets_pingpong_n0_two_hosts;
    ibv_sockets_pingpong_s0 => ibv_sockets_pingpong_s0_single_host, ibv_sockets_pingpong_s0_two_hosts;
    ibv_sockets_pingpong_closed_port => ibv_sockets_pingpong_closed_port_single_host, ibv_sockets_pingpong_closed_port_two_hosts;
    ibv_sockets_pingpong_reg_mr_fails => ibv_sockets_pingpong_reg_mr_fails_single_host, ibv_sockets_pingpong_reg_mr_fails_two_hosts;
    ibv_sockets_pingpong_auto_gid => ibv_sockets_pingpong_auto_gid_single_host, ibv_sockets_pingpong_auto_gid_two_hosts, |o, mode| {
        // Each side picked its own netdev's address as GID and saw the peer's.
        let (s, c) = (stdout_of(&o.server), stdout_of(&o.client));
        let client_ip = if mode == Mode::TwoHosts { "192.0.2.2" } else { "192.0.2.1" };
        assert!(has_line(s, "*using GID index * (RoCE v2, ::ffff:192.0.2.1)"), "server:\n{s}");
        assert!(has_line(c, &format!("*using GID index * (RoCE v2, ::ffff:{client_ip})")), "client:\n{c}");
        assert!(has_line(s, &format!("remote gid: ::ffff:{client_ip}")), "server:\n{s}");
        assert!(has_line(c, "remote gid: ::ffff:192.0.2.1"), "client:\n{c}");
    };
    ibv_sockets_pingpong_size_mismatch => ibv_sockets_pingpong_size_mismatch_single_host, ibv_sockets_pingpong_size_mismatch_two_hosts, |o, _mode| {
        // Refused before any SEND was posted.
        for side in [&o.server, &o.client] {
            let text = stdout_of(side);
            assert!(!has_line(text, "[OK] post send.") && !has_line(text, "[OK] poll cq."), "{text}");
        }
    };
    ibv_sockets_pingpong_peer_dies => ibv_sockets_pingpong_peer_dies_single_host, ibv_sockets_pingpong_peer_dies_two_hosts, |o, _mode| {
        let server = o.server.as_ref().expect("server side ran");
        assert_eq!(server.stderr.lines().count(), 1, "one line: {}", server.stderr);
        let failed_send = "fail to poll cq: wr id 12345 completed with status 12 (transport retry counter exceeded)*";
        let no_answer = "fail to poll cq: no completion within 5 s (is the peer still running?)";
        assert!(has_line(&server.stderr, failed_send) || has_line(&server.stderr, no_answer), "{}", server.stderr);
    };
    ibv_sockets_pingpong_client_dies => ibv_sockets_pingpong_client_dies_single_host, ibv_sockets_pingpong_client_dies_two_hosts, |o, _mode| {
        let server = o.server.as_ref().expect("server side ran");
        assert!(server.elapsed_ms.is_some_and(|ms| ms < 15_000), "the server must notice at once: {:?} ms", server.elapsed_ms);
    };
}
