//! Scenarios of `rdmacm_server` / `rdmacm_client` (Bedeir's paper).

use super::cells::{memlocked, refused, Kill, Waiting, KILL_TERM_INT, MEMLOCKED, SIGSTOP};
use crate::model::{
    owned, stdout_of, Cause, Check, Cmd, Exercise, Expect, Fault, Outcome, PacketFact, Ready,
    Scenario, Side,
};

/// Starts a client in the background, SIGKILLs it the moment it prints
/// `route resolved.` (it is connecting), then runs a full client. The
/// client's lines come through a FIFO (in a private dir of `mktemp -d`)
/// to a shell loop with a builtin `kill`:
/// polling a file is too slow for an exchange that takes a fraction of a second.
const KILL_FIRST_CLIENT: &str = "d=$(mktemp -d) && f=$d/out && mkfifo \"$f\" || exit 125; \
    rdmacm_client {server_ip} 12345 >$f & p=$!; \
    while read -r l; do case $l in 'route resolved.') kill -9 $p; break;; esac; done <$f; \
    wait $p; echo \"first client killed after: $l\"; rm -rf \"$d\"; \
    rdmacm_client {server_ip} 12345";

/// Each message carries the pid of the process that sent it: the server
/// saw the two clients' pids, in order, and each client the server's.
fn pids_match(o: &Outcome) -> Vec<String> {
    let (s, c) = (stdout_of(&o.server), stdout_of(&o.client));
    let after = |text: &str, prefix: &str| -> Vec<String> {
        text.lines()
            .filter_map(|l| l.strip_prefix(prefix))
            .map(str::to_string)
            .collect()
    };
    let client_pids = after(c, "client pid ");
    let server_pid = after(s, "server pid ");
    let mut failures = Vec::new();
    if client_pids.len() != 2 || client_pids[0] == client_pids[1] {
        failures.push(format!(
            "client: two different client pids expected: {client_pids:?}"
        ));
    }
    let seen = after(
        s,
        "received message: message from active/client side with pid ",
    );
    if seen != client_pids {
        failures.push(format!(
            "server: messages from pids {seen:?}, the clients were {client_pids:?}"
        ));
    }
    let seen = after(
        c,
        "received message: message from passive/server side with pid ",
    );
    if server_pid.len() != 1 || seen != [server_pid[0].clone(), server_pid[0].clone()] {
        failures.push(format!(
            "client: messages from pids {seen:?}, the server was {server_pid:?}"
        ));
    }
    failures
}

/// The pair and its error paths.
pub fn scenarios() -> Vec<Scenario> {
    vec![
        rdmacm_client_server(),
        rdmacm_client_dies(),
        rdmacm_nobody_listening(),
        rdmacm_client_to_rping(),
        rping_to_rdmacm_server(),
        rdmacm_no_such_host(),
        // The fault matrix's `ulimit -l` cells: the first registration fails
        // with the hint, in one line, before any peer is needed.
        memlocked(
            "rdmacm_client_memlock",
            "rdmacm_client_server",
            &[
                "-c",
                MEMLOCKED,
                "sh",
                "rdmacm_client",
                "{server_ip}",
                "12349",
            ],
        ),
        // The address row: 127.0.0.1 is on lo, which no RDMA device serves.
        refused(
            "rdmacm_server_address_without_rdma",
            "rdmacm_client_server",
            Fault::Address,
            &["rdmacm_server", "127.0.0.1", "12344"],
            &[
                "rdma_bind_addr to 127.0.0.1:12344 found no RDMA device: give the address of an \
               RDMA device's interface, or none to listen on all",
            ],
        ),
        refused(
            "rdmacm_client_address_without_rdma",
            "rdmacm_client_server",
            Fault::Address,
            &["rdmacm_client", "127.0.0.1", "12344"],
            &[
                "rdma_resolve_route failed: No such device (ENODEV) (hint: no \
                RDMA device serves that address: is rdma_rxe or an HCA bound to \
                its interface?)",
            ],
        ),
    ]
}

