//! `cargo xtask setup | lab | test | list | fmt | bench`; see `cargo xtask help`.

use std::process::ExitCode;
use xtask::{agent, ci, lab, scenarios, setup, LabOptions, Mode};

const USAGE: &str = "\
usage: cargo xtask <command>

  setup     install what the lab needs (as root; otherwise print the commands)
  lab [NAME...] [--two-hosts] [--local [--dev DEV] [--ip ADDR] [--gid-idx N]] [--keep] [--tcg]
            run scenarios (default: every example pair) in a Soft-RoCE VM,
            in two VMs (--two-hosts) or on this host's RDMA device (--local);
            results go to target/lab/<run>/, kept on failure or with --keep;
            the VMs use KVM where the CPU offers it, --tcg (or XTASK_TCG=1)
            forces emulation
  list      list the scenarios
  fmt [--check]
            cargo fmt, the scenario files included (build.rs lists them)
  test      setup, fmt, clippy, host tests, then the Soft-RoCE test suite
  bench pingpong [--two-hosts] [--tcg]
            ibv_sockets_pingpong vs ibv_rc_pingpong, 4096 B x 1000 iters,
            alternating runs in one boot; medians and their ratio

  (agent ...  internal: the runner inside the VMs)";

fn lab_cmd(args: &[String]) -> Result<bool, String> {
    let mut names = Vec::new();
    let (mut two, mut local, mut keep, mut tcg) = (false, false, false, xtask::lab::tcg_from_env());
    let (mut dev, mut ip, mut gid_idx) = (None, "127.0.0.1".to_string(), 1);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{a} needs a value"))
        };
        match a.as_str() {
            "--two-hosts" => two = true,
            "--local" => local = true,
            "--keep" => keep = true,
            "--tcg" => tcg = true,
            "--dev" => dev = Some(value()?),
            "--ip" => ip = value()?,
            "--gid-idx" => gid_idx = value()?.parse().map_err(|e| format!("--gid-idx: {e}"))?,
            s if s.starts_with('-') => return Err(format!("unknown option {s}\n{USAGE}")),
            s => names.push(s.to_string()),
        }
    }
    if two && local {
        return Err("--two-hosts and --local exclude each other".into());
    }
    if !local && (dev.is_some() || ip != "127.0.0.1") {
        return Err("--dev and --ip go with --local".into());
    }
    let mode = if local {
        Mode::Local { dev, ip, gid_idx }
    } else if two {
        Mode::TwoHosts
    } else {
        Mode::SingleHost
    };
    let agent_exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let opts = LabOptions {
        mode,
        agent_exe,
        keep,
        tcg,
    };
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let report = xtask::run_scenarios(&opts, &names)?;
    lab::print_transcripts(&report.outcomes);
    let failed = lab::print_summary(&report);
    Ok(failed == 0 && report.notes.is_empty())
}

fn real_main(args: &[String]) -> Result<bool, String> {
    let Some(cmd) = args.first() else {
        println!("{USAGE}");
        return Ok(false);
    };
    let rest = &args[1..];
    match cmd.as_str() {
        "setup" => {
            let t = setup::ensure()?;
            println!("setup: ok; VMs boot {}", t.kernel.image.display());
            Ok(true)
        }
        "lab" => lab_cmd(rest),
        "list" => {
            for s in scenarios::all() {
                let kind = if s.pair { "pair" } else { "test-only" };
                println!("{:28} {kind}", s.name);
            }
            Ok(true)
        }
        "fmt" => Ok(ci::fmt(rest.iter().any(|a| a == "--check"))),
        "test" => {
            let failed = ci::run();
            if failed.is_empty() {
                println!("all steps passed");
            } else {
                println!("failed steps:\n  {}", failed.join("\n  "));
            }
            Ok(failed.is_empty())
        }
        "bench" => match rest.first().map(String::as_str) {
            Some("pingpong") => {
                let two = rest.iter().any(|a| a == "--two-hosts");
                let tcg = rest.iter().any(|a| a == "--tcg") || xtask::lab::tcg_from_env();
                let mode = if two {
                    Mode::TwoHosts
                } else {
                    Mode::SingleHost
                };
                xtask::bench::pingpong(mode, tcg)
            }
            _ => Err(format!(
                "usage: cargo xtask bench pingpong [--two-hosts] [--tcg]\n{USAGE}"
            )),
        },
        "agent" => agent::run(agent::AgentConfig::from_cli(rest)?).map(|()| true),
        "help" | "-h" | "--help" => {
            println!("{USAGE}");
            Ok(true)
        }
        other => Err(format!("unknown command `{other}`\n{USAGE}")),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    match real_main(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}
