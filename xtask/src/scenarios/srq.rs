//! Scenarios of `srq` (the manual's 8.3 SRQ example): the default run,
//! the batch shapes the exchange must survive (one QP, many QPs, a last
//! partial batch, max_wr above msg_count), and a client without a server.
//!
//! The server answers every batch of `max_wr` receives with one send, so it
//! sends ceil(msg_count / max_wr) times and the client receives as often.

use super::{
    memlocked, stdout_of, Cmd, Expect, Midway, Outcome, Ready, Scenario, Waiting, MEMLOCKED,
};

/// The server's receives came over `N` different QPs: the shared receive
/// queue served every connection (its `recv count: C, qp_num: Q` lines).
fn receives_on<const N: usize>(o: &Outcome) -> Vec<String> {
    let mut qps: Vec<&str> = stdout_of(&o.server)
        .lines()
        .filter_map(|l| l.split_once(", qp_num: ").map(|(_, q)| q.trim()))
        .collect();
    qps.sort_unstable();
    qps.dedup();
    if qps.len() == N {
        Vec::new()
    } else {
        vec![format!(
            "server: receives on {} QPs ({qps:?}), expected {N}",
            qps.len()
        )]
    }
}

/// A long client run, SIGKILLed once the server has answered two batches:
/// the server must notice the lost peer at once.
const KILL_CLIENT: &str = "f=$(mktemp -u); mkfifo $f; \
    srq -a {server_ip} -p 51225 -c 100000 -l 1000 -w 8 >$f & p=$!; \
    while read -r l; do case $l in 'recv count: 2') kill -9 $p; break;; esac; done <$f; \
    wait $p; echo \"client killed after: $l\"; rm -f $f";

