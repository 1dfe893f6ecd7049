//! Scenarios of `ibv_sockets_pingpong` (the Q&A's server.c/client.c).

use super::cells::{
    pingpong_summaries, refused, Kill, SideChannel, Waiting, KILL_TERM_INT, SURVIVOR_SECS,
};
use crate::model::{
    Cause, Check, Cmd, Exercise, Expect, Fault, PacketFact, Placement, Ready, Scenario, Side,
};

pub(crate) fn server() -> Cmd {
    Cmd::new(
        "ibv_sockets_pingpong",
        &["-d", "{dev}", "-i", "{ib_port}", "-g", "{gid_idx}"],
    )
}

pub(crate) fn client() -> Cmd {
    Cmd::new(
        "ibv_sockets_pingpong",
        &[
            "-d",
            "{dev}",
            "-i",
            "{ib_port}",
            "-g",
            "{gid_idx}",
            "{server_ip}",
        ],
    )
}

/// `ibv_sockets_pingpong -d {dev} -g {gid_idx} OPTS`: a server with
/// these options.
fn pingpong_server(opts: &[&str]) -> Cmd {
    let mut args = vec!["-d", "{dev}", "-g", "{gid_idx}"];
    args.extend(opts);
    Cmd::new("ibv_sockets_pingpong", &args)
}

/// The same options and the server's address: its client.
fn pingpong_client(opts: &[&str]) -> Cmd {
    let mut args = vec!["-d", "{dev}", "-g", "{gid_idx}"];
    args.extend(opts);
    args.push("{server_ip}");
    Cmd::new("ibv_sockets_pingpong", &args)
}

/// Both sides' lines up to INIT, then `$rest`: each side's whole run.
macro_rules! after_init {
    ($($rest:expr),* $(,)?) => {
        &[
            "[OK] get * ib devices.",
            "*idx: 0, name: *, guid (BE): *",
            "[OK] open device *.",
            "[OK] query port.",
            "*lid: *",
            "[OK] create cq.",
            "[OK] allocate pd.",
            "[OK] create qp.",
            "*qp num: *",
            "[OK] modify qp to INIT state.",
            $($rest),*
        ]
    };
}

/// Every line of the server's run, in the original's order.
const SERVER_STDOUT: &[&str] = after_init![
    "successfully create server sock fd: *",
    "successfully bind addr: 00000000, port: 6543",
    "start to listen...",
    "successfully accept client, ip: *, port: *",
    "remote qp num: *, lid: *",
    "remote gid: *",
    "[OK] modify qp to RTR state.",
    "[OK] modify qp to RTS state.",
    "[OK] reg mr.",
    "*va: 0x*, len: 128",
    "remote addr: 0x*, len: 128, rkey: *",
    "[OK] post send.",
    "[OK] poll cq.",
    "*wr id: 12345, opcode: 0, qp num: *, status: 0",
    "[OK] destroy qp.",
    "[OK] dereg mr.",
    "[OK] dealloc pd.",
    "[OK] destroy cq.",
    "[OK] close device *.",
];

/// Every line of the client's run, in the original's order.
const CLIENT_STDOUT: &[&str] = after_init![
    "successfully create client sock fd: *",
    "successfully connect to server, ip: *, port: 6543",
    "remote qp num: *, lid: *",
    "remote gid: *",
    "[OK] modify qp to RTR state.",
    "[OK] modify qp to RTS state.",
    "[OK] reg mr.",
    "*va: 0x*, len: 128, lkey: *, rkey: *",
    "[OK] post recv.",
    "[OK] poll cq.",
    "*wr id: 54321",
    "*buf: hello from server",
    "[OK] destroy qp.",
    "[OK] dereg mr.",
    "[OK] dealloc pd.",
    "[OK] destroy cq.",
    "[OK] close device *.",
];

/// Each side names the other's GID: across two VMs they differ.
const SERVER_SEES_CLIENT: (&str, usize) = ("remote gid: ::ffff:{client_ip}", 1);
const CLIENT_SEES_SERVER: (&str, usize) = ("remote gid: ::ffff:{server_ip}", 1);

