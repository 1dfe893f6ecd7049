//! `cargo xtask bench pingpong`: ibv_sockets_pingpong against rdma-core's
//! ibv_rc_pingpong at the same size, iterations, device and GID, in the same
//! VM boot, alternating runs, and the parser both programs' summaries share.

use crate::lab::{self, LabOptions, Mode};
use crate::scenarios::{Cmd, Expect, Ready, Scenario};

/// The two summary lines of ibv_rc_pingpong (and of ibv_sockets_pingpong `-n`):
/// `N bytes in T seconds = X Mbit/sec` and `N iters in T seconds = Y usec/iter`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Bytes moved (both directions).
    pub bytes: u64,
    /// Seconds of the bytes line.
    pub secs: f64,
    /// Throughput.
    pub mbit_per_sec: f64,
    /// Iterations.
    pub iters: u64,
    /// Latency per iteration.
    pub usec_per_iter: f64,
}

/// `"<N> <what> in <T> seconds = <X> <unit>"` → (N, T, X).
fn parse_line(line: &str, what: &str, unit: &str) -> Option<(u64, f64, f64)> {
    let rest = line.trim();
    let (n, rest) = rest.split_once(' ')?;
    let rest = rest.strip_prefix(what)?.strip_prefix(" in ")?;
    let (t, rest) = rest.split_once(" seconds = ")?;
    let x = rest.strip_suffix(unit)?.trim_end();
    Some((n.parse().ok()?, t.parse().ok()?, x.parse().ok()?))
}

/// Finds both summary lines in a transcript; `None` unless both are there.
pub fn parse_summary(text: &str) -> Option<Summary> {
    let bytes = text
        .lines()
        .find_map(|l| parse_line(l, "bytes", "Mbit/sec"))?;
    let iters = text
        .lines()
        .find_map(|l| parse_line(l, "iters", "usec/iter"))?;
    Some(Summary {
        bytes: bytes.0,
        secs: bytes.1,
        mbit_per_sec: bytes.2,
        iters: iters.0,
        usec_per_iter: iters.2,
    })
}

/// Message size of the comparison.
pub const SIZE: u32 = 4096;
/// Iterations per run.
pub const ITERS: u32 = 1000;
/// Target: ours at most this much slower than ibv_rc_pingpong.
pub const TARGET_RATIO: f64 = 1.05;

const SUMMARY: &[&str] = &[
    "* bytes in * seconds = * Mbit/sec",
    "* iters in * seconds = * usec/iter",
];

/// One run of either program; `ours` picks ibv_sockets_pingpong (port 6543)
/// over ibv_rc_pingpong (18515). Both take the same options.
const fn run(name: &'static str, ours: bool) -> Scenario {
    // Each server starts once the previous run's QPs are gone from the
    // kernel (`rdma res show qp` lists only the kernel's own): when runs
    // followed each other at once, whichever program ran second in a pair
    // came out 10-20% slower, and swapping the order swapped the verdict.
    const OUR_SERVER: &[&str] = &[
        "-c",
        "until [ -z \"$(rdma res show qp | grep -v 'comm \\[')\" ]; do sleep 0.1; done; \
         exec ibv_sockets_pingpong -d {dev} -g {gid_idx} -s 4096 -n 1000",
    ];
    const THEIR_SERVER: &[&str] = &[
        "-c",
        "until [ -z \"$(rdma res show qp | grep -v 'comm \\[')\" ]; do sleep 0.1; done; \
         exec ibv_rc_pingpong -d {dev} -g {gid_idx} -s 4096 -n 1000",
    ];
    const CLIENT_ARGS: &[&str] = &[
        "-d",
        "{dev}",
        "-g",
        "{gid_idx}",
        "-s",
        "4096",
        "-n",
        "1000",
        "{server_ip}",
    ];
    let (program, package, port, server_args) = if ours {
        (
            "ibv_sockets_pingpong",
            "ibv_sockets_pingpong",
            6543,
            OUR_SERVER,
        )
    } else {
        ("ibv_rc_pingpong", "", 18515, THEIR_SERVER)
    };
    Scenario {
        name,
        package,
        server: Some(Cmd {
            program: "sh",
            args: server_args,
        }),
        client: Some(Cmd {
            program,
            args: CLIENT_ARGS,
        }),
        ready: Ready::TcpListen(port),
        server_expect: Expect::ok(SUMMARY),
        client_expect: Expect::ok(SUMMARY),
        timeout_secs: 60,
        ..Scenario::BASE
    }
}

