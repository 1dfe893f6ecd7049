//! The measurements of `rdma-lab mesh --perf`: perftest's `ib_write_bw`
//! and `ib_send_lat` between the two hosts of a pair (Debian's
//! `perftest`, the tool the field already trusts), and the reader of the
//! report each writes with `--out_json`.
//!
//! perftest writes its report to a file, in its own `key: value,` lines;
//! each side runs it through [`REPORTED`], which gives it a file in a
//! private directory and prints the report after the table, so that the
//! figures travel in the side's transcript like any program's output.

use crate::model::{Cmd, Expect, Ready, Scenario};

/// The bandwidth run's name: the client writes to the server.
pub const WRITE_BW: &str = "perf_write_bw";

/// The bandwidth run the other way (`--reversed`): the server writes to
/// the client. A link's bandwidth is the lesser of the two, so that a
/// NIC slow to send is slow with every peer, whichever side it plays.
pub const WRITE_BW_BACK: &str = "perf_write_bw_back";

/// The latency run's name.
pub const SEND_LAT: &str = "perf_send_lat";

/// The bandwidth figure of `ib_write_bw`'s report, in Gb/s
/// (`--report_gbits`).
pub const BW_KEY: &str = "BW_average";

/// How long each `ib_write_bw` runs (`-D`), in seconds, all of it
/// measured: `--margin 0`, which perftest's default (a quarter of the
/// duration in whole seconds) also is for 2.
pub const DURATION_SECS: u32 = 2;

/// The latency figure of `ib_send_lat`'s report: the typical (median)
/// round trip's half, in usec.
pub const LAT_KEY: &str = "t_typical";

/// Runs perftest (`$@`) with its report in a file of a directory of its
/// own, on the CPUs `{cpus}` lists where it lists any (`LAB_CPUS`: the
/// measuring NIC's local CPUs), with its memory bound to their node
/// `{numa_node}` (`LAB_NUMA_NODE`) where one is given and `numactl` is
/// installed (`numactl --membind --physcpubind`; `taskset -c` otherwise,
/// the memory then where the kernel's first touch puts it, the CPU's own
/// node), then prints the report and exits with perftest's status. Once
/// perftest runs, it prints the CPUs the kernel lets perftest's own
/// process run on, from its `/proc/PID/status` ([`AFFINITY_KEY`]), and
/// the memory policy its first mapping has, from its `/proc/PID/numa_maps`
/// ([`MEMORY_KEY`]), which the pair's record keeps ([`ran_on`],
/// [`memory_of`]). Values come as arguments and variables, never pasted
/// into the script; the wait for perftest's `exec` reads with the shell's
/// own `read`, since a program started under emulation takes a tenth of
/// a second.
const REPORTED: &str = "dir=$(mktemp -d) || exit 1; prog=$1; \
    if [ -n \"$LAB_CPUS\" ]; then \
    if [ -n \"$LAB_NUMA_NODE\" ] && command -v numactl >/dev/null 2>&1; then \
    set -- numactl --membind=\"$LAB_NUMA_NODE\" --physcpubind=\"$LAB_CPUS\" \"$@\"; \
    else set -- taskset -c \"$LAB_CPUS\" \"$@\"; fi; fi; \
    \"$@\" --out_json --out_json_file=\"$dir/report\" & pid=$!; \
    i=0; while [ $i -lt 100 ]; do \
    comm=; read -r comm 2>/dev/null <\"/proc/$pid/comm\" || break; \
    if [ \"$comm\" = \"$prog\" ]; then \
    while read -r key value; do \
    if [ \"$key\" = Cpus_allowed_list: ]; then echo \"$key $value\"; fi; \
    done 2>/dev/null <\"/proc/$pid/status\"; \
    if read -r _ policy _ 2>/dev/null <\"/proc/$pid/numa_maps\"; then \
    echo \"Memory_policy: $policy\"; fi; break; fi; \
    sleep 0.02; i=$((i+1)); done; \
    wait $pid; status=$?; \
    cat \"$dir/report\" 2>/dev/null; rm -rf \"$dir\"; exit $status";

/// The line [`REPORTED`] prints of where perftest ran, as the kernel's
/// `/proc/PID/status` names it.
pub const AFFINITY_KEY: &str = "Cpus_allowed_list:";

/// The line [`REPORTED`] prints of perftest's memory policy, as the
/// kernel's `/proc/PID/numa_maps` gives its first mapping's (the
/// process's own where the mapping has none): `bind:1`, `default`, ...
pub const MEMORY_KEY: &str = "Memory_policy:";

/// The CPUs a measurement's perftest ran on, from its side's transcript
/// or report ([`REPORTED`]'s [`AFFINITY_KEY`] line), when it says them as
/// a CPU list.
pub fn ran_on(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let list = l.trim().strip_prefix(AFFINITY_KEY)?.trim();
        crate::model::numa::cpus(list).map(|_| list.to_string())
    })
}

/// A measurement's perftest's memory policy, from its side's transcript
/// or report ([`REPORTED`]'s [`MEMORY_KEY`] line), when it reads as one
/// the kernel writes: a word (`default`, `bind`, `local`, ...) and, after
/// a colon, a node list (`bind:1`, `interleave:0-3`).
pub fn memory_of(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let policy = l.trim().strip_prefix(MEMORY_KEY)?.trim();
        let (word, nodes) = policy.split_once(':').unwrap_or((policy, ""));
        let word_ok = !word.is_empty()
            && word.len() <= 16
            && word.bytes().all(|b| b.is_ascii_lowercase() || b == b'=');
        let nodes_ok = nodes.is_empty() || crate::model::numa::cpus(nodes).is_some();
        (word_ok && nodes_ok).then(|| policy.to_string())
    })
}

