//! Scenarios of `rc_example` (manual 7.1/7.2).

use super::cells::{
    refused, Kill, SideChannel, Waiting, KILL_TERM_INT, MEMLOCKED, MEMLOCK_HINT, SURVIVOR_SECS,
};
use crate::model::{
    owned, Cause, Check, Cmd, Exercise, Expect, Fault, PacketFact, Placement, Ready, Scenario, Side,
};

pub(crate) const RC_SERVER_STDOUT: &[&str] = &[
    "waiting on port 19875 for TCP connection",
    "TCP connection was established",
    "found * device(s)",
    "MR was registered with addr=*, lkey=*, rkey=*, flags=0x7",
    "QP was created, QP number=*",
    "Remote GID =*",
    "QP state was change to RTS",
    "Send Request was posted",
    "completion was found in CQ with status 0x0",
    "Contents of server buffer: 'RDMA write operation'",
    "test result is 0",
];

pub(crate) const RC_CLIENT_STDOUT: &[&str] = &[
    "TCP connection was established",
    "Receive Request was posted",
    "Message is: 'SEND operation '",
    "RDMA Read Request was posted",
    "Contents of server's buffer: 'RDMA read operation '",
    "Now replacing it with: 'RDMA write operation'",
    "RDMA Write Request was posted",
    "test result is 0",
];

/// Each side sees the other's GID (c000:0202 is 192.0.2.2): across two
/// VMs they differ, which shows that the exchange crossed the wire.
const SERVER_SEES_CLIENT: &[(&str, usize)] = &[("Remote GID =*ff:ff:{client_ip_hex}", 1)];
const CLIENT_SEES_SERVER: &[(&str, usize)] = &[("Remote GID =*ff:ff:{server_ip_hex}", 1)];

pub(crate) fn rc_server() -> Cmd {
    Cmd::new("rc_example", &["-d", "{dev}", "-g", "{gid_idx}"])
}

pub(crate) fn rc_client() -> Cmd {
    Cmd::new(
        "rc_example",
        &["-d", "{dev}", "-g", "{gid_idx}", "{server_ip}"],
    )
}

/// `bash -c STAND_IN_CLIENT bash leave|stall`: a client that does the side
/// channel's part of the exchange: the server's struct in, one of its own
/// out (rkey 1, QP number 0xfffff0, the server's own GID, so that RTR
/// resolves). Then `leave`: the sync after RTS, and gone; `stall`: nothing
/// more, until the server closes the connection.
const STAND_IN_CLIENT: &str = r#"exec 3<>/dev/tcp/{server_ip}/19875
head -c 34 <&3 >/dev/null
IFS=. read -r a b c d <<< "{server_ip}"
z8='\x00\x00\x00\x00\x00\x00\x00\x00'
printf "$z8\x00\x00\x00\x01\x00\xff\xff\xf0\x00\x00$z8\x00\x00\xff\xff$(printf '\\x%02x' $a $b $c $d)" >&3
if [ "$1" = stall ]; then
  cat <&3 >/dev/null
  echo "the server closed the connection"
else
  head -c 1 <&3 >/dev/null
  printf Q >&3
  exec 3>&-
  echo "left after the QPs were connected"
fi"#;

/// `/usr/bin/python3 -c RC_EXAMPLE_PEER MODE {server_ip} {dev} {gid_idx}`:
/// a stand-in peer of the handout's exercises that speaks rc_example's side
/// channel with a real RC QP of its own (rdma-core's pyverbs, Debian's
/// python3-pyverbs, hence Debian's own interpreter) and does one thing
/// wrong: `rnr`, a client that posts no receive; `bad_rkey`, a server that
/// advertises an rkey its buffer does not have. The faithful program gains
/// no option for either.
const RC_EXAMPLE_PEER: &str = include_str!("../../../lab/standins/rc_example_peer.py");