/// The server of a long run, SIGKILLed after 20 receives.
const KILL_SERVER: &str = "f=$(mktemp -u); mkfifo $f; \
    srq -s -a {server_ip} -p 51226 -c 100000 -l 1000 -w 8 >$f & p=$!; \
    while read -r l; do case $l in 'recv count: 20, '*) kill -9 $p; break;; esac; done <$f; \
    wait $p; echo \"server killed after: $l\"; rm -f $f";

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
        ])
        .counts(&[("recv count: *, qp_num: *", 100), ("send count: *", 2)]),
        client_expect: Expect::ok(&["send count: 100, qp_num: *", "recv count: 2"])
            .counts(&[("send count: *, qp_num: *", 100), ("recv count: *", 2)]),
        timeout_secs: 120,
        pair: true,
        verify: Some(receives_on::<4>),
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
        ])
        .counts(&[("recv count: *, qp_num: *", 100), ("send count: *", 2)]),
        client_expect: Expect::ok(&["send count: 100, qp_num: *", "recv count: 2"])
            .counts(&[("send count: *, qp_num: *", 100), ("recv count: *", 2)]),
        timeout_secs: 90,
        verify: Some(receives_on::<1>),
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
        ])
        .counts(&[("recv count: *, qp_num: *", 100), ("send count: *", 7)]),
        client_expect: Expect::ok(&["send count: 100, qp_num: *", "recv count: 7"])
            .counts(&[("send count: *, qp_num: *", 100), ("recv count: *", 7)]),
        timeout_secs: 90,
        verify: Some(receives_on::<8>),
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
        ])
        .counts(&[("recv count: *, qp_num: *", 10), ("send count: *", 4)]),
        client_expect: Expect::ok(&["send count: 10, qp_num: *", "recv count: 4"])
            .counts(&[("send count: *, qp_num: *", 10), ("recv count: *", 4)]),
        timeout_secs: 90,
        verify: Some(receives_on::<4>),
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
        ])
        .counts(&[("recv count: *, qp_num: *", 5), ("send count: *", 1)]),
        client_expect: Expect::ok(&["send count: 5, qp_num: *", "recv count: 1"])
            .counts(&[("send count: *, qp_num: *", 5), ("recv count: *", 1)]),
        timeout_secs: 90,
        verify: Some(receives_on::<4>),
        ..Scenario::BASE
    },
    // More QPs than a batch holds: the round-robin goes on across batches,
    // so all 8 QPs carry messages although a batch has only 3.
    Scenario {
        name: "srq_q8_w3",
        package: "srq",
        server: Some(Cmd {
            program: "srq",
            args: &[
                "-s",
                "-a",
                "{server_ip}",
                "-p",
                "51227",
                "-q",
                "8",
                "-w",
                "3",
                "-c",
                "20",
            ],
        }),
        client: Some(Cmd {
            program: "srq",
            args: &[
                "-a",
                "{server_ip}",
                "-p",
                "51227",
                "-q",
                "8",
                "-w",
                "3",
                "-c",
                "20",
            ],
        }),
        ready: Ready::RdmaCmListen(51227),
        server_expect: Expect::ok(&["recv count: 20, qp_num: *", "send count: 7"])
            .counts(&[("recv count: *, qp_num: *", 20), ("send count: *", 7)]),
        client_expect: Expect::ok(&["send count: 20, qp_num: *", "recv count: 7"])
            .counts(&[("send count: *, qp_num: *", 20), ("recv count: *", 7)]),
        timeout_secs: 90,
        verify: Some(receives_on::<8>),
        ..Scenario::BASE
    },
    // Fewer messages than QPs: the idle connections must not stall the end.
    Scenario {
        name: "srq_c2_q4",
        package: "srq",
        server: Some(Cmd {
            program: "srq",
            args: &["-s", "-a", "{server_ip}", "-p", "51228", "-c", "2"],
        }),
        client: Some(Cmd {
            program: "srq",
            args: &["-a", "{server_ip}", "-p", "51228", "-c", "2"],
        }),
        ready: Ready::RdmaCmListen(51228),
        server_expect: Expect::ok(&["recv count: 2, qp_num: *", "send count: 1"])
            .counts(&[("recv count: *, qp_num: *", 2), ("send count: *", 1)]),
        client_expect: Expect::ok(&["send count: 2, qp_num: *", "recv count: 1"])
            .counts(&[("send count: *, qp_num: *", 2), ("recv count: *", 1)]),
        timeout_secs: 90,
        verify: Some(receives_on::<2>),
        ..Scenario::BASE
    },
    Scenario {
        name: "srq_client_dies",
        package: "srq",
        server: Some(Cmd {
            program: "srq",
            args: &[
                "-s",
                "-a",
                "{server_ip}",
                "-p",
                "51225",
                "-c",
                "100000",
                "-l",
                "1000",
                "-w",
                "8",
            ],
        }),
        client: Some(Cmd {
            program: "sh",
            args: &["-c", KILL_CLIENT],
        }),
        ready: Ready::RdmaCmListen(51225),
        server_expect: Expect::exits(
            1,
            &["send count: 2"],
            // The server may be waiting for a receive (ibv_get_cq_event)
            // or for a send's completion (rdma_get_send_comp) when the
            // client dies: either names its verb, then the disconnect.
            &["*: the peer went away: RDMA_CM_EVENT_DISCONNECTED (status *)"],
        )
        .within(20),
        client_expect: Expect::ok(&["client killed after: recv count: 2"]).any_stderr(),
        timeout_secs: 60,
        ..Scenario::BASE
    },
    Scenario {
        name: "srq_server_dies",
        package: "srq",
        server: Some(Cmd {
            program: "sh",
            args: &["-c", KILL_SERVER],
        }),
        client: Some(Cmd {
            program: "srq",
            args: &[
                "-a",
                "{server_ip}",
                "-p",
                "51226",
                "-c",
                "100000",
                "-l",
                "1000",
                "-w",
                "8",
            ],
        }),
        ready: Ready::RdmaCmListen(51226),
        server_expect: Expect::ok(&["server killed after: recv count: 20, qp_num: *"]).any_stderr(),
        client_expect: Expect::exits(
            1,
            &["send count: 20, qp_num: *"],
            &["*the peer went away: RDMA_CM_EVENT_DISCONNECTED (status *)"],
        )
        .within(20),
        timeout_secs: 60,
        ..Scenario::BASE
    },
    // An address on the lab's subnet that nobody answers: address
    // resolution fails in one line, within its time limit.
    Scenario {
        name: "srq_no_such_host",
        package: "srq",
        client: Some(Cmd {
            program: "srq",
            args: &["-a", "192.0.2.99", "-p", "51297"],
        }),
        client_expect: Expect::fails(&["rdma_resolve_addr*"]).within(20),
        ..Scenario::BASE
    },
    // Two buffers of 2 GB each in a 2 GiB VM: refused at once, in one line,
    // where pinning them would get the program killed after a while.
    Scenario {
        name: "srq_length_beyond_memory",
        package: "srq",
        server: Some(Cmd {
            program: "srq",
            args: &[
                "-s",
                "-a",
                "{server_ip}",
                "-p",
                "51296",
                "-l",
                "2000000000",
                "-c",
                "2",
            ],
        }),
        server_expect: Expect::fails(&["-l 2000000000 needs two buffers of that size, \
                                        3814 MiB of pinned memory, and this host has \
                                        * MiB available: give a smaller -l"])
        .within(5),
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
    (RDMA_CM_EVENT_REJECTED, status *)"])
        .within(10),
        ..Scenario::BASE
    },
    // The fault matrix's `ulimit -l` cells: the first registration fails
    // with the hint, in one line, before any peer is needed.
    memlocked(
        "srq_memlock",
        "srq",
        &[
            "-c",
            MEMLOCKED,
            "sh",
            "srq",
            "-s",
            "-a",
            "{server_ip}",
            "-p",
            "51292",
        ],
    ),
];

/// The server, for the fault matrix's signal cells: killed by either.
pub static WAITING: &[Waiting] = &[Waiting {
    name: "srq",
    package: "srq",
    cmd: &["srq", "-s", "-a", "{server_ip}", "-p", "51290"],
    line: "waiting for connection from client...",
    exits: [143, 130],
    stdout: &[],
    stderr: &[],
}];

/// A long run, for the fault matrix's mid-exchange cells: the server
/// notices its lost client at once, in whichever wait it is.
pub static MIDWAY: &[Midway] = &[Midway {
    name: "srq",
    package: "srq",
    server: &[
        "srq",
        "-s",
        "-a",
        "{server_ip}",
        "-p",
        "51281",
        "-c",
        "100000",
        "-l",
        "1000",
        "-w",
        "8",
    ],
    client: &[
        "srq",
        "-a",
        "{server_ip}",
        "-p",
        "51281",
        "-c",
        "100000",
        "-l",
        "1000",
        "-w",
        "8",
    ],
    ready: Ready::RdmaCmListen(51281),
    line: "recv count: 2",
    delay: "0",
    server_error: "*: the peer went away: RDMA_CM_EVENT_DISCONNECTED (status *)",
    within_secs: 20,
}];
