use super::*;
use crate::catalog::find;
use crate::catalog::rc_example::{rc_client, RC_CLIENT_STDOUT, RC_SERVER_STDOUT};
use crate::model::tests::{addrs, side};
use crate::model::{Cmd, TIMED_OUT};

fn good_rc() -> Outcome {
    let server = RC_SERVER_STDOUT
        .iter()
        .map(|p| p.replace('*', "1"))
        .collect::<Vec<_>>()
        .join("\n");
    let client = RC_CLIENT_STDOUT.join("\n");
    Outcome {
        scenario: "rc_example".into(),
        leftover: String::new(),
        capture: None,
        server: Some(side(0, &server, "")),
        client: Some(side(0, &client, "")),
    }
}

#[test]
fn good_run_passes() {
    let s = find("rc_example").unwrap();
    assert_eq!(check(s, &good_rc(), None), Vec::<String>::new());
}

#[test]
fn wrong_exit_code_fails() {
    let s = find("rc_example").unwrap();
    let mut o = good_rc();
    o.client.as_mut().unwrap().exit = Some(1);
    assert_eq!(check(s, &o, None), ["client: exit status 1, expected 0"]);
}

/// A serving host judges its own side alone: the client's failure, and
/// what was left in the kernel, are not the server's.
#[test]
fn one_side_is_judged_alone() {
    let s = find("rc_example").unwrap();
    let mut o = good_rc();
    o.client.as_mut().unwrap().exit = Some(1);
    o.leftover = "qp 17".into();
    assert_eq!(
        check_one_side(s, Side::Server, o.server.as_ref(), None),
        Vec::<String>::new()
    );
    assert_eq!(
        check_one_side(s, Side::Client, o.client.as_ref(), None),
        ["client: exit status 1, expected 0"]
    );
    let all = check(s, &o, None);
    assert_eq!(all.len(), 2, "{all:?}");
    o.server = None;
    assert_eq!(
        check_one_side(s, Side::Server, o.server.as_ref(), None),
        ["server: no result (never ran, or the VM died)"]
    );
}

#[test]
fn missing_line_fails() {
    let s = find("rc_example").unwrap();
    let mut o = good_rc();
    let srv = o.server.as_mut().unwrap();
    srv.stdout = srv.stdout.replace("test result is 0", "test result is 1");
    assert_eq!(
        check(s, &o, None),
        ["server: stdout has no line matching `test result is 0`"]
    );
}

#[test]
fn stdout_lines_must_come_in_order() {
    assert!(missing_in_order("a\nb\nc\n", &["a", "c"]).is_empty());
    assert!(missing_in_order("a\na\n", &["a", "a"]).is_empty());
    assert_eq!(
        missing_in_order("b\na\n", &["a", "b"]),
        vec!["has `b` only before `a`, not after it".to_string()]
    );
    assert_eq!(
        missing_in_order("a\n", &["a", "a"]),
        vec!["has `a` only before `a`, not after it".to_string()]
    );
    assert_eq!(
        missing_in_order("x\n", &["a"]),
        vec!["has no line matching `a`".to_string()]
    );
}

#[test]
fn timeout_is_labelled() {
    let s = find("rc_example_client_dies").unwrap();
    let o = Outcome {
        scenario: s.name.clone(),
        leftover: String::new(),
        capture: None,
        server: Some(side(TIMED_OUT, "", "")),
        client: Some(side(0, "", "")),
    };
    let f = check(s, &o, None);
    assert!(f[0].contains("timed out"), "{f:?}");
    assert_eq!(f.len(), 3, "{f:?}");
}

#[test]
fn missing_side_fails_and_absent_side_is_ignored() {
    let s = find("rc_example_closed_port").unwrap();
    let mut o = Outcome {
        scenario: s.name.clone(),
        leftover: String::new(),
        capture: None,
        server: None,
        client: Some(side(
            1,
            "",
            "failed to establish TCP connection to server 1.2.3.4",
        )),
    };
    assert!(check(s, &o, None).is_empty());
    o.client = None;
    assert_eq!(check(s, &o, None).len(), 1);
}

