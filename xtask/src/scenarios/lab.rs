//! The lab's own two-host mode, as a user of two real hosts runs it: one
//! command on each host, inside the two VMs.

use super::{Cmd, Expect, Ready, Scenario};

/// `sh -c SERVE`: host A's command. The binaries are the ones this run
/// uses (the first `rc_example` on PATH), and the result dir goes to /tmp,
/// the one place the VMs may write besides their own result dirs.
const SERVE: &str = "B=$(dirname \"$(command -v rc_example)\")
export CARGO_TARGET_DIR=/tmp/lab-two-commands
exec xtask lab --local --serve --ip {server_ip} --dev {dev} --port 7473 --wait 60 --bin-dir \"$B\"";

/// `sh -c PEER`: host B's command, which names the scenarios and prints
/// the report.
const PEER: &str = "B=$(dirname \"$(command -v rc_example)\")
export CARGO_TARGET_DIR=/tmp/lab-two-commands
exec xtask lab --local --peer {server_ip} --ip {client_ip} --dev {dev} --port 7473 --wait 60 \
--bin-dir \"$B\" --junit /tmp/lab-two-commands/lab.xml rc_example ibv_sockets_pingpong";

/// The two-command run.
pub static SCENARIOS: &[Scenario] = &[Scenario {
    name: "lab_two_commands",
    // ibv_sockets_pingpong, the probe's, is built for every two-host run.
    package: "rc_example",
    server: Some(Cmd {
        program: "sh",
        args: &["-c", SERVE],
    }),
    client: Some(Cmd {
        program: "sh",
        args: &["-c", PEER],
    }),
    ready: Ready::TcpListen(7473),
    server_expect: Expect::ok(&[
        "*agent server: control: the peer connected from {client_ip}:*",
        "*agent server: rc_example: starting server",
        "*agent server: ibv_sockets_pingpong: starting server",
        "lab: served the peer; it prints the report",
    ])
    .any_stderr(),
    // Both sides' transcripts, then the summary with both hosts' devices,
    // the one sent across included.
    client_expect: Expect::ok(&[
        "=== rc_example: server (exit 0, *",
        "test result is 0",
        "=== rc_example: client (exit 0, *",
        "=== ibv_sockets_pingpong: server (exit 0, *",
        "*buf: hello from server",
        "  PASS rc_example",
        "  PASS ibv_sockets_pingpong",
        "server host: rxe0 port 1 (Ethernet), GID index 1 (RoCE v2), active MTU 1024",
        "client host: rxe0 port 1 (Ethernet), GID index 1 (RoCE v2), active MTU 1024",
        "doctor: no findings",
        "2 passed, 0 failed*",
    ])
    .any_stderr(),
    timeout_secs: 120,
    two_hosts_only: true,
    // It runs the lab itself, which a --local run would nest.
    vm_only: true,
    ..Scenario::BASE
}];