/// The stand-in's command in `mode`.
fn rc_peer(mode: &str) -> Cmd {
    Cmd::new(
        "/usr/bin/python3",
        &[
            "-c",
            RC_EXAMPLE_PEER,
            mode,
            "{server_ip}",
            "{dev}",
            "{gid_idx}",
        ],
    )
    .script_from("lab/standins/rc_example_peer.py")
}

/// The bound of a real program whose peer is a pyverbs stand-in: the
/// stand-in's python3 and pyverbs start in a second alone, but took up to
/// 36 s on 2 loaded cores under TCG with the whole suite side by side; a
/// program that retried for ever would meet `timeout_secs` (90 s) instead.
const STANDIN_SECS: u32 = 60;

/// The pair and its error paths.
pub fn scenarios() -> Vec<Scenario> {
    vec![
        rc_example(),
        rc_example_auto_gid(),
        rc_example_rnr_nak(),
        rc_example_wrong_rkey(),
        rc_example_wrong_device(),
        rc_example_no_such_host(),
        rc_example_closed_port(),
        rc_example_client_leaves_midway(),
        rc_example_memlock(),
        // The limits row, in the VM: the highest port and GID index are no
        // port and no GID of a Soft-RoCE device, and are refused at once, before
        // the TCP wait; the lowest TCP port runs the whole exchange.
        refused(
            "rc_example_ib_port_255",
            "rc_example",
            Fault::Limits,
            &["rc_example", "-d", "{dev}", "-i", "255"],
            &[
                "failed to create resources: ibv_query_port on port 255 failed: \
               Invalid argument (EINVAL)",
            ],
        ),
        refused(
            "rc_example_gid_255",
            "rc_example",
            Fault::Limits,
            &["rc_example", "-d", "{dev}", "-g", "255"],
            &["failed to create resources: could not get gid for port 1, index 255: *"],
        ),
        rc_example_tcp_port_1(),
    ]
}

const RC_EXAMPLE_EXERCISE: Exercise = Exercise {
    question: "Read the manual's `connect_qp` (Rev 1.4's listing; later copies \
        of the program use `htonll`): it sends the buffer's address as \
        `htonl((uintptr_t)res->buf)` and decodes it with `ntohl`. Then \
        find the server's 34-byte `cm_con_data_t` in the capture above: \
        its first 8 bytes are the address, big-endian.",
    predict: "What address does this run's server advertise? A client built \
        from the manual's code, run against this server (this port, which \
        sends all 8 bytes), decodes the field with `ntohl` on x86-64, a \
        little-endian host: which address would it use as its RDMA \
        target?",
    explain: "The server's buffer is at an address above 4 GiB (`0x7f...`, as \
        user-space heap addresses on x86-64 Linux usually are). `htonl` \
        and `ntohl` work on 32 bits: the manual's client reads the \
        field's 8 bytes as a little-endian number, keeps its low 32 bits \
        (the field's first 4 bytes on the wire) and swaps them. Against \
        this server, which sends all 64 bits big-endian, those first 4 \
        bytes are the upper half of the address, so the target would be \
        {high32:infiniband.reth.va:infiniband.bth.opcode==12}, not the \
        advertised {first:infiniband.reth.va:infiniband.bth.opcode==12}: \
        the number in the capture's first 4 bytes, read in order. Its \
        RDMA Read and Write would name an \
        address that is not the buffer's, and the responder refuses them \
        with a remote access error. This port sends all 64 bits, \
        and the wire shows it: the RETH of the client's Read and Write \
        carries exactly the address the server advertised.",
    check: Check {
        filter: "tcp.len == 34 || infiniband.reth",
        fields: &["tcp.payload", "infiniband.reth.va"],
        line: "MR was registered with addr",
        look: "the address the server registered its buffer at, beside the first 8 \
            bytes of its `cm_con_data_t` and the address in the client's RETH",
    },
    gives_away: &[
        "{high32:infiniband.reth.va:infiniband.bth.opcode==12}",
        "upper half of the address",
    ],
};