/// A side whose peer dies in the middle of the ping-pong reports either
/// failure it can meet: a SEND that fails (its retries run out, or the
/// peer's kernel answers that the QP is gone), or an answer that never
/// comes.
const PEER_DIES: &[&str] = &[
    "fail to poll cq: wr id * completed with status 12 (transport retry counter exceeded)*",
    "fail to poll cq: wr id * completed with status 11 (remote operation error)*",
    "fail to poll cq: no completion within 5 s (is the peer still running?)",
];

/// A side whose peer dies once connected: it is in one of the two
/// exchanges on the side channel or, as the peer sends its structs at once,
/// already in the ping-pong.
const PEER_DIES_CONNECTED: &[&str] = &[
    "fail to exchange * info: *",
    "fail to poll cq: wr id * completed with status 12 (transport retry counter exceeded)*",
    "fail to poll cq: wr id * completed with status 11 (remote operation error)*",
    "fail to poll cq: no completion within 5 s (is the peer still running?)",
];

/// Refused before any SEND was posted.
const NO_SEND: &[(&str, usize)] = &[("[OK] post send.", 0), ("[OK] poll cq.", 0)];

/// One process that must refuse its options: usage error, exit 1.
fn bad_option(
    name: &'static str,
    args: &'static [&'static str],
    stderr: &'static [&'static str],
) -> Scenario {
    Scenario {
        name: name.into(),
        package: "ibv_sockets_pingpong",
        client: Some(Cmd::new("ibv_sockets_pingpong", args)),
        client_expect: Expect::fails(stderr),
        fault: Some(Fault::Limits),
        ..Scenario::BASE
    }
}

/// The pair as the original (one SEND, server to client), the real
/// ping-pong, and the error paths.
pub fn scenarios() -> Vec<Scenario> {
    vec![
        ibv_sockets_pingpong(),
        ibv_sockets_pingpong_auto_gid(),
        ibv_sockets_pingpong_size_mismatch(),
        ibv_sockets_pingpong_lost_packet(),
        ibv_sockets_pingpong_n100_s4096(),
        bad_option(
            "ibv_sockets_pingpong_n0",
            &["-d", "{dev}", "-n", "0"],
            &["*invalid iteration count '0' for -n*"],
        ),
        bad_option(
            "ibv_sockets_pingpong_s0",
            &["-d", "{dev}", "-s", "0"],
            &["*invalid message size '0' for -s*"],
        ),
        ibv_sockets_pingpong_closed_port(),
        ibv_sockets_pingpong_reg_mr_fails(),
        // The limits row, in the VM: the highest IB port and GID index are
        // refused at once; the smallest ping-pong (one iteration of one byte)
        // and the highest TCP port run.
        refused(
            "ibv_sockets_pingpong_ib_port_255",
            "ibv_sockets_pingpong",
            Fault::Limits,
            &["ibv_sockets_pingpong", "-d", "{dev}", "-i", "255"],
            &["fail to query port: ibv_query_port failed: Invalid argument (EINVAL)"],
        ),
        refused(
            "ibv_sockets_pingpong_gid_255",
            "ibv_sockets_pingpong",
            Fault::Limits,
            &["ibv_sockets_pingpong", "-d", "{dev}", "-g", "255"],
            &["fail to query gid: GID index 255 of port 1 is empty (see `ibv_devinfo -v`)"],
        ),
        ibv_sockets_pingpong_n1_s1_port_65535(),
    ]
}

