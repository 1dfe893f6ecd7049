//! The fault matrix's generated cells (signals, killed and silent
//! peers, stand-in peers of a side channel) and the helpers the tables
//! build their cells with.

use crate::catalog::bench;
use crate::model::{
    has_line, stdout_of, Cause, Cmd, Expect, Fault, Outcome, Placement, Ready, Scenario, Side,
    Verify,
};

/// `sh -c SIGNAL_AT sh SIG LINE DELAY HOLD PROGRAM ARGS...`: runs the
/// program, passes its stdout on, sends it SIG DELAY seconds after it prints
/// a line that matches LINE (a shell pattern; the cells use `*` only, so
/// that it is also the glob their expectations check), then prints `exit N
/// after SIG` and exits with the program's status N (125 when it cannot
/// make its FIFO, in a fresh private dir of `mktemp -d`: never at a name
/// another user could take first). A program sent STOP is
/// held stopped for HOLD seconds, or until the wrapper gets SIGTERM, then
/// killed. The fault matrix's signals in a
/// given phase. (A shell starts background commands with SIGINT ignored;
/// `env` gives the program SIGINT's default action back, as a terminal's
/// Ctrl-C finds it.)
pub const SIGNAL_AT: &str = r#"sig=$1 line=$2 delay=$3 hold=$4; shift 4
d=$(mktemp -d) && f=$d/out && mkfifo "$f" || { echo "SIGNAL_AT: no FIFO in a private dir" >&2; exit 125; }
env --default-signal=INT "$@" >$f & p=$!
exec 3<$f
while IFS= read -r l <&3; do
  printf '%s\n' "$l"
  case $l in $line) [ "$delay" = 0 ] || sleep $delay; kill -$sig $p; break;; esac
done
[ $sig = STOP ] && { trap 'kill -KILL $p; kill $h' TERM; sleep $hold & h=$!; wait $h; kill -KILL $p 2>/dev/null; }
cat <&3
wait $p; s=$?; rm -rf "$d"
echo "exit $s after $sig"
exit $s"#;

/// A server or receiver as the fault matrix's signal cells need it: how it
/// runs, the line it prints when it waits for its first peer, and what it
/// does on SIGTERM and SIGINT there (its documented status, and the lines
/// it prints). A scenario file declares its programs' in `WAITING`; each
/// gives two scenarios, `<name>_sigterm_waiting` and `<name>_sigint_waiting`,
/// which must also end at once and leave nothing in the kernel.
#[derive(Debug)]
pub struct Waiting {
    /// The program, as the cells' names start.
    pub name: &'static str,
    /// Its workspace package.
    pub package: &'static str,
    /// The program and its arguments.
    pub cmd: &'static [&'static str],
    /// The line (a shell pattern) it prints when it waits.
    pub line: &'static str,
    /// Its exit status after SIGTERM, and after SIGINT.
    pub exits: [i32; 2],
    /// The stdout lines it prints after the signal.
    pub stdout: &'static [&'static str],
    /// The stderr lines it prints after the signal.
    pub stderr: &'static [&'static str],
}

/// `cmd` run under [`SIGNAL_AT`], and the line the wrapper ends with.
fn signalled(
    sig: &'static str,
    line: &'static str,
    delay: &'static str,
    hold: u32,
    cmd: &[&str],
    exit: i32,
) -> (Cmd, String) {
    let hold = hold.to_string();
    let wrapper = ["-c", SIGNAL_AT, "sh", sig, line, delay, &hold];
    let args: Vec<&str> = wrapper.into_iter().chain(cmd.iter().copied()).collect();
    (Cmd::new("sh", &args), format!("exit {exit} after {sig}"))
}

/// A signal the fault matrix sends, and what the signalled program does
/// then: its exit status and its stderr lines.
#[derive(Debug, Clone, Copy)]
pub struct Sig {
    /// The signal's name without `SIG`, as `kill -NAME` takes it.
    pub name: &'static str,
    /// The program's exit status then.
    pub exit: i32,
    /// Its stderr lines then.
    pub stderr: &'static [&'static str],
}

/// SIGKILL: no program can answer it.
pub const SIGKILL: Sig = Sig {
    name: "KILL",
    exit: 137,
    stderr: &[],
};

/// SIGTERM to a program that keeps its default action.
pub const SIGTERM: Sig = Sig {
    name: "TERM",
    exit: 143,
    stderr: &[],
};