const RC_EXAMPLE_CAUSES: &[Cause] = &[
    Cause {
        from: Side::Client,
        label: "TCP :19875 SYN*",
        call: "resources_create (7.1.4) calling sock_connect (7.1.5): the client's connect()",
    },
    Cause {
        from: Side::Server,
        label: "TCP :19875 SYN/ACK*",
        call: "the server's kernel, for the socket sock_connect (7.1.5) listens on",
    },
    Cause {
        from: Side::Server,
        label: "TCP :19875 34 B*",
        call: "connect_qp (7.1.6): sock_sync_data of the server's cm_con_data_t \
               (buffer address, rkey, QP number, LID, GID)",
    },
    Cause {
        from: Side::Client,
        label: "TCP :19875 34 B*",
        call: "connect_qp (7.1.6): sock_sync_data of the client's cm_con_data_t",
    },
    Cause {
        from: Side::Server,
        label: "TCP :19875 1 B*",
        call: "sock_sync_data of one byte: Q once the QP is in RTS, R when the \
               buffer holds the message to read, W at the end",
    },
    Cause {
        from: Side::Client,
        label: "TCP :19875 1 B*",
        call: "sock_sync_data of one byte: Q once the QP is in RTS, R before the \
               RDMA Read, W after the RDMA Write",
    },
    Cause {
        from: Side::Server,
        label: "RC Send Only*",
        call: "post_send (7.1.12) with IBV_WR_SEND",
    },
    Cause {
        from: Side::Client,
        label: "RC Acknowledge*",
        call: "the client's transport, for the SEND that its receive of post_receive \
               (7.1.8) took: no verb call",
    },
    Cause {
        from: Side::Client,
        label: "RC RDMA Read Request*",
        call: "post_send (7.1.12) with IBV_WR_RDMA_READ",
    },
    Cause {
        from: Side::Server,
        label: "RC RDMA Read Response*",
        call: "the server's transport, answering the Read: no verb call, no receive \
               and no completion on the server",
    },
    Cause {
        from: Side::Client,
        label: "RC RDMA Write*",
        call: "post_send (7.1.12) with IBV_WR_RDMA_WRITE",
    },
    Cause {
        from: Side::Server,
        label: "RC Acknowledge*",
        call: "the server's transport, for the Write: no verb call, no completion \
               on the server",
    },
    Cause {
        from: Side::Server,
        label: "TCP :19875 FIN*",
        call: "resources_destroy (7.1.14): the socket closed",
    },
    Cause {
        from: Side::Client,
        label: "TCP :19875 FIN*",
        call: "resources_destroy (7.1.14): the socket closed",
    },
];

const RC_EXAMPLE_WIRE: &[PacketFact] = &[
    PacketFact::Count {
        from: Side::Server,
        what: "RC Send Only",
        n: 1,
        len: Some(21),
    },
    PacketFact::Carries {
        from: Side::Server,
        what: "RC Send Only",
        text: "SEND operation",
    },
    PacketFact::Count {
        from: Side::Client,
        what: "RC RDMA Read Request",
        n: 1,
        len: Some(21),
    },
    PacketFact::Count {
        from: Side::Server,
        what: "RC RDMA Read Response Only",
        n: 1,
        len: Some(21),
    },
    PacketFact::Carries {
        from: Side::Server,
        what: "RC RDMA Read Response Only",
        text: "RDMA read operation",
    },
    PacketFact::Count {
        from: Side::Client,
        what: "RC RDMA Write Only",
        n: 1,
        len: Some(21),
    },
    PacketFact::Carries {
        from: Side::Client,
        what: "RC RDMA Write Only",
        text: "RDMA write operation",
    },
    PacketFact::TargetsAdvertised {
        what: &["RC RDMA Read Request", "RC RDMA Write Only"],
        by: Side::Server,
        msg_len: 34,
        addr_at: 0,
        rkey_at: 8,
    },
];