const IBV_SOCKETS_PINGPONG_CAUSES: &[Cause] = &[
    Cause {
        from: Side::Server,
        label: "TCP :6543 SYN/ACK*",
        call: "the server kernel, for the socket of init_serv_sock_ctx; \
            accept_sock_cli takes the connection",
    },
    Cause {
        from: Side::Client,
        label: "TCP :6543 SYN*",
        call: "init_cli_sock_ctx: the client connect()s",
    },
    Cause {
        from: Side::Server,
        label: "TCP :6543 24 B*",
        call: "exchange_conn_info, then exchange_mr_info: the server struct \
            conn_info (LID, QP number, GID), then its struct mr_info \
            (address, length, rkey), raw over the socket",
    },
    Cause {
        from: Side::Client,
        label: "TCP :6543 24 B*",
        call: "exchange_conn_info, then exchange_mr_info: the client struct \
            conn_info, then its struct mr_info",
    },
    Cause {
        from: Side::Server,
        label: "RC Send Only*",
        call: "post_send: ibv_post_send of one SEND, hello from server",
    },
    Cause {
        from: Side::Client,
        label: "RC Acknowledge*",
        call: "the client transport, for the SEND that its post_recv gave a \
            buffer to: no verb call",
    },
    Cause {
        from: Side::Server,
        label: "TCP :6543 FIN*",
        call: "teardown: the socket closed",
    },
    Cause {
        from: Side::Client,
        label: "TCP :6543 FIN*",
        call: "teardown: the socket closed",
    },
];

const IBV_SOCKETS_PINGPONG_WIRE: &[PacketFact] = &[
    PacketFact::Count {
        from: Side::Server,
        what: "RC Send Only",
        n: 1,
        len: None,
    },
    PacketFact::Carries {
        from: Side::Server,
        what: "RC Send Only",
        text: "hello from server",
    },
    PacketFact::Count {
        from: Side::Client,
        what: "RC Send*",
        n: 0,
        len: None,
    },
];

fn ibv_sockets_pingpong() -> Scenario {
    Scenario {
        name: "ibv_sockets_pingpong".into(),
        package: "ibv_sockets_pingpong",
        server: Some(server()),
        client: Some(client()),
        ready: Ready::TcpListen(6543),
        server_expect: Expect::ok(SERVER_STDOUT).counts(&[SERVER_SEES_CLIENT]),
        client_expect: Expect::ok(CLIENT_STDOUT).counts(&[CLIENT_SEES_SERVER]),
        causes: IBV_SOCKETS_PINGPONG_CAUSES,
        pair: true,
        // No -n: the one SEND of the greeting, server to client.
        wire: IBV_SOCKETS_PINGPONG_WIRE,
        ..Scenario::BASE
    }
}

// No option at all on a RoCE port: the first device, and the RoCE v2
// IPv4-mapped GID, which the program picks itself and names.
fn ibv_sockets_pingpong_auto_gid() -> Scenario {
    Scenario {
        name: "ibv_sockets_pingpong_auto_gid".into(),
        roce_only: true,
        package: "ibv_sockets_pingpong",
        server: Some(Cmd::new("ibv_sockets_pingpong", &[])),
        client: Some(Cmd::new("ibv_sockets_pingpong", &["{server_ip}"])),
        ready: Ready::TcpListen(6543),
        server_expect: Expect::ok(&[
            "port * is Ethernet (RoCE) and no GID index was given: \
             using GID index * (RoCE v2, ::ffff:*)",
            "remote gid: ::ffff:*",
            "[OK] post send.",
            "*wr id: 12345, opcode: 0, qp num: *, status: 0",
        ])
        // Each side picked its own netdev's address, and saw the peer's.
        .counts(&[
            ("*using GID index * (RoCE v2, ::ffff:{server_ip})", 1),
            SERVER_SEES_CLIENT,
        ]),
        client_expect: Expect::ok(&[
            "port * is Ethernet (RoCE) and no GID index was given: \
             using GID index * (RoCE v2, ::ffff:*)",
            "remote gid: ::ffff:*",
            "*buf: hello from server",
        ])
        .counts(&[
            ("*using GID index * (RoCE v2, ::ffff:{client_ip})", 1),
            CLIENT_SEES_SERVER,
        ]),
        ..Scenario::BASE
    }
}

// Each side sends its whole buffer into the peer's: sizes that differ
// are refused by both as soon as mr_info tells them, before any SEND.
fn ibv_sockets_pingpong_size_mismatch() -> Scenario {
    Scenario {
        name: "ibv_sockets_pingpong_size_mismatch".into(),
        package: "ibv_sockets_pingpong",
        server: Some(pingpong_server(&["-s", "256"])),
        client: Some(client()),
        ready: Ready::TcpListen(6543),
        server_expect: Expect::fails(&[
            "fail to exchange mr info: the peer's buffer is 128 bytes \
             and ours 256: give both sides the same -s",
        ])
        .counts(NO_SEND),
        client_expect: Expect::fails(&[
            "fail to exchange mr info: the peer's buffer is 256 bytes \
             and ours 128: give both sides the same -s",
        ])
        .counts(NO_SEND),
        fault: Some(Fault::BadPeer),
        ..Scenario::BASE
    }
}

