//! Scenarios of `apm` (the manual's 8.1 APM example) on Soft-RoCE, where
//! the kernel refuses alternate paths: both sides must say so in one line
//! and still exchange every message; `-m` then has nothing to migrate.

use super::cells::{
    memlocked, past_max_msg_sz_cell, refused, Kill, Waiting, KILL_TERM_INT, MEMLOCKED,
    MEMLOCK_REFUSED, PAST_MAX_MSG_SZ, SIGSTOP, SURVIVOR_SECS,
};
use crate::model::{
    owned, Cause, Check, Cmd, Exercise, Expect, Fault, PacketFact, Placement, Ready, Scenario, Side,
};

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
pub fn scenarios() -> Vec<Scenario> {
    vec![
        apm(),
        apm_migrate(),
        apm_length_beyond_memory(),
        apm_no_server(),
        // The fault matrix's `ulimit -l` cells: the first registration fails
        // with the hint, in one line, before any peer is needed.
        // srq and apm check `ulimit -l` before anything else.
        Scenario {
            server_expect: Expect::fails(&[MEMLOCK_REFUSED]).within(crate::model::AT_ONCE_SECS),
            ..memlocked(
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
            )
        },
        // The limits row, in the VM: a -l just past the port's max_msg_sz, as
        // srq's (see there); and the lowest of every number (one message of one byte, no
        // wait) runs the exchange.
        // The client alone: it knows its device once its route is resolved,
        // and fails there, before it connects.
        past_max_msg_sz_cell(
            "apm_l_past_max_msg_sz",
            "apm",
            &[
                "-c",
                PAST_MAX_MSG_SZ,
                "sh",
                "apm",
                "-a",
                "{server_ip}",
                "-p",
                "51286",
            ],
        ),
        apm_lowest_values(),
        apm_private_data_from_rping(),
        // The address row: 127.0.0.1 is on lo, which no RDMA device serves;
        // 192.0.2.99 is on the lab's subnet, and nobody answers for it.
        refused(
            "apm_client_address_without_rdma",
            "apm",
            Fault::Address,
            &["apm", "-a", "127.0.0.1", "-p", "51294"],
            &["rdma_create_ep for 127.0.0.1:51294 failed: No such device \
                (ENODEV) (hint: no RDMA device serves that address: is rdma_rxe \
                or an HCA bound to its interface?)"],
        ),
        apm_no_such_host(),
    ]
}

fn apm() -> Scenario {
    Scenario {
        name: "apm".into(),
        package: "apm",
        // Its default -l 1000000: two buffers of 245 pages.
        locked_kib: 1960,
        server: Some(Cmd::new(
            "apm",
            &["-s", "-p", "51230", "-c", "5", "-w", "10"],
        )),
        client: Some(Cmd::new(
            "apm",
            &["-a", "{server_ip}", "-p", "51230", "-c", "5", "-w", "10"],
        )),
        ready: Ready::RdmaCmListen(51230),
        server_expect: Expect::ok(PAIR_SERVER).counts(EXCHANGE),
        client_expect: Expect::ok(PAIR_CLIENT).counts(EXCHANGE),
        timeout_secs: 60,
        causes: &[
            Cause {
                from: Side::Client,
                label: "RC Send*",
                call: "rdma_post_send of one 1000000-byte message",
            },
            Cause {
                from: Side::Server,
                label: "RC Send*",
                call: "rdma_post_send of the answer, 1000000 bytes",
            },
        ],
        pair: true,
        // The client's LID leads the CM request's private data, in network
        // order. RoCE has no LIDs, so here it is 0, as is the rest of the
        // zero-padded field: on RoCE this shows the field is there and
        // what it holds, not that it differs from padding. Then 5
        // messages each way.
        wire: &[
            PacketFact::PrivateData {
                from: Side::Client,
                what: "CM ConnectRequest",
                begins: &[0, 0],
            },
            PacketFact::Count {
                from: Side::Client,
                what: "RC Send First",
                n: 5,
                len: None,
            },
            PacketFact::Count {
                from: Side::Server,
                what: "RC Send First",
                n: 5,
                len: None,
            },
        ],
        exercise: Some(Exercise {
            question: "Read the apm run above: its line `APM is not available on this port`.",
            predict: "Which verb call loads an alternate path, and why does it fail \
                here? What would the run show on InfiniBand?",
            explain: "apm loads the alternate path with `ibv_modify_qp` and the \
                alternate path attributes (`IBV_QP_ALT_PATH`: an alternate \
                port, LID and GID). A RoCE port has no alternate paths, and the \
                kernel refuses them with EINVAL, so this port says so and goes \
                on without APM: the messages then flow as on any RC connection. \
                On InfiniBand the call succeeds and the QP's path migration \
                state is armed; when the primary path fails, or the program \
                asks for a migration, the QP moves to the alternate path and \
                the program gets an `IBV_EVENT_PATH_MIG` event.",
            check: Check {
                filter: "infiniband.mad",
                fields: &[],
                line: "APM is not available",
                look: "where in the run it is printed, and whether the messages flow after it",
            },
            gives_away: &[],
        }),
        ..Scenario::BASE
    }
}

