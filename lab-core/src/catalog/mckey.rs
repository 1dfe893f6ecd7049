//! Scenarios of `mckey` (the manual's 7.4) and `mc` (8.2): UD multicast over
//! rdma_cm. The receiver is the server side (started first, VM A), the sender
//! the client side; the sender starts once the receiver printed that it waits.
//! The group 239.255.1.1 stays inside the VMs. Senders give no `-b`: rdma_cm
//! picks the device by the route to the group, which works in either VM.
//! `/usr/bin/mckey` is rdma-core's mckey (rdmacm-utils), named by its path
//! because the workspace's bin dir comes first on PATH.

use super::cells::{kill_then_handled, memlocked, refused, Kill, Sig, Waiting, MEMLOCKED};
use crate::model::{
    Cause, Check, Cmd, Exercise, Expect, Fault, PacketFact, Placement, Ready, Scenario, Side,
};

/// rdma-core's mckey as the sender. It leaves the group and destroys its QP
/// right after posting its unsignaled sends, so a kernel whose rxe sends
/// from a work queue (Debian 13's 6.12) can drop them all: a bug of the
/// original that this port fixes (see its README). A preloaded
/// `rdma_leave_multicast` that first waits a second lets the sends leave,
/// so that the scenario tests what it is for: the wire between the two
/// programs.
const C_MCKEY_SENDER: &str = "d=$(mktemp -d); cat >$d/s.c <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <unistd.h>
int rdma_leave_multicast(void *id, void *addr) {
    sleep(1);
    int (*leave)(void *, void *) = (int (*)(void *, void *))dlsym(RTLD_NEXT, \"rdma_leave_multicast\");
    return leave(id, addr);
}
EOF
cc -shared -fPIC -o $d/s.so $d/s.c -ldl && LD_PRELOAD=$d/s.so /usr/bin/mckey -m 239.255.1.1 -s -C 50 -S 1000; r=$?; rm -rf $d; exit $r";

/// What a Rust mckey receiver of the default exchange prints.
const MCKEY_SERVER_STDOUT: &[&str] = &[
    "mckey: starting server",
    "mckey: joining",
    "mckey: joined dgid: ::ffff:239.255.1.1",
    "receiving data transfers",
    "data transfers complete",
    "test complete",
    "return status 0",
];

/// What a Rust mckey sender prints.
const MCKEY_CLIENT_STDOUT: &[&str] = &[
    "mckey: starting client",
    "mckey: joining",
    "mckey: joined dgid: ::ffff:239.255.1.1",
    "initiating data transfers",
    "data transfers complete",
    "test complete",
    "return status 0",
];

/// What rdma-core's mckey prints in either role (its joined line adds the
/// MLID and SL).
const C_MCKEY_STDOUT: &[&str] = &[
    "mckey: joining",
    "mckey: joined dgid: ::ffff:239.255.1.1 mlid 0x* sl *",
    "data transfers complete",
    "return status 0",
];

/// Two Rust receivers in one shell: ready once both wait, then each one's
/// output with a prefix. The trap takes them down with the shell if the lab's
/// timeout fires, so no receiver outlives the scenario.
const TWO_RECEIVERS: &str = r#"d=$(mktemp -d)
mckey -m 239.255.1.1 -b {server_ip} >$d/1 2>&1 & p1=$!
mckey -m 239.255.1.1 -b {server_ip} >$d/2 2>&1 & p2=$!
trap 'kill $p1 $p2 2>/dev/null' INT TERM
until grep -qx 'receiving data transfers' $d/1 && grep -qx 'receiving data transfers' $d/2; do
  kill -0 $p1 2>/dev/null && kill -0 $p2 2>/dev/null || break
  sleep 0.1
done
echo 'both receivers waiting'
wait $p1; s1=$?
wait $p2; s2=$?
sed 's/^/r1: /' $d/1
sed 's/^/r2: /' $d/2
echo "r1 exit $s1, r2 exit $s2"
rm -rf $d
[ $s1 = 0 ] && [ $s2 = 0 ]"#;

/// A receiver of `$1` (mckey or mc) whose device is removed while it waits
/// for messages: it must end at once with one line, which lets the removal
/// finish (the kernel waits for the program to let go). The device is then
/// added back on its netdev for the scenarios that follow.
const DEVICE_REMOVED: &str = r#"d=$(mktemp -d)
nd=$(cat /sys/class/infiniband/{dev}/parent)
"$@" >$d/o 2>$d/e & p=$!
until grep -qE 'receiving data transfers|waiting for messages' $d/o; do kill -0 $p 2>/dev/null || break; sleep 0.1; done
echo "receiver waiting"
timeout 20 rdma link delete {dev}; echo "rdma link delete exit $?"
wait $p; echo "receiver exit $?, stderr lines $(wc -l <$d/e): $(head -n1 $d/e)"
rdma link add {dev} type rxe netdev $nd && echo "{dev} added back on $nd"
rm -rf $d"#;

/// Each bad command line of mckey, with its exit status, whether the usage
/// was printed and the stderr line.
const MCKEY_BAD_INPUT: &str = r#"d=$(mktemp -d)
for a in '' '-s' '-M ff0e::1' '-m 239.255.1.1 -C x' '-m 239.255.1.1 -S x' '-m 239.255.1.1 -c x' '-m no-such-host.invalid' '-M ff0e::1 -b {server_ip}'; do
  mckey $a >$d/o 2>$d/e
  echo "case [$a]: exit $?, usage $(grep -c '^usage: mckey$' $d/o), stderr lines $(wc -l <$d/e): $(head -n1 $d/e)"
done
rm -rf $d"#;

/// Each bad command line of mc, as above.
const MC_BAD_INPUT: &str = r#"d=$(mktemp -d)
for a in '' '-s' '-z' '-m 239.255.1.1 -c x' '-m 239.255.1.1 -l x' '-m no-such-host.invalid'; do
  mc $a >$d/o 2>$d/e
  echo "case [$a]: exit $?, usage $(grep -c '^usage: mc -m mc_address$' $d/o), stderr lines $(wc -l <$d/e): $(head -n1 $d/e)"
done
rm -rf $d"#;

/// `sh -c NO_MCAST_ROUTE sh PROGRAM ARGS...`: the program on a host with
/// no route to multicast (the lab's agent adds `224.0.0.0/4` on the RDMA
/// netdev, which a user's host may lack): the route goes, and comes back
/// however the cell ends.
pub const NO_MCAST_ROUTE: &str = "n=$(ip -o addr show to \"{server_ip}\" | awk '{print $2}')
trap 'ip route replace 224.0.0.0/4 dev \"$n\"' EXIT
trap 'exit 143' TERM
ip route del 224.0.0.0/4 || exit 99
\"$@\"
exit $?";

/// `sh -c MCAST_ROUTE_ELSEWHERE sh PROGRAM ARGS...`: the program on a host
/// whose default route, which multicast then takes, is on a second netdev
/// without RDMA (d8, 198.51.100.8/24), as a cluster node's management NIC
/// is; all of it goes again however the cell ends.
pub const MCAST_ROUTE_ELSEWHERE: &str = "n=$(ip -o addr show to \"{server_ip}\" | awk '{print $2}')
trap 'ip link del d8 2>/dev/null; ip route replace 224.0.0.0/4 dev \"$n\"' EXIT
trap 'exit 143' TERM
ip link add d8 type dummy && ip addr add 198.51.100.8/24 dev d8 && ip link set d8 up || exit 99
ip route del 224.0.0.0/4 && ip route add default dev d8 || exit 99
\"$@\"
exit $?";

/// `sh -c ROUTE_FIXED`: without the multicast route, the doctor's own fix
/// (the command in its finding, run as it is), then the doctor again and
/// the lab on this host (`--local`, as a user runs it) with both multicast
/// pairs, whose senders resolve the group by that route.
const ROUTE_FIXED: &str = "B=$(dirname \"$(command -v mckey)\")
export CARGO_TARGET_DIR=/tmp/lab-mcast-route-fixed
n=$(ip -o addr show to \"{server_ip}\" | awk '{print $2}')
trap 'ip route replace 224.0.0.0/4 dev \"$n\"' EXIT
trap 'exit 143' TERM
ip route del 224.0.0.0/4 || exit 99
fix=$(rdma-lab doctor --dev \"{dev}\" --ip \"{server_ip}\" 2>&1 >/dev/null \\
  | sed -n 's/.*has no route.*`\\(ip route add [^`]*\\)`.*/\\1/p')
echo \"the doctor's fix: $fix\"
[ -n \"$fix\" ] && $fix || exit 98
rdma-lab doctor --dev \"{dev}\" --ip \"{server_ip}\" >/dev/null && echo 'the doctor finds nothing'
rdma-lab lab --local --ip \"{server_ip}\" --dev \"{dev}\" --bin-dir \"$B\" mckey mc
exit $?";

/// A sender (`mckey -s` or `mc -s`, without `-b`, as the pairs run it) in
/// `sh` with `args` (a script above, then the program) on a host whose
/// route to the group does not reach the RDMA netdev: it must fail at once,
/// in one line that `error` matches (which ends in the text of
/// `hints::mcast_no_rdma_route`, a test says), its other lines unchanged.
fn no_rdma_route(
    name: &'static str,
    args: &'static [&'static str],
    stdout: &'static [&'static str],
    error: &'static [&'static str],
) -> Scenario {
    Scenario {
        name: name.into(),
        package: "mckey",
        server: Some(Cmd::new("sh", args)),
        // Measured up to 12.7 s on 2 loaded cores under TCG: mckey (or
        // the doctor) start and fail at once, well before its 30 s bound.
        server_expect: Expect::exits(1, stdout, error).within(20),
        fault: Some(Fault::Address),
        placement: Placement::OneVm,
        ..Scenario::BASE
    }
}