/// SIGINT to a program that keeps its default action.
pub const SIGINT: Sig = Sig {
    name: "INT",
    exit: 130,
    stderr: &[],
};

/// The three, to a program that keeps the default actions.
pub const KILL_TERM_INT: &[Sig] = &[SIGKILL, SIGTERM, SIGINT];

/// SIGKILL, then SIGTERM and SIGINT to a program that handles both: it
/// exits 1 and says `stderr`.
pub const fn kill_then_handled(stderr: &'static [&'static str]) -> [Sig; 3] {
    [
        SIGKILL,
        Sig {
            name: "TERM",
            exit: 1,
            stderr,
        },
        Sig {
            name: "INT",
            exit: 1,
            stderr,
        },
    ]
}

/// The bound of a kill cell's survivor, from its own start: the peer's
/// start, the exchange up to the victim's line, then the survivor's one
/// line. Up to 19 s was measured across two VMs beside the suite's other
/// VMs (apm's and ibv_sockets_pingpong's mid-exchange cells); a survivor
/// that waited out its own completion or connection bound (30 to 120 s)
/// or hung would meet it.
pub const SURVIVOR_SECS: u32 = 30;

/// SIGSTOP: the program stays, and its kernel objects with it, but it says
/// nothing more: a peer that is there and silent. [`SIGNAL_AT`] holds it
/// stopped until the other side is done, then kills it.
pub const SIGSTOP: Sig = Sig {
    name: "STOP",
    exit: 137,
    stderr: &[],
};

/// A fault matrix row of one pair: one side (the victim) is sent each of
/// `signals` when it prints `line`, in a given phase of the exchange, and
/// the other side (the survivor) must do what `survivor` says, which for a
/// lost peer is one line within a bound. Each signal gives a cell
/// `<name>_<victim>_sig<signal>_<phase>`.
#[derive(Debug)]
pub struct Kill {
    /// The program, as the cells' names start.
    pub name: &'static str,
    /// Its workspace package.
    pub package: &'static str,
    /// The phase, as the cells' names end: `connected` (before any data),
    /// `midway` (a long exchange under way), `listening` (the server waits).
    pub phase: &'static str,
    /// The server and its arguments.
    pub server: &'static [&'static str],
    /// The client and its arguments.
    pub client: &'static [&'static str],
    /// When the server is ready.
    pub ready: Ready,
    /// The side that is signalled.
    pub victim: Side,
    /// The victim's line (a shell pattern and a glob alike) at which it is.
    pub line: &'static str,
    /// Seconds from that line to the signal: a side that prints nothing
    /// while the exchange runs is signalled a moment into it.
    pub delay: &'static str,
    /// The signals, one cell each.
    pub signals: &'static [Sig],
    /// What the other side must do.
    pub survivor: Expect,
    /// The survivor is a server that runs until told to stop (see
    /// [`Scenario::stop_server`]).
    pub stop_server: bool,
    /// What `survivor` cannot say.
    pub verify: Option<Verify>,
}

impl Kill {
    /// The defaults a declaration fills in with `..Kill::BASE`: SIGKILL
    /// at the line, and a survivor that ends by itself.
    pub const BASE: Kill = Kill {
        name: "",
        package: "",
        phase: "",
        server: &[],
        client: &[],
        ready: Ready::None,
        victim: Side::Client,
        line: "",
        delay: "0",
        signals: &[SIGKILL],
        survivor: Expect::NOTHING,
        stop_server: false,
        verify: None,
    };
}

