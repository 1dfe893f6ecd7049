use super::*;

fn args(v: &[&str]) -> Vec<String> {
    v.iter().map(|a| a.to_string()).collect()
}

#[test]
fn every_command_answers_help_without_running() {
    for (name, _, _) in COMMANDS {
        assert_eq!(real_main(&args(&[name, "--help"])), Ok(true), "{name}");
    }
    assert_eq!(real_main(&args(&["help", "mesh"])), Ok(true));
}

/// The fabric's commands are its three, and none of the lab's: no VM,
/// set-up, build or handout command reaches a node.
#[test]
fn only_the_fabrics_commands_are_known() {
    let names: Vec<&str> = COMMANDS.iter().map(|c| c.0).collect();
    assert_eq!(names, ["doctor", "mesh", "keygen"]);
    for lab in [
        "setup", "lab", "handout", "ladder", "test", "fmt", "bench", "agent",
    ] {
        let e = real_main(&args(&[lab])).unwrap_err();
        assert!(e.starts_with(&format!("unknown command `{lab}`")), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

#[test]
fn a_bad_value_is_named_in_one_line() {
    let e = real_main(&args(&["doctor", "--gid-idx", "x"])).unwrap_err();
    assert!(e.starts_with("--gid-idx x: give a whole number"), "{e}");
    let e = real_main(&args(&["mesh", "--rank", "x"])).unwrap_err();
    assert!(e.starts_with("--rank x: give a whole number"), "{e}");
    let e = real_main(&args(&["mesh", "--bogus"])).unwrap_err();
    assert!(e.starts_with("unknown option `--bogus` for `mesh`"), "{e}");
}

#[test]
fn a_qp_timeout_is_read_with_perf() {
    let limits = |a: &[&str]| {
        let m = super::mesh::mesh_getopts().parse(a).unwrap();
        super::mesh::perf_limits(&m).unwrap().unwrap()
    };
    assert_eq!(
        limits(&["--perf", "--qp-timeout", "20"]).qp_timeout,
        Some(20)
    );
    assert_eq!(limits(&["--perf"]).qp_timeout, None);
}