/// Alternating runs: theirs, ours, theirs, ours, ...
pub static SCENARIOS: &[Scenario] = &[
    run("bench_rc_pingpong_1", false),
    run("bench_sockets_pingpong_1", true),
    run("bench_rc_pingpong_2", false),
    run("bench_sockets_pingpong_2", true),
    run("bench_rc_pingpong_3", false),
    run("bench_sockets_pingpong_3", true),
    run("bench_rc_pingpong_4", false),
    run("bench_sockets_pingpong_4", true),
    run("bench_rc_pingpong_5", false),
    run("bench_sockets_pingpong_5", true),
    run("bench_rc_pingpong_6", false),
    run("bench_sockets_pingpong_6", true),
    run("bench_rc_pingpong_7", false),
    run("bench_sockets_pingpong_7", true),
];

/// The median of `v` (which must not be empty).
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Runs the comparison in one VM boot and prints both medians and the ratio;
/// `Ok(true)` when ours is within [`TARGET_RATIO`].
pub fn pingpong(mode: Mode, tcg: bool) -> Result<bool, String> {
    let opts = LabOptions {
        tcg,
        ..LabOptions::new(
            mode,
            std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?,
        )
    };
    let names: Vec<&str> = SCENARIOS.iter().map(|s| s.name).collect();
    let report = lab::run_scenarios(&opts, &names)?;
    let (mut theirs, mut ours) = (Vec::new(), Vec::new());
    println!("run                          usec/iter (client)  Mbit/sec");
    for o in &report.outcomes {
        let client = o.client.as_ref().map(|c| c.stdout.as_str()).unwrap_or("");
        match parse_summary(client) {
            Some(s) => {
                println!(
                    "{:28} {:>12.2}  {:>14.2}",
                    o.scenario, s.usec_per_iter, s.mbit_per_sec
                );
                if o.scenario.starts_with("bench_rc_") {
                    theirs.push(s.usec_per_iter);
                } else {
                    ours.push(s.usec_per_iter);
                }
            }
            None => {
                lab::print_transcripts(std::slice::from_ref(o), report.addrs.as_ref());
                return Err(format!(
                    "{}: no summary lines in the client's output",
                    o.scenario
                ));
            }
        }
    }
    let (t, o) = (median(&mut theirs), median(&mut ours));
    let ratio = o / t;
    println!(
        "{SIZE} bytes x {ITERS} iters, {} runs each ({}):",
        theirs.len(),
        opts.mode.label()
    );
    println!("  ibv_rc_pingpong      median {t:.2} usec/iter");
    println!("  ibv_sockets_pingpong median {o:.2} usec/iter");
    println!(
        "  ratio {ratio:.3} (target <= {TARGET_RATIO:.2}): {}",
        if ratio <= TARGET_RATIO {
            "met"
        } else {
            "NOT met"
        }
    );
    Ok(ratio <= TARGET_RATIO)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real ibv_rc_pingpong client transcript (rdma-core 44, Soft-RoCE).
    const RC_PINGPONG: &str =
        "  local address:  LID 0x0000, QPN 0x000011, PSN 0x2d1f4e, GID ::ffff:192.0.2.1
  remote address: LID 0x0000, QPN 0x000012, PSN 0x8a5e0c, GID ::ffff:192.0.2.1
8192000 bytes in 0.25 seconds = 262.34 Mbit/sec
1000 iters in 0.25 seconds = 249.81 usec/iter
";

    #[test]
    fn parses_ibv_rc_pingpong_summary() {
        let s = parse_summary(RC_PINGPONG).unwrap();
        assert_eq!(s.bytes, 8_192_000);
        assert_eq!(s.iters, 1000);
        assert!((s.secs - 0.25).abs() < 1e-9);
        assert!((s.mbit_per_sec - 262.34).abs() < 1e-9);
        assert!((s.usec_per_iter - 249.81).abs() < 1e-9);
    }

    #[test]
    fn needs_both_lines() {
        assert_eq!(
            parse_summary("1000 iters in 0.25 seconds = 249.81 usec/iter\n"),
            None
        );
        assert_eq!(
            parse_summary("8192000 bytes in 0.25 seconds = 262.34 Mbit/sec\n"),
            None
        );
        assert_eq!(parse_summary("garbage"), None);
        assert_eq!(
            parse_summary(
                "x bytes in 0.25 seconds = 1 Mbit/sec\n1 iters in 1 seconds = 1 usec/iter"
            ),
            None
        );
    }

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
    }

    #[test]
    fn runs_alternate_and_have_unique_names() {
        let names: Vec<&str> = SCENARIOS.iter().map(|s| s.name).collect();
        let mut dedup = names.clone();
        dedup.sort_unstable();
        dedup.dedup();
        assert_eq!(dedup.len(), names.len());
        for pair in SCENARIOS.chunks(2) {
            assert!(pair[0].name.starts_with("bench_rc_"));
            assert!(pair[1].name.starts_with("bench_sockets_"));
        }
        assert!(SCENARIOS.len() >= 6, "at least 3 runs each");
    }
}
