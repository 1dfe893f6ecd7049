use super::*;

fn args(v: &[&str]) -> Vec<String> {
    v.iter().map(|a| a.to_string()).collect()
}

#[test]
fn every_command_answers_help_without_running() {
    for (name, _, _) in lab_commands() {
        assert_eq!(real_main(&args(&[name, "--help"])), Ok(true), "{name}");
    }
}

/// A refused command line is one line that names what was refused and
/// where to read more, never the whole help page.
#[test]
fn unknown_options_and_arguments_are_refused_in_one_line() {
    for bad in [
        &["lab", "--bogus"][..],
        &["lab", "--gid-idx"],
        &["lab", "--two-hosts", "--local"],
        &["bench"],
        &["bench", "pingpong", "--keep"],
        &["fmt", "--two-hosts"],
        &["list", "extra"],
        &["test", "--tcg"],
        &["nope"],
        &["lab", "--capture"],
        &["ladder"],
        &["handout", "extra"],
        &["handout", "--from"],
        &["ladder", "/nonexistent", "rc_example"],
        &["keygen"],
        &["help", "nope"],
        &["agent"],
        &["agent", "--config"],
        &["agent", "--config", "f", "extra"],
    ] {
        let e = real_main(&args(bad)).unwrap_err();
        assert!(!e.contains('\n') && !e.contains("usage:"), "{bad:?}: {e}");
        assert!(
            e.contains("--help")
                || e.contains("exclude each other")
                || e.contains("goes with --two-hosts")
                || e.contains("not the result dir"),
            "{bad:?}: {e}"
        );
    }
}

/// The agent's command line goes through clap as the others do: it is
/// read before any file is, and a configuration that is not there is one
/// line naming it.
#[test]
fn the_agent_reads_its_config_file_or_names_it() {
    let e = real_main(&args(&["agent"])).unwrap_err();
    assert!(e.contains("--config"), "{e}");
    let e = real_main(&args(&["agent", "--config", "/nonexistent/agent.json"])).unwrap_err();
    assert!(e.starts_with("/nonexistent/agent.json: "), "{e}");
    assert_eq!(real_main(&args(&["agent", "--help"])), Ok(true));
}

#[test]
fn a_typo_is_answered_with_the_closest_name() {
    for (bad, says) in [
        (&["lab", "--two-host"][..], "unknown option `--two-host` for `lab` (did you mean `--two-hosts`?); `cargo xtask lab --help` shows its options"),
        (&["mesh", "--rign"], "(did you mean `--ring`?)"),
        (&["lab", "-x"], "unknown option `-x` for `lab`; "),
        (&["lab", "--zzzzzz"], "unknown option `--zzzzzz` for `lab`; "),
        (&["lbа"], "unknown command `lbа`; `cargo xtask --help` lists the commands"),
        (&["mesj"], "unknown command `mesj` (did you mean `mesh`?)"),
        (&["help", "doctr"], "no command `doctr` (did you mean `doctor`?)"),
    ] {
        let e = real_main(&args(bad)).unwrap_err();
        assert!(e.contains(says), "{bad:?}: {e}");
    }
}

#[test]
fn version_and_help_of_one_command_answer() {
    for a in [&["--version"][..], &["-V"], &["help", "mesh"], &["help"]] {
        assert_eq!(real_main(&args(a)), Ok(true), "{a:?}");
    }
    assert!(usage(Some("mesh")).contains("--coordinator"));
    assert!(usage(Some("lab")).contains("--two-hosts"));
}

/// Asserts that `mesh` as rank 0 of 4 with `extra` is refused with one
/// line that says `says`.
fn mesh_refuses(extra: &[&str], says: &str) {
    let mut a = vec![
        "mesh",
        "--rank",
        "0",
        "--size",
        "4",
        "--coordinator",
        "node0",
    ];
    a.extend(extra);
    let e = real_main(&args(&a)).unwrap_err();
    assert!(e.contains(says) && !e.contains('\n'), "{a:?}: {e}");
}

#[test]
fn mesh_perf_options_are_checked_and_need_perf() {
    for (extra, says) in [
        (&["--min-gbps", "1"][..], "--min-gbps needs --perf"),
        (
            &["--min-rate-ratio", "0.5"],
            "--min-rate-ratio needs --perf",
        ),
        (&["--perf", "--min-rate-ratio", "2"], "--min-rate-ratio 2"),
        (&["--perf", "--min-bw-ratio", "1.5"], "--min-bw-ratio 1.5"),
        (&["--perf", "--max-lat-ratio", "0.5"], "--max-lat-ratio 0.5"),
        (&["--perf", "--min-gbps", "NaN"], "--min-gbps NaN"),
        (&["--qp-timeout", "20"], "--qp-timeout needs --perf"),
        (&["--perf", "--qp-timeout", "0"], "--qp-timeout 0"),
        (&["--perf", "--qp-timeout", "32"], "--qp-timeout 32"),
        (&["--perf", "--qp-timeout", "2\n0"], "--qp-timeout 2\\n0"),
    ] {
        mesh_refuses(extra, says);
    }
}

