//! Scenarios of `apm` (the manual's 8.1 APM example) on Soft-RoCE, where
//! the kernel refuses alternate paths: both sides must say so in one line
//! and still exchange every message; `-m` then has nothing to migrate.

use super::{memlocked, Cmd, Expect, Midway, Ready, Scenario, Waiting, MEMLOCKED};

/// The one line each side prints when the port cannot take an alternate path.
const NO_APM: &str = "APM is not available on this port: * is RoCE (Ethernet), \
                      where the kernel accepts no alternate path \
                      (ibv_modify_qp * failed: Invalid argument (EINVAL)); \
                      continuing without APM";

/// The server's run of 5 messages (`-l` default), in the program's order.
const PAIR_SERVER: &[&str] = &[
    "mode:    server",
    "length:   1000000",
    "rdma_getaddrinfo",
    "rdma_create_ep",
    "rdma_listen",
    "rdma_get_request",
    "rdma_accept",
    "loading alt path - local port: 1, dlid: 0",
    NO_APM,
    "recv: 1",
    "send: 1",
    "recv: 5",
    "send: 5",
];

/// The client's run of 5 messages: it sends first.
const PAIR_CLIENT: &[&str] = &[
    "mode:    client",
    "length:   1000000",
    "rdma_getaddrinfo",
    "rdma_create_ep",
    "rdma_connect",
    "loading alt path - local port: 1, dlid: 0",
    NO_APM,
    "send: 1",
    "recv: 1",
    "send: 5",
    "recv: 5",
];

/// The client with `-m 2`: the migration point comes after two iterations.
const MIGRATE_CLIENT: &[&str] = &[
    "mode:    client",
    "mig_after: 2",
    "rdma_connect",
    "loading alt path - local port: 1, dlid: 0",
    NO_APM,
    "recv: 2",
    "nothing to migrate: no alternate path is loaded (APM is not available on this port)",
    "send: 3",
    "recv: 5",
];

/// Each side made all 5 sends and receives, and said once that APM is
/// not available.
const EXCHANGE: &[(&str, usize)] = &[("send: *", 5), ("recv: *", 5), (NO_APM, 1)];

/// The pair, the manual migration, a client without a server, and a
/// server that dies.
pub static SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "apm",
        package: "apm",
        server: Some(Cmd {
            program: "apm",
            args: &["-s", "-p", "51230", "-c", "5", "-w", "10"],
        }),
        client: Some(Cmd {
            program: "apm",
            args: &["-a", "{server_ip}", "-p", "51230", "-c", "5", "-w", "10"],
        }),
        ready: Ready::RdmaCmListen(51230),
        server_expect: Expect::ok(PAIR_SERVER).counts(EXCHANGE),
        client_expect: Expect::ok(PAIR_CLIENT).counts(EXCHANGE),
        timeout_secs: 60,
        pair: true,
        ..Scenario::BASE
    },
    Scenario {
        name: "apm_migrate",
        package: "apm",
        server: Some(Cmd {
            program: "apm",
            args: &["-s", "-p", "51231", "-c", "5", "-w", "10", "-l", "1000000"],
        }),
        client: Some(Cmd {
            program: "apm",
            args: &[
                "-a",
                "{server_ip}",
                "-p",
                "51231",
                "-c",
                "5",
                "-w",
                "10",
                "-l",
                "1000000",
                "-m",
                "2",
            ],
        }),
        ready: Ready::RdmaCmListen(51231),
        server_expect: Expect::ok(PAIR_SERVER).counts(EXCHANGE),
        client_expect: Expect::ok(MIGRATE_CLIENT).counts(EXCHANGE),
        timeout_secs: 60,
        ..Scenario::BASE
    },
    // As srq_length_beyond_memory.
    Scenario {
        name: "apm_length_beyond_memory",
        package: "apm",
        server: Some(Cmd {
            program: "apm",
            args: &["-s", "-p", "51295", "-l", "2000000000", "-c", "2"],
        }),
        server_expect: Expect::exits(
            1,
            &["mode:    server"],
            &[
                "-l 2000000000 needs two buffers of that size, 3814 MiB of pinned \
               memory, and this host has * MiB available: give a smaller -l",
            ],
        )
        .within(5),
        ..Scenario::BASE
    },
    Scenario {
        name: "apm_no_server",
        package: "apm",
        client: Some(Cmd {
            program: "apm",
            args: &["-a", "{server_ip}", "-p", "51299", "-c", "5", "-w", "10"],
        }),
        client_expect: Expect::exits(
            1,
            &["rdma_connect"],
            &["rdma_connect failed: Connection refused (ECONNREFUSED) \
                       (RDMA_CM_EVENT_REJECTED, status *)"],
        )
        .within(10),
        ..Scenario::BASE
    },
    // The server is killed (SIGKILL) after its second receive: the client
    // must notice the disconnect at once and fail with one line.
    Scenario {
        name: "apm_peer_dies",
        package: "apm",
        server: Some(Cmd {
            program: "sh",
            args: &[
                "-c",
                "apm -s -p 51232 -c 100 -w 200 > /tmp/apm_peer_dies.out & p=$!; \
                 until grep -q '^recv: 2$' /tmp/apm_peer_dies.out; do \
                 kill -0 $p 2>/dev/null || break; sleep 0.1; done; \
                 kill -KILL $p; cat /tmp/apm_peer_dies.out; echo killed; exit 9",
            ],
        }),
        client: Some(Cmd {
            program: "apm",
            args: &["-a", "{server_ip}", "-p", "51232", "-c", "100", "-w", "200"],
        }),
        ready: Ready::RdmaCmListen(51232),
        server_expect: Expect::exits(9, &["rdma_accept", "recv: 2", "killed"], &[]),
        client_expect: Expect::exits(
            1,
            &["send: 2"],
            &["rdma_get_*_comp: the peer went away: \
                       RDMA_CM_EVENT_DISCONNECTED (status *)"],
        )
        .within(20),
        timeout_secs: 60,
        ..Scenario::BASE
    },
    // The fault matrix's `ulimit -l` cells: the first registration fails
    // with the hint, in one line, before any peer is needed.
    memlocked(
        "apm_memlock",
        "apm",
        &[
            "-c",
            MEMLOCKED,
            "sh",
            "apm",
            "-a",
            "{server_ip}",
            "-p",
            "51293",
        ],
    ),
];

/// The server, for the fault matrix's signal cells: killed by either.
pub static WAITING: &[Waiting] = &[Waiting {
    name: "apm",
    package: "apm",
    cmd: &["apm", "-s", "-p", "51291"],
    line: "rdma_listen",
    exits: [143, 130],
    stdout: &[],
    stderr: &[],
}];

/// A long run, for the fault matrix's mid-exchange cells.
pub static MIDWAY: &[Midway] = &[Midway {
    name: "apm",
    package: "apm",
    server: &["apm", "-s", "-p", "51282", "-c", "100", "-w", "200"],
    client: &[
        "apm",
        "-a",
        "{server_ip}",
        "-p",
        "51282",
        "-c",
        "100",
        "-w",
        "200",
    ],
    ready: Ready::RdmaCmListen(51282),
    line: "recv: 2",
    delay: "0",
    server_error: "rdma_get_*_comp: the peer went away: RDMA_CM_EVENT_DISCONNECTED (status *)",
    within_secs: 20,
}];
