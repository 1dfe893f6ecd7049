//! The lab's own two-host mode, as a user of two real hosts runs it: one
//! command on each host, inside the two VMs.

use crate::model::{Cmd, Expect, Placement, Ready, Scenario};

/// `sh -c SERVE`: host A's command, run as an ordinary user (nobody), as
/// the README says to. The binaries are the ones this run uses (the first
/// `rc_example` on PATH, and this lab), copied first into a fresh
/// directory that user can read, as an administrator hands a user a copy:
/// the build's own may lie where only root may go (a checkout in /root).
/// The result dir goes to /tmp, the one place the VMs may write besides
/// their own result dirs. Both hosts take the session's secret from the
/// environment, as a launcher hands it over.
const SERVE: &str = "B=$(dirname \"$(command -v rc_example)\")
D=$(mktemp -d /tmp/lab-two-commands-bin.XXXXXXXXXX) && chmod 0755 \"$D\" &&
cp \"$B/rc_example\" \"$B/ibv_sockets_pingpong\" \"$B/rdmacm_server\" \"$(command -v rdma-lab)\" \"$D/\" || exit 1
export CARGO_TARGET_DIR=/tmp/lab-two-commands-serve RDMA_LAB_SECRET=5ec2e7ce11000000000000000000000000000000000000000000000000000001
exec setpriv --reuid=nobody --regid=nogroup --clear-groups \
\"$D/rdma-lab\" lab --local --serve --ip {server_ip} --dev {dev} --port 7473 --wait 60 --bin-dir \"$D\"";

/// `sh -c PEER`: host B's command, which names the scenarios and prints
/// the report: `rdma-lab` run from the copy beside the example binaries,
/// as a host without Rust or the source tree runs it.
const PEER: &str = "B=$(dirname \"$(command -v rc_example)\")
export CARGO_TARGET_DIR=/tmp/lab-two-commands RDMA_LAB_SECRET=5ec2e7ce11000000000000000000000000000000000000000000000000000001
exec \"$B/rdma-lab\" lab --local --peer {server_ip} --ip {client_ip} --dev {dev} --port 7473 --wait 60 \
--bin-dir \"$B\" --junit /tmp/lab-two-commands/lab.xml rc_example ibv_sockets_pingpong";

/// `sh -c ALONE ROLE ARGS...`: one half of a two-host run whose other half
/// never comes, waiting 5 s for it.
const ALONE: &str =
    "export CARGO_TARGET_DIR=/tmp/lab-alone-$1 RDMA_LAB_SECRET=5ec2e7ce11000000000000000000000000000000000000000000000000000001
role=$1; shift
exec rdma-lab lab --local --ip {server_ip} --dev {dev} --port 7474 --wait 5 \
--bin-dir \"$(dirname \"$(command -v rc_example)\")\" --$role \"$@\"";

/// One half of a two-host run, `sh` with `args` ([`ALONE`] and its
/// arguments), whose other half never comes: it must end in 1, within
/// 20 s, with the `note` line `line` matches.
fn alone(
    name: &'static str,
    args: &'static [&'static str],
    line: &'static [&'static str],
) -> Scenario {
    Scenario {
        name: name.into(),
        package: "rc_example",
        server: Some(Cmd::new("sh", args)),
        server_expect: Expect::exits(1, line, &[]).any_stderr().within(20),
        placement: Placement::OneVm,
        ..Scenario::BASE
    }
}

/// The two-command run, and each half without the other.
pub fn scenarios() -> Vec<Scenario> {
    vec![
        // A serving host whose peer never comes says so after --wait...
        alone(
            "lab_peer_never_comes",
            &["-c", ALONE, "sh", "serve"],
            &[
                "note: agent: control: no peer came to {server_ip}:7474 within 5 s: start the lab \
               with --peer {server_ip} on the other host, and check that TCP port 7474 is open to \
               it",
            ],
        ),
        // ...nor does a peer wait past --wait for a host that serves nothing.
        alone(
            "lab_server_never_comes",
            &["-c", ALONE, "sh", "peer", "192.0.2.77", "rc_example"],
            &[
                "note: agent: control: nothing answered at 192.0.2.77:7474 within 5 s: start the lab \
               with --serve on that host first, and check that TCP port 7474 is open to this one",
            ],
        ),
        lab_two_commands(),
    ]
}

fn lab_two_commands() -> Scenario {
    Scenario {
        name: "lab_two_commands".into(),
        // ibv_sockets_pingpong, the probe's, is built for every two-host run.
        package: "rc_example",
        server: Some(Cmd::new("sh", &["-c", SERVE])),
        client: Some(Cmd::new("sh", &["-c", PEER])),
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
        placement: Placement::TwoVms,
        // It runs the lab itself, which a --local run would nest.
        ..Scenario::BASE
    }
}