/// What the mckey sender prints before and after the failed resolution.
const MCKEY_UNRESOLVED: &[&str] = &[
    "mckey: starting client",
    "mckey: joining",
    "test complete",
    "return status 1",
];

/// The examples' multicast group.
const GROUP: &str = "239.255.1.1";

/// `PROGRAM -m GROUP -b {server_ip} OPTS`: a receiver of the group on
/// the server's address.
fn receiver(program: &'static str, opts: &[&str]) -> Cmd {
    let mut args = vec!["-m", GROUP, "-b", "{server_ip}"];
    args.extend(opts);
    Cmd::new(program, &args)
}

/// `PROGRAM -m GROUP -s OPTS`: a sender to the group.
fn sender(program: &'static str, opts: &[&str]) -> Cmd {
    let mut args = vec!["-m", GROUP, "-s"];
    args.extend(opts);
    Cmd::new(program, &args)
}

/// The pairs, the interop with rdma-core's mckey, and the error paths.
pub fn scenarios() -> Vec<Scenario> {
    [
        mckey_scenario(),
        mc_scenario(),
        mckey_two_connections(),
        mckey_50_messages_of_1000(),
        mckey_to_rdma_core_mckey(),
        rdma_core_mckey_to_mckey(),
        mckey_two_receivers(),
        mc_20_messages_of_512(),
        mc_to_mckey(),
        mckey_size_above_mtu(),
        mc_length_above_mtu(),
        mckey_device_removed(),
        mc_device_removed(),
        mckey_bad_input(),
        mc_bad_input(),
    ]
    .into_iter()
    .chain(limits())
    .chain(routes())
    .collect()
}

