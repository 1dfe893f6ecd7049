//! Scenarios of `ibv_sockets_pingpong` (the Q&A's server.c/client.c, seed 000).

use super::{Cmd, Expect, Ready, Scenario};

const SERVER: Cmd = Cmd {
    program: "ibv_sockets_pingpong",
    args: &["-d", "{dev}", "-i", "{ib_port}", "-g", "{gid_idx}"],
};

const CLIENT: Cmd = Cmd {
    program: "ibv_sockets_pingpong",
    args: &[
        "-d",
        "{dev}",
        "-i",
        "{ib_port}",
        "-g",
        "{gid_idx}",
        "{server_ip}",
    ],
};

/// One process that must refuse its options: usage error, exit 1.
const fn bad_option(
    name: &'static str,
    args: &'static [&'static str],
    stderr: &'static [&'static str],
) -> Scenario {
    Scenario {
        name,
        package: "ibv_sockets_pingpong",
        client: Some(Cmd {
            program: "ibv_sockets_pingpong",
            args,
        }),
        client_expect: Expect::fails(stderr),
        ..Scenario::BASE
    }
}

/// The pair as the original (one SEND, server to client), the real
/// ping-pong, and the error paths.
pub static SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "ibv_sockets_pingpong",
        package: "ibv_sockets_pingpong",
        server: Some(SERVER),
        client: Some(CLIENT),
        ready: Ready::TcpListen(6543),
        server_expect: Expect::ok(&[
            "[OK] get * ib devices.",
            "[OK] open device *.",
            "[OK] query port.",
            "[OK] create cq.",
            "[OK] allocate pd.",
            "[OK] create qp.",
            "[OK] modify qp to INIT state.",
            "successfully bind addr: 00000000, port: 6543",
            "start to listen...",
            "successfully accept client, ip: *, port: *",
            "remote qp num: *, lid: *",
            "remote gid: *",
            "[OK] modify qp to RTR state.",
            "[OK] modify qp to RTS state.",
            "[OK] reg mr.",
            "remote addr: 0x*, len: 128, rkey: *",
            "[OK] post send.",
            "[OK] poll cq.",
            "*wr id: 12345, opcode: 0, qp num: *, status: 0",
            "[OK] dereg mr.",
            "[OK] destroy qp.",
            "[OK] dealloc pd.",
            "[OK] destroy cq.",
            "[OK] close device *.",
        ]),
        client_expect: Expect::ok(&[
            "successfully connect to server, ip: *, port: 6543",
            "remote qp num: *, lid: *",
            "[OK] modify qp to RTS state.",
            "*va: 0x*, len: 128, lkey: *, rkey: *",
            "[OK] post recv.",
            "[OK] poll cq.",
            "*wr id: 54321",
            "*buf: hello from server",
            "[OK] close device *.",
        ]),
        pair: true,
        ..Scenario::BASE
    },
    Scenario {
        name: "ibv_sockets_pingpong_n100_s4096",
        package: "ibv_sockets_pingpong",
        server: Some(Cmd {
            program: "ibv_sockets_pingpong",
            args: &[
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
        }),
        client: Some(Cmd {
            program: "ibv_sockets_pingpong",
            args: &[
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
        }),
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
        ..Scenario::BASE
    },
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
    Scenario {
        name: "ibv_sockets_pingpong_closed_port",
        package: "ibv_sockets_pingpong",
        client: Some(Cmd {
            program: "ibv_sockets_pingpong",
            args: &[
                "-d",
                "{dev}",
                "-g",
                "{gid_idx}",
                "-p",
                "19999",
                "{server_ip}",
            ],
        }),
        server_expect: Expect::NOTHING,
        client_expect: Expect::fails(&[
            "fail to connect to server *, port 19999: *Connection refused*",
        ]),
        ..Scenario::BASE
    },
    Scenario {
        // A size the port allows but the server cannot register: without
        // CAP_IPC_LOCK and with a 64 KiB locked-memory limit, pinning 1 MiB
        // fails with ENOMEM, which must come out with the `ulimit -l` hint.
        name: "ibv_sockets_pingpong_reg_mr_fails",
        package: "ibv_sockets_pingpong",
        server: Some(Cmd {
            program: "setpriv",
            args: &[
                "--bounding-set=-ipc_lock",
                "--inh-caps=-ipc_lock",
                "sh",
                "-c",
                "ulimit -l 64 && exec ibv_sockets_pingpong -d {dev} -g {gid_idx} -s 1048576",
            ],
        }),
        client: Some(Cmd {
            program: "ibv_sockets_pingpong",
            args: &[
                "-d",
                "{dev}",
                "-g",
                "{gid_idx}",
                "-s",
                "1048576",
                "{server_ip}",
            ],
        }),
        ready: Ready::TcpListen(6543),
        server_expect: Expect::fails(&[
            "fail to reg mr: *ibv_reg_mr failed: Cannot allocate memory \
            (ENOMEM)*ulimit -l*",
        ]),
        client_expect: Expect::fails(&["fail to exchange mr info: *"]),
        timeout_secs: 30,
        pair: false,
        stop_server: false,
    },
    Scenario {
        name: "ibv_sockets_pingpong_client_dies",
        package: "ibv_sockets_pingpong",
        server: Some(SERVER),
        client: Some(Cmd {
            program: "bash",
            args: &["-c", "exec 3<>/dev/tcp/{server_ip}/6543; exec 3>&-"],
        }),
        ready: Ready::TcpListen(6543),
        server_expect: Expect::fails(&[
            "fail to exchange conn info: read failed: the peer closed \
    the connection after 0 of * bytes",
        ]),
        client_expect: Expect::NOTHING,
        ..Scenario::BASE
    },
];