const IBV_SOCKETS_PINGPONG_LOST_PACKET_EXERCISE: Exercise = Exercise {
    question: "The server host drops the first RC Send Middle packet that \
        reaches it, once (an nftables rule on RoCE v2 packets whose BTH \
        opcode is 1), while the pair runs 10 round trips of 4096 bytes: \
        `ibv_sockets_pingpong -d rxe0 -g 1 -n 10 -s 4096` on the \
        server, the same with `192.0.2.1` on the client.",
    predict: "The lost packet is the second of the client's first message: \
        the capture, taken on the wire, still shows it. What does the \
        server's transport do when the next packet's PSN skips one? \
        Which packets does the client send again because of the loss? Do \
        the programs notice? (Under emulation an acknowledgement can come \
        after the ACK timeout, and the capture then shows other messages \
        sent twice with no NAK before them: the primer's second way. Leave \
        those out.)",
    explain: "A responder takes an RC connection's packets in PSN order only. \
        The Middle crossed the wire but never reached the server's \
        transport, so when the next packet arrives one PSN past the one \
        it expects, the transport drops that one too and answers with a \
        NAK whose AETH says PSN sequence error (this capture has \
        {count:infiniband.aeth.syndrome.opcode==3} NAK, for PSN \
        {first:infiniband.bth.psn:infiniband.aeth.syndrome.opcode==3}). \
        The client's transport \
        goes back to the missing PSN and sends everything from there \
        again (go-back-N): the lost Middle, then the Middle and the \
        Last that it had sent already. The programs see nothing of it: \
        no completion fails, and both print the summary they print \
        without the loss; only the wire shows the NAK and the packets \
        sent twice (the client's data packets number \
        {count:ip.src==192.0.2.2 && infiniband.bth.opcode<=2}, for \
        {distinct:infiniband.bth.psn:ip.src==192.0.2.2 && infiniband.bth.opcode<=2} \
        PSNs). The capture also shows whole messages sent again \
        that nothing lost, with no NAK before them: the same PSNs again, \
        some milliseconds later. Those are the QP's ACK timeout running \
        out because the emulated peer acknowledged late, not the dropped \
        packet: tell them apart by whether a NAK names the PSN first.",
    check: Check {
        filter: "infiniband.bth.opcode <= 2 || infiniband.aeth.syndrome.opcode == 3",
        fields: &["infiniband.bth.psn", "infiniband.aeth.syndrome.opcode"],
        line: "iters in",
        look: "each side's summary, and whether either printed an error",
    },
    gives_away: &["the programs see nothing of it", "drops that one too"],
};

const IBV_SOCKETS_PINGPONG_LOST_PACKET_WIRE: &[PacketFact] = &[
    PacketFact::Aeth {
        from: Side::Server,
        says: "NAK: PSN sequence error",
        n: 1,
    },
    PacketFact::Resent {
        from: Side::Client,
        what: "RC Send*",
        n: 1,
    },
    PacketFact::Count {
        from: Side::Client,
        what: "RC Send First",
        n: 10,
        len: Some(1024),
    },
];