fn rc_example() -> Scenario {
    Scenario {
        name: "rc_example".into(),
        package: "rc_example",
        server: Some(rc_server()),
        client: Some(rc_client()),
        ready: Ready::TcpListen(19875),
        server_expect: Expect::ok(RC_SERVER_STDOUT).counts(SERVER_SEES_CLIENT),
        client_expect: Expect::ok(RC_CLIENT_STDOUT).counts(CLIENT_SEES_SERVER),
        pair: true,
        // The manual's flow on the wire: the server's SEND, the client's
        // RDMA Read and Write, each 21 bytes, at the buffer the server
        // advertised in its cm_con_data_t (addr at 0, rkey at 8), all 64
        // bits of its address.
        wire: RC_EXAMPLE_WIRE,
        causes: RC_EXAMPLE_CAUSES,
        exercise: Some(RC_EXAMPLE_EXERCISE),
        ..Scenario::BASE
    }
}

// No option at all on a RoCE port: the first device, TCP port 19875,
// and the RoCE v2 IPv4-mapped GID, which the program picks and names.
fn rc_example_auto_gid() -> Scenario {
    Scenario {
        name: "rc_example_auto_gid".into(),
        roce_only: true,
        package: "rc_example",
        server: Some(Cmd::new("rc_example", &[])),
        client: Some(Cmd::new("rc_example", &["{server_ip}"])),
        ready: Ready::TcpListen(19875),
        server_expect: Expect::ok(&[
            "port * is Ethernet (RoCE) and no GID index was given: \
             using GID index * (RoCE v2, ::ffff:*)",
            "Remote GID =*",
            "Contents of server buffer: 'RDMA write operation'",
            "test result is 0",
        ])
        .counts(SERVER_SEES_CLIENT),
        client_expect: Expect::ok(&[
            "port * is Ethernet (RoCE) and no GID index was given: \
             using GID index * (RoCE v2, ::ffff:*)",
            "Contents of server's buffer: 'RDMA read operation '",
            "test result is 0",
        ])
        .counts(CLIENT_SEES_SERVER),
        exercise: Some(Exercise {
            question: "Leave out -g (and -d) on both sides, on a RoCE port: \
                `rc_example` on the server, `rc_example 192.0.2.1` on the \
                client.",
            predict: "The manual's `connect_qp` sets `is_global = 0` when no GID index \
                is given. Would the manual's QPs reach RTS on this RoCE port, and \
                which step would refuse them? This port's do: which GID does each \
                side give as the destination (`dgid`) of the address handle it \
                moves to RTR with, and which of its own GIDs as the source \
                (`sgid_index`)? How can you tell from the capture?",
            explain: "The manual's program sets `is_global = 0` when no GID index is \
                given: its address handle has no GRH fields and no GID. \
                InfiniBand can reach a peer in the same subnet by its LID \
                alone; RoCE has no LIDs and addresses a peer only by its GID \
                (on RoCE v2 the GRH's fields become the IPv4 header), so the \
                kernel refuses the move to RTR with EINVAL. This port picks, on \
                a RoCE port, the RoCE v2 GID that maps the port's IPv4 address \
                and says so in one line (`port 1 is Ethernet (RoCE) and no GID \
                index was given: using GID index ...`); each side then prints \
                the other's GID (`Remote GID`, ending in the peer's address) \
                and the exchange runs as with -g.",
            check: Check {
                filter: "infiniband",
                fields: &["ip.dst"],
                line: "GID",
                look: "what each side says of the GID index it uses and the remote GID it \
            prints; then whether RoCE packets crossed, and between which addresses",
            },
            gives_away: &[
                "refuses the move to RTR",
                "picks the RoCE v2 IPv4-mapped GID",
                "is_global set and the GID",
            ],
        }),
        ..Scenario::BASE
    }
}