impl Kill {
    /// One cell per signal: the victim run under [`SIGNAL_AT`].
    pub fn cells(&self) -> Vec<Scenario> {
        self.signals
            .iter()
            .map(|sig| {
                let victim_cmd = match self.victim {
                    Side::Server => self.server,
                    Side::Client => self.client,
                };
                // A stopped victim is held until the survivor's bound is
                // past, so that it is silent for as long as that matters.
                // (Not let go early with SIGTERM: `timeout` would pass that
                // on with SIGCONT, and the victim's exit would be the
                // signal's that came first.)
                let hold = match sig.name {
                    "STOP" => self.survivor.within_secs.unwrap_or(30) + 5,
                    _ => 0,
                };
                let (victim, ended) =
                    signalled(sig.name, self.line, self.delay, hold, victim_cmd, sig.exit);
                let victim_expect = Expect::exits(sig.exit, &[self.line, &ended], sig.stderr);
                let plain = |argv: &'static [&'static str]| Cmd::new(argv[0], &argv[1..]);
                let survivor = self.survivor.clone();
                let (server, client, server_expect, client_expect) = match self.victim {
                    Side::Server => (victim, plain(self.client), victim_expect, survivor),
                    Side::Client => (plain(self.server), victim, survivor, victim_expect),
                };
                let victim_name = match self.victim {
                    Side::Server => "server",
                    Side::Client => "client",
                };
                Scenario {
                    name: format!(
                        "{}_{victim_name}_sig{}_{}",
                        self.name,
                        sig.name.to_lowercase(),
                        self.phase
                    ),
                    package: self.package,
                    server: Some(server),
                    client: Some(client),
                    ready: self.ready,
                    server_expect,
                    client_expect,
                    timeout_secs: 60.max(hold + 20),
                    stop_server: self.stop_server,
                    verify: self.verify,
                    // Only a dead peer is about the wire (the survivor learns
                    // of it from there); silence and a signal's own exit
                    // status are not, and one VM is enough for them.
                    placement: if sig.name == "KILL" {
                        Placement::Anywhere
                    } else {
                        Placement::OneHost
                    },
                    fault: Some(match sig.name {
                        "STOP" => Fault::SilentPeer,
                        "TERM" | "INT" => Fault::Signal,
                        _ => Fault::PeerKilled,
                    }),
                    ..Scenario::BASE
                }
            })
            .collect()
    }
}

impl Waiting {
    /// The two cells, run under [`SIGNAL_AT`].
    pub fn cells(&self) -> Vec<Scenario> {
        [("TERM", self.exits[0]), ("INT", self.exits[1])]
            .into_iter()
            .map(|(sig, exit)| {
                let (server, ended) = signalled(sig, self.line, "0", 0, self.cmd, exit);
                let stdout: Vec<&str> = std::iter::once(self.line)
                    .chain(self.stdout.iter().copied())
                    .chain([ended.as_str()])
                    .collect();
                Scenario {
                    name: format!("{}_sig{}_waiting", self.name, sig.to_lowercase()),
                    package: self.package,
                    server: Some(server),
                    server_expect: Expect::exits(exit, &stdout, self.stderr).within(15),
                    fault: Some(Fault::Signal),
                    // One program and a signal: nothing crosses the wire.
                    placement: Placement::OneHost,
                    ..Scenario::BASE
                }
            })
            .collect()
    }
}

/// `bash -c PEER bash ADDR PORT MODE [LEN]`: a stand-in peer of a TCP side
/// channel that connects and then does one wrong thing: `close` at once,
/// send LEN random bytes and close (`short`), send LEN bytes of 0xff and
/// stay until the server closes (`ones`), or stay silent until the server
/// closes (`silent`).
pub const SIDE_CHANNEL_PEER: &str = "exec 3<>/dev/tcp/$1/$2
case $3 in
  short) head -c $4 /dev/urandom >&3 ;;
  ones) head -c $4 /dev/zero | tr '\\0' '\\377' >&3; timeout 20 cat <&3 >/dev/null ;;
  silent) timeout 80 cat <&3 >/dev/null ;;
esac
exec 3>&-";

/// A program with a TCP side channel (rc_example, ibv_sockets_pingpong),
/// as the fault matrix's side-channel cells need it: its real server and
/// client, and what each says when the peer does wrong. Each gives five
/// cells, against stand-in peers (the real programs' exchange is over a
/// millisecond after their lines, too soon to catch): `<name>_client_dies`
/// (connects and closes before any data), `_server_dies` (accepts and
/// closes), `_garbage_then_close` (a short message and a close),
/// `_garbage_struct` (a whole struct of 0xff bytes from a peer that stays)
/// and `_silent_client` (connects and says nothing: the side channel's 60 s
/// bound, in one VM).
#[derive(Debug)]
pub struct SideChannel {
    /// The program, as the cells' names start.
    pub name: &'static str,
    /// Its workspace package.
    pub package: &'static str,
    /// Its server.
    pub server: Cmd,
    /// Its client.
    pub client: Cmd,
    /// The side channel's TCP port.
    pub port: &'static str,
    /// The bytes of the struct the client sends first.
    pub struct_len: &'static str,
    /// The bytes of the short message.
    pub short_len: &'static str,
    /// The server's line when its peer leaves before the struct is whole.
    pub peer_left: &'static str,
    /// The server's line for a struct of 0xff bytes.
    pub bad_struct: &'static str,
    /// The server's line when its peer says nothing.
    pub silence: &'static str,
    /// The client's line when its server leaves before the struct is whole.
    pub server_left: &'static str,
}