fn apm_migrate() -> Scenario {
    Scenario {
        name: "apm_migrate".into(),
        package: "apm",
        server: Some(Cmd::new(
            "apm",
            &["-s", "-p", "51231", "-c", "5", "-w", "10", "-l", "1000000"],
        )),
        client: Some(Cmd::new(
            "apm",
            &[
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
        )),
        ready: Ready::RdmaCmListen(51231),
        server_expect: Expect::ok(PAIR_SERVER).counts(EXCHANGE),
        client_expect: Expect::ok(MIGRATE_CLIENT).counts(EXCHANGE),
        timeout_secs: 60,
        ..Scenario::BASE
    }
}

// As srq_length_beyond_memory.
fn apm_length_beyond_memory() -> Scenario {
    Scenario {
        name: "apm_length_beyond_memory".into(),
        package: "apm",
        server: Some(Cmd::new(
            "apm",
            &["-s", "-p", "51295", "-l", "2000000000", "-c", "2"],
        )),
        server_expect: Expect::exits(
            1,
            &["mode:    server"],
            &[
                "-l 2000000000 needs two buffers of that size, 3814 MiB of pinned \
               memory, and this host has * MiB available: give a smaller -l",
            ],
        )
        .within(crate::model::AT_ONCE_SECS),
        fault: Some(Fault::Limits),
        ..Scenario::BASE
    }
}

fn apm_no_server() -> Scenario {
    Scenario {
        name: "apm_no_server".into(),
        package: "apm",
        client: Some(Cmd::new(
            "apm",
            &["-a", "{server_ip}", "-p", "51299", "-c", "5", "-w", "10"],
        )),
        client_expect: Expect::exits(
            1,
            &["rdma_connect"],
            &["rdma_connect failed: Connection refused (ECONNREFUSED) \
                       (RDMA_CM_EVENT_REJECTED, status *)"],
        )
        .within(10),
        fault: Some(Fault::Address),
        ..Scenario::BASE
    }
}

fn apm_lowest_values() -> Scenario {
    Scenario {
        name: "apm_lowest_values".into(),
        package: "apm",
        server: Some(Cmd::new(
            "apm",
            &["-s", "-p", "51287", "-c", "1", "-l", "1", "-w", "0"],
        )),
        client: Some(Cmd::new(
            "apm",
            &[
                "-a",
                "{server_ip}",
                "-p",
                "51287",
                "-c",
                "1",
                "-l",
                "1",
                "-w",
                "0",
            ],
        )),
        ready: Ready::RdmaCmListen(51287),
        server_expect: Expect::ok(&["recv: 1", "send: 1"]),
        client_expect: Expect::ok(&["send: 1", "recv: 1"]),
        fault: Some(Fault::Limits),
        placement: Placement::OneHost,
        ..Scenario::BASE
    }
}

// CM private data of the wrong size: rping's connect request carries
// none. Over InfiniBand and RoCE the CM pads a request's private data to
// 56 bytes, so no size reaches the server, only zeros: it takes DLID 0
// and goes on; rping's 16-byte receive then cannot take apm's message,
// which the server reports in one line.
fn apm_private_data_from_rping() -> Scenario {
    Scenario {
        name: "apm_private_data_from_rping".into(),
        package: "apm",
        server: Some(Cmd::new("apm", &["-s", "-p", "51289", "-c", "2"])),
        client: Some(Cmd::new(
            "rping",
            &["-c", "-a", "{server_ip}", "-p", "51289", "-C", "1", "-v"],
        )),
        ready: Ready::RdmaCmListen(51289),
        server_expect: Expect {
            stdout: owned(&["loading alt path - local port: *, dlid: 0", "recv: 1"]),
            ..Expect::fails_one_of(&[
                "rdma_get_send_comp: work completion status remote operation error",
                "rdma_get_*_comp: the peer went away: RDMA_CM_EVENT_DISCONNECTED (status *)",
            ])
        }
        .within(20),
        client_expect: Expect::exits(255, &[], &[]).any_stderr(),
        fault: Some(Fault::BadPeer),
        ..Scenario::BASE
    }
}

fn apm_no_such_host() -> Scenario {
    Scenario {
        name: "apm_no_such_host".into(),
        package: "apm",
        client: Some(Cmd::new("apm", &["-a", "192.0.2.99", "-p", "51294"])),
        client_expect: Expect::fails(&[
            "rdma_create_ep for 192.0.2.99:51294 failed: Connection timed out (ETIMEDOUT)",
        ])
        .within(15),
        fault: Some(Fault::Address),
        placement: Placement::OneHost,
        ..Scenario::BASE
    }
}

/// The server, for the fault matrix's signal cells: killed by either.
pub fn waiting() -> Vec<Waiting> {
    vec![Waiting {
        name: "apm",
        package: "apm",
        cmd: &["apm", "-s", "-p", "51291"],
        line: "rdma_listen",
        exits: [143, 130],
        stdout: &[],
        stderr: &[],
    }]
}

/// A long run (100 messages, 200 ms apart), for the fault matrix's kill
/// cells.
const LONG_SERVER: &[&str] = &["apm", "-s", "-p", "51282", "-c", "100", "-w", "200"];

/// The client of [`LONG_SERVER`].
const LONG_CLIENT: &[&str] = &[
    "apm",
    "-a",
    "{server_ip}",
    "-p",
    "51282",
    "-c",
    "100",
    "-w",
    "200",
];

/// How either side learns that its peer is gone: the disconnect that the
/// peer's kernel sends when the process dies, in the completion wait.
const PEER_GONE: &str =
    "rdma_get_*_comp: the peer went away: RDMA_CM_EVENT_DISCONNECTED (status *)";

/// The pair the kill cells run.
fn pair() -> Kill {
    Kill {
        name: "apm",
        package: "apm",
        server: LONG_SERVER,
        client: LONG_CLIENT,
        ready: Ready::RdmaCmListen(51282),
        ..Kill::BASE
    }
}

/// The fault matrix's kill cells. "Connected" is the alternate path line,
/// which each side prints once connected and 200 ms before its first
/// message; mid-exchange is the second receive; and a server stopped while
/// it listens leaves the client's connect unanswered.
pub fn kills() -> Vec<Kill> {
    vec![
        Kill {
            phase: "connected",
            victim: Side::Client,
            signals: KILL_TERM_INT,
            line: "loading alt path*",
            survivor: Expect::fails(&[PEER_GONE]).within(SURVIVOR_SECS),
            ..pair()
        },
        Kill {
            phase: "connected",
            victim: Side::Server,
            signals: KILL_TERM_INT,
            line: "loading alt path*",
            survivor: Expect::fails(&[PEER_GONE]).within(SURVIVOR_SECS),
            ..pair()
        },
        Kill {
            phase: "midway",
            victim: Side::Client,
            line: "recv: 2",
            signals: KILL_TERM_INT,
            survivor: Expect::fails(&[PEER_GONE]).within(SURVIVOR_SECS),
            ..pair()
        },
        Kill {
            phase: "midway",
            victim: Side::Server,
            signals: KILL_TERM_INT,
            line: "recv: 2",
            survivor: Expect::exits(1, &["send: 2"], &[PEER_GONE]).within(SURVIVOR_SECS),
            ..pair()
        },
        Kill {
            phase: "listening",
            victim: Side::Server,
            line: "rdma_get_request",
            signals: &[SIGSTOP],
            survivor: Expect::fails(&["rdma_connect: no answer from the peer within 30 s"])
                .within(40),
            ..pair()
        },
    ]
}