// The handout's RNR exercise: the server's SEND reaches a QP with no
// receive posted (the stand-in client's), and the manual's
// rnr_retry of 0 turns the one RNR NAK into a failed completion.
const RC_EXAMPLE_RNR_NAK_EXERCISE: Exercise = Exercise {
    question: "A stand-in client (a short pyverbs program, \
        `standins/rc_example_peer.py` beside this handout) connects its QP to the real \
        `rc_example -d rxe0 -g 1` server exactly as the manual's client \
        does, but never posts a receive. The server then posts its SEND.",
    predict: "What does the client's transport answer to the SEND? The \
        manual's `modify_qp_to_rts` sets `rnr_retry = 0`: how many \
        times does the server's SEND cross the wire, and what does the \
        server's completion say?",
    explain: "A SEND consumes a receive that the responder posted beforehand; \
        with none posted, the responder's transport cannot place the \
        data, so it drops the packet and answers with a NAK of the RNR \
        kind (Receiver Not Ready), whose AETH carries the timer code of \
        the responder's `min_rnr_timer`: how long the requester should \
        wait before it tries again. How often it tries again is the \
        requester's `rnr_retry`; the manual sets 0, so there is no \
        second try (the capture has \
        {count:ip.src==192.0.2.1 && infiniband.bth.opcode==4} RC Send \
        Only from the server, and \
        {count:infiniband.aeth.syndrome.opcode==1} RNR NAK, timer code \
        {first:infiniband.aeth.syndrome.timer:infiniband.aeth.syndrome.opcode==1}): \
        the server's SEND completes at once with status \
        0xd, IBV_WC_RNR_RETRY_EXC_ERR, its QP moves to the error state, \
        and the program fails in `poll_completion`. This is why the \
        manual's client posts its receive in `connect_qp` before the \
        sync byte Q: after Q the server may send at any moment. With \
        `rnr_retry = 7` (retry for ever), the requester would send the \
        message again after each RNR NAK until a receive appeared.",
    check: Check {
        filter: "infiniband.bth.opcode == 4 || infiniband.aeth",
        fields: &[
            "infiniband.bth.psn",
            "infiniband.aeth.syndrome.opcode",
            "infiniband.aeth.syndrome.timer",
        ],
        line: "completion was found in CQ with status",
        look: "the status of the server's completion, and how its run ends",
    },
    gives_away: &["meets an RNR NAK", "no second try"],
};

const RC_EXAMPLE_RNR_NAK_CAUSES: &[Cause] = &[
    Cause {
        from: Side::Client,
        label: "RC Acknowledge*",
        call: "the stand-in client's transport: the SEND found no receive posted, \
               so it answers with an RNR NAK (no verb call)",
    },
    Cause {
        from: Side::Client,
        label: "TCP :19875*",
        call: "the stand-in client (pyverbs): rc_example's side channel, byte for \
               byte (its cm_con_data_t, then the sync Q)",
    },
];

const RC_EXAMPLE_RNR_NAK_WIRE: &[PacketFact] = &[
    PacketFact::Count {
        from: Side::Server,
        what: "RC Send Only",
        n: 1,
        len: Some(21),
    },
    PacketFact::Aeth {
        from: Side::Client,
        says: "RNR NAK*",
        n: 1,
    },
    PacketFact::Count {
        from: Side::Client,
        what: "RC RDMA Read Request",
        n: 0,
        len: None,
    },
];

fn rc_example_rnr_nak() -> Scenario {
    Scenario {
        name: "rc_example_rnr_nak".into(),
        package: "rc_example",
        server: Some(rc_server()),
        client: Some(rc_peer("rnr")),
        ready: Ready::TcpListen(19875),
        server_expect: Expect {
            stdout: owned(&[
                "QP state was change to RTS",
                "Send Request was posted",
                "completion was found in CQ with status 0xd",
                "test result is 1",
            ]),
            ..Expect::fails(&[
                "poll completion failed: got bad completion with status: 0xd \
                 (RNR retry counter exceeded), vendor syndrome: 0x0",
            ])
        }
        .within(STANDIN_SECS),
        client_expect: Expect::ok(&[
            "QP connected, no receive posted",
            "synced 'Q'; the server sends now",
            "the server closed the connection",
        ]),
        // A stand-in is python3 with pyverbs: its start alone took up to
        // 30 s on 2 loaded cores under TCG.
        timeout_secs: 90,
        placement: Placement::Vms,
        packages: &["python3-pyverbs"],
        wire: RC_EXAMPLE_RNR_NAK_WIRE,
        causes: RC_EXAMPLE_RNR_NAK_CAUSES,
        exercise: Some(RC_EXAMPLE_RNR_NAK_EXERCISE),
        ..Scenario::BASE
    }
}