fn ibv_sockets_pingpong_lost_packet() -> Scenario {
    Scenario {
        // One packet lost on the wire: the responder's NAK (PSN sequence
        // error) and the requester's go-back-N, which the programs never
        // see.
        name: "ibv_sockets_pingpong_lost_packet".into(),
        package: "ibv_sockets_pingpong",
        server: Some(Cmd::new(
            "sh",
            &[
                "-c",
                LOSE_ONE_MIDDLE,
                "sh",
                "ibv_sockets_pingpong",
                "-d",
                "{dev}",
                "-g",
                "{gid_idx}",
                "-n",
                "10",
                "-s",
                "4096",
            ],
        )),
        client: Some(pingpong_client(&["-n", "10", "-s", "4096"])),
        ready: Ready::TcpListen(6543),
        server_expect: Expect::ok(&[
            "81920 bytes in * seconds = * Mbit/sec",
            "10 iters in * seconds = * usec/iter",
            "[OK] close device *.",
        ]),
        client_expect: Expect::ok(&[
            "81920 bytes in * seconds = * Mbit/sec",
            "10 iters in * seconds = * usec/iter",
            "[OK] close device *.",
        ]),
        timeout_secs: 60,
        placement: Placement::TwoVms,
        packages: &["nftables"],
        wire: IBV_SOCKETS_PINGPONG_LOST_PACKET_WIRE,
        exercise: Some(IBV_SOCKETS_PINGPONG_LOST_PACKET_EXERCISE),
        ..Scenario::BASE
    }
}

const IBV_SOCKETS_PINGPONG_N100_S4096_EXERCISE: Exercise = Exercise {
    question: "Add -n 100 -s 4096 on both sides: instead of the greeting, 100 \
        round trips of 4096-byte messages, timed.",
    predict: "The path MTU is 1024 bytes. How many packets carry one \
        4096-byte message, sent once, with which opcodes? How many messages does each \
        side send in all, counted as distinct PSNs of its RC Send First \
        packets? (Under emulation some messages cross twice with the same \
        PSNs, with no NAK before them: count each PSN once.)",
    explain: "A message longer than the path MTU goes as several packets with \
        consecutive PSNs: RC Send First, Middle, Middle and Last, 1024 \
        bytes each. Each side sends one message a round trip: the \
        server's RC Send First packets carry \
        {distinct:infiniband.bth.psn:ip.src==192.0.2.1 && infiniband.bth.opcode==0} \
        distinct PSNs, the client's \
        {distinct:infiniband.bth.psn:ip.src==192.0.2.2 && infiniband.bth.opcode==0} \
        (the ladder draws each message as one arrow, with its packets and \
        PSNs). The capture holds \
        {count:ip.src==192.0.2.1 && infiniband.bth.opcode==0} Send First \
        packets from the server and \
        {count:ip.src==192.0.2.2 && infiniband.bth.opcode==0} from the \
        client, the resends with them: a message the QP sends again \
        when its ACK timeout runs out carries the same PSNs again, with \
        no NAK before it (this capture has \
        {count:infiniband.aeth.syndrome.opcode==3} NAKs): the emulated \
        peer acknowledged late. The ladder marks such a message \
        (resent). The timings it prints are \
        those of two emulated VMs whose NIC is software: they say \
        nothing about RDMA performance.",
    check: Check {
        filter: "infiniband.bth.opcode == 0",
        fields: &["infiniband.bth.psn"],
        line: "iters in",
        look: "how many round trips each side counts; on the packets, count each \
            side's Send First packets (append `| cut -f2 | sort | uniq -c` to the \
            script's command) and the distinct PSNs among them (append \
            `| cut -f2,4 | sort -u | cut -f1 | uniq -c` instead)",
    },
    gives_away: &["RC Send First, Middle, Middle and Last"],
};

const IBV_SOCKETS_PINGPONG_N100_S4096_WIRE: &[PacketFact] = &[
    PacketFact::Count {
        from: Side::Server,
        what: "RC Send First",
        n: 100,
        len: Some(1024),
    },
    PacketFact::Count {
        from: Side::Client,
        what: "RC Send First",
        n: 100,
        len: Some(1024),
    },
    PacketFact::Count {
        from: Side::Server,
        what: "RC Send Last",
        n: 100,
        len: Some(1024),
    },
    PacketFact::Count {
        from: Side::Client,
        what: "RC Send Last",
        n: 100,
        len: Some(1024),
    },
];

