//! Scenarios of `cargo xtask doctor`: its probe between two hosts, and the
//! faults it must find on Soft-RoCE, each made inside the VM.

use super::cells::refused_sh;
use super::PROBE;
use crate::model::{Cmd, Expect, Fault, Placement, Ready, Scenario};

/// `sh -c MEMLOCK_64 sh PROGRAM ARGS`: the program without CAP_IPC_LOCK
/// (which would lift the limit) and with `ulimit -l 64`: 64 KiB, a common
/// default of older distributions and of containers.
pub const MEMLOCK_64: &str = "exec setpriv --bounding-set=-ipc_lock --inh-caps=-ipc_lock \
                              sh -c 'ulimit -l 64 && exec \"$@\"' sh \"$@\"";

/// `sh -c ELSEWHERE`: the doctor asked about an address on a netdev that no
/// RDMA device serves (a second dummy netdev, removed again).
const ELSEWHERE: &str = "ip link add d9 type dummy && ip addr add 198.51.100.9/24 dev d9 \
                         && ip link set d9 up || exit 99
rdma-lab doctor --dev {dev} --ip 198.51.100.9; rc=$?
ip link del d9
exit $rc";

/// `sh -c NO_RDMA_UCM`: the doctor without rdma_ucm, then mckey's receiver
/// without it: librdmacm has the kernel load it on demand, so neither
/// meets a fault.
const NO_RDMA_UCM: &str = "modprobe -r rdma_ucm || exit 99
test -e /dev/infiniband/rdma_cm || echo 'rdma_ucm unloaded, no /dev/infiniband/rdma_cm'
rdma-lab doctor --dev {dev} --ip {server_ip} || exit $?
modprobe -r rdma_ucm || exit 98
test -e /dev/infiniband/rdma_cm || echo 'rdma_ucm unloaded again'
exec mckey -m 239.255.1.1 -b {server_ip}";

/// `sh -c NO_DEVICE`: this host's only device deleted, the modules and
/// rdma_cm's node still there: the doctor, then rdmacm_server, as a user
/// would meet it; the device comes back however the cell ends.
const NO_DEVICE: &str = "nd=$(cat /sys/class/infiniband/{dev}/parent) || exit 99
trap 'rdma link add {dev} type rxe netdev \"$nd\"' EXIT
trap 'exit 143' TERM
rdma link delete {dev} || exit 99
test -e /dev/infiniband/rdma_cm && echo 'no device, /dev/infiniband/rdma_cm there'
rdma-lab doctor; echo \"doctor exit $?\"
rdmacm_server 127.0.0.1; echo \"rdmacm_server exit $?\"";

/// `sh -c NOT_EXECUTABLE`: the doctor given a bin dir whose rdma_cm probe
/// the running user cannot execute (mode 644, which root cannot run either).
const NOT_EXECUTABLE: &str = "d=$(mktemp -d) || exit 99
cp \"$(command -v rdmacm_server)\" \"$d/\" && chmod 644 \"$d/rdmacm_server\" || exit 99
rdma-lab doctor --dev {dev} --ip {server_ip} --bin-dir \"$d\"; rc=$?
rm -rf \"$d\"
exit $rc";

/// `sh -c CLIENT_NOT_EXECUTABLE`: the client host's doctor, whose RC probe
/// program the running user cannot execute: the serving host learns it
/// only from what the client's doctor tells it.
const CLIENT_NOT_EXECUTABLE: &str = "d=$(mktemp -d) || exit 99
cp \"$(command -v ibv_sockets_pingpong)\" \"$d/\" && chmod 644 \"$d/ibv_sockets_pingpong\" || exit 99
export RDMA_LAB_SECRET=5ec2e7ce11000000000000000000000000000000000000000000000000000001
rdma-lab doctor --dev {dev} --ip {client_ip} --peer {server_ip} --port 7472 --wait 60 \
--bin-dir \"$d\"; rc=$?
rm -rf \"$d\"
exit $rc";

/// `sh -c DROP_ROCE`: the client host's doctor, with this host dropping
/// every RoCE v2 packet that comes in (UDP 4791), as a firewall would; the
/// rule goes again, also when `timeout` ends the cell. The doctors meet on port 7472: the lab's own control
/// connection has 7471.
const DROP_ROCE: &str = "trap 'nft delete table inet doctor_cell 2>/dev/null' EXIT
trap 'exit 143' TERM
nft -f - <<'RULES' || exit 99
table inet doctor_cell {
  chain input {
    type filter hook input priority 0;
    udp dport 4791 drop
  }
}
RULES
RDMA_LAB_SECRET=5ec2e7ce11000000000000000000000000000000000000000000000000000001 rdma-lab doctor --dev {dev} --ip {client_ip} \
--peer {server_ip} --port 7472 --wait 60
exit $?";