// The handout's wrong-rkey exercise: the stand-in server advertises
// an rkey one more than its buffer's, and the client's RDMA Read
// meets the responder's NAK.
const RC_EXAMPLE_WRONG_RKEY_EXERCISE: Exercise = Exercise {
    question: "A stand-in server (a short pyverbs program, \
        `standins/rc_example_peer.py` beside this handout) serves the real `rc_example \
        -d rxe0 -g 1 192.0.2.1` client as the manual's server does, but \
        the rkey in its `cm_con_data_t` is one more than its buffer's. \
        Compare the rkey the client prints as `Remote rkey` with the \
        one in its RDMA Read Request's RETH.",
    predict: "Does the RDMA Read Request leave the client? What answers it, \
        and with what? What does the client's completion say, and does \
        it go on to its RDMA Write?",
    explain: "The requester does not check an rkey: it puts the rkey and the \
        address it was given into the RETH, and the Read Request goes \
        out. The responder's transport looks the rkey up among its \
        memory regions (on a real NIC in hardware, on Soft-RoCE in \
        `rdma_rxe`), finds none with that key, and answers with a NAK \
        whose AETH says remote access error; no Read Response is sent \
        and nothing of the server's memory is read. The client's \
        completion has status 0xa, IBV_WC_REM_ACCESS_ERR, its QP moves \
        to the error state, and the program fails in `poll_completion` \
        before the RDMA Write. The server program is told nothing: an \
        RDMA Read takes no part of the responder's CPU or of its \
        program, so a wrong key shows only on the requester's side and \
        on the wire. The same NAK is what the manual's 32-bit `htonl` \
        address would meet: an address outside the registered buffer.",
    check: Check {
        filter: "infiniband.reth || infiniband.aeth || infiniband.bth.opcode == 16",
        fields: &[
            "infiniband.reth.r_key",
            "infiniband.aeth.syndrome.opcode",
            "infiniband.aeth.syndrome.error_code",
        ],
        line: "Remote rkey",
        look: "the rkey the client was given, then the status of each of its \
            completions, and whether it posts its RDMA Write",
    },
    gives_away: &["meets a NAK, remote access error", "does not check an rkey"],
};

const RC_EXAMPLE_WRONG_RKEY_CAUSES: &[Cause] = &[
    Cause {
        from: Side::Server,
        label: "RC Acknowledge*",
        call: "the stand-in server's transport: the Read Request's rkey names no \
               memory region of its PD, so it answers with a NAK, remote access \
               error (no verb call)",
    },
    Cause {
        from: Side::Server,
        label: "RC Send Only*",
        call: "the stand-in server's post_send of IBV_WR_SEND (pyverbs), as \
               the manual's server does in 7.1.12",
    },
    Cause {
        from: Side::Server,
        label: "TCP :19875*",
        call: "the stand-in server (pyverbs): rc_example's side channel, byte for \
               byte (its cm_con_data_t with the wrong rkey, then the syncs Q and R)",
    },
];

const RC_EXAMPLE_WRONG_RKEY_WIRE: &[PacketFact] = &[
    PacketFact::Count {
        from: Side::Server,
        what: "RC Send Only",
        n: 1,
        len: Some(21),
    },
    PacketFact::Count {
        from: Side::Client,
        what: "RC RDMA Read Request",
        n: 1,
        len: Some(21),
    },
    PacketFact::Aeth {
        from: Side::Server,
        says: "NAK: remote access error",
        n: 1,
    },
    PacketFact::Count {
        from: Side::Server,
        what: "RC RDMA Read Response*",
        n: 0,
        len: None,
    },
    PacketFact::Count {
        from: Side::Client,
        what: "RC RDMA Write*",
        n: 0,
        len: None,
    },
];

