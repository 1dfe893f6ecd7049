//! rc_example on Soft-RoCE.

use super::*;

softroce_tests! {
    rc_example => rc_example_single_host, rc_example_two_hosts, |o, mode| {
        // c000:0201 is 192.0.2.1 (server), c000:0202 is 192.0.2.2 (client).
        match mode {
            Mode::TwoHosts => assert_remote_gids(o, "ff:ff:c0:00:02:02", "ff:ff:c0:00:02:01"),
            _ => assert_remote_gids(o, "ff:ff:c0:00:02:01", "ff:ff:c0:00:02:01"),
        }
    };
    rc_example_auto_gid => rc_example_auto_gid_single_host, rc_example_auto_gid_two_hosts, |o, mode| {
        // Each side chose its own address's GID; the peer's shows up remote.
        match mode {
            Mode::TwoHosts => assert_remote_gids(o, "ff:ff:c0:00:02:02", "ff:ff:c0:00:02:01"),
            _ => assert_remote_gids(o, "ff:ff:c0:00:02:01", "ff:ff:c0:00:02:01"),
        }
    };
    rc_example_wrong_device => rc_example_wrong_device_single_host, rc_example_wrong_device_two_hosts;
    rc_example_closed_port => rc_example_closed_port_single_host, rc_example_closed_port_two_hosts;
    rc_example_client_dies => rc_example_client_dies_single_host, rc_example_client_dies_two_hosts, |o, _mode| {
        let server = o.server.as_ref().expect("server side ran");
        let limit = u64::from(scenarios::find("rc_example_client_dies").unwrap().timeout_secs) * 1000;
        assert!(
            server.elapsed_ms.is_some_and(|ms| ms < limit / 2),
            "the server must notice the dead client at once, not near the timeout: {:?} ms",
            server.elapsed_ms
        );
    };
}