impl SideChannel {
    /// The five cells.
    pub fn cells(&self) -> Vec<Scenario> {
        let peer = |mode: &str, len: &str| {
            let args = [
                "-c",
                SIDE_CHANNEL_PEER,
                "bash",
                "{server_ip}",
                self.port,
                mode,
                len,
            ];
            Cmd::new("bash", &args)
        };
        let ready = Ready::TcpListen(self.port.parse().unwrap_or_default());
        let against = |suffix: &str, mode, len, fault, error: &str| Scenario {
            name: format!("{}_{suffix}", self.name),
            package: self.package,
            server: Some(self.server.clone()),
            client: Some(peer(mode, len)),
            ready,
            server_expect: Expect::fails(&[error]).within(15),
            fault: Some(fault),
            ..Scenario::BASE
        };
        vec![
            against(
                "client_dies",
                "close",
                "",
                Fault::PeerKilled,
                self.peer_left,
            ),
            Scenario {
                name: format!("{}_server_dies", self.name),
                package: self.package,
                server: Some(Cmd::new(
                    "python3",
                    &["-c", ACCEPT_AND_CLOSE, "{server_ip}", self.port],
                )),
                client: Some(self.client.clone()),
                ready,
                server_expect: Expect::ok(&["accepted", "closed"]),
                client_expect: Expect::fails(&[self.server_left]).within(15),
                fault: Some(Fault::PeerKilled),
                ..Scenario::BASE
            },
            against(
                "garbage_then_close",
                "short",
                self.short_len,
                Fault::BadPeer,
                self.peer_left,
            ),
            against(
                "garbage_struct",
                "ones",
                self.struct_len,
                Fault::BadPeer,
                self.bad_struct,
            ),
            Scenario {
                server_expect: Expect::fails(&[self.silence]).within(80),
                timeout_secs: 90,
                placement: Placement::OneHost,
                ..against("silent_client", "silent", "", Fault::SilentPeer, "")
            },
        ]
    }
}

/// `sh -c MEMLOCKED sh PROGRAM ARGS`: the program without CAP_IPC_LOCK and
/// with a locked-memory limit of 0, so that its first memory registration
/// fails (EPERM, as the kernel answers for a limit of 0), as on a host or
/// in a container whose `ulimit -l` is too low.
pub const MEMLOCKED: &str = "exec setpriv --bounding-set=-ipc_lock --inh-caps=-ipc_lock \
                             sh -c 'ulimit -l 0 && exec \"$@\"' sh \"$@\"";

/// The one line a failed registration must end in: the `ulimit -l` hint
/// (EPERM's, as the kernel answers for a limit of 0; ENOMEM's says the
/// limit may be too low).
pub const MEMLOCK_HINT: &str = "*(hint: memory registration pins pages, and this process may \
                                 pin none: raise `ulimit -l` (it is 0?) or grant CAP_IPC_LOCK)";

/// `python3 -c ACCEPT_AND_CLOSE ADDR PORT`: a stand-in server of a TCP
/// side channel that accepts one client, reads what it sends at once, and
/// closes without a word: a server gone once connected, before any data
/// (the real ones are too quick to kill there).
pub const ACCEPT_AND_CLOSE: &str = "import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(1)
c, _ = s.accept()
print('accepted', flush=True)
c.settimeout(1)
try:
    c.recv(4096)
except OSError:
    pass
c.close()
print('closed')";

/// `sh -c PAST_MAX_MSG_SZ sh PROGRAM ARGS`: the program with `-l` one
/// byte past the largest message the port carries, as `ibv_devinfo` reports
/// it (8 MiB on older kernels' Soft-RoCE, 2 GiB on newer ones, past what
/// `-l` takes at all).
pub const PAST_MAX_MSG_SZ: &str = r#"m=$(ibv_devinfo -v -d {dev} -i {ib_port} | awk '$1 == "max_msg_sz:" { print $2; exit }')
echo "port max_msg_sz $((m))"
exec "$@" -l $((m + 1))"#;

/// A limits cell: `args` (`-c`, [`PAST_MAX_MSG_SZ`], `sh`, the program and
/// its arguments, without `-l`) refused at once, in the one line
/// [`past_max_msg_sz`] names.
pub fn past_max_msg_sz_cell(name: &str, package: &'static str, args: &[&str]) -> Scenario {
    Scenario {
        verify: Some(past_max_msg_sz),
        ..refused_sh(
            name,
            package,
            Fault::Limits,
            args,
            Expect::fails_one_of(&[
                "-l * is longer than the largest message the port carries (max_msg_sz *): \
                 give a smaller -l",
                "*: invalid value '2147483649' for -l (expected 1..2147483647)",
            ])
            .within(crate::model::AT_ONCE_SECS),
        )
    }
}