fn rc_example_wrong_rkey() -> Scenario {
    Scenario {
        name: "rc_example_wrong_rkey".into(),
        package: "rc_example",
        server: Some(rc_peer("bad_rkey")),
        client: Some(rc_client()),
        ready: Ready::TcpListen(19875),
        server_expect: Expect::ok(&[
            "QP connected, advertised rkey 0x* (the buffer's is 0x*)",
            "sent the SEND",
            "synced 'R'; the client reads now",
            "the client closed the connection",
        ]),
        client_expect: Expect {
            stdout: owned(&[
                "Message is: 'SEND operation '",
                "RDMA Read Request was posted",
                "completion was found in CQ with status 0xa",
                "test result is 1",
            ]),
            ..Expect::fails(&[
                "poll completion failed 2: got bad completion with status: 0xa \
                 (remote access error), vendor syndrome: 0x0",
            ])
        }
        .counts(&[("RDMA Write Request was posted", 0)])
        .within(STANDIN_SECS),
        // A stand-in is python3 with pyverbs: its start alone took up to
        // 30 s on 2 loaded cores under TCG.
        timeout_secs: 90,
        placement: Placement::Vms,
        packages: &["python3-pyverbs"],
        wire: RC_EXAMPLE_WRONG_RKEY_WIRE,
        causes: RC_EXAMPLE_WRONG_RKEY_CAUSES,
        exercise: Some(RC_EXAMPLE_WRONG_RKEY_EXERCISE),
        ..Scenario::BASE
    }
}

// A misspelt -d fails at once, before the server listens; the client
// then finds no server.
fn rc_example_wrong_device() -> Scenario {
    Scenario {
        name: "rc_example_wrong_device".into(),
        package: "rc_example",
        server: Some(Cmd::new("rc_example", &["-d", "nosuchdev0"])),
        client: Some(rc_client()),
        ready: Ready::TcpListen(19875),
        server_expect: Expect::fails(&["*IB device nosuchdev0 wasn't found*"])
            .counts(&[("waiting on port *", 0)])
            .within(crate::model::AT_ONCE_SECS),
        client_expect: Expect::fails(&["*failed to establish TCP connection to server*"]),
        fault: Some(Fault::Device),
        ..Scenario::BASE
    }
}

fn rc_example_no_such_host() -> Scenario {
    Scenario {
        name: "rc_example_no_such_host".into(),
        package: "rc_example",
        client: Some(Cmd::new(
            "rc_example",
            &["-d", "{dev}", "-g", "{gid_idx}", "no-such-host.invalid"],
        )),
        client_expect: Expect::fails(&["*getaddrinfo failed for no-such-host.invalid*"]),
        fault: Some(Fault::Address),
        ..Scenario::BASE
    }
}

fn rc_example_closed_port() -> Scenario {
    Scenario {
        name: "rc_example_closed_port".into(),
        package: "rc_example",
        client: Some(Cmd::new(
            "rc_example",
            &[
                "-d",
                "{dev}",
                "-g",
                "{gid_idx}",
                "-p",
                "19999",
                "{server_ip}",
            ],
        )),
        client_expect: Expect::fails(&["*failed to establish TCP connection to server*"]),
        fault: Some(Fault::Address),
        ..Scenario::BASE
    }
}

// The client gone mid-exchange: a stand-in that sends a valid struct
// (a QP number nobody has), passes the sync after RTS, and leaves. The
// server's SEND then finds no QP at the other end, and the completion
// it waits for does not come within its bound (or comes failed).
fn rc_example_client_leaves_midway() -> Scenario {
    Scenario {
        name: "rc_example_client_leaves_midway".into(),
        package: "rc_example",
        server: Some(rc_server()),
        client: Some(Cmd::new("bash", &["-c", STAND_IN_CLIENT, "bash", "leave"])),
        ready: Ready::TcpListen(19875),
        server_expect: Expect {
            stdout: owned(&["QP state was change to RTS", "Send Request was posted"]),
            ..Expect::fails_one_of(&[
                "poll completion failed: completion wasn't found in the CQ after timeout",
                "poll completion failed: got bad completion with status: *",
            ])
        }
        .within(15),
        client_expect: Expect::ok(&["left after the QPs were connected"]),
        fault: Some(Fault::PeerKilled),
        ..Scenario::BASE
    }
}