/// The hint of a sender whose group no route sends out of an RDMA netdev
/// (a macro, so that `concat!` puts it after each program's own error).
macro_rules! route_hint {
    () => {
        "(hint: no route sends 239.255.1.1 out of an RDMA netdev \
         (`ip route get 239.255.1.1` shows where it goes): route IPv4 multicast \
         through the RDMA netdev, `ip route add 224.0.0.0/4 dev NETDEV` (then \
         all IPv4 multicast from this host leaves through NETDEV unless a more \
         specific route says otherwise), or give -b an address on that netdev)"
    };
}

/// The hint of a program whose address no RDMA device serves.
macro_rules! no_device_hint {
    () => {
        "(hint: no RDMA device serves that address: is rdma_rxe or an HCA \
         bound to its interface?)"
    };
}

/// The fault matrix's `ulimit -l` cells, its limits row and its address
/// row, each of mckey and of mc.
fn limits() -> Vec<Scenario> {
    let memlock = |program: &'static str| {
        memlocked(
            &format!("{program}_memlock"),
            "mckey",
            &[
                "-c",
                MEMLOCKED,
                "sh",
                program,
                "-m",
                GROUP,
                "-b",
                "{server_ip}",
            ],
        )
    };
    let without_rdma = |program: &'static str, error: &'static str| {
        // 127.0.0.1 is on lo, which no RDMA device serves.
        refused(
            &format!("{program}_address_without_rdma"),
            "mckey",
            Fault::Address,
            &[program, "-m", GROUP, "-b", "127.0.0.1"],
            &[error],
        )
    };
    vec![
        // The first registration fails with the hint, in one line, before
        // any peer is needed.
        memlock("mckey"),
        memlock("mc"),
        // The highest message counts ask for a CQ larger than the device
        // makes, refused at once; no messages, and messages of 0 bytes, run.
        refused(
            "mckey_count_max",
            "mckey",
            Fault::Limits,
            &[
                "mckey",
                "-m",
                GROUP,
                "-b",
                "{server_ip}",
                "-C",
                "1073741823",
            ],
            &[
                "mckey: unable to create CQ: ibv_create_cq of 2147483646 entries \
               failed: Invalid argument (EINVAL)",
            ],
        ),
        refused(
            "mc_count_max",
            "mckey",
            Fault::Limits,
            &["mc", "-m", GROUP, "-b", "{server_ip}", "-c", "2147483647"],
            &["ibv_create_cq of 2147483647 entries failed: Invalid argument (EINVAL)"],
        ),
        mckey_no_messages(),
        mckey_empty_messages(),
        mc_empty_messages(),
        without_rdma(
            "mckey",
            concat!(
                "mckey: resolve addr failure: rdma_resolve_addr to 239.255.1.1:0 \
                 failed: No such device (ENODEV) ",
                no_device_hint!()
            ),
        ),
        without_rdma(
            "mc",
            concat!(
                "rdma_resolve_addr to 239.255.1.1:0 failed: No such device (ENODEV) ",
                no_device_hint!()
            ),
        ),
    ]
}