// rdmacm_client_server: two clients in a row against one server, which
// keeps serving until SIGTERM.
const RDMACM_CLIENT_SERVER_CAUSES: &[Cause] = &[
    Cause {
        from: Side::Server,
        label: "RC Send Only*",
        call: "on_connection: ibv_post_send of message from passive/server side",
    },
    Cause {
        from: Side::Client,
        label: "RC Send Only*",
        call: "on_connection: ibv_post_send of message from active/client side",
    },
];

const RDMACM_CLIENT_SERVER_WIRE: &[PacketFact] = &[
    PacketFact::InOrder(&[
        (Side::Client, "CM ConnectRequest"),
        (Side::Server, "CM ConnectReply"),
        (Side::Client, "CM ReadyToUse"),
        (Side::Server, "RC Send Only"),
        (Side::Client, "RC Send Only"),
        (Side::Client, "CM DisconnectRequest"),
    ]),
    PacketFact::Count {
        from: Side::Client,
        what: "CM ConnectRequest",
        n: 2,
        len: None,
    },
    PacketFact::Count {
        from: Side::Server,
        what: "RC Send Only",
        n: 2,
        len: Some(1024),
    },
    PacketFact::Count {
        from: Side::Client,
        what: "RC Send Only",
        n: 2,
        len: Some(1024),
    },
    PacketFact::Carries {
        from: Side::Server,
        what: "RC Send Only",
        text: "message from passive/server side",
    },
    PacketFact::Carries {
        from: Side::Client,
        what: "RC Send Only",
        text: "message from active/client side",
    },
];

fn rdmacm_client_server() -> Scenario {
    Scenario {
        name: "rdmacm_client_server".into(),
        package: "rdmacm_client_server",
        // Each side's shell names the pid the program runs as (exec keeps
        // it), so the tests can check the pid each message carries.
        server: Some(Cmd::new(
            "sh",
            &[
                "-c",
                "echo \"server pid $$\"; exec rdmacm_server {server_ip} 12345",
            ],
        )),
        client: Some(Cmd::new(
            "sh",
            &[
                "-c",
                "for i in 1 2; do rdmacm_client {server_ip} 12345 & p=$!; \
                 echo \"client pid $p\"; wait $p || exit 1; done",
            ],
        )),
        ready: Ready::RdmaCmListen(12345),
        // Per connection, the send's completion and the peer's message come
        // in either order; the tests count both.
        server_expect: Expect::ok(&[
            "listening on port 12345.",
            "received connection request.",
            "connected. posting send...",
            "received message: message from active/client side with pid *",
            "peer disconnected.",
        ])
        .counts(&[
            ("received connection request.", 2),
            (
                "received message: message from active/client side with pid *",
                2,
            ),
            ("peer disconnected.", 2),
            ("send completed successfully.", 2),
        ]),
        client_expect: Expect::ok(&[
            "address resolved.",
            "route resolved.",
            "connected. posting send...",
            "received message: message from passive/server side with pid *",
            "disconnected.",
        ])
        .counts(&[
            (
                "received message: message from passive/server side with pid *",
                2,
            ),
            ("send completed successfully.", 2),
            ("disconnected.", 2),
        ]),
        causes: RDMACM_CLIENT_SERVER_CAUSES,
        pair: true,
        // Per client: REQ, REP, RTU; one SEND each way with its message;
        // the client's disconnect.
        wire: RDMACM_CLIENT_SERVER_WIRE,
        stop_server: true,
        verify: Some(pids_match),
        ..Scenario::BASE
    }
}

// A client killed (SIGKILL) once it has resolved its route, i.e. while
// it connects: whatever state that leaves its connection in, the server
// drops it and serves the next client.
fn rdmacm_client_dies() -> Scenario {
    Scenario {
        name: "rdmacm_client_dies".into(),
        package: "rdmacm_client_server",
        server: Some(Cmd::new("rdmacm_server", &["{server_ip}", "12345"])),
        client: Some(Cmd::new("sh", &["-c", KILL_FIRST_CLIENT])),
        ready: Ready::RdmaCmListen(12345),
        // The server's CQ is polled on a thread of its own, beside the CM
        // events: the client's message can be printed before the server
        // prints that the connection is established, and the send's
        // completion either side of it, so each is counted, not ordered.
        // One connection was established (the killed client's was
        // dropped, leaving no error behind) and served in full.
        server_expect: Expect::ok(&["received connection request."])
            .counts(&[
                ("connected. posting send...", 1),
                (
                    "received message: message from active/client side with pid *",
                    1,
                ),
                ("send completed successfully.", 1),
            ])
            .stderr_counts(&[("*on_completion: completion for an unknown connection*", 0)])
            // The killed client's half-made connection may be dropped, in a line.
            .any_stderr(),
        client_expect: Expect::ok(&[
            "first client killed after: route resolved.",
            "received message: message from passive/server side with pid *",
            "disconnected.",
        ])
        .counts(&[("disconnected.", 1)])
        .any_stderr(),
        stop_server: true,
        fault: Some(Fault::PeerKilled),
        ..Scenario::BASE
    }
}