/// `sh -c JUMBO`: the client host's doctor with its netdev's MTU at 9000
/// (rxe's active MTU 4096, the server's staying 1024), set back after.
const JUMBO: &str = "n=$(ip -o addr show to {client_ip} | awk '{print $2}')
trap 'ip link set \"$n\" mtu 1500' EXIT
trap 'exit 143' TERM
ip link set \"$n\" mtu 9000 || exit 99
sleep 1
RDMA_LAB_SECRET=5ec2e7ce11000000000000000000000000000000000000000000000000000001 rdma-lab doctor --dev {dev} --ip {client_ip} \
--peer {server_ip} --port 7472 --wait 60
exit $?";

/// `sh -c SERVING_DOCTOR`: the server host's doctor, with the secret that
/// the two doctors of a cell share.
const SERVING_DOCTOR: &str =
    "export RDMA_LAB_SECRET=5ec2e7ce11000000000000000000000000000000000000000000000000000001
exec rdma-lab doctor --dev {dev} --ip {server_ip} --peer {client_ip} --port 7472 --wait 60";

/// The line that both doctors end in when the MTUs differ.
const MTUS_DIFFER: &str = "between the hosts: the active MTU is 1024 on the server host and \
                           4096 on the client host: *";

/// The lines of both doctors when the client host's RC probe cannot start:
/// that host's finding, and the path's, which blames no network.
const NOT_RUN: &[&str] = &[
    "client host: the doctor's RC probe cannot start here: could not start \
     /tmp/*/ibv_sockets_pingpong: Permission denied (exit 126)",
    "between the hosts: the doctor's RC probe did not run, since the client host cannot start \
     its side: could not start /tmp/*/ibv_sockets_pingpong: Permission denied (exit 126)",
];

/// The line that both doctors end in when RoCE v2 does not get through.
const BLOCKED: &str = "*one RC message from {server_ip} to {client_ip} did not arrive (*): \
                       UDP 4791 blocked or GID wrong: *";

/// A cell of the lab's one VM: `sh` with `args` (`-c`, a script) runs the doctor,
/// which must find what `finding` (one pattern) matches, in one line, and
/// exit 1.
fn finds(
    name: &'static str,
    args: &'static [&'static str],
    finding: &'static [&'static str],
) -> Scenario {
    Scenario {
        name: name.into(),
        server: Some(Cmd::new("sh", args)),
        server_expect: Expect::fails(finding).within(DOCTOR_SECS),
        // It runs the lab itself: the lab's VM only, never `--local`.
        placement: Placement::OneVm,
        timeout_secs: 60,
        ..Scenario::BASE
    }
}

/// A cell of two hosts: the server host's doctor, and `sh` with `args`
/// (`-c`, a script that makes the fault) running the client host's, which
/// meet on port 7472 (the lab's own control connection has 7471); both
/// must find what `finding` matches, in one line, and exit 1.
fn both_find(
    name: &'static str,
    args: &'static [&'static str],
    finding: &'static [&'static str],
) -> Scenario {
    Scenario {
        name: name.into(),
        server: Some(Cmd::new("sh", &["-c", SERVING_DOCTOR])),
        client: Some(Cmd::new("sh", args)),
        ready: Ready::TcpListen(7472),
        server_expect: Expect::fails(finding).within(PAIR_SECS),
        client_expect: Expect::fails(finding).within(PAIR_SECS),
        timeout_secs: 120,
        placement: Placement::TwoVms,
        ..Scenario::BASE
    }
}

/// The bound of each of two doctors that meet: the serving side's time
/// includes its peer's start (its fault made first, then the lab's
/// binary), up to 20 s beside the suite's other VMs, and each doctor's own
/// checks, up to 24 s, after it; 56 s was measured.
const PAIR_SECS: u32 = 90;

/// The bound of a doctor run alone on a host: the lab's binary and its
/// checks take a few seconds under TCG, and up to 46 s was measured on 2
/// loaded cores with the whole suite side by side (a full run whose VMs
/// took 194 s to boot); a doctor that hung on a check would meet
/// `timeout_secs` (60 s) instead.
const DOCTOR_SECS: u32 = 55;

