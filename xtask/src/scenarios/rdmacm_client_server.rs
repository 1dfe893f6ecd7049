//! Scenarios of `rdmacm_server` / `rdmacm_client` (Bedeir's paper).

use super::{Cmd, Expect, Ready, Scenario};

/// The pair and its error paths.
pub static SCENARIOS: &[Scenario] = &[
    // rdmacm_client_server: two clients in a row against one server, which
    // keeps serving until SIGTERM.
    Scenario {
        name: "rdmacm_client_server",
        package: "rdmacm_client_server",
        server: Some(Cmd {
            program: "rdmacm_server",
            args: &["{server_ip}", "12345"],
        }),
        client: Some(Cmd {
            program: "sh",
            args: &[
                "-c",
                "rdmacm_client {server_ip} 12345 && rdmacm_client {server_ip} 12345",
            ],
        }),
        ready: Ready::RdmaCmListen(12345),
        server_expect: Expect::ok(&[
            "listening on port 12345.",
            "received connection request.",
            "connected. posting send...",
            "send completed successfully.",
            "received message: message from active/client side with pid *",
            "peer disconnected.",
        ]),
        client_expect: Expect::ok(&[
            "address resolved.",
            "route resolved.",
            "connected. posting send...",
            "send completed successfully.",
            "received message: message from passive/server side with pid *",
            "disconnected.",
        ]),
        pair: true,
        stop_server: true,
        ..Scenario::BASE
    },
    Scenario {
        name: "rdmacm_nobody_listening",
        package: "rdmacm_client_server",
        client: Some(Cmd {
            program: "rdmacm_client",
            args: &["{server_ip}", "12399"],
        }),
        client_expect: Expect {
            exit: 1,
            stdout: &["address resolved.", "route resolved."],
            stderr: &["on_event: unexpected event RDMA_CM_EVENT_* (status *)"],
        },
        ..Scenario::BASE
    },
    Scenario {
        name: "rdmacm_no_such_host",
        package: "rdmacm_client_server",
        // On the lab's /24 and answered by nobody: address resolution fails.
        client: Some(Cmd {
            program: "rdmacm_client",
            args: &["192.0.2.99", "12345"],
        }),
        client_expect: Expect::fails(&[
            "on_event: unexpected event RDMA_CM_EVENT_ADDR_ERROR (status *)",
        ]),
        ..Scenario::BASE
    },
];