/// The senders without a route to the group through the RDMA netdev
/// (none, or a default route on a netdev without RDMA), and the fix that
/// the doctor gives, after which both pairs pass.
fn routes() -> Vec<Scenario> {
    vec![
        no_rdma_route(
            "mckey_no_mcast_route",
            &["-c", NO_MCAST_ROUTE, "sh", "mckey", "-m", GROUP, "-s"],
            MCKEY_UNRESOLVED,
            &[concat!(
                "mckey: resolve addr failure: rdma_resolve_addr to 239.255.1.1:0 \
                 failed: Network is unreachable (ENETUNREACH) ",
                route_hint!()
            )],
        ),
        no_rdma_route(
            "mc_no_mcast_route",
            &["-c", NO_MCAST_ROUTE, "sh", "mc", "-s", "-m", GROUP],
            &[],
            &[concat!(
                "rdma_resolve_addr to 239.255.1.1:0 failed: Network is unreachable \
                 (ENETUNREACH) ",
                route_hint!()
            )],
        ),
        no_rdma_route(
            "mckey_mcast_route_elsewhere",
            &[
                "-c",
                MCAST_ROUTE_ELSEWHERE,
                "sh",
                "mckey",
                "-m",
                GROUP,
                "-s",
            ],
            MCKEY_UNRESOLVED,
            &[concat!(
                "mckey: event: RDMA_CM_EVENT_ADDR_ERROR, error: -19 ",
                route_hint!()
            )],
        ),
        no_rdma_route(
            "mc_mcast_route_elsewhere",
            &["-c", MCAST_ROUTE_ELSEWHERE, "sh", "mc", "-s", "-m", GROUP],
            &[],
            &[concat!(
                "rdma_resolve_addr of 239.255.1.1:0: event: RDMA_CM_EVENT_ADDR_ERROR, \
                 status: -19 (expected RDMA_CM_EVENT_ADDR_RESOLVED) ",
                route_hint!()
            )],
        ),
        lab_local_mcast_route_fixed(),
    ]
}

fn mckey_scenario() -> Scenario {
    Scenario {
        name: "mckey".into(),
        package: "mckey",
        pause: Some("each side waits 3 s after its own join, for a subnet manager (RoCE has none)"),
        server: Some(receiver("mckey", &[])),
        client: Some(sender("mckey", &[])),
        ready: Ready::Line("receiving data transfers"),
        server_expect: Expect::ok(MCKEY_SERVER_STDOUT).counts(&[("mckey: joined dgid: *", 1)]),
        client_expect: Expect::ok(MCKEY_CLIENT_STDOUT).counts(&[("mckey: joined dgid: *", 1)]),
        timeout_secs: 60,
        causes: &[Cause {
            from: Side::Client,
            label: "UD Send Only Immediate*",
            call: "post_sends: ibv_post_send of a SEND with immediate data to the \
                    group address handle",
        }],
        pair: true,
        // Both join the group; the sender's 10 UD SENDs (-C) of 100 bytes
        // (-S) carry immediate data and go to the group's address.
        wire: &[
            PacketFact::Joins {
                from: Side::Server,
                group: "239.255.1.1",
            },
            PacketFact::Joins {
                from: Side::Client,
                group: "239.255.1.1",
            },
            PacketFact::Count {
                from: Side::Client,
                what: "UD Send Only*Imm*",
                n: 10,
                len: Some(100),
            },
            PacketFact::To {
                from: Side::Client,
                what: "UD Send*",
                addr: "239.255.1.1",
            },
        ],
        ..Scenario::BASE
    }
}

fn mc_scenario() -> Scenario {
    Scenario {
        name: "mc".into(),
        package: "mckey",
        server: Some(receiver("mc", &[])),
        client: Some(Cmd::new("mc", &["-s", "-m", "239.255.1.1"])),
        ready: Ready::Line("waiting for messages..."),
        server_expect: Expect::ok(&[
            "joined dgid: ::ffff:239.255.1.1, mlid 0x*, sl *",
            "waiting for messages...",
            "received message 1",
            "received message 4",
        ])
        .counts(&[("received message *", 4)]),
        client_expect: Expect::ok(&[
            "joined dgid: ::ffff:239.255.1.1, mlid 0x*, sl *",
            "sent message 1",
            "sent message 4",
        ])
        .counts(&[("sent message *", 4), ("event *, status *", 0)]),
        timeout_secs: 60,
        causes: &[Cause {
            from: Side::Client,
            label: "UD Send Only Immediate*",
            call: "ibv_post_send of a SEND with immediate data to the group address handle",
        }],
        pair: true,
        // The receiver joins; the sender's 4 UD SENDs of 64 bytes go to
        // the group's address.
        wire: &[
            PacketFact::Joins {
                from: Side::Server,
                group: "239.255.1.1",
            },
            PacketFact::Count {
                from: Side::Client,
                what: "UD Send Only*",
                n: 4,
                len: Some(64),
            },
            PacketFact::To {
                from: Side::Client,
                what: "UD Send*",
                addr: "239.255.1.1",
            },
        ],
        ..Scenario::BASE
    }
}

fn mckey_two_connections() -> Scenario {
    Scenario {
        name: "mckey_two_connections".into(),
        package: "mckey",
        server: Some(receiver("mckey", &["-c", "2"])),
        client: Some(sender("mckey", &["-c", "2"])),
        ready: Ready::Line("receiving data transfers"),
        server_expect: Expect::ok(MCKEY_SERVER_STDOUT)
            .counts(&[("mckey: joined dgid: ::ffff:239.255.1.1", 2)]),
        client_expect: Expect::ok(MCKEY_CLIENT_STDOUT)
            .counts(&[("mckey: joined dgid: ::ffff:239.255.1.1", 2)]),
        timeout_secs: 60,
        ..Scenario::BASE
    }
}