/// The probe and the doctor's cells.
pub fn scenarios() -> Vec<Scenario> {
    vec![
        rc_probe(),
        doctor_healthy(),
        doctor_memlock_64(),
        srq_memlock_64(),
        Scenario {
            placement: Placement::OneVm,
            ..finds(
                "doctor_address_without_rdma",
                &["-c", ELSEWHERE],
                &["*198.51.100.9*d9*"],
            )
        },
        doctor_no_rdma_ucm(),
        doctor_no_device(),
        doctor_probe_not_executable(),
        doctor_no_mcast_route(),
        doctor_mcast_route_elsewhere(),
        // Two hosts, the client's dropping RoCE v2: both doctors say so.
        Scenario {
            packages: &["nftables"],
            ..both_find("doctor_udp_4791_blocked", &["-c", DROP_ROCE], &[BLOCKED])
        },
        // Two hosts whose ports' MTUs differ: both doctors say so (the probe's
        // 128 bytes still cross).
        both_find("doctor_mtus_differ", &["-c", JUMBO], &[MTUS_DIFFER]),
        doctor_probe_not_executable_client(),
    ]
}

// The doctor's probe: one RC SEND from the server's host to the
// client's, over ibv_sockets_pingpong's TCP side channel. The lab runs
// it first in every two-host session; a mesh's rails run it side by
// side, each on a TCP port of its own (`{tcp_port:N}`).
fn rc_probe() -> Scenario {
    let on_port = |mut c: crate::model::Cmd| {
        c.args
            .splice(0..0, ["-p".to_string(), "{tcp_port:6543}".to_string()]);
        c
    };
    Scenario {
        name: PROBE.into(),
        package: "ibv_sockets_pingpong",
        server: Some(on_port(super::ibv_sockets_pingpong::server())),
        client: Some(on_port(super::ibv_sockets_pingpong::client())),
        ready: Ready::TcpListen(6543),
        server_expect: Expect::ok(&["[OK] post send.", "*status: 0"]),
        client_expect: Expect::ok(&["*buf: hello from server"]),
        timeout_secs: 20,
        ..Scenario::BASE
    }
}

// `ulimit -l 64`: the doctor says that apm's 1960 KiB will not fit...
fn doctor_memlock_64() -> Scenario {
    finds(
        "doctor_memlock_64",
        &[
            "-c",
            MEMLOCK_64,
            "sh",
            "rdma-lab",
            "doctor",
            "--dev",
            "{dev}",
            "--ip",
            "{server_ip}",
        ],
        &["*`ulimit -l` is 64 KiB*1960 KiB*apm*"],
    )
}

// ...and srq, the other pair that registers more than 64 KiB, is then
// refused with its own `ulimit -l` line, before it opens a device.
fn srq_memlock_64() -> Scenario {
    refused_sh(
        "srq_memlock_64",
        "srq",
        Fault::Memlock,
        &[
            "-c",
            MEMLOCK_64,
            "sh",
            "srq",
            "-s",
            "-a",
            "{server_ip}",
            "-p",
            "51217",
        ],
        Expect::fails(&[
            "-l 100000 needs 200 KiB of locked memory for its two buffers, and `ulimit -l` is \
             64 KiB: raise it, grant CAP_IPC_LOCK, or give a smaller -l",
        ])
        .within(10),
    )
}

// The rdma_cm probe not executable: a note that says why rdma_cm
// was not tried, not a finding.
fn doctor_probe_not_executable() -> Scenario {
    Scenario {
        placement: Placement::OneVm,
        ..Scenario {
            server_expect: Expect::ok(&[
                "note: rdma_cm not tried: could not start /tmp/*/rdmacm_server: Permission \
                 denied (exit 126) *",
            ])
            .within(DOCTOR_SECS),
            ..finds("doctor_probe_not_executable", &["-c", NOT_EXECUTABLE], &[])
        }
    }
}

// No route to multicast (the lab's agent adds one; a user's host may
// lack it): the doctor says where the senders fail, and the fix.
fn doctor_no_mcast_route() -> Scenario {
    Scenario {
        placement: Placement::OneVm,
        ..finds(
            "doctor_no_mcast_route",
            &[
                "-c",
                super::mckey::NO_MCAST_ROUTE,
                "sh",
                "rdma-lab",
                "doctor",
                "--dev",
                "{dev}",
                "--ip",
                "{server_ip}",
            ],
            &[
                "multicast to 239.255.1.1 has no route on this host (`ip route get 239.255.1.1`: \
               Network is unreachable): * fail with ENETUNREACH: *`ip route add 224.0.0.0/4 dev \
               d0` (then all IPv4 multicast from this host leaves through d0 unless a more \
               specific route says otherwise)*",
            ],
        )
    }
}

// The default route, and multicast with it, on a netdev without RDMA
// (a cluster node's management NIC): the finding names that netdev.
fn doctor_mcast_route_elsewhere() -> Scenario {
    Scenario {
        placement: Placement::OneVm,
        ..finds(
            "doctor_mcast_route_elsewhere",
            &[
                "-c",
                super::mckey::MCAST_ROUTE_ELSEWHERE,
                "sh",
                "rdma-lab",
                "doctor",
                "--dev",
                "{dev}",
                "--ip",
                "{server_ip}",
            ],
            &[
                "multicast to 239.255.1.1 leaves this host through d8, not through d0 (rxe0's \
               netdev): * find no RDMA device there and fail (ENODEV): *`ip route add \
               224.0.0.0/4 dev d0`*",
            ],
        )
    }
}

