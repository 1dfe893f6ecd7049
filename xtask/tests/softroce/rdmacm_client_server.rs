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
        assert_eq!(count(c, "send completed successfully."), 2, "client:\n{c}");
        assert_eq!(count(c, "disconnected."), 2, "client:\n{c}");
        // Each message carries the pid of the process that sent it: the
        // server saw the two clients' pids, in order, and each client the
        // server's.
        let after = |text: &str, prefix: &str| -> Vec<String> {
            text.lines().filter_map(|l| l.strip_prefix(prefix)).map(str::to_string).collect()
        };
        let client_pids = after(c, "client pid ");
        assert_eq!(client_pids.len(), 2, "client:\n{c}");
        assert_ne!(client_pids[0], client_pids[1]);
        assert_eq!(after(s, "received message: message from active/client side with pid "), client_pids, "server:\n{s}");
        let server_pid = after(s, "server pid ");
        assert_eq!(server_pid.len(), 1, "server:\n{s}");
        assert_eq!(
            after(c, "received message: message from passive/server side with pid "),
            vec![server_pid[0].clone(), server_pid[0].clone()],
            "client:\n{c}"
        );
    };
    rdmacm_client_dies => rdmacm_client_dies_single_host, rdmacm_client_dies_two_hosts, |o, _mode| {
        // The killed client left no error behind on the server, which then
        // served the second client in full.
        let s = o.server.as_ref().expect("server ran");
        assert!(!s.stderr.contains("on_completion: completion for an unknown connection"), "{}", s.stderr);
        assert_eq!(s.stdout.lines().filter(|l| *l == "send completed successfully.").count(), 1, "server:\n{}", s.stdout);
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
    rdmacm_client_to_rping => rdmacm_client_to_rping_single_host, rdmacm_client_to_rping_two_hosts, |o, _mode| {
        let c = o.client.as_ref().expect("client ran");
        assert_eq!(c.stderr.lines().count(), 1, "one line: {}", c.stderr);
    };
    rping_to_rdmacm_server => rping_to_rdmacm_server_single_host, rping_to_rdmacm_server_two_hosts, |o, _mode| {
        let s = o.server.as_ref().expect("server ran");
        assert_eq!(s.stderr.lines().count(), 1, "one line: {}", s.stderr);
    };
    rdmacm_no_such_host => rdmacm_no_such_host_single_host, rdmacm_no_such_host_two_hosts;
}
