use super::*;
use crate::catalog::cells::{SIGKILL, SIGNAL_AT, SIGSTOP};
use crate::model::params::script_refs;
use crate::model::tests::addrs;
use crate::model::{expand, Expect, Fault, Placement, Ready, Side, PLACEHOLDER_VARS};

#[test]
fn every_scenario_file_is_declared_with_its_tables() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/catalog");
    let this = std::fs::read_to_string(dir.join("mod.rs")).unwrap();
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let file = e.file_name().to_string_lossy().into_owned();
        // Not a table: the registry, the generated cells, these tests, the
        // bench's runs and the mesh's measurements (chained after every
        // other table).
        let tables = |n: &&str| !["mod", "cells", "tests", "bench", "perf", "fabric"].contains(n);
        let Some(name) = file.strip_suffix(".rs").filter(tables) else {
            continue;
        };
        seen += 1;
        let text = std::fs::read_to_string(e.path()).unwrap();
        assert!(this.contains(&format!("mod {name};\n")), "mod {name};");
        let example = EXAMPLES.iter().find(|e| e.krate == name);
        let other = OTHER_TABLES.iter().any(|(f, _)| *f == name);
        assert!(
            example.is_some() != other,
            "{name}: in EXAMPLES or OTHER_TABLES, once"
        );
        for item in ["scenarios", "waiting", "kills", "side_channels"] {
            let declared = text.contains(&format!("pub fn {item}() -> Vec<"));
            let listed = this.contains(&format!("{item}: {name}::{item},"))
                || this.contains(&format!("(\"{name}\", {name}::{item})"));
            assert_eq!(declared, listed, "{name}::{item}");
        }
    }
    assert_eq!(seen, EXAMPLES.len() + OTHER_TABLES.len());
}

#[test]
fn the_chapters_and_the_binaries_follow_the_registry() {
    assert_eq!(
        chapters(),
        [
            "rc_example",
            "ibv_sockets_pingpong",
            "rdmacm_client_server",
            "srq",
            "mckey",
            "apm"
        ]
    );
    assert_eq!(
        binaries(),
        [
            "rc_example",
            "ibv_sockets_pingpong",
            "rdmacm_server",
            "rdmacm_client",
            "srq",
            "mckey",
            "mc",
            "apm"
        ]
    );
    // An example's table holds its own cells only.
    for e in EXAMPLES {
        for s in (e.scenarios)() {
            assert_eq!(s.package, e.krate, "{} in {}'s table", s.name, e.krate);
        }
    }
    let mut numbers: Vec<_> = EXAMPLES.iter().map(|e| e.chapter).collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=EXAMPLES.len()).collect::<Vec<_>>());
    // Every scenario's package is a registered example's crate, or none
    // (the lab's and the doctor's own cells).
    for s in all() {
        assert!(
            EXAMPLES.iter().any(|e| e.krate == s.package) || s.package.is_empty(),
            "{}: package {}",
            s.name,
            s.package
        );
    }
}

use std::collections::HashSet;

#[test]
fn waiting_declarations_give_two_signal_cells() {
    let w = Waiting {
        name: "prog",
        package: "pkg",
        cmd: &["prog", "-s"],
        line: "waiting *",
        exits: [143, 130],
        stdout: &["bye"],
        stderr: &[],
    };
    let cells = w.cells();
    let names: Vec<&str> = cells.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["prog_sigterm_waiting", "prog_sigint_waiting"]);
    let int = &cells[1];
    let args = &int.server.as_ref().unwrap().args;
    assert_eq!(
        &args[..],
        [
            "-c",
            SIGNAL_AT,
            "sh",
            "INT",
            "waiting *",
            "0",
            "0",
            "prog",
            "-s"
        ]
    );
    assert_eq!(int.server_expect.exit, 130);
    assert_eq!(
        int.server_expect.stdout,
        ["waiting *", "bye", "exit 130 after INT"]
    );
    assert_eq!(int.server_expect.within_secs, Some(15));
    assert!(
        find("srq_sigint_waiting").is_some(),
        "declared cells are in the table"
    );
}

