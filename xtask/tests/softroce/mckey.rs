//! mckey and mc (UD multicast over rdma_cm) on Soft-RoCE.

use super::*;

fn count(text: &str, pat: &str) -> usize {
    text.lines()
        .filter(|l| scenarios::glob_match(pat, l.trim_end()))
        .count()
}

fn stderr_of(side: &Option<xtask::SideOutcome>) -> &str {
    side.as_ref().map(|s| s.stderr.as_str()).unwrap_or("")
}

softroce_tests! {
    mckey => mckey_single_host, mckey_two_hosts, |o, _mode| {
        let (s, c) = (stdout_of(&o.server), stdout_of(&o.client));
        assert_eq!(count(s, "mckey: joined dgid: *"), 1, "server:\n{s}");
        assert_eq!(count(c, "mckey: joined dgid: *"), 1, "client:\n{c}");
    };
    mc => mc_single_host, mc_two_hosts, |o, _mode| {
        let (s, c) = (stdout_of(&o.server), stdout_of(&o.client));
        assert_eq!(count(s, "received message *"), 4, "server:\n{s}");
        assert_eq!(count(c, "sent message *"), 4, "client:\n{c}");
        // The sender saw no CM event during the exchange: the cm_thread
        // printed nothing and stopped cleanly.
        assert_eq!(count(c, "event *, status *"), 0, "client:\n{c}");
    };
    mckey_two_connections => mckey_two_connections_single_host, mckey_two_connections_two_hosts, |o, _mode| {
        let (s, c) = (stdout_of(&o.server), stdout_of(&o.client));
        assert_eq!(count(s, "mckey: joined dgid: ::ffff:239.255.1.1"), 2, "server:\n{s}");
        assert_eq!(count(c, "mckey: joined dgid: ::ffff:239.255.1.1"), 2, "client:\n{c}");
    };
    mckey_50_messages_of_1000 => mckey_50_messages_of_1000_single_host, mckey_50_messages_of_1000_two_hosts;
    mckey_to_rdma_core_mckey => mckey_to_rdma_core_mckey_single_host, mckey_to_rdma_core_mckey_two_hosts, |o, _mode| {
        let s = stdout_of(&o.server);
        assert!(has_line(s, "receiving data transfers"), "rdma-core's mckey received:\n{s}");
    };
    rdma_core_mckey_to_mckey => rdma_core_mckey_to_mckey_single_host, rdma_core_mckey_to_mckey_two_hosts, |o, _mode| {
        let c = stdout_of(&o.client);
        assert!(has_line(c, "initiating data transfers"), "rdma-core's mckey sent:\n{c}");
    };
    mckey_two_receivers => mckey_two_receivers_single_host, mckey_two_receivers_two_hosts, |o, _mode| {
        let s = stdout_of(&o.server);
        assert_eq!(count(s, "r1 exit 0, r2 exit 0"), 1, "server:\n{s}");
        assert_eq!(count(s, "r*: data transfers complete"), 2, "server:\n{s}");
    };
    mc_20_messages_of_512 => mc_20_messages_of_512_single_host, mc_20_messages_of_512_two_hosts, |o, _mode| {
        let (s, c) = (stdout_of(&o.server), stdout_of(&o.client));
        assert_eq!(count(s, "received message *"), 20, "server:\n{s}");
        assert_eq!(count(c, "sent message *"), 20, "client:\n{c}");
    };
    mc_to_mckey => mc_to_mckey_single_host, mc_to_mckey_two_hosts;
    mckey_size_above_mtu => mckey_size_above_mtu_single_host, mckey_size_above_mtu_two_hosts, |o, _mode| {
        let s = stdout_of(&o.server);
        assert!(!has_line(s, "initiating data transfers"), "no message may be sent:\n{s}");
        assert_eq!(stderr_of(&o.server).lines().count(), 1, "one error line");
    };
    mc_length_above_mtu => mc_length_above_mtu_single_host, mc_length_above_mtu_two_hosts, |o, _mode| {
        let s = stdout_of(&o.server);
        assert_eq!(count(s, "sent message *"), 0, "no message may be sent:\n{s}");
        assert_eq!(stderr_of(&o.server).lines().count(), 1, "one error line");
    };
    mckey_bad_input => mckey_bad_input_single_host, mckey_bad_input_two_hosts, |o, _mode| {
        let s = stdout_of(&o.server);
        assert_eq!(count(s, "case *: exit 1, * stderr lines 1: *"), 8, "every case fails with one line:\n{s}");
        assert!(!s.contains("panicked"), "{s}");
    };
    mc_bad_input => mc_bad_input_single_host, mc_bad_input_two_hosts, |o, _mode| {
        let s = stdout_of(&o.server);
        assert_eq!(count(s, "case *: exit 1, * stderr lines 1: *"), 6, "every case fails with one line:\n{s}");
        assert!(!s.contains("panicked"), "{s}");
    };
}
