//! rdma-core's own programs: checks of the lab itself.

use super::*;

softroce_tests! {
    ibv_rc_pingpong => ibv_rc_pingpong_single_host, ibv_rc_pingpong_two_hosts, |o, mode| {
        if mode == Mode::TwoHosts {
            let s = stdout_of(&o.server);
            assert!(has_line(s, "*remote address: *GID ::ffff:192.0.2.2"), "server should talk to VM B:\n{s}");
        }
    };
    rping => rping_single_host, rping_two_hosts;
}