#[test]
fn kill_declarations_give_a_cell_per_signal() {
    let survivor = Expect::fails(&["peer gone"]).within(20);
    let k = Kill {
        name: "prog",
        package: "pkg",
        phase: "midway",
        server: &["prog", "-s"],
        client: &["prog", "host"],
        ready: Ready::TcpListen(1),
        victim: Side::Server,
        line: "recv *",
        signals: &[SIGKILL, SIGSTOP],
        survivor,
        ..Kill::BASE
    };
    let cells = k.cells();
    let names: Vec<&str> = cells.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["prog_server_sigkill_midway", "prog_server_sigstop_midway"]
    );
    let (kill, stop) = (&cells[0], &cells[1]);
    // The victim runs under the wrapper; the survivor as declared.
    let server = kill.server.as_ref().unwrap();
    assert_eq!(server.program, "sh");
    assert_eq!(
        server.args,
        ["-c", SIGNAL_AT, "sh", "KILL", "recv *", "0", "0", "prog", "-s"]
    );
    assert_eq!(kill.server_expect.exit, 137);
    assert_eq!(kill.server_expect.stdout, ["recv *", "exit 137 after KILL"]);
    let client = kill.client.as_ref().unwrap();
    assert_eq!(
        (client.program, &client.args[..]),
        ("prog", &["host".to_string()][..])
    );
    assert_eq!(kill.client_expect.stderr, ["peer gone"]);
    assert_eq!(kill.client_expect.within_secs, Some(20));
    assert_eq!(kill.fault, Some(Fault::PeerKilled));
    assert_eq!(kill.placement, Placement::Anywhere);
    // A stopped victim is held past the survivor's bound, in one VM.
    assert_eq!(stop.server.as_ref().unwrap().args[6], "25");
    assert_eq!(stop.fault, Some(Fault::SilentPeer));
    assert_eq!(stop.placement, Placement::OneHost);
    assert!(!stop.stop_server && !kill.stop_server);
    assert!(
        find("srq_client_sigterm_midway").is_some_and(|c| c.fault == Some(Fault::Signal)),
        "declared cells are in the table"
    );
}

/// The wrapper, on this host: a program signalled at its line, and a
/// stopped one let go when the wrapper gets SIGTERM, long before HOLD.
#[test]
fn signal_at_signals_at_the_line_and_lets_a_stopped_program_go_on_sigterm() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let program = ["sh", "-c", "echo starting; echo ready; exec sleep 30"];
    let run = |sig: &str, hold: &str| {
        Command::new("sh")
            .args(["-c", SIGNAL_AT, "sh", sig, "rea*", "0", hold])
            .args(program)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let t = Instant::now();
    let out = run("TERM", "0").wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "starting\nready\nexit 143 after TERM\n"
    );
    assert_eq!(out.status.code(), Some(143));
    let stopped = run("STOP", "60");
    std::thread::sleep(Duration::from_millis(500));
    // The shell's builtin: a minimal system has no kill program.
    let term = format!("kill -TERM {}", stopped.id());
    assert!(Command::new("sh")
        .args(["-c", &term])
        .status()
        .unwrap()
        .success());
    let out = stopped.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "starting\nready\nexit 137 after STOP\n"
    );
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
}

#[test]
fn faults_selects_cells_by_example_or_program() {
    let all_cells = faults(&[]).unwrap();
    assert!(all_cells.iter().all(|s| s.fault.is_some()));
    assert!(all_cells
        .iter()
        .any(|s| s.name == "srq_client_sigkill_midway"));
    assert!(
        !all_cells.iter().any(|s| s.name == "srq"),
        "pairs are not cells"
    );
    let mc = faults(&["mc"]).unwrap();
    assert!(!mc.is_empty() && mc.iter().all(|s| s.name.starts_with("mc_")));
    let mckey = faults(&["mckey"]).unwrap();
    assert!(mckey.len() > mc.len(), "the package has both programs");
    assert_eq!(
        faults(&["srq", "nosuch"]).unwrap_err(),
        SelectError::NoFaultCells {
            name: "nosuch".into(),
            near: None
        }
    );
    let typo = faults(&["srk"]).unwrap_err();
    assert_eq!(
        typo.to_string(),
        "no fault cells for `srk` (did you mean `srq`?)"
    );
}