// The fault matrix's `ulimit -l` cell: the client's registration fails
// with the hint, in one line; the server then finds its peer gone.
fn rc_example_memlock() -> Scenario {
    Scenario {
        name: "rc_example_memlock".into(),
        package: "rc_example",
        server: Some(rc_server()),
        client: Some(Cmd::new(
            "sh",
            &[
                "-c",
                MEMLOCKED,
                "sh",
                "rc_example",
                "-d",
                "{dev}",
                "-g",
                "{gid_idx}",
                "{server_ip}",
            ],
        )),
        ready: Ready::TcpListen(19875),
        server_expect: Expect::fails(&["*failed to exchange connection data*"]),
        client_expect: Expect::fails(&[MEMLOCK_HINT]).within(15),
        fault: Some(Fault::Memlock),
        ..Scenario::BASE
    }
}

fn rc_example_tcp_port_1() -> Scenario {
    Scenario {
        name: "rc_example_tcp_port_1".into(),
        package: "rc_example",
        server: Some(Cmd::new(
            "rc_example",
            &["-d", "{dev}", "-g", "{gid_idx}", "-p", "1"],
        )),
        client: Some(Cmd::new(
            "rc_example",
            &["-d", "{dev}", "-g", "{gid_idx}", "-p", "1", "{server_ip}"],
        )),
        ready: Ready::TcpListen(1),
        server_expect: Expect::ok(&["waiting on port 1 for TCP connection", "test result is 0"]),
        client_expect: Expect::ok(&["test result is 0"]),
        fault: Some(Fault::Limits),
        placement: Placement::OneHost,
        ..Scenario::BASE
    }
}

/// The server, for the fault matrix's signal cells: killed by either.
pub fn waiting() -> Vec<Waiting> {
    vec![Waiting {
        name: "rc_example",
        package: "rc_example",
        cmd: &["rc_example", "-d", "{dev}", "-g", "{gid_idx}"],
        line: "waiting on port * for TCP connection",
        exits: [143, 130],
        stdout: &[],
        stderr: &[],
    }]
}

/// The fault matrix's mid-exchange signal cells. rc_example's exchange is
/// over about a millisecond after its lines, so the server's peer is the
/// stand-in that stalls after its struct: the server, connected up to RTS,
/// waits for the sync there, and is signalled.
pub fn kills() -> Vec<Kill> {
    vec![Kill {
        name: "rc_example",
        package: "rc_example",
        phase: "midway",
        server: &["rc_example", "-d", "{dev}", "-g", "{gid_idx}"],
        client: &["bash", "-c", STAND_IN_CLIENT, "bash", "stall"],
        ready: Ready::TcpListen(19875),
        victim: Side::Server,
        line: "QP state was change to RTS",
        signals: KILL_TERM_INT,
        survivor: Expect::ok(&["the server closed the connection"]).within(SURVIVOR_SECS),
        ..Kill::BASE
    }]
}

/// The side channel, for the fault matrix's side-channel cells: whatever
/// goes wrong on it before the QPs connect fails connect_qp in one line.
pub fn side_channels() -> Vec<SideChannel> {
    vec![SideChannel {
        name: "rc_example",
        package: "rc_example",
        server: rc_server(),
        client: rc_client(),
        port: "19875",
        struct_len: "34",
        short_len: "10",
        peer_left: "*failed to exchange connection data*",
        bad_struct: "failed to connect QPs: the peer's QP number 0xffffffff is not a QP number *",
        silence: "failed to connect QPs: failed to exchange connection data between sides: read \
              failed: no answer from the peer within 60 s*",
        server_left: "failed to connect QPs: failed to exchange connection data between sides: *",
    }]
}
