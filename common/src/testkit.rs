//! Helpers for the examples' host tests, which run the real binaries and
//! judge their exit status and output.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Run `bin` with `args`, stdin closed, and collect its output.
pub fn run(bin: &str, args: &[&str]) -> Output {
    Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e}"))
}

/// Captured bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A TCP port that was free a moment ago.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("no free port: {e}"))
}

/// Wait up to `limit` until some socket listens on TCP `port` of this host
/// (read from /proc/net/tcp{,6}: probing with a connection would take a
/// one-client server's only accept).
pub fn wait_tcp_listen(port: u16, limit: std::time::Duration) -> bool {
    let want = format!(":{port:04X}");
    let start = std::time::Instant::now();
    while start.elapsed() < limit {
        let listening = ["/proc/net/tcp", "/proc/net/tcp6"].iter().any(|f| {
            std::fs::read_to_string(f).is_ok_and(|t| {
                t.lines().any(|l| {
                    let mut cols = l.split_whitespace().skip(1);
                    let local = cols.next().unwrap_or("");
                    // st 0A is LISTEN.
                    local.ends_with(&want) && cols.nth(1) == Some("0A")
                })
            })
        });
        if listening {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    false
}

/// True when this host has an RDMA device (a real HCA, or rxe set up).
pub fn has_rdma_device() -> bool {
    Path::new("/sys/class/infiniband")
        .read_dir()
        .map(|mut d| d.next().is_some())
        .unwrap_or(false)
}

/// True when the RDMA connection manager device exists.
pub fn has_rdma_cm() -> bool {
    Path::new("/dev/infiniband/rdma_cm").exists()
}

/// Assert the examples' failure contract: exit status 1, exactly one line on
/// stderr, no panic. Returns that line; `what` labels the case in messages.
#[track_caller]
pub fn one_line_error(out: &Output, what: &str) -> String {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{what}: {err}");
    assert_eq!(
        err.lines().count(),
        1,
        "{what}: one error line expected: {err}"
    );
    assert!(!err.contains("panicked"), "{what}: {err}");
    err
}

/// Assert that `bin -h` and `bin --help` print the usage on stdout and exit
/// 0, with a line for each option of `letters` that gives its default (or
/// says it is required), on that line or the one after it; and that a
/// stdout that cannot be written makes `-h` fail in one line instead.
#[track_caller]
pub fn help_lists_every_option(bin: &str, letters: &str) {
    full_stdout_is_one_error_line(bin);
    for flag in ["-h", "--help"] {
        let out = run(bin, &[flag]);
        let usage = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{flag}: {}", text(&out.stderr));
        assert!(out.stderr.is_empty(), "{flag}: {}", text(&out.stderr));
        let lines: Vec<&str> = usage.lines().collect();
        for l in letters.chars() {
            let mentions = |line: &str| {
                line.match_indices(&format!("-{l}")).any(|(i, m)| {
                    !line[i + m.len()..].starts_with(|c: char| c.is_ascii_alphanumeric())
                })
            };
            let has_default = |i: usize| {
                lines[i..(i + 2).min(lines.len())].iter().any(|t| {
                    ["default", "required", "replaces"]
                        .iter()
                        .any(|w| t.contains(w))
                })
            };
            assert!(
                (0..lines.len()).any(|i| mentions(lines[i]) && has_default(i)),
                "{flag}: no line gives -{l}'s default:\n{usage}"
            );
        }
    }
}

/// Assert that `bin -h` with a stdout that cannot be written (`> /dev/full`)
/// fails as every failure does: exit 1, one line naming the write, no panic.
#[track_caller]
pub fn full_stdout_is_one_error_line(bin: &str) {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full opens");
    let out = std::process::Command::new(bin)
        .arg("-h")
        .stdout(full)
        .output()
        .expect("the binary runs");
    let line = one_line_error(&out, "-h > /dev/full");
    assert!(
        line.starts_with("write to stdout failed: No space left on device"),
        "{line}"
    );
}

/// Assert that each numeric option of `cases` (`("-x", lowest, highest)`)
/// takes its lowest and highest value and refuses the values just past
/// them with a reason that names it, `base` being given too.
#[track_caller]
pub fn assert_limits<C>(
    cli: &crate::cli::Cli,
    read: impl Fn(&crate::cli::Matches) -> Result<crate::cli::Parsed<C>, String> + Copy,
    base: &[&str],
    cases: &[(&str, u64, u64)],
) {
    for &(opt, lo, hi) in cases {
        assert_value_limits(opt, lo, hi, |v| {
            let v = v.to_string();
            let args: Vec<&str> = base.iter().copied().chain([opt, v.as_str()]).collect();
            cli.config_of(&args, read).map(drop)
        });
    }
}

/// Assert that `with` takes the values `lo` and `hi` (of the option or
/// operand `name`) and refuses the values just past them with a reason
/// that names it.
#[track_caller]
pub fn assert_value_limits(name: &str, lo: u64, hi: u64, with: impl Fn(u64) -> Result<(), String>) {
    for v in [lo, hi] {
        assert_eq!(with(v), Ok(()), "{name} {v} must be taken");
    }
    for v in lo.checked_sub(1).into_iter().chain([hi + 1]) {
        let e = with(v).expect_err(&format!("{name} {v} must be refused"));
        assert!(
            e.contains(name),
            "{name} {v}: the reason must name {name}: {e}"
        );
    }
}

#[cfg(test)]
mod tests;