/// An unknown name is one line, with the name it is likely a typo of:
/// never the whole catalog.
#[test]
fn an_unknown_name_is_said_with_its_likely_meaning() {
    let e = select(&["rc_example", "rc_exampel"]).unwrap_err();
    assert!(
        matches!(
            &e,
            SelectError::Unknown {
                near: Some("rc_example"),
                ..
            }
        ),
        "{e:?}"
    );
    let text = e.to_string();
    assert!(text.starts_with("unknown scenario `rc_exampel` (did you mean `rc_example`?); `rdma-lab list` names all "), "{text}");
    assert!(text.len() < 120, "{text}");
    assert!(matches!(
        select(&["zzzzzz"]),
        Err(SelectError::Unknown { near: None, .. })
    ));
}

/// Both kernels' outcomes, as they came in the VMs: Debian 12's
/// Soft-RoCE carries 8 MiB, Debian 13's 2 GiB, past what -l takes.
#[test]
fn every_script_of_the_table_is_read_to_its_end_unquoted() {
    for s in all() {
        for c in [&s.server, &s.client].into_iter().flatten() {
            if !matches!(c.program, "sh" | "bash") {
                continue;
            }
            assert_eq!(c.args.first().map(String::as_str), Some("-c"), "{}", s.name);
            let (refs, unquoted) = script_refs(&c.args[1]);
            assert!(
                unquoted,
                "{}: the quoting is not followed to the end",
                s.name
            );
            assert!(
                !PLACEHOLDER_VARS.iter().any(|(p, _)| refs.contains(p)),
                "{}",
                s.name
            );
        }
    }
}

/// A `-c SCRIPT` of any other interpreter (a Python stand-in) gets its
/// values as arguments: its text names no placeholder, which would paste
/// a value into code.
#[test]
fn no_inline_script_of_another_interpreter_names_a_placeholder() {
    let mut seen = 0;
    for s in all() {
        for c in [&s.server, &s.client].into_iter().flatten() {
            if matches!(c.program, "sh" | "bash")
                || c.args.first().map(String::as_str) != Some("-c")
            {
                continue;
            }
            seen += 1;
            let script = &c.args[1];
            for p in [
                "{server_ip",
                "{client_ip",
                "{dev}",
                "{gid_idx}",
                "{ib_port}",
            ] {
                assert!(!script.contains(p), "{}: its script names {p}", s.name);
            }
        }
    }
    assert!(seen >= 2, "the stand-ins are inline scripts");
}

#[test]
fn table_is_sane() {
    let mut names = HashSet::new();
    for s in all() {
        assert!(
            names.insert(s.name.as_str()),
            "duplicate scenario {}",
            s.name
        );
        assert!(
            s.name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "{} must be usable as a file stem and test name",
            s.name
        );
        assert!(
            s.server.is_some() || s.client.is_some(),
            "{} is empty",
            s.name
        );
        if s.pair {
            assert!(s.server.is_some() && s.client.is_some(), "{}", s.name);
            assert!(!s.package.is_empty(), "{}", s.name);
        }
        if s.server.is_none() {
            assert_eq!(s.ready, Ready::None, "{}", s.name);
        }
        assert!((1..=600).contains(&s.timeout_secs), "{}", s.name);
        // Every placeholder in an expected line is one `expand` fills.
        let lab = addrs("192.0.2.1", "192.0.2.2");
        for e in [&s.server_expect, &s.client_expect] {
            let counted = e.stdout_counts.iter().chain(&e.stderr_counts).map(|c| &c.0);
            for p in e
                .stdout
                .iter()
                .chain(&e.stderr)
                .chain(&e.stderr_one_of)
                .chain(counted)
            {
                let filled = expand(p, Some(&lab)).unwrap_or_default();
                assert!(
                    !filled.contains('{'),
                    "{}: unknown placeholder in `{p}`",
                    s.name
                );
            }
        }
    }
    assert!(pairs().count() >= 1);
}

#[test]
fn select_defaults_to_pairs_and_rejects_unknown() {
    let all: Vec<_> = select(&[])
        .unwrap()
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(all, pairs().map(|s| s.name.as_str()).collect::<Vec<_>>());
    assert!(matches!(
        select(&["nope"]),
        Err(SelectError::Unknown { count, .. }) if count == super::all().len()
    ));
}

