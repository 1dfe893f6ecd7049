//! Independent peers from rdma-core: they check the lab itself (rxe setup,
//! readiness, two-VM networking) without depending on the examples.

use super::cells::pingpong_summaries;
use crate::model::{Cmd, Expect, Ready, Scenario};

/// rdma-core's own test programs.
pub fn scenarios() -> Vec<Scenario> {
    vec![ibv_rc_pingpong(), rping()]
}

fn ibv_rc_pingpong() -> Scenario {
    Scenario {
        name: "ibv_rc_pingpong".into(),
        package: "",
        server: Some(Cmd::new(
            "ibv_rc_pingpong",
            &[
                "-d",
                "{dev}",
                "-i",
                "{ib_port}",
                "-g",
                "{gid_idx}",
                "-n",
                "100",
            ],
        )),
        client: Some(Cmd::new(
            "ibv_rc_pingpong",
            &[
                "-d",
                "{dev}",
                "-i",
                "{ib_port}",
                "-g",
                "{gid_idx}",
                "-n",
                "100",
                "{server_ip}",
            ],
        )),
        ready: Ready::TcpListen(18515),
        // The server talks to the client's address (VM B's across two VMs).
        server_expect: Expect::ok(&["*remote address: *", "100 iters in * seconds = * usec/iter"])
            .counts(&[("*remote address: *GID ::ffff:{client_ip}", 1)]),
        client_expect: Expect::ok(&["*remote address: *", "100 iters in * seconds = * usec/iter"]),
        verify: Some(pingpong_summaries),
        ..Scenario::BASE
    }
}

fn rping() -> Scenario {
    Scenario {
        name: "rping".into(),
        package: "",
        server: Some(Cmd::new(
            "rping",
            &["-s", "-a", "{server_ip}", "-v", "-C", "3"],
        )),
        client: Some(Cmd::new(
            "rping",
            &["-c", "-a", "{server_ip}", "-v", "-C", "3"],
        )),
        ready: Ready::RdmaCmListen(7174),
        server_expect: Expect::ok(&["*server ping data: rdma-ping-2: *"]).any_stderr(),
        client_expect: Expect::ok(&["ping data: rdma-ping-2: *"]).any_stderr(),
        ..Scenario::BASE
    }
}