/// Without a rank (no srun, no --rank), a bad value is still refused for
/// what it is, not for the missing rank.
#[test]
fn a_bad_mesh_value_is_named_before_the_rank_is_sought() {
    for (extra, says) in [
        (
            &["--perf", "--min-bw-ratio", "abc"][..],
            "--min-bw-ratio abc",
        ),
        (
            &["--port", "99999"],
            "--port 99999: give a whole number from 0 to 65535",
        ),
        (&["--wait", "abc"], "--wait abc: give a whole number"),
        (&["--perf", "--qp-timeout", "99"], "--qp-timeout 99"),
        (&["--gid-idx", "x1"], "--gid-idx x1: give a whole number"),
        (&["--rank", "x"], "--rank x: give a whole number"),
        (&["--size", "4x"], "--size 4x: give a whole number"),
    ] {
        let mut a = vec!["mesh"];
        a.extend(extra);
        let e = real_main(&args(&a)).unwrap_err();
        assert!(
            e.contains(says) && !e.contains("no rank") && !e.contains('\n'),
            "{a:?}: {e}"
        );
    }
}

#[test]
fn mesh_options_are_checked_in_one_line_before_anything_runs() {
    for (extra, says) in [
        (&["--dev", "x;reboot"][..], "--dev"),
        (&["--ip", "1.2.3.4 x"], "--ip"),
        (&["--netdev", "$(reboot)"], "--netdev"),
        (&["--ring", "--star", "1"], "exclude each other"),
        (&["--mcast-senders", "some"], "--mcast-senders some"),
        (&["--star", "nowhere"], "--star nowhere"),
        (&["--port", "65535"], "--port 65535"),
        (&["--wait", "18446744073709551615"], "--wait"),
    ] {
        mesh_refuses(extra, says);
    }
    for (bad, says) in [
        (
            &["mesh", "--rank", "5", "--size", "4", "--coordinator", "n"][..],
            "rank 5 of 4",
        ),
        (
            &["mesh", "--rank", "0", "--size", "1", "--coordinator", "n"],
            "2 hosts or more",
        ),
        (
            &[
                "mesh",
                "--rank",
                "0",
                "--size",
                "2",
                "--coordinator",
                "$(reboot)",
            ],
            "not a host name",
        ),
        (
            &["mesh", "--rank", "x", "--size", "2", "--coordinator", "n"],
            "--rank x",
        ),
        (
            &["mesh", "--ssh", "node1,-oProxyCommand=touch"],
            "not a host name",
        ),
        (&["mesh", "--ssh", "node1"], "2 hosts or more"),
        (
            &[
                "mesh",
                "--rank",
                "0",
                "--size",
                "100000",
                "--coordinator",
                "n",
            ],
            "at most 4096",
        ),
    ] {
        let e = real_main(&args(bad)).unwrap_err();
        assert!(e.contains(says) && !e.contains('\n'), "{bad:?}: {e}");
    }
}

#[test]
fn two_host_options_are_checked_before_anything_runs() {
    for (bad, says) in [
        (&["lab", "--serve"][..], "goes with --local"),
        (&["lab", "--peer", "10.0.0.1"], "goes with --local"),
        (&["lab", "--local", "--serve"], "need --ip"),
        (&["lab", "--local", "--peer", "10.0.0.1"], "need --ip"),
        (
            &[
                "lab", "--local", "--serve", "--peer", "10.0.0.1", "--ip", "10.0.0.2",
            ],
            "exclude each other",
        ),
        (
            &["lab", "--local", "--serve", "--ip", "10.0.0.1", "srq"],
            "give the NAMEs there",
        ),
        (
            &["lab", "--local", "--kernel", "/boot/x"],
            "does not go with --local",
        ),
        (&["lab", "--local", "--port", "x"], "--port x"),
        (&["doctor", "--peer", "10.0.0.2"], "--peer needs --ip"),
        (
            &["doctor", "--ip", "10.0.0.2", "--peer", "10.0.0.2"],
            "own --ip",
        ),
        (&["doctor", "extra"], "unexpected argument"),
        (
            &["doctor", "--mcast", "192.0.2.1"],
            "--mcast 192.0.2.1: give an IPv4 multicast address",
        ),
        (
            &["doctor", "--mcast", "ff0e::1"],
            "--mcast ff0e::1: give an IPv4 multicast address",
        ),
        (
            &["lab", "--kernel", "/nonexistent/vmlinuz"],
            "--kernel /nonexistent/vmlinuz",
        ),
    ] {
        let e = real_main(&args(bad)).unwrap_err();
        assert!(e.contains(says), "{bad:?}: {e}");
    }
}

#[test]
fn the_usage_lists_every_command() {
    let text = usage(None);
    for (name, synopsis, _) in lab_commands() {
        assert!(text.contains(synopsis), "{name}");
    }
    assert!(usage(Some("lab")).contains("--two-hosts"));
    assert!(!usage(Some("lab")).contains("bench pingpong"));
}

#[test]
fn a_directory_without_a_capture_is_refused_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let e = real_main(&args(&["ladder", &dir.to_string_lossy()])).unwrap_err();
    assert!(e.contains("wire.pcap") && !e.contains('\n'), "{e}");
    let e = real_main(&args(&["handout", "--from", &dir.to_string_lossy()])).unwrap_err();
    assert!(
        e.contains("not the result dir of a two-host run with --capture"),
        "{e}"
    );
}