fn ibv_sockets_pingpong_n100_s4096() -> Scenario {
    Scenario {
        name: "ibv_sockets_pingpong_n100_s4096".into(),
        package: "ibv_sockets_pingpong",
        server: Some(Cmd::new(
            "ibv_sockets_pingpong",
            &[
                "-d",
                "{dev}",
                "-i",
                "{ib_port}",
                "-g",
                "{gid_idx}",
                "-n",
                "100",
                "-s",
                "4096",
            ],
        )),
        client: Some(Cmd::new(
            "ibv_sockets_pingpong",
            &[
                "-d",
                "{dev}",
                "-i",
                "{ib_port}",
                "-g",
                "{gid_idx}",
                "-n",
                "100",
                "-s",
                "4096",
                "{server_ip}",
            ],
        )),
        ready: Ready::TcpListen(6543),
        server_expect: Expect::ok(&[
            "remote addr: 0x*, len: 4096, rkey: *",
            "819200 bytes in * seconds = * Mbit/sec",
            "100 iters in * seconds = * usec/iter",
            "[OK] close device *.",
        ]),
        client_expect: Expect::ok(&[
            "[OK] post recv.",
            "819200 bytes in * seconds = * Mbit/sec",
            "100 iters in * seconds = * usec/iter",
            "[OK] close device *.",
        ]),
        timeout_secs: 60,
        verify: Some(pingpong_summaries),
        // 100 messages each way (each a SEND's First, Middle, Middle and
        // Last packets at the 1024-byte MTU), retransmissions counted once.
        wire: IBV_SOCKETS_PINGPONG_N100_S4096_WIRE,
        exercise: Some(IBV_SOCKETS_PINGPONG_N100_S4096_EXERCISE),
        ..Scenario::BASE
    }
}

fn ibv_sockets_pingpong_closed_port() -> Scenario {
    Scenario {
        name: "ibv_sockets_pingpong_closed_port".into(),
        package: "ibv_sockets_pingpong",
        client: Some(pingpong_client(&["-p", "19999"])),
        server_expect: Expect::NOTHING,
        client_expect: Expect::fails(&[
            "fail to connect to server *, port 19999: *Connection refused (ECONNREFUSED)",
        ]),
        fault: Some(Fault::Address),
        ..Scenario::BASE
    }
}

fn ibv_sockets_pingpong_reg_mr_fails() -> Scenario {
    Scenario {
        // A size the port allows but the server cannot register: without
        // CAP_IPC_LOCK and with a 64 KiB locked-memory limit, pinning 1 MiB
        // fails with ENOMEM, which must come out with the `ulimit -l` hint.
        name: "ibv_sockets_pingpong_reg_mr_fails".into(),
        package: "ibv_sockets_pingpong",
        server: Some(Cmd::new(
            "setpriv",
            &[
                "--bounding-set=-ipc_lock",
                "--inh-caps=-ipc_lock",
                "sh",
                "-c",
                "ulimit -l 64 && exec ibv_sockets_pingpong -d {dev} -g {gid_idx} -s 1048576",
            ],
        )),
        client: Some(pingpong_client(&["-s", "1048576"])),
        ready: Ready::TcpListen(6543),
        server_expect: Expect::fails(&[
            "fail to reg mr: *ibv_reg_mr failed: Cannot allocate memory \
            (ENOMEM)*ulimit -l*",
        ]),
        client_expect: Expect::fails(&["fail to exchange mr info: *"]),
        timeout_secs: 30,
        fault: Some(Fault::Memlock),
        ..Scenario::BASE
    }
}

fn ibv_sockets_pingpong_n1_s1_port_65535() -> Scenario {
    Scenario {
        name: "ibv_sockets_pingpong_n1_s1_port_65535".into(),
        package: "ibv_sockets_pingpong",
        server: Some(pingpong_server(&["-n", "1", "-s", "1", "-p", "65535"])),
        client: Some(pingpong_client(&["-n", "1", "-s", "1", "-p", "65535"])),
        ready: Ready::TcpListen(65535),
        server_expect: Expect::ok(&["2 bytes in * seconds = * Mbit/sec", "1 iters in *"]),
        client_expect: Expect::ok(&["2 bytes in * seconds = * Mbit/sec", "1 iters in *"]),
        fault: Some(Fault::Limits),
        placement: Placement::OneHost,
        ..Scenario::BASE
    }
}