fn mckey_50_messages_of_1000() -> Scenario {
    Scenario {
        name: "mckey_50_messages_of_1000".into(),
        package: "mckey",
        server: Some(receiver("mckey", &["-C", "50", "-S", "1000"])),
        client: Some(sender("mckey", &["-C", "50", "-S", "1000"])),
        ready: Ready::Line("receiving data transfers"),
        server_expect: Expect::ok(MCKEY_SERVER_STDOUT),
        client_expect: Expect::ok(MCKEY_CLIENT_STDOUT),
        timeout_secs: 60,
        ..Scenario::BASE
    }
}

fn mckey_to_rdma_core_mckey() -> Scenario {
    Scenario {
        // Rust sender, rdma-core receiver (line-buffered so its "receiving"
        // line reaches the file while it waits).
        name: "mckey_to_rdma_core_mckey".into(),
        package: "mckey",
        server: Some(Cmd::new(
            "stdbuf",
            &[
                "-oL",
                "/usr/bin/mckey",
                "-m",
                "239.255.1.1",
                "-b",
                "{server_ip}",
                "-C",
                "50",
                "-S",
                "1000",
            ],
        )),
        client: Some(sender("mckey", &["-C", "50", "-S", "1000"])),
        ready: Ready::Line("receiving data transfers"),
        server_expect: Expect::ok(C_MCKEY_STDOUT).counts(&[("receiving data transfers", 1)]),
        client_expect: Expect::ok(MCKEY_CLIENT_STDOUT),
        timeout_secs: 60,
        ..Scenario::BASE
    }
}

fn rdma_core_mckey_to_mckey() -> Scenario {
    Scenario {
        // rdma-core sender, Rust receiver.
        name: "rdma_core_mckey_to_mckey".into(),
        package: "mckey",
        server: Some(receiver("mckey", &["-C", "50", "-S", "1000"])),
        client: Some(Cmd::new("sh", &["-c", C_MCKEY_SENDER])),
        ready: Ready::Line("receiving data transfers"),
        server_expect: Expect::ok(MCKEY_SERVER_STDOUT),
        client_expect: Expect::ok(C_MCKEY_STDOUT).counts(&[("initiating data transfers", 1)]),
        // rdma-core's mckey waits for its route and joins at its own
        // pace: up to 56 s was measured beside the suite's other VMs.
        timeout_secs: 90,
        ..Scenario::BASE
    }
}

fn mckey_two_receivers() -> Scenario {
    Scenario {
        name: "mckey_two_receivers".into(),
        package: "mckey",
        server: Some(Cmd::new("sh", &["-c", TWO_RECEIVERS])),
        client: Some(sender("mckey", &[])),
        ready: Ready::Line("both receivers waiting"),
        server_expect: Expect::ok(&[
            "r1: receiving data transfers",
            "r1: data transfers complete",
            "r1: return status 0",
            "r2: receiving data transfers",
            "r2: data transfers complete",
            "r2: return status 0",
            "r1 exit 0, r2 exit 0",
        ])
        .counts(&[
            ("r1 exit 0, r2 exit 0", 1),
            ("r*: data transfers complete", 2),
        ]),
        client_expect: Expect::ok(MCKEY_CLIENT_STDOUT),
        timeout_secs: 60,
        ..Scenario::BASE
    }
}

fn mc_20_messages_of_512() -> Scenario {
    Scenario {
        name: "mc_20_messages_of_512".into(),
        package: "mckey",
        server: Some(receiver("mc", &["-c", "20", "-l", "512"])),
        client: Some(Cmd::new(
            "mc",
            &["-s", "-m", "239.255.1.1", "-c", "20", "-l", "512"],
        )),
        ready: Ready::Line("waiting for messages..."),
        server_expect: Expect::ok(&["waiting for messages...", "received message 20"])
            .counts(&[("received message *", 20)]),
        client_expect: Expect::ok(&["sent message 20"]).counts(&[("sent message *", 20)]),
        timeout_secs: 60,
        ..Scenario::BASE
    }
}

fn mc_to_mckey() -> Scenario {
    Scenario {
        // mc's defaults (4 messages of 64 bytes) into an mckey receiver
        // expecting as many of that size: the two speak the same exchange.
        name: "mc_to_mckey".into(),
        package: "mckey",
        server: Some(receiver("mckey", &["-C", "4", "-S", "64"])),
        client: Some(Cmd::new("mc", &["-s", "-m", "239.255.1.1"])),
        ready: Ready::Line("receiving data transfers"),
        server_expect: Expect::ok(MCKEY_SERVER_STDOUT),
        client_expect: Expect::ok(&["sent message 4"]),
        timeout_secs: 60,
        ..Scenario::BASE
    }
}

