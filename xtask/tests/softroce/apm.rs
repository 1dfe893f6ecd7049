//! apm on Soft-RoCE: the RoCE line, then the whole exchange without APM.

use super::*;

/// Both sides made exactly `n` sends and `n` receives.
fn assert_exchange(o: &Outcome, n: usize) {
    for (side, text) in [
        ("server", stdout_of(&o.server)),
        ("client", stdout_of(&o.client)),
    ] {
        let count = |p: &str| text.lines().filter(|l| scenarios::glob_match(p, l)).count();
        assert_eq!(count("send: *"), n, "{side}:\n{text}");
        assert_eq!(count("recv: *"), n, "{side}:\n{text}");
        assert_eq!(
            count("APM is not available on this port: *"),
            1,
            "{side}:\n{text}"
        );
    }
}

softroce_tests! {
    apm => apm_single_host, apm_two_hosts, |o, _mode| { assert_exchange(o, 5); };
    apm_migrate => apm_migrate_single_host, apm_migrate_two_hosts, |o, _mode| {
        assert_exchange(o, 5);
        // The migration point comes after exactly two iterations.
        let c = stdout_of(&o.client);
        let lines: Vec<&str> = c.lines().collect();
        let at = lines.iter().position(|l| l.starts_with("nothing to migrate")).expect("migration line");
        assert_eq!(lines[at - 1], "recv: 2", "client:\n{c}");
        assert_eq!(lines[at + 1], "send: 3", "client:\n{c}");
    };
    apm_no_server => apm_no_server_single_host, apm_no_server_two_hosts, |o, _mode| {
        let c = o.client.as_ref().expect("client ran");
        assert!(c.elapsed_ms.is_some_and(|ms| ms < 10000), "must fail within 10 s: {:?} ms", c.elapsed_ms);
        assert_eq!(c.stderr.lines().count(), 1, "one error line: {}", c.stderr);
    };
    apm_peer_dies => apm_peer_dies_single_host, apm_peer_dies_two_hosts, |o, _mode| {
        let c = o.client.as_ref().expect("client ran");
        assert_eq!(c.stderr.lines().count(), 1, "one error line: {}", c.stderr);
        assert!(c.elapsed_ms.is_some_and(|ms| ms < 20000), "must fail soon after the server died: {:?} ms", c.elapsed_ms);
    };
}
