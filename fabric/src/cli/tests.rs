use super::*;

fn args(v: &[&str]) -> Vec<String> {
    v.iter().map(|a| a.to_string()).collect()
}

#[test]
fn every_command_answers_help_without_running() {
    for (name, _, _) in read::fabric_commands() {
        assert_eq!(real_main(&args(&[name, "--help"])), Ok(true), "{name}");
    }
    assert_eq!(real_main(&args(&["help", "mesh"])), Ok(true));
}

/// The fabric's commands are its three, and none of the lab's: no VM,
/// set-up, build or handout command reaches a node.
#[test]
fn only_the_fabrics_commands_are_known() {
    let names: Vec<&str> = read::fabric_commands().iter().map(|c| c.0).collect();
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
    for (bad, says) in [
        (
            &["doctor", "--gid-idx", "x"][..],
            "--gid-idx x: give a whole number",
        ),
        (&["mesh", "--rank", "x"], "--rank x: give a whole number"),
        (&["mesh", "--bogus"], "unknown option `--bogus` for `mesh`"),
        (&["mesh", "--rign"], "(did you mean `--ring`?)"),
        (&["mesh", "--ring", "--star", "1"], "exclude each other"),
        (
            &["mesh", "--mcast-senders", "some"],
            "--mcast-senders some: give all or first",
        ),
        (&["mesh", "--port"], "--port needs a value"),
        (
            &["mesh", "--replay", "f", "--ssh", "a,b"],
            "exclude each other",
        ),
        (
            &["mesh", "--replay", "f", "srq"],
            "--replay and NAME... exclude each other",
        ),
        (
            &["mesh", "--secret-stdin", "--secret-file", "f"],
            "exclude each other",
        ),
        (
            &["doctor", "extra"],
            "unexpected argument `extra` for `doctor`",
        ),
        (
            &["keygen"],
            "keygen: give FILE; `rdma-fabric keygen --help`",
        ),
        (&["mesh", "--ring=yes"], "--ring takes no value, not `yes`"),
        (&["mesh", "--allow", "x\ny"], "--allow x\\ny: "),
        (&["doctor", "--mcast", "x\ny"], "--mcast x\\ny: "),
        (
            &[
                "mesh",
                "--rank",
                "0",
                "--size",
                "2",
                "--coordinator",
                "n",
                "--star",
                "x\ny",
            ],
            "--star x\\ny: ",
        ),
    ] {
        let e = real_main(&args(bad)).unwrap_err();
        assert!(e.contains(says), "{bad:?}: {e}");
        assert!(!e.contains('\n'), "{bad:?}: {e}");
    }
}

/// An option that needs `--perf` is refused without it when the command
/// line gives it, not for the default it has.
#[test]
fn a_perf_option_is_read_with_perf_and_its_default_alone_is_not_refused() {
    let perf = |a: &[&str]| {
        let read = read::read("mesh", &args(a)).unwrap().unwrap();
        let define::FabricCommand::Mesh(m) = read.command else {
            panic!("not the mesh")
        };
        (m.perf, read.given)
    };
    let (p, _) = perf(&["--perf", "--qp-timeout", "20"]);
    assert_eq!((p.qp_timeout, p.min_bw_ratio), (Some(20), 0.5));
    let (p, given) = perf(&["--min-bw-ratio", "0.3"]);
    assert_eq!(p.min_bw_ratio, 0.3);
    assert!(given.contains(&"min_bw_ratio".to_string()));
    let (_, given) = perf(&[]);
    assert!(!given.contains(&"min_bw_ratio".to_string()), "{given:?}");
    // As with getopt, an option given twice keeps its last value.
    let (p, _) = perf(&["--perf", "--min-gbps", "1", "--min-gbps", "2"]);
    assert_eq!(p.min_gbps, Some(2.0));
}

#[test]
fn the_help_lists_each_command_from_its_definition() {
    let text = usage::usage(None);
    for (name, synopsis, what) in read::fabric_commands() {
        assert!(text.contains(synopsis) && text.contains(what), "{name}");
    }
    assert!(text.contains("mesh [OPTIONS] [NAME...]"), "{text}");
    assert!(text.contains("keygen FILE"), "{text}");
    let mesh = usage::usage(Some("mesh"));
    for opt in [
        "--coordinator",
        "--qp-timeout",
        "RDMA_LAB_RANK",
        "[default: 7471]",
    ] {
        assert!(mesh.contains(opt), "{opt}: {mesh}");
    }
}

#[test]
fn the_man_pages_and_completions_come_from_the_same_definition() {
    let dir = tempfile::tempdir().unwrap();
    let man = dir.path().join("man");
    let pages = generate::man_pages(&man).unwrap();
    assert_eq!(
        pages,
        [
            "rdma-fabric-doctor.1",
            "rdma-fabric-keygen.1",
            "rdma-fabric-mesh.1",
            "rdma-fabric.1"
        ]
    );
    let mesh = std::fs::read_to_string(man.join("rdma-fabric-mesh.1")).unwrap();
    assert!(mesh.contains("qp\\-timeout"), "{mesh}");
    // A dir that is there already is not written into.
    assert!(generate::man_pages(&man).is_err());
    let bash = String::from_utf8(generate::completions("bash").unwrap()).unwrap();
    for opt in ["--min-bw-ratio", "--secret-stdin", "--mcast"] {
        assert!(bash.contains(opt), "{opt}");
    }
    let e = generate::man_pages(&dir.path().join("a\nb/c")).unwrap_err();
    assert!(!e.contains('\n'), "{e}");
    let e = generate::completions("tcsh").unwrap_err();
    assert!(
        e.starts_with("--generate tcsh: give one of man DIR, bash"),
        "{e}"
    );
}
