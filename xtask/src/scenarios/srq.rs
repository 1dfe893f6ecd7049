//! Scenarios of `srq` (the manual's 8.3 SRQ example): the default run,
//! the batch shapes the exchange must survive (one QP, many QPs, a last
//! partial batch, max_wr above msg_count), and a client without a server.
//!
//! The server answers every batch of `max_wr` receives with one send, so it
//! sends ceil(msg_count / max_wr) times and the client receives as often.

use super::{Cmd, Expect, Ready, Scenario};

/// The pair, its variants and its error path.
pub static SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "srq",
        package: "srq",
        server: Some(Cmd {
            program: "srq",
            args: &["-s", "-a", "{server_ip}", "-p", "51216"],
        }),
        client: Some(Cmd {
            program: "srq",
            args: &["-a", "{server_ip}", "-p", "51216"],
        }),
        ready: Ready::RdmaCmListen(51216),
        server_expect: Expect::ok(&[
            "waiting for connection from client...",
            "recv count: 100, qp_num: *",
            "send count: 2",
        ]),
        client_expect: Expect::ok(&["send count: 100, qp_num: *", "recv count: 2"]),
        timeout_secs: 120,
        pair: true,
        ..Scenario::BASE
    },
    Scenario {
        name: "srq_one_qp",
        package: "srq",
        server: Some(Cmd {
            program: "srq",
            args: &["-s", "-a", "{server_ip}", "-p", "51221", "-q", "1"],
        }),
        client: Some(Cmd {
            program: "srq",
            args: &["-a", "{server_ip}", "-p", "51221", "-q", "1"],
        }),
        ready: Ready::RdmaCmListen(51221),
        server_expect: Expect::ok(&[
            "waiting for connection from client...",
            "recv count: 100, qp_num: *",
            "send count: 2",
        ]),
        client_expect: Expect::ok(&["send count: 100, qp_num: *", "recv count: 2"]),
        timeout_secs: 90,
        ..Scenario::BASE
    },
    Scenario {
        name: "srq_8qp_w16",
        package: "srq",
        server: Some(Cmd {
            program: "srq",
            args: &[
                "-s",
                "-a",
                "{server_ip}",
                "-p",
                "51222",
                "-q",
                "8",
                "-w",
                "16",
            ],
        }),
        client: Some(Cmd {
            program: "srq",
            args: &["-a", "{server_ip}", "-p", "51222", "-q", "8", "-w", "16"],
        }),
        ready: Ready::RdmaCmListen(51222),
        server_expect: Expect::ok(&[
            "waiting for connection from client...",
            "recv count: 100, qp_num: *",
            "send count: 7",
        ]),
        client_expect: Expect::ok(&["send count: 100, qp_num: *", "recv count: 7"]),
        timeout_secs: 90,
        ..Scenario::BASE
    },
    Scenario {
        name: "srq_c10_w3",
        package: "srq",
        server: Some(Cmd {
            program: "srq",
            args: &[
                "-s",
                "-a",
                "{server_ip}",
                "-p",
                "51223",
                "-c",
                "10",
                "-w",
                "3",
            ],
        }),
        client: Some(Cmd {
            program: "srq",
            args: &["-a", "{server_ip}", "-p", "51223", "-c", "10", "-w", "3"],
        }),
        ready: Ready::RdmaCmListen(51223),
        server_expect: Expect::ok(&[
            "waiting for connection from client...",
            "recv count: 10, qp_num: *",
            "send count: 4",
        ]),
        client_expect: Expect::ok(&["send count: 10, qp_num: *", "recv count: 4"]),
        timeout_secs: 90,
        ..Scenario::BASE
    },
    Scenario {
        name: "srq_c5_w64",
        package: "srq",
        server: Some(Cmd {
            program: "srq",
            args: &[
                "-s",
                "-a",
                "{server_ip}",
                "-p",
                "51224",
                "-c",
                "5",
                "-w",
                "64",
            ],
        }),
        client: Some(Cmd {
            program: "srq",
            args: &["-a", "{server_ip}", "-p", "51224", "-c", "5", "-w", "64"],
        }),
        ready: Ready::RdmaCmListen(51224),
        server_expect: Expect::ok(&[
            "waiting for connection from client...",
            "recv count: 5, qp_num: *",
            "send count: 1",
        ]),
        client_expect: Expect::ok(&["send count: 5, qp_num: *", "recv count: 1"]),
        timeout_secs: 90,
        ..Scenario::BASE
    },
    Scenario {
        name: "srq_no_server",
        package: "srq",
        client: Some(Cmd {
            program: "srq",
            args: &["-a", "{server_ip}", "-p", "51298"],
        }),
        client_expect: Expect::fails(&["rdma_connect failed: Connection refused (ECONNREFUSED) \
    (RDMA_CM_EVENT_REJECTED, status *)"]),
        ..Scenario::BASE
    },
];