fn rdmacm_nobody_listening() -> Scenario {
    Scenario {
        name: "rdmacm_nobody_listening".into(),
        package: "rdmacm_client_server",
        client: Some(Cmd::new("rdmacm_client", &["{server_ip}", "12399"])),
        // Told by a reject or an unreachable event, whichever the kernel
        // sends, not by a timeout.
        client_expect: Expect {
            stdout: owned(&["address resolved.", "route resolved."]),
            ..Expect::fails_one_of(&[
                "on_event: unexpected event RDMA_CM_EVENT_REJECTED (status *)",
                "on_event: unexpected event RDMA_CM_EVENT_UNREACHABLE (status *)",
            ])
        }
        .within(crate::model::AT_ONCE_SECS),
        fault: Some(Fault::Address),
        exercise: Some(Exercise {
            question: "Start the client when no server listens on its port: \
                `rdmacm_client 192.0.2.1 12399`.",
            predict: "Do address and route resolution succeed without a server? \
                What does the client's connect request get back, and which \
                event does the client see?",
            explain: "Resolving the address and the route uses only this host's \
                routing table and ARP, so both succeed. `rdma_connect` then \
                sends a CM ConnectRequest, a management datagram to the CM of \
                the server's host; nobody listens on that port's service ID \
                there, so that host's CM answers with a reject, and the \
                client's rdma_cm reports RDMA_CM_EVENT_REJECTED with the \
                reject's reason as its status: here \
                {first:infiniband.cm.rej.reason:infiniband.cm.rej.reason}, \
                \"invalid service ID\" (no one listens on it). The client \
                learns it at once, not after a timeout.",
            check: Check {
                filter: "infiniband.mad",
                fields: &["infiniband.cm.rej.reason"],
                line: "on_event",
                look: "which rdma_cm events the client got, in order, and its exit status",
            },
            gives_away: &["answers with a reject", "RDMA_CM_EVENT_REJECTED"],
        }),
        ..Scenario::BASE
    }
}

// rping posts 16-byte receives (its struct rping_rdma_info): the
// client's 1024-byte SEND cannot land, and the failed completion must be
// reported with its status string, exit 1.
fn rdmacm_client_to_rping() -> Scenario {
    Scenario {
        name: "rdmacm_client_to_rping".into(),
        package: "rdmacm_client_server",
        server: Some(Cmd::new(
            "rping",
            &["-s", "-a", "{server_ip}", "-p", "12346", "-C", "1"],
        )),
        client: Some(Cmd::new("rdmacm_client", &["{server_ip}", "12346"])),
        ready: Ready::RdmaCmListen(12346),
        server_expect: Expect::exits(255, &[], &[]),
        client_expect: Expect::exits(
            1,
            &["connected. posting send..."],
            &["on_completion: status is not IBV_WC_SUCCESS: *(status *, vendor error 0x*)"],
        ),
        ..Scenario::BASE
    }
}