// Error paths run on the server side, in VM A, where {server_ip} is local.
fn mckey_size_above_mtu() -> Scenario {
    Scenario {
        name: "mckey_size_above_mtu".into(),
        package: "mckey",
        server: Some(receiver("mckey", &["-s", "-S", "2000"])),
        server_expect: Expect::exits(
            1,
            &["mckey: starting client", "test complete", "return status 1"],
            &["mckey: message_size 2000 is larger than active mtu 1024"],
        )
        .counts(&[("initiating data transfers", 0)]),
        client_expect: Expect::NOTHING,
        fault: Some(Fault::Limits),
        exercise: Some(Exercise {
            question: "Send multicast messages larger than the path MTU, on host A \
                alone: `mckey -m 239.255.1.1 -b 192.0.2.1 -s -S 2000`.",
            predict: "RC cuts a long message into First, Middle and Last packets. Can \
                UD? What does mckey do with 2000-byte messages on a 1024-byte \
                MTU?",
            explain: "UD carries each message in exactly one packet: there is no \
                connection to keep pieces in order or to put them together \
                again, so a UD message can be no longer than the path MTU. \
                mckey checks the size against the port's active MTU before it \
                sends anything and refuses, with one error line; nothing of it \
                reaches the wire.",
            check: Check {
                filter: "",
                fields: &[],
                line: "mtu",
                look: "what the sender says, where its run stops (its errors are \
                    shown after its output, apart), and its exit status",
            },
            gives_away: &[
                "exactly one packet",
                "one packet per message",
                "may not be longer than the path MTU",
            ],
        }),
        ..Scenario::BASE
    }
}

fn mc_length_above_mtu() -> Scenario {
    Scenario {
        name: "mc_length_above_mtu".into(),
        package: "mckey",
        server: Some(receiver("mc", &["-s", "-l", "2000"])),
        server_expect: Expect::fails(&["buffer length 2000 is larger than active mtu 1024"])
            .counts(&[("sent message *", 0)]),
        client_expect: Expect::NOTHING,
        fault: Some(Fault::Limits),
        ..Scenario::BASE
    }
}

fn mckey_device_removed() -> Scenario {
    Scenario {
        name: "mckey_device_removed".into(),
        package: "mckey",
        server: Some(Cmd::new(
            "sh",
            &[
                "-c",
                DEVICE_REMOVED,
                "sh",
                "mckey",
                "-m",
                "239.255.1.1",
                "-b",
                "{server_ip}",
            ],
        )),
        server_expect: Expect::ok(&[
            "receiver waiting",
            "rdma link delete exit 0",
            "receiver exit 1, stderr lines 1: mckey: event: \
             RDMA_CM_EVENT_DEVICE_REMOVAL, error: *",
            "* added back on *",
        ])
        .any_stderr()
        .within(40),
        timeout_secs: 60,
        fault: Some(Fault::Device),
        placement: Placement::Vms,
        ..Scenario::BASE
    }
}

fn mc_device_removed() -> Scenario {
    Scenario {
        name: "mc_device_removed".into(),
        package: "mckey",
        server: Some(Cmd::new(
            "sh",
            &[
                "-c",
                DEVICE_REMOVED,
                "sh",
                "mc",
                "-m",
                "239.255.1.1",
                "-b",
                "{server_ip}",
            ],
        )),
        server_expect: Expect::ok(&[
            "receiver waiting",
            "rdma link delete exit 0",
            "receiver exit 1, stderr lines 1: receiving message 1 of 4: \
             the exchange cannot go on: RDMA_CM_EVENT_DEVICE_REMOVAL (status *)",
            "* added back on *",
        ])
        .any_stderr()
        .within(40),
        timeout_secs: 60,
        fault: Some(Fault::Device),
        placement: Placement::Vms,
        ..Scenario::BASE
    }
}

fn mckey_bad_input() -> Scenario {
    Scenario {
        name: "mckey_bad_input".into(),
        package: "mckey",
        server: Some(Cmd::new("sh", &["-c", MCKEY_BAD_INPUT])),
        server_expect: Expect::ok(&[
            "case []: exit 1, usage 1, stderr lines 1: mckey: a \
                    multicast address (-m or -M) is required",
            "case [-s]: exit 1, usage 1, stderr lines 1: mckey: a \
                    multicast address (-m or -M) is required",
            "case [-M ff0e::1]: exit 1, usage 1, stderr lines 1: mckey: \
                    unmapped multicast address requires binding to source \
                    address (-b)",
            "case [-m 239.255.1.1 -C x]: exit 1, usage 1, stderr lines \
                    1: mckey: invalid value 'x' for -C *",
            "case [-m 239.255.1.1 -S x]: exit 1, usage 1, stderr lines \
                    1: mckey: invalid value 'x' for -S *",
            "case [-m 239.255.1.1 -c x]: exit 1, usage 1, stderr lines \
                    1: mckey: invalid value 'x' for -c *",
            "case [-m no-such-host.invalid]: exit 1, usage 0, stderr \
                    lines 1: getaddrinfo failed - invalid hostname or IP \
                    address: no-such-host.invalid (*)",
            "case [-M ff0e::1 -b *]: exit 1, usage 0, stderr lines 1: \
                    mckey: unmapped multicast address (-M) needs an InfiniBand \
                    port; * is RoCE (Ethernet link layer): use -m",
        ])
        .counts(&[
            ("case *: exit 1, * stderr lines 1: *", 8),
            ("*panicked*", 0),
        ]),
        client_expect: Expect::NOTHING,
        // Eight programs one after another: under TCG beside other VMs
        // each takes a few seconds to start.
        timeout_secs: 60,
        fault: Some(Fault::CommandLine),
        ..Scenario::BASE
    }
}