#[test]
fn counts_bounds_and_address_lines_are_checked() {
    let s = Scenario {
        name: "t".into(),
        client: Some(Cmd::new("t", &[])),
        client_expect: Expect::ok(&["start"])
            .counts(&[("sent *", 2), ("peer ::ffff:{server_ip}", 1)])
            .one_error_line()
            .within(5),
        ..Scenario::BASE
    };
    let run = |stdout: &str, stderr: &str, ms: u64| Outcome {
        scenario: "t".into(),
        leftover: String::new(),
        capture: None,
        server: None,
        client: Some(SideOutcome {
            elapsed_ms: Some(ms),
            ..side(0, stdout, stderr)
        }),
    };
    let lab = addrs("192.0.2.1", "192.0.2.2");
    let good = run(
        "start\nsent 1\nsent 2\npeer ::ffff:192.0.2.1\n",
        "warn\n",
        10,
    );
    assert!(check(&s, &good, Some(&lab)).is_empty());
    let bad = run("start\nsent 1\npeer ::ffff:192.0.2.2\n", "a\nb\n", 6000);
    assert_eq!(
        check(&s, &bad, Some(&lab)),
        [
            "client: took 6.0 s, must end within 5 s",
            "client: stderr has 2 lines, expected 1",
            "client: stdout has 1 lines matching `sent *`, expected 2",
            "client: stdout has 0 lines matching `peer ::ffff:192.0.2.1`, expected 1",
        ]
    );
    // Without known addresses the address line is not checked.
    assert_eq!(check(&s, &bad, None).len(), 3);
}

#[test]
fn stderr_lines_follow_the_exit_status_unless_declared() {
    let lines = |expect: Expect, exit: i32, stderr: &str| {
        let mut f = Vec::new();
        check_side(
            "s",
            &expect,
            Some(&side(exit, "", stderr)),
            30,
            None,
            &mut f,
        );
        f
    };
    assert!(lines(Expect::ok(&[]), 0, "").is_empty());
    assert_eq!(
        lines(Expect::ok(&[]), 0, "noise\n"),
        ["s: stderr has 1 lines, expected 0"]
    );
    assert!(lines(Expect::fails(&[]), 1, "why\n").is_empty());
    assert_eq!(
        lines(Expect::fails(&[]), 1, "why\nand again\n"),
        ["s: stderr has 2 lines, expected 1"]
    );
    assert!(lines(Expect::exits(9, &[], &[]), 9, "a\nb\n").is_empty());
    assert!(lines(Expect::ok(&[]).any_stderr(), 0, "a\nb\n").is_empty());
    assert!(lines(Expect::exits(9, &[], &[]).one_error_line(), 9, "a\n").is_empty());
}

#[test]
fn one_of_takes_any_of_its_lines_and_names_them_all_when_none_matches() {
    let one_of = Scenario {
        name: "one_of".into(),
        client: Some(rc_client()),
        client_expect: Expect::fails_one_of(&["a: *", "b: *"]),
        ..Scenario::BASE
    };
    let run = |stderr: &str| Outcome {
        scenario: "one_of".into(),
        leftover: String::new(),
        capture: None,
        server: None,
        client: Some(side(1, "", stderr)),
    };
    assert!(check(&one_of, &run("b: gone"), None).is_empty());
    assert_eq!(
        check(&one_of, &run("c: gone"), None),
        ["client: stderr has no line matching any of `a: *`, `b: *`"]
    );
}

#[test]
fn objects_left_in_the_kernel_fail_the_run() {
    let s = find("rc_example").unwrap();
    let mut o = good_rc();
    o.leftover = "qp: link rxe0/1 lqpn 17 type RC state RTS comm rc_example pid 99\n\
                  mr: dev rxe0 mrn 3 comm rc_example pid 99\n"
        .into();
    assert_eq!(
        check(s, &o, None),
        [
            "left 2 object(s) in the kernel after both sides ended, first: \
          qp: link rxe0/1 lqpn 17 type RC state RTS comm rc_example pid 99"
        ]
    );
}

#[test]
fn verify_adds_its_failures() {
    fn never(_: &Outcome) -> Vec<String> {
        vec!["never".into()]
    }
    let s = Scenario {
        name: "t".into(),
        verify: Some(never),
        ..Scenario::BASE
    };
    let o = Outcome {
        scenario: "t".into(),
        leftover: String::new(),
        capture: None,
        server: None,
        client: None,
    };
    assert_eq!(check(&s, &o, None), ["never"]);
}

#[test]
fn past_max_msg_sz_wants_the_limit_that_applies() {
    let cell = find("srq_l_past_max_msg_sz").unwrap();
    let run = |m: &str, stderr: &str| Outcome {
        scenario: cell.name.clone(),
        leftover: String::new(),
        capture: None,
        server: Some(side(1, &format!("port max_msg_sz {m}"), stderr)),
        client: None,
    };
    let port = "-l 8388609 is longer than the largest message the port carries \
                (max_msg_sz 8388608): give a smaller -l";
    let range = "srq: invalid value '2147483649' for -l (expected 1..2147483647)";
    assert!(check(cell, &run("8388608", port), None).is_empty());
    assert!(check(cell, &run("2147483648", range), None).is_empty());
    // The other limit's line is not the one that applies.
    assert!(!check(cell, &run("8388608", range), None).is_empty());
    assert!(!check(cell, &run("2147483648", port), None).is_empty());
}

