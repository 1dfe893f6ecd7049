//! The runs of `cargo xtask bench pingpong` (ibv_sockets_pingpong against
//! rdma-core's ibv_rc_pingpong, alternating) and the parser of the summary
//! both programs print, which the ping-pong scenarios' checks use too.

use crate::model::{Cmd, Expect, Ready, Scenario};

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

const SUMMARY: &[&str] = &[
    "* bytes in * seconds = * Mbit/sec",
    "* iters in * seconds = * usec/iter",
];

/// One run of either program; `ours` picks ibv_sockets_pingpong (port 6543)
/// over ibv_rc_pingpong (18515). Both take the same options.
fn run(name: &'static str, ours: bool) -> Scenario {
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
        name: name.into(),
        package,
        server: Some(Cmd::new("sh", server_args)),
        client: Some(Cmd::new(program, CLIENT_ARGS)),
        ready: Ready::TcpListen(port),
        server_expect: Expect::ok(SUMMARY),
        client_expect: Expect::ok(SUMMARY),
        timeout_secs: 60,
        ..Scenario::BASE
    }
}

/// Alternating runs: theirs, ours, theirs, ours, ...
pub fn scenarios() -> Vec<Scenario> {
    vec![
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
    ]
}