/// The server, for the fault matrix's signal cells: killed by either.
pub fn waiting() -> Vec<Waiting> {
    vec![Waiting {
        name: "ibv_sockets_pingpong",
        package: "ibv_sockets_pingpong",
        cmd: &["ibv_sockets_pingpong", "-d", "{dev}", "-g", "{gid_idx}"],
        line: "start to listen...",
        exits: [143, 130],
        stdout: &[],
        stderr: &[],
    }]
}

/// A long ping-pong, for the fault matrix's kill cells.
/// `sh -c LOSE_ONE_MIDDLE sh PROGRAM ARGS`: the program, with this host
/// dropping the first RC Send Middle packet that reaches it (BTH opcode 1,
/// the first byte after the UDP header), once: a packet lost between the
/// wire and the responder's transport. The rule goes again at the end.
const LOSE_ONE_MIDDLE: &str = "trap 'nft delete table inet lab_loss 2>/dev/null' EXIT
trap 'exit 143' TERM
nft -f - <<'RULES' || exit 99
table inet lab_loss {
  chain input {
    type filter hook input priority 0;
    udp dport 4791 @th,64,8 0x01 numgen inc mod 1000000 0 drop
  }
}
RULES
\"$@\"
exit $?";

const LONG_SERVER: &[&str] = &[
    "ibv_sockets_pingpong",
    "-d",
    "{dev}",
    "-g",
    "{gid_idx}",
    "-n",
    "100000000",
];

/// The client of [`LONG_SERVER`].
const LONG_CLIENT: &[&str] = &[
    "ibv_sockets_pingpong",
    "-d",
    "{dev}",
    "-g",
    "{gid_idx}",
    "-n",
    "100000000",
    "{server_ip}",
];

/// The pair the kill cells run.
fn pair() -> Kill {
    Kill {
        name: "ibv_sockets_pingpong",
        package: "ibv_sockets_pingpong",
        server: LONG_SERVER,
        client: LONG_CLIENT,
        ready: Ready::TcpListen(6543),
        ..Kill::BASE
    }
}

/// The fault matrix's kill cells: each side killed as soon as it has its
/// TCP connection, and the client in the middle of the ping-pong.
pub fn kills() -> Vec<Kill> {
    vec![
        Kill {
            phase: "connected",
            victim: Side::Client,
            signals: KILL_TERM_INT,
            line: "successfully connect to server, ip: *, port: *",
            survivor: Expect::fails_one_of(PEER_DIES_CONNECTED).within(SURVIVOR_SECS),
            ..pair()
        },
        Kill {
            phase: "connected",
            victim: Side::Server,
            signals: KILL_TERM_INT,
            line: "successfully accept client, ip: *, port: *",
            survivor: Expect::fails_one_of(PEER_DIES_CONNECTED).within(SURVIVOR_SECS),
            ..pair()
        },
        Kill {
            phase: "midway",
            victim: Side::Client,
            // `*`, not `[OK]`: the line is a shell pattern and a glob alike.
            line: "*post recv.",
            // The client prints nothing once the ping-pong runs; a second after
            // its receive is posted, the MR info is exchanged and the loop has
            // begun.
            delay: "1",
            signals: KILL_TERM_INT,
            survivor: Expect::fails_one_of(PEER_DIES).within(SURVIVOR_SECS),
            ..pair()
        },
    ]
}

/// The side channel, for the fault matrix's side-channel cells. The server
/// writes its conn_info first; if that lands after a peer's close, Linux
/// answers with a RST, so the read that follows sees ECONNRESET instead of
/// EOF: both are the peer leaving.
pub fn side_channels() -> Vec<SideChannel> {
    vec![SideChannel {
        name: "ibv_sockets_pingpong",
        package: "ibv_sockets_pingpong",
        server: server(),
        client: client(),
        port: "6543",
        struct_len: "24",
        short_len: "7",
        peer_left: "fail to exchange conn info: read failed: *",
        bad_struct:
            "fail to exchange conn info: the peer's QP number 0xffffffff is not a QP number *",
        silence: "fail to exchange conn info: read failed: no answer from the peer within 60 s*",
        server_left: "fail to exchange conn info: *",
    }]
}