fn mc_bad_input() -> Scenario {
    Scenario {
        name: "mc_bad_input".into(),
        package: "mckey",
        server: Some(Cmd::new("sh", &["-c", MC_BAD_INPUT])),
        server_expect: Expect::ok(&[
            "case []: exit 1, usage 1, stderr lines 1: mc: multicast \
                    address must be specified with -m",
            "case [-s]: exit 1, usage 1, stderr lines 1: mc: multicast \
                    address must be specified with -m",
            "case [-z]: exit 1, usage 1, stderr lines 1: mc: Unrecognized option: 'z'",
            "case [-m 239.255.1.1 -c x]: exit 1, usage 1, stderr lines \
                    1: mc: invalid value 'x' for -c *",
            "case [-m 239.255.1.1 -l x]: exit 1, usage 1, stderr lines \
                    1: mc: invalid value 'x' for -l *",
            "case [-m no-such-host.invalid]: exit 1, usage 0, stderr \
                    lines 1: rdma_getaddrinfo (mcast): getaddrinfo failed - \
                    invalid hostname or IP address: no-such-host.invalid (*)",
        ])
        .counts(&[
            ("case *: exit 1, * stderr lines 1: *", 6),
            ("*panicked*", 0),
        ]),
        client_expect: Expect::NOTHING,
        // Six programs one after another: under TCG beside other VMs
        // each takes a few seconds to start.
        timeout_secs: 60,
        fault: Some(Fault::CommandLine),
        ..Scenario::BASE
    }
}

/// A pair of mckeys with these options on both sides, which send no
/// message: both sides join and end.
fn joins_only(name: &str, opts: &[&str]) -> Scenario {
    let joined = ["mckey: joined dgid: *", "test complete", "return status 0"];
    Scenario {
        name: name.into(),
        package: "mckey",
        server: Some(receiver("mckey", opts)),
        client: Some(sender("mckey", opts)),
        ready: Ready::Line("mckey: joined dgid: *"),
        server_expect: Expect::ok(&joined).counts(&[("receiving data transfers", 0)]),
        client_expect: Expect::ok(&joined).counts(&[("initiating data transfers", 0)]),
        fault: Some(Fault::Limits),
        placement: Placement::OneHost,
        ..Scenario::BASE
    }
}

fn mckey_no_messages() -> Scenario {
    joins_only("mckey_no_messages", &["-C", "0"])
}

// As in the original, -S 0 means no message at all (create_message
// sets message_count to 0): both sides join and end.
fn mckey_empty_messages() -> Scenario {
    joins_only("mckey_empty_messages", &["-S", "0", "-C", "2"])
}

fn mc_empty_messages() -> Scenario {
    Scenario {
        name: "mc_empty_messages".into(),
        package: "mckey",
        server: Some(receiver("mc", &["-c", "2", "-l", "0"])),
        client: Some(sender("mc", &["-c", "2", "-l", "0"])),
        ready: Ready::Line("waiting for messages..."),
        server_expect: Expect::ok(&["received message 1", "received message 2"]),
        client_expect: Expect::ok(&["sent message 1", "sent message 2"]),
        fault: Some(Fault::Limits),
        placement: Placement::OneHost,
        ..Scenario::BASE
    }
}

fn lab_local_mcast_route_fixed() -> Scenario {
    Scenario {
        name: "lab_local_mcast_route_fixed".into(),
        package: "mckey",
        server: Some(Cmd::new("sh", &["-c", ROUTE_FIXED])),
        server_expect: Expect::ok(&[
            "the doctor's fix: ip route add 224.0.0.0/4 dev d0",
            "the doctor finds nothing",
            "  PASS mckey",
            "  PASS mc",
            "doctor: no findings",
            "2 passed, 0 failed*",
        ])
        .any_stderr(),
        timeout_secs: 180,
        placement: Placement::OneVm,
        // It changes the routes, and runs the lab itself.
        ..Scenario::BASE
    }
}

/// The receivers, for the fault matrix's signal cells: either ends the
/// wait in one line, exit 1.
pub fn waiting() -> Vec<Waiting> {
    vec![
        Waiting {
            name: "mckey",
            package: "mckey",
            cmd: &["mckey", "-m", "239.255.1.1", "-b", "{server_ip}"],
            line: "receiving data transfers",
            exits: [1, 1],
            stdout: &["test complete", "return status 1"],
            stderr: &["mckey: interrupted on connection 0 after 0 of 10 completions"],
        },
        Waiting {
            name: "mc",
            package: "mckey",
            cmd: &["mc", "-m", "239.255.1.1", "-b", "{server_ip}"],
            line: "waiting for messages...",
            exits: [1, 1],
            stdout: &[],
            stderr: &["receiving message 1 of 4: interrupted (SIGINT/SIGTERM)"],
        },
    ]
}