/// [`DURATION_SECS`] as an argument (a test checks they agree).
const DURATION: &str = "2";

/// `ib_write_bw`'s arguments before the TCP port: the duration measured
/// whole, and the QP timeout `mesh --qp-timeout` gives (perftest's own
/// 14 by default). `ib_send_lat` keeps perftest's timeout: each of its
/// lone packets lost waits one timeout, which a long one would make
/// outlast the measurement's bound on a lossy link.
const BW_ARGS: [&str; 9] = [
    "-F",
    "--report_gbits",
    "-D",
    DURATION,
    "--margin",
    "0",
    "-u",
    "{qp_timeout}",
    "-p",
];

/// The measurements, in the order a pair runs them.
pub fn scenarios() -> Vec<Scenario> {
    vec![
        measured(
            WRITE_BW,
            "ib_write_bw",
            &[&BW_ARGS[..], &["{tcp_port:18516}"]].concat(),
            18516,
            BW_KEY,
        ),
        measured(
            WRITE_BW_BACK,
            "ib_write_bw",
            &[&["--reversed"][..], &BW_ARGS, &["{tcp_port:18518}"]].concat(),
            18518,
            BW_KEY,
        ),
        measured(
            SEND_LAT,
            "ib_send_lat",
            &["-F", "-n", "200", "-p", "{tcp_port:18517}"],
            18517,
            LAT_KEY,
        ),
    ]
}

/// The perftest program a measurement of [`scenarios`] runs, which its
/// server's command names after `sh -c REPORTED sh`; `None` for any other
/// scenario.
pub fn program(s: &Scenario) -> Option<&str> {
    let args = &s.server.as_ref()?.args;
    let is_perf = super::perf_runs().iter().any(|p| p.name == s.name);
    (is_perf && args.get(2)? == "sh").then(|| args.get(3).map(String::as_str))?
}

/// One perftest program between the pair, its figure in the client's
/// report.
fn measured(
    name: &str,
    program: &'static str,
    extra: &[&'static str],
    port: u16,
    key: &str,
) -> Scenario {
    let mut server = vec!["-c", REPORTED, "sh", program];
    server.extend(["-d", "{dev}", "-i", "{ib_port}", "-x", "{gid_idx}"]);
    server.extend(extra);
    let mut client = server.clone();
    client.push("{server_ip}");
    Scenario {
        name: name.into(),
        package: "",
        server: Some(Cmd::new("sh", &server)),
        client: Some(Cmd::new("sh", &client)),
        ready: Ready::TcpListen(port),
        server_expect: Expect::ok(&[]).any_stderr(),
        // perftest 4.5's `key: value,`, or a later one's `"key": value,`.
        client_expect: Expect::ok(&[&format!("*{key}*: *")]).any_stderr(),
        timeout_secs: 60,
        packages: &["perftest"],
        ..Scenario::BASE
    }
}

/// The bandwidth of the `ib_write_bw` report in `text`, in Gb/s: the
/// bytes of the messages it completed (`n_iterations` x `MsgSize`) over
/// [`DURATION_SECS`], which the wall clock's alarm bounds; its
/// [`BW_KEY`] only where the report has no count. perftest times its
/// [`BW_KEY`] with the CPU's cycle counter and its own estimate of the
/// clock, which an emulated CPU throws off: in the fabric test it
/// reported 0 ("Correlation coefficient r^2: ... < 0.9" on stderr), and
/// once 0.0016 Gb/s for a run whose ports sent 13 MB each way. Where
/// its clock holds, the two agree within 2%. No message completed is 0
/// Gb/s: perftest's duration mode ends without waiting for its messages
/// and exits 0, so a link that moved nothing still passes. A
/// [`BW_KEY`] of 0 without a count is no figure (an untimed run).
pub fn bandwidth(text: &str) -> Option<f64> {
    let counted = figure(text, "n_iterations")
        .zip(figure(text, "MsgSize"))
        .map(|(n, size)| n * size * 8.0 / f64::from(DURATION_SECS) / 1e9);
    counted.or_else(|| figure(text, BW_KEY).filter(|g| *g > 0.0))
}

/// The figure `key` of a perftest report in `text` (a side's stdout or
/// transcript): the number of its `key: value,` line (perftest 4.5, as
/// Debian 12 has it) or `"key": value,` line (perftest 24.01 and later,
/// standard JSON). `None` when there is none, or it is not a finite
/// number.
pub fn figure(text: &str, key: &str) -> Option<f64> {
    text.lines().find_map(|l| {
        let l = l.trim();
        let named = match l.strip_prefix('"') {
            Some(quoted) => quoted.strip_prefix(key)?.strip_prefix('"')?,
            None => l.strip_prefix(key)?,
        };
        let value = named.trim_start().strip_prefix(':')?;
        let v: f64 = value.trim().trim_end_matches(',').trim().parse().ok()?;
        v.is_finite().then_some(v)
    })
}

#[cfg(test)]
mod tests;
