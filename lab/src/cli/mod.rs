//! The lab's command line, the same under both of its names: `cargo xtask`
//! (the developer's, in the source tree) and `rdma-lab` (the binary that
//! runs from a copy): `setup | lab | doctor | keygen | list | handout | ladder | fmt
//! | test | bench`; see `help`. It parses and dispatches: each command's
//! file reads its options and calls the stage that does the work.

// The lab's functions stay short (threshold in clippy.toml); CI denies it.

mod args;
mod bench;
mod doctor;
mod handout;
mod help;
mod keygen;
mod lab;
mod ladder;
mod list;
mod mesh;

use crate::{guest, host};
use args::*;
use std::process::ExitCode;

fn real_main(args: &[String]) -> Result<bool, String> {
    let Some(cmd) = args.first() else {
        print!("{}", usage(None));
        return Ok(false);
    };
    let rest = &args[1..];
    match cmd.as_str() {
        "setup" => {
            if !no_args("setup", rest)? {
                return Ok(true);
            }
            let t = host::setup::ensure()?;
            println!("setup: ok; VMs boot {}", t.kernel.image.display());
            Ok(true)
        }
        "lab" => lab::lab_cmd(rest),
        "doctor" => doctor::doctor_cmd(rest),
        "ladder" => ladder::ladder_cmd(rest),
        "handout" => handout::handout_cmd(rest),
        "list" => list::list_cmd(rest),
        "mesh" => mesh::mesh_cmd(rest),
        "keygen" => keygen::keygen_cmd(rest),
        "fmt" | "test" if !crate::base::workspace::source_tree() => Err(format!(
            "`{cmd}` works in the source tree, with cargo: run `cargo xtask {cmd}` there"
        )),
        "fmt" => {
            let mut opts = getopts::Options::new();
            opts.optflag("", "check", "");
            match parse("fmt", opts, rest)? {
                Some(m) => Ok(host::ci::fmt(m.opt_present("check"))),
                None => Ok(true),
            }
        }
        "test" => {
            if !no_args("test", rest)? {
                return Ok(true);
            }
            let (failed, times) = host::ci::run();
            print!("{}", crate::present::times::table(&times));
            let path = crate::results::times::path(
                &crate::base::workspace::target_dir(),
                crate::results::times::RUN_FILE,
            );
            if let Err(e) = times.write(&path) {
                println!("the times were not kept: {e}");
            }
            if failed.is_empty() {
                println!("all steps passed");
            } else {
                println!("failed steps:\n  {}", failed.join("\n  "));
            }
            Ok(failed.is_empty())
        }
        "bench" => bench::bench_cmd(rest),
        "agent" => guest::agent::run(guest::agent::AgentConfig::from_cli(rest)?).map(|()| true),
        "help" | "-h" | "--help" => help::help_cmd(rest),
        "--version" | "-V" => {
            println!("{} {}", prog(), env!("CARGO_PKG_VERSION"));
            Ok(true)
        }
        other => {
            let near = closest(other, COMMANDS.iter().map(|c| c.0));
            Err(format!(
                "unknown command `{other}`{}; {}",
                did_you_mean(near),
                see_help(None)
            ))
        }
    }
}

/// Runs the command line of this process as the lab called `name`; its
/// exit code. A failure is one line on stderr.
pub fn main(name: &'static str) -> ExitCode {
    let _ = PROG.set(name);
    crate::base::out::set_program(name.rsplit(' ').next().unwrap_or(name));
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let result = real_main(&args);
    // What `print!` left buffered is written now, checked like the rest.
    crate::base::out::flush();
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("{}: {e}", prog().rsplit(' ').next().unwrap_or(prog()));
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn every_command_answers_help_without_running() {
        for (name, _, _) in COMMANDS {
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
        assert_eq!(edits("kitten", "sitting"), 3);
        assert_eq!(edits("", "ab"), 2);
    }

    #[test]
    fn version_and_help_of_one_command_answer() {
        for a in [&["--version"][..], &["-V"], &["help", "mesh"], &["help"]] {
            assert_eq!(real_main(&args(a)), Ok(true), "{a:?}");
        }
        assert!(options_of("mesh").contains(&"--coordinator".to_string()));
    }

    #[test]
    fn mesh_options_are_checked_in_one_line_before_anything_runs() {
        let ranked = [
            "mesh",
            "--rank",
            "0",
            "--size",
            "4",
            "--coordinator",
            "node0",
        ];
        for (extra, says) in [
            (&["--dev", "x;reboot"][..], "--dev"),
            (&["--ip", "1.2.3.4 x"], "--ip"),
            (&["--netdev", "$(reboot)"], "--netdev"),
            (&["--ring", "--star", "1"], "choose one"),
            (&["--mcast-senders", "some"], "--mcast-senders some"),
            (&["--star", "nowhere"], "--star nowhere"),
            (&["--port", "65535"], "--port 65535"),
            (&["--wait", "18446744073709551615"], "--wait"),
        ] {
            let mut a = ranked.to_vec();
            a.extend(extra);
            let e = real_main(&args(&a)).unwrap_err();
            assert!(e.contains(says) && !e.contains('\n'), "{a:?}: {e}");
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
        for (name, synopsis, _) in COMMANDS {
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
}