// The client host cannot execute its RC probe's program: both
// doctors say so, with its path and the reason, and neither blames
// the network.
fn doctor_probe_not_executable_client() -> Scenario {
    Scenario {
        server_expect: Expect::fails(NOT_RUN)
            .stderr_counts(&[("*did not arrive*", 0), ("*", 2)])
            .any_stderr()
            .within(PAIR_SECS),
        client_expect: Expect::fails(NOT_RUN)
            .stderr_counts(&[("*did not arrive*", 0), ("*", 2)])
            .any_stderr()
            .within(PAIR_SECS),
        ..both_find(
            "doctor_probe_not_executable_client",
            &["-c", CLIENT_NOT_EXECUTABLE],
            &[],
        )
    }
}

// A healthy host: the report, and no finding.
fn doctor_healthy() -> Scenario {
    Scenario {
        name: "doctor_healthy".into(),
        server: Some(Cmd::new(
            "rdma-lab",
            &["doctor", "--dev", "{dev}", "--ip", "{server_ip}"],
        )),
        server_expect: Expect::ok(&[
            "device rxe0 port 1: ACTIVE, LinkUp, link layer Ethernet, active MTU *, max MTU *",
            "  GID [1] 0000:0000:0000:0000:0000:ffff:c000:0201 (RoCE v2, on d0)  \
             <- the examples use this one",
            // Its one rail: the port, its netdev's address and subnet.
            "rail 192.0.2.0/24: rxe0 port 1 on d0 {server_ip}/24*",
            "ulimit -l: * (the largest registration, apm's, is 1960 KiB)",
            "rdma_cm: */rdmacm_server made an event channel and an id, as the examples do \
             (/dev/infiniband/rdma_cm was there)",
            "address {server_ip}: on d0, served by rxe0 port 1",
            "multicast 239.255.1.1: leaves through d0, rxe0's netdev",
        ])
        .within(DOCTOR_SECS),
        // It runs the lab itself: the lab's VM only, never `--local`.
        placement: Placement::OneVm,
        timeout_secs: 60,
        ..Scenario::BASE
    }
}

// rdma_ucm unloaded: no finding, since librdmacm has the kernel load
// it on demand; then mckey's receiver, with it unloaded again,
// passes with its sender.
fn doctor_no_rdma_ucm() -> Scenario {
    Scenario {
        name: "doctor_no_rdma_ucm".into(),
        package: "mckey",
        server: Some(Cmd::new("sh", &["-c", NO_RDMA_UCM])),
        client: Some(Cmd::new("mckey", &["-m", "239.255.1.1", "-s"])),
        ready: Ready::Line("receiving data transfers"),
        server_expect: Expect::ok(&[
            "rdma_ucm unloaded, no /dev/infiniband/rdma_cm",
            "rdma_cm: */rdmacm_server made an event channel and an id, as the examples do \
             (/dev/infiniband/rdma_cm was not there before: librdmacm has the kernel load \
             rdma_ucm on demand)",
            "rdma_ucm unloaded again",
            "mckey: joined dgid: ::ffff:239.255.1.1",
            "return status 0",
        ]),
        client_expect: Expect::ok(&["mckey: joined dgid: ::ffff:239.255.1.1", "return status 0"]),
        timeout_secs: 90,
        placement: Placement::OneVm,
        ..Scenario::BASE
    }
}

// The only device deleted, rdma_cm's node still there: the doctor
// says there is no device, and nothing of rdma_cm; the examples'
// hint says the same, and never that the node is missing.
fn doctor_no_device() -> Scenario {
    Scenario {
        name: "doctor_no_device".into(),
        package: "rdmacm_client_server",
        server: Some(Cmd::new("sh", &["-c", NO_DEVICE])),
        server_expect: Expect::exits(
            0,
            &[
                "no device, /dev/infiniband/rdma_cm there",
                "rdma_cm: not tried, since this host has no RDMA device",
                "doctor exit 1",
                "rdmacm_server exit 1",
            ],
            &[
                "no RDMA device on this host (/sys/class/infiniband is empty): *",
                "rdma_create_event_channel failed: * (hint: no RDMA device on this host: \
                 load your HCA's driver*)",
            ],
        )
        .any_stderr()
        .stderr_counts(&[("*rdma_cm is missing*", 0), ("*", 2)])
        .within(30),
        placement: Placement::OneVm,
        ..Scenario::BASE
    }
}