/// A receiver of 10 messages and senders of 10 and of 5, for the kill
/// cells.
const MCKEY_RECEIVER: &[&str] = &["mckey", "-m", "239.255.1.1", "-b", "{server_ip}"];
const MCKEY_SENDER: &[&str] = &["mckey", "-m", "239.255.1.1", "-s"];
const MCKEY_SENDER_OF_5: &[&str] = &["mckey", "-m", "239.255.1.1", "-s", "-C", "5"];
const MC_RECEIVER: &[&str] = &["mc", "-m", "239.255.1.1", "-b", "{server_ip}", "-c", "10"];
const MC_SENDER: &[&str] = &["mc", "-m", "239.255.1.1", "-s"];
const MC_SENDER_OF_5: &[&str] = &["mc", "-m", "239.255.1.1", "-s", "-c", "5"];

/// A sender stopped by SIGTERM or SIGINT in its pause after joining.
const SENDER_INTERRUPTED: &[&str] = &["mckey: interrupted before the data transfers"];

/// A receiver stopped by SIGTERM or SIGINT after 5 of its 10 messages.
const MCKEY_HALFWAY: &[&str] = &["mckey: interrupted on connection 0 after 5 of 10 completions"];
const MC_HALFWAY: &[&str] = &["receiving message 6 of 10: interrupted (SIGINT/SIGTERM)"];

/// The mckey receiver the kill cells run, and its sender.
fn mckey() -> Kill {
    Kill {
        name: "mckey",
        package: "mckey",
        server: MCKEY_RECEIVER,
        ready: Ready::Line("receiving data transfers"),
        client: MCKEY_SENDER,
        ..Kill::BASE
    }
}

/// The mc receiver the kill cells run, and its sender.
fn mc() -> Kill {
    Kill {
        name: "mc",
        package: "mckey",
        server: MC_RECEIVER,
        ready: Ready::Line("waiting for messages..."),
        client: MC_SENDER,
        ..Kill::BASE
    }
}

/// The kill cells' signals to a program that handles SIGTERM and SIGINT:
/// each ends it in one line.
const SENDER_INTERRUPTED_SIGNALS: &[Sig] = &kill_then_handled(SENDER_INTERRUPTED);
const MCKEY_HALFWAY_SIGNALS: &[Sig] = &kill_then_handled(MCKEY_HALFWAY);
const MC_HALFWAY_SIGNALS: &[Sig] = &kill_then_handled(MC_HALFWAY);

/// The fault matrix's kill cells. Multicast has no connection: a receiver
/// cannot tell a dead sender from a slow one, so it waits on (a sender
/// killed as it joins, before its first message) until SIGTERM ends it in
/// one line that counts what came; and a sender does not depend on any
/// receiver, so it runs to its end when the receiver is killed as it
/// waits, or halfway through the messages (the receiver of 10 has had the
/// 5 a sender sent, and SIGTERM and SIGINT say so).
pub fn kills() -> Vec<Kill> {
    vec![
        Kill {
            phase: "connected",
            victim: Side::Client,
            // The sender pauses 3 s after joining (the original's SM pause),
            // which SIGTERM and SIGINT end in one line.
            line: "mckey: joined dgid: *",
            signals: SENDER_INTERRUPTED_SIGNALS,
            survivor: Expect::exits(
                1,
                &["test complete", "return status 1"],
                &["mckey: interrupted on connection 0 after 0 of 10 completions"],
            ),
            stop_server: true,
            ..mckey()
        },
        Kill {
            phase: "connected",
            victim: Side::Server,
            line: "receiving data transfers",
            survivor: Expect::ok(MCKEY_CLIENT_STDOUT),
            ..mckey()
        },
        Kill {
            phase: "midway",
            client: MCKEY_SENDER_OF_5,
            victim: Side::Server,
            line: "receiving data transfers",
            // The receiver prints nothing per message: the sender's 3 s pause
            // and its 5 messages are over within about 5 s of this line.
            delay: "8",
            signals: MCKEY_HALFWAY_SIGNALS,
            survivor: Expect::ok(MCKEY_CLIENT_STDOUT),
            ..mckey()
        },
        Kill {
            phase: "connected",
            victim: Side::Client,
            line: "joined dgid: *",
            // The sender may have sent some of its 4 when it died: fewer
            // than the receiver's 10 in any case.
            survivor: Expect::fails(&["receiving message * of 10: interrupted (SIGINT/SIGTERM)"]),
            stop_server: true,
            ..mc()
        },
        Kill {
            phase: "connected",
            victim: Side::Server,
            line: "waiting for messages...",
            survivor: Expect::ok(&["sent message 4"]),
            ..mc()
        },
        Kill {
            phase: "midway",
            client: MC_SENDER_OF_5,
            victim: Side::Server,
            line: "received message 5",
            signals: MC_HALFWAY_SIGNALS,
            survivor: Expect::ok(&["sent message 5"]),
            ..mc()
        },
    ]
}
