//! Scenarios of `srq` (the manual's 8.3 SRQ example): the default run,
//! the batch shapes the exchange must survive (one QP, many QPs, a last
//! partial batch, max_wr above msg_count), and a client without a server.
//!
//! The server answers every batch of `max_wr` receives with one send, so it
//! sends ceil(msg_count / max_wr) times and the client receives as often.

use super::cells::{
    memlocked, past_max_msg_sz_cell, refused, Kill, Waiting, KILL_TERM_INT, MEMLOCKED,
    MEMLOCK_REFUSED, PAST_MAX_MSG_SZ, SIGSTOP, SURVIVOR_SECS,
};
use crate::model::{
    stdout_of, Cause, Check, Cmd, Exercise, Expect, Fault, Outcome, PacketFact, Placement, Ready,
    Scenario, Side,
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

/// A long run (100000 messages of 1000 bytes, batches of 8), for the
/// fault matrix's kill cells.
const LONG_SERVER: &[&str] = &[
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
];

/// The client of [`LONG_SERVER`].
const LONG_CLIENT: &[&str] = &[
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
];

/// How either side learns that its peer is gone, in whichever wait it is
/// (a receive's `ibv_get_cq_event` or a send's `rdma_get_send_comp`): the
/// disconnect that the peer's kernel sends when the process dies.
const PEER_GONE: &str = "*: the peer went away: RDMA_CM_EVENT_DISCONNECTED (status *)";

/// The clients of `srq_request_swallowed`: one that connects (and whose
/// messages the server takes only once all connections are there; the
/// server's end of it shows in `rdma res show cm_id`), then,
/// with the device node closed to others, one whose request is swallowed;
/// the node is opened again whatever happens.
const SWALLOWED: &str = "srq -a {server_ip} -p 51288 -q 1 -c 4 & p=$!
i=0; until rdma res show cm_id | grep -q 'state CONNECT .*comm srq .*src-addr {server_ip}:51288 dst-addr'; do
  i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1
done
[ $i -gt 100 ] && echo 'first client not seen' || echo 'first client connected'
chmod o-rw /dev/infiniband/rdma_cm
srq -a {server_ip} -p 51288 -q 1 -c 4 && echo 'second client served' || echo 'second client rejected'
chmod o+rw /dev/infiniband/rdma_cm
wait $p; echo 'first client ended'";

/// `-c 10 -w 3`'s messages in order: three of the client's, then the
/// server's answer, three times, then the last one and its answer (each
/// message's Last packet stands for it).
const W3_BATCHES: &[(Side, &str)] = &[
    (Side::Client, "RC Send Last"),
    (Side::Client, "RC Send Last"),
    (Side::Client, "RC Send Last"),
    (Side::Server, "RC Send Last"),
    (Side::Client, "RC Send Last"),
    (Side::Client, "RC Send Last"),
    (Side::Client, "RC Send Last"),
    (Side::Server, "RC Send Last"),
    (Side::Client, "RC Send Last"),
    (Side::Client, "RC Send Last"),
    (Side::Client, "RC Send Last"),
    (Side::Server, "RC Send Last"),
    (Side::Client, "RC Send Last"),
    (Side::Server, "RC Send Last"),
];

/// The pair, its variants and its error path.
pub fn scenarios() -> Vec<Scenario> {
    vec![
        srq(),
        srq_one_qp(),
        srq_8qp_w16(),
        srq_c10_w3(),
        srq_c5_w64(),
        srq_q8_w3(),
        srq_c2_q4(),
        srq_no_such_host(),
        srq_length_beyond_memory(),
        srq_no_server(),
        srq_memlock(),
        // The limits row, in the VM: the highest -w asks the device for more
        // receives than an SRQ holds, refused at once; a -l just past the port's
        // max_msg_sz (read from ibv_devinfo) is refused before any memory is
        // pinned, or by -l's own range where the port's limit is past it; and
        // the lowest of every number runs the exchange.
        refused(
            "srq_w_max",
            "srq",
            Fault::Limits,
            &[
                "srq",
                "-s",
                "-a",
                "{server_ip}",
                "-p",
                "51283",
                "-w",
                "2147483647",
            ],
            &["max_wr 2147483647: rdma_create_srq failed: Invalid argument (EINVAL)"],
        ),
        past_max_msg_sz_cell(
            "srq_l_past_max_msg_sz",
            "srq",
            &[
                "-c",
                PAST_MAX_MSG_SZ,
                "sh",
                "srq",
                "-s",
                "-a",
                "{server_ip}",
                "-p",
                "51284",
            ],
        ),
        srq_lowest_values(),
        srq_request_swallowed(),
        // The address row: 127.0.0.1 is on lo, which no RDMA device serves.
        refused(
            "srq_server_address_without_rdma",
            "srq",
            Fault::Address,
            &["srq", "-s", "-a", "127.0.0.1", "-p", "51295"],
            &[
                "rdma_bind_addr to 127.0.0.1:51295 found no RDMA device: -a must be the address \
               of an RDMA device's interface",
            ],
        ),
        refused(
            "srq_client_address_without_rdma",
            "srq",
            Fault::Address,
            &["srq", "-a", "127.0.0.1", "-p", "51295"],
            &["rdma_create_ep for 127.0.0.1:51295 failed: No such device \
                (ENODEV) (hint: no RDMA device serves that address: is rdma_rxe \
                or an HCA bound to its interface?)"],
        ),
    ]
}

// The fault matrix's `ulimit -l` cell: the first registration fails with
// the hint, in one line, before any peer is needed (srq and apm check
// `ulimit -l` before anything else).
fn srq_memlock() -> Scenario {
    Scenario {
        server_expect: Expect::fails(&[MEMLOCK_REFUSED]).within(crate::model::AT_ONCE_SECS),
        ..memlocked(
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
        )
    }
}

fn srq() -> Scenario {
    Scenario {
        name: "srq".into(),
        package: "srq",
        // Its default -l 100000: two buffers of 25 pages.
        locked_kib: 200,
        server: Some(Cmd::new("srq", &["-s", "-a", "{server_ip}", "-p", "51216"])),
        client: Some(Cmd::new("srq", &["-a", "{server_ip}", "-p", "51216"])),
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
        causes: &[
            Cause {
                from: Side::Client,
                label: "RC Send*",
                call: "send_and_wait: rdma_post_send of one message, the QPs taken in turn",
            },
            Cause {
                from: Side::Server,
                label: "RC Send*",
                call: "the server's rdma_post_send of one message",
            },
        ],
        pair: true,
        // 100 messages of 100000 bytes (First, Middles, Last each) spread
        // over the 4 connections' QPs; the server's 2 answers (one per
        // batch of max_wr 50) all on connection 0.
        wire: &[
            PacketFact::Count {
                from: Side::Client,
                what: "CM ConnectRequest",
                n: 4,
                len: None,
            },
            PacketFact::Count {
                from: Side::Client,
                what: "RC Send First",
                n: 100,
                len: None,
            },
            PacketFact::Qps {
                from: Side::Client,
                what: "RC Send*",
                n: 4,
            },
            PacketFact::Count {
                from: Side::Server,
                what: "RC Send First",
                n: 2,
                len: None,
            },
            PacketFact::ToFirstConnection {
                from: Side::Server,
                what: "RC Send*",
            },
        ],
        verify: Some(receives_on::<4>),
        ..Scenario::BASE
    }
}

/// The pair with `opts` on both sides after its own address and `port`:
/// the client sends `msgs` messages, which the server receives on `QPS`
/// QPs of one SRQ, and gets `sends` answers back.
fn variant<const QPS: usize>(
    name: &str,
    port: u16,
    opts: &[&str],
    msgs: usize,
    sends: usize,
) -> Scenario {
    let port_text = port.to_string();
    let side = |server: bool| {
        let mut args = if server { vec!["-s"] } else { Vec::new() };
        args.extend(["-a", "{server_ip}", "-p", &port_text]);
        args.extend(opts);
        Cmd::new("srq", &args)
    };
    let (recv, send) = (
        format!("recv count: {msgs}, qp_num: *"),
        format!("send count: {sends}"),
    );
    let (sent, got) = (
        format!("send count: {msgs}, qp_num: *"),
        format!("recv count: {sends}"),
    );
    Scenario {
        name: name.into(),
        package: "srq",
        server: Some(side(true)),
        client: Some(side(false)),
        ready: Ready::RdmaCmListen(port),
        server_expect: Expect::ok(&[&recv, &send])
            .counts(&[("recv count: *, qp_num: *", msgs), ("send count: *", sends)]),
        client_expect: Expect::ok(&[&sent, &got])
            .counts(&[("send count: *, qp_num: *", msgs), ("recv count: *", sends)]),
        timeout_secs: 90,
        verify: Some(receives_on::<QPS>),
        ..Scenario::BASE
    }
}

/// `s` whose server must first say that it waits for the client.
fn waiting_first(mut s: Scenario) -> Scenario {
    let line = "waiting for connection from client...".to_string();
    s.server_expect.stdout.insert(0, line);
    s
}

const SRQ_ONE_QP_EXERCISE: Exercise = Exercise {
    question: "Run srq with one connection: -q 1 on both sides.",
    predict: "The server posts its receives to one shared receive queue. On \
        which QP does each of the 100 messages arrive? To how many \
        destination QPs do the client's SENDs go?",
    explain: "A shared receive queue is one pool of receive buffers that any \
        number of QPs draw from, and each completion says which QP its \
        message came in on (`qp_num`). With one connection there is one \
        QP: all 100 `recv count` lines name it, and the client's SENDs \
        go to \
        {distinct:infiniband.bth.destqp:ip.src==192.0.2.2 && infiniband.bth.opcode<=2} \
        destination QP. With the default four connections the same pool \
        serves four QPs, and the wire shows the client's SENDs to \
        {distinct@srq:infiniband.bth.destqp:ip.src==192.0.2.2 && infiniband.bth.opcode<=2}.",
    check: Check {
        // The client's SENDs alone: the server's answers go to another QP.
        filter: "ip.src==192.0.2.2 && infiniband.bth.opcode == 0",
        fields: &["infiniband.bth.destqp"],
        line: "qp_num",
        look: "on the server, the `qp_num` of each `recv count` line; on the \
            client, that of each `send count` line (both in decimal; the \
            capture shows QP numbers in hex). The capture lists a row per packet: count the \
            different destination QPs its rows name, not the rows",
    },
    gives_away: &[
        "all 100 recv count lines name it",
        "on which QP the message arrives",
    ],
};

fn srq_one_qp() -> Scenario {
    Scenario {
        exercise: Some(SRQ_ONE_QP_EXERCISE),
        ..waiting_first(variant::<1>("srq_one_qp", 51221, &["-q", "1"], 100, 2))
    }
}

fn srq_8qp_w16() -> Scenario {
    waiting_first(variant::<8>(
        "srq_8qp_w16",
        51222,
        &["-q", "8", "-w", "16"],
        100,
        7,
    ))
}

const SRQ_C10_W3_EXERCISE: Exercise = Exercise {
    question: "Run srq with `-c 10 -w 3` on both sides: the server posts 3 \
        receives to its SRQ (`-w`, `max_wr`).",
    predict: "In what order do the client's 10 messages and the server's \
        messages cross the wire? How many does the server send? What \
        would a client that sent a fourth message before the server's \
        answer risk, given that srq's QPs retry after an RNR NAK for ever \
        (their RNR retry count is 7)? And the ACKs' AETHs carry a credit code (Soft-RoCE \
        sends 31, \"no count given\", on every QP, as the ladders of \
        chapter 3 show): what would a QP on a shared receive queue have \
        to count, and why can it not?",
    explain: "`-w` is both the depth of the server's SRQ and the client's \
        batch: the client sends 3 messages, then waits; the server \
        takes 3 receives out of its SRQ, posts each again, and sends \
        one message, which tells the client it may send the next batch \
        (the last batch holds one message, so the server sends 4 in \
        all, as `send count: 4` says, and as the capture has it: the \
        server's RC Send First packets carry \
        {distinct:infiniband.bth.psn:ip.src==192.0.2.1 && infiniband.bth.opcode==0} \
        distinct PSNs). This is flow control by the \
        application: the server's message is the credit, and the client \
        never has more messages in flight than the SRQ has receives. \
        The ladder shows it as three 100000-byte messages from the \
        client, then one from the server, three times, then the last \
        message and the last answer. A fourth message sent early could \
        find the SRQ empty and meet an RNR NAK; srq's connections would \
        send it again after the RNR timer (librdmacm's default of 7 \
        retries means for ever), so nothing would fail, but the wire \
        would show the NAKs and the waits. RC has credits of its own in \
        the AETH of each ACK, the count of receives the responder has \
        posted; a QP on a shared receive queue has no receives of its \
        own to count, so it gives no count: its ACKs carry credit code \
        {first:infiniband.aeth.syndrome.credit_count:infiniband.aeth.syndrome.opcode==0}, \
        which means \"no credit count given\", not zero credits (of \
        this capture's {count:infiniband.aeth.syndrome.opcode==0} ACKs, \
        {count:infiniband.aeth.syndrome.opcode==0 && infiniband.aeth.syndrome.credit_count!=31} \
        carry another code; Soft-RoCE sends 31 on every QP): only the \
        program's batches keep the SRQ from running empty.",
    check: Check {
        filter: "infiniband.bth.opcode == 0 || infiniband.aeth",
        fields: &[
            "infiniband.bth.psn",
            "infiniband.aeth.syndrome.credit_count",
        ],
        line: "count",
        look: "the order of the server's `recv count` lines and the client's `send count` lines",
    },
    gives_away: &[
        "no receives of its own to count",
        "flow control by the application",
        "messages before it waits",
    ],
};

const SRQ_C10_W3_WIRE: &[PacketFact] = &[
    PacketFact::Count {
        from: Side::Client,
        what: "RC Send Last",
        n: 10,
        len: None,
    },
    PacketFact::Count {
        from: Side::Server,
        what: "RC Send Last",
        n: 4,
        len: None,
    },
    PacketFact::InOrder(W3_BATCHES),
];

fn srq_c10_w3() -> Scenario {
    Scenario {
        // The batches on the wire: the exact counts make the order below
        // the whole sequence, so no fourth message may slip before an
        // answer.
        wire: SRQ_C10_W3_WIRE,
        exercise: Some(SRQ_C10_W3_EXERCISE),
        ..waiting_first(variant::<4>(
            "srq_c10_w3",
            51223,
            &["-c", "10", "-w", "3"],
            10,
            4,
        ))
    }
}

fn srq_c5_w64() -> Scenario {
    waiting_first(variant::<4>(
        "srq_c5_w64",
        51224,
        &["-c", "5", "-w", "64"],
        5,
        1,
    ))
}

// More QPs than a batch holds: the round-robin goes on across batches,
// so all 8 QPs carry messages although a batch has only 3.
fn srq_q8_w3() -> Scenario {
    variant::<8>(
        "srq_q8_w3",
        51227,
        &["-q", "8", "-w", "3", "-c", "20"],
        20,
        7,
    )
}

// Fewer messages than QPs: the idle connections must not stall the end.
fn srq_c2_q4() -> Scenario {
    variant::<2>("srq_c2_q4", 51228, &["-c", "2"], 2, 1)
}

// An address on the lab's subnet that nobody answers: address
// resolution fails in one line, within its time limit.
fn srq_no_such_host() -> Scenario {
    Scenario {
        name: "srq_no_such_host".into(),
        package: "srq",
        client: Some(Cmd::new("srq", &["-a", "192.0.2.99", "-p", "51297"])),
        client_expect: Expect::fails(&["rdma_resolve_addr*"]).within(20),
        fault: Some(Fault::Address),
        ..Scenario::BASE
    }
}

// Two buffers of 2 GB each in a 2 GiB VM: refused at once, in one line,
// where pinning them would get the program killed after a while.
fn srq_length_beyond_memory() -> Scenario {
    Scenario {
        name: "srq_length_beyond_memory".into(),
        package: "srq",
        server: Some(Cmd::new(
            "srq",
            &[
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
        )),
        server_expect: Expect::fails(&["-l 2000000000 needs two buffers of that size, \
                                        3814 MiB of pinned memory, and this host has \
                                        * MiB available: give a smaller -l"])
        .within(crate::model::AT_ONCE_SECS),
        fault: Some(Fault::Limits),
        ..Scenario::BASE
    }
}

fn srq_no_server() -> Scenario {
    Scenario {
        name: "srq_no_server".into(),
        package: "srq",
        client: Some(Cmd::new("srq", &["-a", "{server_ip}", "-p", "51298"])),
        client_expect: Expect::fails(&["rdma_connect failed: Connection refused (ECONNREFUSED) \
    (RDMA_CM_EVENT_REJECTED, status *)"])
        .within(10),
        fault: Some(Fault::Address),
        ..Scenario::BASE
    }
}

fn srq_lowest_values() -> Scenario {
    Scenario {
        name: "srq_lowest_values".into(),
        package: "srq",
        server: Some(Cmd::new(
            "srq",
            &[
                "-s",
                "-a",
                "{server_ip}",
                "-p",
                "51285",
                "-c",
                "1",
                "-q",
                "1",
                "-w",
                "1",
                "-l",
                "1",
            ],
        )),
        client: Some(Cmd::new(
            "srq",
            &[
                "-a",
                "{server_ip}",
                "-p",
                "51285",
                "-c",
                "1",
                "-q",
                "1",
                "-w",
                "1",
                "-l",
                "1",
            ],
        )),
        ready: Ready::RdmaCmListen(51285),
        server_expect: Expect::ok(&["recv count: 1, qp_num: *", "send count: 1"]),
        client_expect: Expect::ok(&["send count: 1, qp_num: *", "recv count: 1"]),
        fault: Some(Fault::Limits),
        placement: Placement::OneHost,
        ..Scenario::BASE
    }
}

// A connection request that librdmacm swallows (issue 12, item 5): the
// server runs as nobody, and once its first client is connected the
// rdma_cm device node is closed to it, so that librdmacm cannot open
// the second connection's channel; it rejects that request and reads
// the listener's channel again. The server must still give up on its
// second connection at its 30 s bound, not block in that read.
fn srq_request_swallowed() -> Scenario {
    Scenario {
        name: "srq_request_swallowed".into(),
        package: "srq",
        server: Some(Cmd::new(
            "sh",
            &[
                "-c",
                "chmod o+rw /dev/infiniband/*; \
                 exec setpriv --reuid=65534 --regid=65534 --clear-groups \
                 srq -s -a {server_ip} -p 51288 -q 2 -c 4",
            ],
        )),
        client: Some(Cmd::new("sh", &["-c", SWALLOWED])),
        ready: Ready::RdmaCmListen(51288),
        server_expect: Expect::fails(&[
            "rdma_get_request: connection 2 of 2 did not arrive within 30 s",
        ])
        .within(55),
        client_expect: Expect::ok(&[
            "first client connected",
            "second client rejected",
            "first client ended",
        ])
        .any_stderr(),
        timeout_secs: 90,
        fault: Some(Fault::Device),
        placement: Placement::OneVm,
        ..Scenario::BASE
    }
}

/// The server, for the fault matrix's signal cells: killed by either.
pub fn waiting() -> Vec<Waiting> {
    vec![Waiting {
        name: "srq",
        package: "srq",
        cmd: &["srq", "-s", "-a", "{server_ip}", "-p", "51290"],
        line: "waiting for connection from client...",
        exits: [143, 130],
        stdout: &[],
        stderr: &[],
    }]
}

/// The pair the kill cells run.
fn pair() -> Kill {
    Kill {
        name: "srq",
        package: "srq",
        server: LONG_SERVER,
        client: LONG_CLIENT,
        ready: Ready::RdmaCmListen(51281),
        ..Kill::BASE
    }
}

/// The fault matrix's kill cells. "Connected" is the first line a side
/// prints once connected (the client connects all its QPs before its first
/// message); the server's kill mid-exchange is its 20th receive; and a
/// server stopped while it listens leaves the client's connect unanswered.
pub fn kills() -> Vec<Kill> {
    vec![
        Kill {
            phase: "connected",
            victim: Side::Client,
            signals: KILL_TERM_INT,
            line: "send count: 1, qp_num: *",
            survivor: Expect::fails(&[PEER_GONE]).within(SURVIVOR_SECS),
            ..pair()
        },
        Kill {
            phase: "connected",
            victim: Side::Server,
            signals: KILL_TERM_INT,
            line: "recv count: 1, qp_num: *",
            survivor: Expect::fails(&[PEER_GONE]).within(SURVIVOR_SECS),
            ..pair()
        },
        Kill {
            phase: "midway",
            victim: Side::Client,
            line: "recv count: 2",
            signals: KILL_TERM_INT,
            // The server had answered two batches.
            survivor: Expect::exits(1, &["send count: 2"], &[PEER_GONE]).within(SURVIVOR_SECS),
            ..pair()
        },
        Kill {
            phase: "midway",
            victim: Side::Server,
            signals: KILL_TERM_INT,
            line: "recv count: 20, qp_num: *",
            survivor: Expect::exits(1, &["send count: 20, qp_num: *"], &[PEER_GONE])
                .within(SURVIVOR_SECS),
            ..pair()
        },
        Kill {
            phase: "listening",
            victim: Side::Server,
            line: "waiting for connection from client...",
            signals: &[SIGSTOP],
            survivor: Expect::fails(&["rdma_connect: no answer from the peer within 30 s"])
                .within(40),
            ..pair()
        },
    ]
}