// The same the other way: the server's SEND overruns an rping client's
// receive. The server drops that connection with one line and serves
// the next client, a good one, in full.
fn rping_to_rdmacm_server() -> Scenario {
    Scenario {
        name: "rping_to_rdmacm_server".into(),
        package: "rdmacm_client_server",
        server: Some(Cmd::new("rdmacm_server", &["{server_ip}", "12347"])),
        client: Some(Cmd::new(
            "sh",
            &[
                "-c",
                "rping -c -a {server_ip} -p 12347 -C 1; echo \"rping exit $?\"; \
                 rdmacm_client {server_ip} 12347",
            ],
        )),
        ready: Ready::RdmaCmListen(12347),
        server_expect: Expect::ok(&[
            "received connection request.",
            "connected. posting send...",
            "received connection request.",
            "received message: message from active/client side with pid *",
        ])
        .counts(&[
            ("received connection request.", 2),
            ("peer disconnected.", 2),
        ])
        .stderr_counts(&[(
            "on_completion: status is not IBV_WC_SUCCESS: *(status *, vendor error 0x*); *",
            1,
        )])
        .one_error_line(),
        client_expect: Expect::ok(&[
            // rping's own status varies with where it noticed the failure.
            "rping exit *",
            "received message: message from passive/server side with pid *",
            "disconnected.",
        ])
        .any_stderr(),
        stop_server: true,
        fault: Some(Fault::BadPeer),
        ..Scenario::BASE
    }
}

fn rdmacm_no_such_host() -> Scenario {
    Scenario {
        name: "rdmacm_no_such_host".into(),
        package: "rdmacm_client_server",
        // On the lab's /24 and answered by nobody: address resolution fails.
        client: Some(Cmd::new("rdmacm_client", &["192.0.2.99", "12345"])),
        client_expect: Expect::fails(&[
            "on_event: unexpected event RDMA_CM_EVENT_ADDR_ERROR (status *)",
        ]),
        fault: Some(Fault::Address),
        ..Scenario::BASE
    }
}

/// The server, for the fault matrix's signal cells: either stops it
/// cleanly, as documented.
pub fn waiting() -> Vec<Waiting> {
    vec![Waiting {
        name: "rdmacm_server",
        package: "rdmacm_client_server",
        cmd: &["rdmacm_server", "{server_ip}", "12348"],
        line: "listening on port *.",
        exits: [0, 0],
        stdout: &[],
        stderr: &[],
    }]
}

/// The server and the client of the kill cells.
const SERVER_ARGV: &[&str] = &["rdmacm_server", "{server_ip}", "12347"];
const CLIENT_ARGV: &[&str] = &["rdmacm_client", "{server_ip}", "12347"];

/// A server whose client is gone, in whichever state: it drops that
/// connection (in one line at most) and keeps serving until SIGTERM.
fn server_survives() -> Expect {
    Expect::ok(&["received connection request.", "peer disconnected."]).at_most_one_error_line()
}

/// The pair the kill cells run.
fn pair() -> Kill {
    Kill {
        name: "rdmacm",
        package: "rdmacm_client_server",
        server: SERVER_ARGV,
        client: CLIENT_ARGV,
        ready: Ready::RdmaCmListen(12347),
        ..Kill::BASE
    }
}

/// The fault matrix's kill cells: the client killed once connected, and
/// once it has the server's message (its exchange is one message each way);
/// the server killed once a request reached it, and stopped there, a
/// silent peer that the client gives up on at its bound.
pub fn kills() -> Vec<Kill> {
    vec![
        Kill {
            phase: "connected",
            victim: Side::Client,
            signals: KILL_TERM_INT,
            line: "connected. posting send...",
            survivor: server_survives(),
            stop_server: true,
            ..pair()
        },
        Kill {
            phase: "midway",
            victim: Side::Client,
            line: "received message: *",
            signals: KILL_TERM_INT,
            survivor: server_survives(),
            stop_server: true,
            ..pair()
        },
        Kill {
            phase: "connected",
            victim: Side::Server,
            line: "received connection request.",
            survivor: Expect {
                stdout: owned(&["route resolved."]),
                ..Expect::fails_one_of(&[
                    "on_event: unexpected event RDMA_CM_EVENT_REJECTED (status *)",
                    "on_disconnect: the server disconnected before the exchange completed",
                ])
            }
            .within(10),
            ..pair()
        },
        Kill {
            phase: "connected",
            victim: Side::Server,
            // Stopped as a request reached it, before or just after it
            // accepted: the client gives up at its bound either way.
            line: "received connection request.",
            signals: &[SIGSTOP],
            survivor: Expect::fails(&[
                "no answer from {server_ip}:12347 within 15 s (waiting for *)",
            ])
            .within(25),
            ..pair()
        },
    ]
}