/// A side that could not be started is reported with the program's path
/// and the system's reason, and nothing else of it is judged.
#[test]
fn a_side_that_never_started_says_why() {
    let s = find("rc_example").unwrap();
    let mut o = good_rc();
    o.client = Some(side(
        126,
        "",
        "timeout: failed to run command '/opt/bin/rc_example': Permission denied\n",
    ));
    assert_eq!(
        check(s, &o, None),
        ["client: could not start /opt/bin/rc_example: Permission denied (exit 126)"]
    );
    o.client = Some(side(
        127,
        "",
        "timeout: failed to run command 'rc_example': No such file or directory\n",
    ));
    assert_eq!(
        check(s, &o, None),
        ["client: could not start rc_example: No such file or directory (exit 127)"]
    );
    // The agent's own word that `timeout` did not run: its status says
    // so; a program that prints the same line is a run like any other.
    let mut agent_said = side(127, "", "agent: cannot start rc_example: no timeout\n");
    o.client = Some(agent_said.clone());
    assert!(check(s, &o, None)[0].starts_with("client: could not start a program"));
    agent_said.cannot_start = Some("rc_example: no timeout".into());
    o.client = Some(agent_said);
    assert_eq!(
        check(s, &o, None),
        ["client: could not start rc_example: no timeout"]
    );
    // A shell's own words, where no line names the program.
    o.client = Some(side(127, "", "sh: 1: mckey: not found\n"));
    assert_eq!(
        check(s, &o, None),
        ["client: could not start a program (not found, exit 127): sh: 1: mckey: not found"]
    );
    // Exit 1 is a run, judged as one.
    o.client = Some(side(1, "", "x\n"));
    assert!(check(s, &o, None)[0].starts_with("client: exit status 1"));
    assert_eq!(unstarted(s, &o), None);
}

/// What the mesh's results carry of a side that never started is the
/// judge's own failure for it, and nothing on a pass.
#[test]
fn unstarted_is_the_judges_failure_for_the_side() {
    use crate::model::mesh::ScenarioResult;
    let s = find("rc_example").unwrap();
    let mut o = good_rc();
    assert_eq!(unstarted(s, &o), None);
    o.client = Some(side(
        126,
        "",
        "timeout: failed to run command '/b/rc_example': Permission denied\n",
    ));
    let failures = check(s, &o, None);
    let said = unstarted(s, &o);
    assert_eq!(said.as_deref(), failures.first().map(String::as_str));
    assert_eq!(unstarted_side(s, Side::Server, o.server.as_ref()), None);
    let r = ScenarioResult::judged("rc_example", &failures, said.clone(), None, None);
    assert_eq!(r.unstarted, said);
    assert_eq!(
        ScenarioResult::judged("rc_example", &[], said, None, None).unstarted,
        None
    );
}

/// rdmacm_client_dies as a real run printed it: the server's CQ thread
/// printed the second client's message before its event loop printed the
/// connection established. That passes; a server that established the
/// killed client's connection too, or never got the message, does not.
#[test]
fn a_killed_clients_run_passes_whatever_the_servers_threads_print_first() {
    use crate::model::tests::{addrs, side};
    let s = crate::catalog::find("rdmacm_client_dies").unwrap();
    let server = "listening on port 12345.\nreceived connection request.\nreceived connection \
                  request.\nreceived message: message from active/client side with pid 468\n\
                  connected. posting send...\nsend completed successfully.\npeer disconnected.\n";
    let client = "first client killed after: route resolved.\naddress resolved.\nroute \
                  resolved.\nconnected. posting send...\nsend completed successfully.\nreceived \
                  message: message from passive/server side with pid 457\ndisconnected.\n";
    let run = |server: &str| crate::model::Outcome {
        scenario: s.name.clone(),
        server: Some(side(
            0,
            server,
            "rdma_create_qp failed: Invalid argument (EINVAL); connection dropped\n",
        )),
        client: Some(side(0, client, "Killed\n")),
        leftover: String::new(),
        capture: None,
    };
    let a = addrs("192.0.2.1", "192.0.2.1");
    assert_eq!(
        crate::judge::check(s, &run(server), Some(&a)),
        Vec::<String>::new()
    );
    let twice = server.replace(
        "connected. posting send...\n",
        "connected. posting send...\nconnected. posting send...\n",
    );
    assert!(!crate::judge::check(s, &run(&twice), Some(&a)).is_empty());
    let unheard = server.replace(
        "received message: message from active/client side with pid 468\n",
        "",
    );
    assert!(!crate::judge::check(s, &run(&unheard), Some(&a)).is_empty());
}