/// The line a [`PAST_MAX_MSG_SZ`] run must end in, by the limit it names:
/// the port's, where `-l` can be one past it, and otherwise `-l`'s own.
pub(crate) fn past_max_msg_sz(o: &Outcome) -> Vec<String> {
    let Some(side) = [&o.server, &o.client]
        .into_iter()
        .flatten()
        .find(|s| s.stdout.lines().any(|l| l.starts_with("port max_msg_sz ")))
    else {
        return vec!["no side printed the port's max_msg_sz".into()];
    };
    let m: u64 = side
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("port max_msg_sz "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    let want = if m < i32::MAX as u64 {
        format!(
            "-l {} is longer than the largest message the port carries (max_msg_sz {m}): \
             give a smaller -l",
            m + 1
        )
    } else {
        format!(
            "*: invalid value '{}' for -l (expected 1..2147483647)",
            m + 1
        )
    };
    if has_line(&side.stderr, &want) {
        Vec::new()
    } else {
        vec![format!(
            "stderr has no line matching `{want}`: {}",
            side.stderr
        )]
    }
}

/// The one line srq and apm end in under [`MEMLOCKED`]: they check the
/// limit before they open a device.
pub const MEMLOCK_REFUSED: &str = "-l * needs * KiB of locked memory for its two buffers, and \
                                   `ulimit -l` is 0 KiB: raise it, grant CAP_IPC_LOCK, or give \
                                   a smaller -l";

/// The fault matrix's `ulimit -l` cells: one side run under [`MEMLOCKED`]
/// (`args` start with `-c`, `MEMLOCKED`, `sh`), which must fail at once
/// with the hint, in one line.
pub fn memlocked(name: &str, package: &'static str, args: &[&str]) -> Scenario {
    refused_sh(
        name,
        package,
        Fault::Memlock,
        args,
        Expect::fails(&[MEMLOCK_HINT]).within(15),
    )
}

/// A [`refused`] cell whose one side is `sh` with `args` (a wrapper script,
/// then the program and its arguments), expected to do what `expect` says.
pub(crate) fn refused_sh(
    name: &str,
    package: &'static str,
    fault: Fault,
    args: &[&str],
    expect: Expect,
) -> Scenario {
    Scenario {
        server: Some(Cmd::new("sh", args)),
        server_expect: expect,
        ..refused(name, package, fault, &[], &[])
    }
}

/// A cell of one program that is refused at once, before it would wait
/// for any peer: `argv` (the program and its arguments) must fail within
/// 5 s, in one line matching `error`. Not about the wire: one VM (see
/// [`Placement::OneHost`]).
pub fn refused(
    name: &str,
    package: &'static str,
    fault: Fault,
    argv: &[&'static str],
    error: &[&str],
) -> Scenario {
    let (program, args) = match argv {
        [program, args @ ..] => (*program, args),
        [] => ("", argv),
    };
    Scenario {
        name: name.to_string(),
        package,
        server: Some(Cmd::new(program, args)),
        server_expect: Expect::fails(error).within(crate::model::AT_ONCE_SECS),
        fault: Some(fault),
        placement: Placement::OneHost,
        ..Scenario::BASE
    }
}

/// The summaries of a 100 x 4096 B ping-pong (`ibv_rc_pingpong -n 100`
/// and ibv_sockets_pingpong with `-n 100 -s 4096`), read with the bench's
/// parser: both sides moved it all, at a rate.
pub(crate) fn pingpong_summaries(o: &Outcome) -> Vec<String> {
    let mut failures = Vec::new();
    for (side, out) in [("server", &o.server), ("client", &o.client)] {
        match bench::parse_summary(stdout_of(out)) {
            None => failures.push(format!("{side}: no summary lines")),
            Some(s) if (s.bytes, s.iters) != (819_200, 100) => failures.push(format!(
                "{side}: summary of {s:?}, expected 819200 B in 100 iters"
            )),
            Some(s) if s.usec_per_iter <= 0.0 || s.mbit_per_sec <= 0.0 => {
                failures.push(format!("{side}: summary without a rate: {s:?}"))
            }
            Some(_) => {}
        }
    }
    failures
}

/// What sends a packet or message again (the ladder's `(resent)`): never
/// the program. An RC packet is the requester's transport's, a CM message
/// its CM's, a TCP segment its kernel's. They come before any other
/// cause, since a resent SEND matches the SEND's own.
pub const RESENT_CAUSES: &[Cause] = &[
    Cause {
        from: Side::Server,
        label: "CM * (resent)",
        call: "the server's CM, sending its message again when no answer came in time (the same \
            transaction ID): no verb call",
    },
    Cause {
        from: Side::Client,
        label: "CM * (resent)",
        call: "the client's CM, sending its message again when no answer came in time (the same \
            transaction ID): no verb call",
    },
    Cause {
        from: Side::Server,
        label: "TCP * (resent)",
        call: "the server's kernel, sending a TCP segment again that was not acknowledged in time",
    },
    Cause {
        from: Side::Client,
        label: "TCP * (resent)",
        call: "the client's kernel, sending a TCP segment again that was not acknowledged in time",
    },
    Cause {
        from: Side::Server,
        label: "RC * (resent)",
        call: "the server's transport, sending again what was not acknowledged: after a NAK \
            (go-back-N from the PSN it names), or when the QP's ACK timeout ran out with no NAK \
            at all (a slow emulated host's late ACK): no verb call",
    },
    Cause {
        from: Side::Client,
        label: "RC * (resent)",
        call: "the client's transport, sending again what was not acknowledged: after a NAK \
            (go-back-N from the PSN it names), or when the QP's ACK timeout ran out with no NAK \
            at all (a slow emulated host's late ACK): no verb call",
    },
];

/// What sends the packets that every example's connection has alike: the
/// rdma_cm's messages, the transport's acknowledgements, the kernel's ARP
/// and IGMP. The ladder names these where a scenario declares nothing
/// closer (its `causes` come first).
pub const COMMON_CAUSES: &[Cause] = &[
    Cause {
        from: Side::Client,
        label: "CM ConnectRequest*",
        call: "rdma_connect: the client's CM sends a REQ",
    },
    Cause {
        from: Side::Server,
        label: "CM ConnectReply*",
        call: "rdma_accept: the server's CM sends a REP",
    },
    Cause {
        from: Side::Client,
        label: "CM ReadyToUse*",
        call: "the client's CM, once the REP came: an RTU, and the connection is established",
    },
    Cause {
        from: Side::Client,
        label: "CM DisconnectRequest*",
        call: "rdma_disconnect on the client: a DREQ",
    },
    Cause {
        from: Side::Server,
        label: "CM DisconnectRequest*",
        call: "rdma_disconnect on the server: a DREQ",
    },
    Cause {
        from: Side::Server,
        label: "CM DisconnectReply*",
        call: "the server's CM, answering the DREQ: a DREP",
    },
    Cause {
        from: Side::Client,
        label: "CM DisconnectReply*",
        call: "the client's CM, answering the DREQ: a DREP",
    },
    Cause {
        from: Side::Server,
        label: "RC Acknowledge*",
        call: "the server's transport, acknowledging what it received: no verb call",
    },
    Cause {
        from: Side::Client,
        label: "RC Acknowledge*",
        call: "the client's transport, acknowledging what it received: no verb call",
    },
    Cause {
        from: Side::Server,
        label: "CM ConnectReject*",
        call: "the server's CM, refusing the connection: rdma_reject, or no listener on that port",
    },
    Cause {
        from: Side::Client,
        label: "CM ConnectReject*",
        call:
            "the client's CM, giving the connection up: its rdma_connect found no reply in time, \
            or was torn down",
    },
    Cause {
        from: Side::Server,
        label: "ARP*",
        call: "the server's kernel, resolving the peer's Ethernet address",
    },
    Cause {
        from: Side::Client,
        label: "ARP*",
        call: "the client's kernel, resolving the peer's Ethernet address",
    },
    Cause {
        from: Side::Server,
        label: "IGMP join*",
        call: "the server's kernel, reporting the group that rdma_join_multicast joined",
    },
    Cause {
        from: Side::Client,
        label: "IGMP join*",
        call: "the client's kernel, reporting the group that rdma_join_multicast joined",
    },
    Cause {
        from: Side::Server,
        label: "IGMP leave*",
        call: "the server's kernel, once rdma_leave_multicast left the group",
    },
    Cause {
        from: Side::Client,
        label: "IGMP leave*",
        call: "the client's kernel, once rdma_leave_multicast left the group",
    },
];
