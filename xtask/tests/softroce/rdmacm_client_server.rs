//! rdmacm_server / rdmacm_client on Soft-RoCE.

use super::*;

softroce_tests! {
    rdmacm_client_server => rdmacm_client_server_single_host, rdmacm_client_server_two_hosts, |o, _mode| {
        // Two clients in a row, each with a full exchange, then SIGTERM.
        let (s, c) = (stdout_of(&o.server), stdout_of(&o.client));
        let count = |text: &str, pat: &str| text.lines().filter(|l| scenarios::glob_match(pat, l)).count();
        assert_eq!(count(s, "received connection request."), 2, "server:\n{s}");
        assert_eq!(count(s, "received message: message from active/client side with pid *"), 2, "server:\n{s}");
        assert_eq!(count(s, "peer disconnected."), 2, "server:\n{s}");
        assert_eq!(count(s, "send completed successfully."), 2, "server:\n{s}");
        assert_eq!(count(c, "received message: message from passive/server side with pid *"), 2, "client:\n{c}");
        assert_eq!(count(c, "disconnected."), 2, "client:\n{c}");
        // The two clients are different processes: their pids differ.
        let pids: Vec<&str> = s.lines().filter_map(|l| l.strip_prefix("received message: message from active/client side with pid ")).collect();
        assert!(pids.len() == 2 && pids[0] != pids[1] && pids.iter().all(|p| p.parse::<u32>().is_ok()), "{pids:?}");
    };
    rdmacm_client_dies => rdmacm_client_dies_single_host, rdmacm_client_dies_two_hosts, |o, _mode| {
        // The killed client left no error behind on the server, which then
        // served the second client in full.
        let s = o.server.as_ref().expect("server ran");
        assert!(!s.stderr.contains("on_completion: completion for an unknown connection"), "{}", s.stderr);
        let c = stdout_of(&o.client);
        assert_eq!(c.lines().filter(|l| *l == "disconnected.").count(), 1, "client:\n{c}");
    };
    rdmacm_server_dies => rdmacm_server_dies_single_host, rdmacm_server_dies_two_hosts, |o, _mode| {
        let c = o.client.as_ref().expect("client ran");
        assert_eq!(c.stderr.lines().count(), 1, "one line: {}", c.stderr);
        assert!(c.elapsed_ms.is_some_and(|ms| ms < 10_000), "must fail within 10 s: {:?} ms", c.elapsed_ms);
    };
    rdmacm_nobody_listening => rdmacm_nobody_listening_single_host, rdmacm_nobody_listening_two_hosts, |o, _mode| {
        let c = o.client.as_ref().expect("client ran");
        assert!(
            c.stderr.contains("RDMA_CM_EVENT_REJECTED") || c.stderr.contains("RDMA_CM_EVENT_UNREACHABLE"),
            "{}", c.stderr
        );
        assert!(c.elapsed_ms.is_some_and(|ms| ms < 5000), "must fail within 5 s: {:?} ms", c.elapsed_ms);
    };
    rdmacm_no_such_host => rdmacm_no_such_host_single_host, rdmacm_no_such_host_two_hosts;
}