/// The locked-memory cell's server is `setpriv ... sh -c SCRIPT`: its
/// script names the device by its variable, never by its value.
#[test]
fn the_setpriv_cells_script_holds_no_value() {
    let p = crate::model::Params {
        dev: "rxe0;touch /tmp/owned".into(),
        ..crate::model::Params::default()
    };
    let cell = find("ibv_sockets_pingpong_reg_mr_fails").unwrap();
    let cmd = cell.server.as_ref().unwrap();
    assert_eq!(cmd.program, "setpriv");
    let args = cmd.args_with(&p);
    let script = &args[args.iter().position(|a| a == "-c").unwrap() + 1];
    assert!(
        !script.contains("touch") && script.contains("${LAB_DEV}"),
        "{script}"
    );
}

/// [`SIGNAL_AT`] around `program`, with `first` first on PATH, a line
/// that never comes and no delay: its output.
fn signal_at(first: &std::path::Path, program: &[&str]) -> std::process::Output {
    let path = format!(
        "{}:{}",
        first.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::process::Command::new("sh")
        .args(["-c", SIGNAL_AT, "sh", "TERM", "never printed", "0", "0"])
        .args(program)
        .env("PATH", path)
        .output()
        .unwrap()
}

/// The signal wrapper's FIFO is made in a fresh dir only this user may
/// enter, and a FIFO that cannot be made (its name taken first by another
/// user) stops the wrapper before the program runs (before: `mktemp -u`
/// in the shared /tmp, then an unchecked `mkfifo`).
#[test]
fn the_signal_wrappers_fifo_is_private_and_checked() {
    let t = tempfile::tempdir().unwrap();
    let out = signal_at(
        t.path(),
        &[
            "sh",
            "-c",
            "stat -c %a \"$(dirname \"$(readlink /proc/$$/fd/1)\")\"",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().next(), Some("700"), "{stdout}");
    let mkfifo = t.path().join("mkfifo");
    std::fs::write(&mkfifo, "#!/bin/sh\nexit 1\n").unwrap();
    std::fs::set_permissions(&mkfifo, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let ran = t.path().join("ran");
    let out = signal_at(t.path(), &["touch", &ran.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(125), "{out:?}");
    assert!(!ran.exists());
}

/// No scenario's script makes a name with `mktemp -u` (a name another
/// user can take between the choice and its use).
#[test]
fn no_script_uses_a_name_another_user_could_take_first() {
    for s in all() {
        for c in [&s.server, &s.client].into_iter().flatten() {
            assert!(
                !c.args.iter().any(|a| a.contains("mktemp -u")),
                "{}: {:?}",
                s.name,
                c.args
            );
        }
    }
}

/// A scenario that runs the lab itself (`rdma-lab`, the doctor's cells
/// among them) runs in the lab's VMs only, as the README says: never on a
/// real host under `--local` (before, doctor_healthy and doctor_memlock_64
/// did).
#[test]
fn a_scenario_that_runs_the_lab_itself_runs_in_the_vms_only() {
    let runs_lab = |c: &crate::model::Cmd| {
        c.program == "rdma-lab"
            || c.args
                .iter()
                .any(|a| a == "rdma-lab" || a.contains("rdma-lab "))
    };
    let mut seen = 0;
    for s in all() {
        if [&s.server, &s.client].into_iter().flatten().any(runs_lab) {
            seen += 1;
            assert!(s.placement.vms_only(), "{}: {:?}", s.name, s.placement);
        }
    }
    assert!(seen >= 5, "{seen}");
}

#[test]
fn the_suite_runs_every_scenario_once_and_each_default_pair_on_both() {
    let (one, two) = (Mode::SingleHost, Mode::TwoHosts);
    for s in all() {
        let (a, b) = (in_suite(s, &one), in_suite(s, &two));
        assert!(a || b, "{}: in no batch", s.name);
        assert_eq!(a && b, s.pair, "{}: one VM {a}, two {b}", s.name);
        // What is about one host is tested there, whatever else shows it.
        assert!(a || !s.placement.one_host(), "{}", s.name);
        let local = Mode::Local {
            dev: None,
            ip: SERVER_IP.into(),
            gid_idx: None,
            role: crate::model::Local::Alone,
        };
        assert!(!in_suite(s, &local), "{}", s.name);
    }
}
