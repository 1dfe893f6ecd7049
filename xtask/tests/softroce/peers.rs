//! rdma-core's own programs: checks of the lab itself.

use super::*;

softroce_tests! {
    ibv_rc_pingpong => ibv_rc_pingpong_single_host, ibv_rc_pingpong_two_hosts, |o, mode| {
        // The same parser reads ibv_sockets_pingpong's summary (and the bench's).
        for out in [&o.server, &o.client] {
            let text = stdout_of(out);
            let s = xtask::bench::parse_summary(text).unwrap_or_else(|| panic!("no summary lines:\n{text}"));
            assert_eq!((s.bytes, s.iters), (819_200, 100), "{s:?}");
        }
        if mode == Mode::TwoHosts {
            let s = stdout_of(&o.server);
            assert!(has_line(s, "*remote address: *GID ::ffff:192.0.2.2"), "server should talk to VM B:\n{s}");
        }
    };
    rping => rping_single_host, rping_two_hosts;
}
