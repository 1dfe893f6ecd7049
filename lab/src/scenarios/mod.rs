//! The scenarios, declared once as data: the lab's PASS/FAIL summary and the
//! Soft-RoCE tests both judge runs with [`check`] against this table.

/// One run of a server side and/or a client side, with what each must print.
#[derive(Debug)]
pub struct Scenario {
    /// Unique name; also the stem of the result files.
    pub name: String,
    /// Workspace package whose binaries the scenario needs ("" = none).
    pub package: &'static str,
    /// Started first, in the background (in VM A in two-host mode).
    pub server: Option<Cmd>,
    /// Started once the server is ready (in VM B in two-host mode).
    pub client: Option<Cmd>,
    /// How to tell that the server accepts connections.
    pub ready: Ready,
    /// What the server side must do.
    pub server_expect: Expect,
    /// What the client side must do.
    pub client_expect: Expect,
    /// Limit for each side, enforced with `timeout` (exit 124).
    pub timeout_secs: u32,
    /// A main example pair that `cargo xtask lab` runs by default; test-only
    /// scenarios (error paths, independent peers) are `false`.
    pub pair: bool,
    /// The server runs until told to stop: send it SIGTERM once the client
    /// side is done (its expected exit status is then the clean-stop one).
    pub stop_server: bool,
    /// What the expectations above cannot say.
    pub verify: Option<Verify>,
    /// Where it may run: anywhere, or on one host only, or in the lab's
    /// VMs only.
    pub placement: Placement,
    /// It is about a RoCE (Ethernet) port, such as the GID a program picks
    /// itself: a device whose port is InfiniBand cannot run it, and the
    /// lab reports it as skipped there.
    pub roce_only: bool,
    /// Distribution packages its commands need beyond the lab's own (a
    /// firewall tool, say): installed, where missing, before a run that
    /// has it.
    pub packages: &'static [&'static str],
    /// The fault matrix's row, for a scenario that is one of its cells
    /// (`cargo xtask lab --faults` runs those, and the summary groups them).
    pub fault: Option<Fault>,
    /// What the pair must show on the wire between two hosts: checked on
    /// the capture of every two-host run that records one.
    pub wire: &'static [Wire],
    /// A "try this" exercise of the handout: what a student is asked to
    /// try, shown with this scenario's command and what it really printed.
    pub try_this: Option<&'static str>,
    /// The most memory one of its processes registers, in KiB, where that
    /// is more than a few pages: what the doctor holds `ulimit -l` against.
    pub locked_kib: u64,
}

/// Where a scenario may run: in which of the lab's modes (one VM, two
/// VMs, `--local` on one host or across two) the lab runs it, and where it
/// reports it as skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Every mode.
    Anywhere,
    /// One host: a fault that is not about the wire (a silent peer that
    /// waits out a bound, a program refused before it needs any peer,
    /// `ulimit -l`). The Soft-RoCE suite runs it in one VM only, and
    /// `--local` across two hosts skips it.
    OneHost,
    /// The lab's VMs, one or two, never `--local`: it changes the machine
    /// it runs on (removes a device, adds a firewall rule) or runs the lab
    /// itself.
    Vms,
    /// The lab's one VM only: both of the above.
    OneVm,
    /// The lab's two VMs only: it changes the machine and needs two hosts
    /// (the doctor's path between them).
    TwoVms,
}

impl Placement {
    /// Whether it is about one host, not the wire.
    pub fn one_host(self) -> bool {
        matches!(self, Placement::OneHost | Placement::OneVm)
    }

    /// Whether it needs two hosts.
    pub fn two_hosts(self) -> bool {
        self == Placement::TwoVms
    }

    /// Whether it runs in the lab's VMs only.
    pub fn vms_only(self) -> bool {
        matches!(self, Placement::Vms | Placement::OneVm | Placement::TwoVms)
    }
}

/// A fact about a pair's packets between two hosts (see [`crate::capture`]).
/// `what` is a pattern (`*` is a wildcard) on Wireshark's name of the
/// packet: `RC Send Only`, `RC RDMA Read Request`, `CM ConnectRequest`,
/// `UD Send Only Immediate`, `TCP`...
#[derive(Debug, Clone, Copy)]
pub enum Wire {
    /// Exactly `n` such packets from `from`, each standing for `len` bytes
    /// of message when given (its payload, or a Read Request's DMA length).
    Count {
        /// Sender.
        from: Side,
        /// Packet name pattern.
        what: &'static str,
        /// How many.
        n: usize,
        /// Message bytes of each.
        len: Option<usize>,
    },
    /// Some such packet from `from` carries `text` in its payload.
    Carries {
        /// Sender.
        from: Side,
        /// Packet name pattern.
        what: &'static str,
        /// The bytes to find.
        text: &'static str,
    },
    /// Such packets from `from` go to exactly `n` destination QPs.
    Qps {
        /// Sender.
        from: Side,
        /// Packet name pattern.
        what: &'static str,
        /// Distinct destination QP numbers.
        n: usize,
    },
    /// These packets come in this order (others may come between).
    InOrder(&'static [(Side, &'static str)]),
    /// Every packet matching one of `what` that has a RETH targets the
    /// address and rkey that `by` sent over TCP in its `msg_len`-byte
    /// message (a big-endian u64 at `addr_at`, a u32 at `rkey_at`): so an
    /// address above 4 GiB is carried whole.
    TargetsAdvertised {
        /// Packet name patterns.
        what: &'static [&'static str],
        /// Who advertised the buffer.
        by: Side,
        /// The side-channel message's length.
        msg_len: usize,
        /// Offset of the address in it.
        addr_at: usize,
        /// Offset of the rkey in it.
        rkey_at: usize,
    },
    /// The first such packet from `from` has private data that begins with
    /// these bytes.
    PrivateData {
        /// Sender.
        from: Side,
        /// Packet name pattern.
        what: &'static str,
        /// The bytes it begins with.
        begins: &'static [u8],
    },
    /// Every such packet from `from` goes to this IPv4 address.
    To {
        /// Sender.
        from: Side,
        /// Packet name pattern.
        what: &'static str,
        /// Destination address.
        addr: &'static str,
    },
    /// Every such packet from `from` goes to the QP that the peer's first
    /// CM ConnectRequest connected (its Local QPN): connection 0.
    ToFirstConnection {
        /// Sender.
        from: Side,
        /// Packet name pattern.
        what: &'static str,
    },
    /// `from` reports joining this multicast group (IGMP).
    Joins {
        /// The host that joins.
        from: Side,
        /// The group address.
        group: &'static str,
    },
}

/// The fault matrix's rows (issue 12's table), as the summary names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fault {
    /// A peer killed (SIGKILL) once connected, or mid-exchange.
    PeerKilled,
    /// SIGTERM or SIGINT while waiting for a peer, or mid-exchange.
    Signal,
    /// A peer that is there and says nothing.
    SilentPeer,
    /// A peer that sends the wrong thing: garbage, a short message and a
    /// close, a size that disagrees, more than was asked for.
    BadPeer,
    /// `ulimit -l` too low for the registration.
    Memlock,
    /// Values at and past the limits.
    Limits,
    /// A server address that nobody answers or that does not exist.
    Address,
    /// A device that is misnamed, or removed under the program.
    Device,
    /// A bad command line.
    CommandLine,
}

impl Fault {
    /// The row's name in the summary.
    pub fn label(self) -> &'static str {
        match self {
            Fault::PeerKilled => "peer killed",
            Fault::Signal => "SIGTERM/SIGINT",
            Fault::SilentPeer => "silent peer",
            Fault::BadPeer => "bad peer data",
            Fault::Memlock => "ulimit -l",
            Fault::Limits => "limits",
            Fault::Address => "address",
            Fault::Device => "device",
            Fault::CommandLine => "command line",
        }
    }
}

/// A command line; `args` may hold the placeholders `{server_ip}`,
/// `{client_ip}`, `{dev}`, `{gid_idx}` and `{ib_port}`. A `sh -c`/`bash -c`
/// script gets them as `${LAB_SERVER_IP}`... from the environment, never
/// pasted ([`Cmd::args_with`]): write them in the script as anywhere else.
#[derive(Debug, Clone)]
pub struct Cmd {
    /// A workspace binary (looked up in the build's bin dir first) or a
    /// system program found on PATH.
    pub program: &'static str,
    /// Arguments, before placeholder substitution.
    pub args: Vec<String>,
}

impl Cmd {
    /// `program` with these arguments.
    pub fn new(program: &'static str, args: &[&str]) -> Cmd {
        Cmd {
            program,
            args: owned(args),
        }
    }
}

/// Each of `lines`, owned.
pub fn owned(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|l| l.to_string()).collect()
}

/// Readiness condition of a server, polled with a deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ready {
    /// The TCP port is in LISTEN state in /proc/net/tcp{,6}. Connecting to
    /// probe it would consume the server's single accept.
    TcpListen(u16),
    /// An rdma_cm id listens on this port (`rdma res show cm_id`).
    RdmaCmListen(u16),
    /// A line matching this pattern appears in the server's stdout.
    Line(&'static str),
    /// Start the client at once.
    None,
}

/// Expected behaviour of one side.
#[derive(Debug, Clone)]
pub struct Expect {
    /// Exit status.
    pub exit: i32,
    /// Each pattern must match a whole stdout line (`*` is a wildcard),
    /// in this order: the program's flow is part of what is checked.
    pub stdout: Vec<String>,
    /// Each pattern must match some whole stderr line (`*` is a wildcard).
    pub stderr: Vec<String>,
    /// `(pattern, n)`: exactly `n` stdout lines match the pattern (0: none
    /// may). Counts say what order cannot: how many messages went each way.
    pub stdout_counts: Vec<(String, usize)>,
    /// The same for stderr.
    pub stderr_counts: Vec<(String, usize)>,
    /// Some stderr line must match one of these: a side whose peer dies
    /// meets that in whichever step it has reached, and each step says so
    /// in its own words.
    pub stderr_one_of: Vec<String>,
    /// How many lines stderr may have in all.
    pub stderr_lines: StderrLines,
    /// The side must have ended within this many seconds: a failure that
    /// is noticed at once, not when a timeout finally fires.
    pub within_secs: Option<u32>,
}

/// How many stderr lines a side may print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StderrLines {
    /// The project's promise, by exit status: none on success (0), one
    /// clear line on failure (1); other statuses (a killed process, another
    /// program's convention) are not checked.
    ByExit,
    /// Exactly this many.
    Exactly(usize),
    /// No more than this many: a server that survives a peer's death may
    /// say, in one line, that it dropped that connection.
    AtMost(usize),
    /// Any number: a program that is not ours, or a shell around several.
    Any,
}

impl Expect {
    /// Exit 0, no stderr line required, no stdout either: a side that does
    /// not run, or whose output does not matter.
    pub const NOTHING: Expect = Expect {
        exit: 0,
        stdout: Vec::new(),
        stderr: Vec::new(),
        stdout_counts: Vec::new(),
        stderr_counts: Vec::new(),
        stderr_one_of: Vec::new(),
        stderr_lines: StderrLines::ByExit,
        within_secs: None,
    };

    /// Exit 0 with these stdout lines.
    pub fn ok(stdout: &[&str]) -> Expect {
        Expect::exits(0, stdout, &[])
    }

    /// Exit 1 with these stderr lines.
    pub fn fails(stderr: &[&str]) -> Expect {
        Expect::exits(1, &[], stderr)
    }

    /// This exit status, these stdout lines in order, these stderr lines.
    pub fn exits(exit: i32, stdout: &[&str], stderr: &[&str]) -> Expect {
        Expect {
            exit,
            stdout: owned(stdout),
            stderr: owned(stderr),
            ..Expect::NOTHING
        }
    }

    /// With these stdout line counts.
    pub fn counts(self, stdout_counts: &[(&str, usize)]) -> Expect {
        Expect {
            stdout_counts: owned_counts(stdout_counts),
            ..self
        }
    }

    /// With these stderr line counts.
    pub fn stderr_counts(self, stderr_counts: &[(&str, usize)]) -> Expect {
        Expect {
            stderr_counts: owned_counts(stderr_counts),
            ..self
        }
    }

    /// Exit 1 with one stderr line, which matches one of `patterns`.
    pub fn fails_one_of(patterns: &[&str]) -> Expect {
        Expect {
            stderr_one_of: owned(patterns),
            ..Expect::fails(&[])
        }
    }

    /// With exactly one stderr line, whatever the exit status.
    pub fn one_error_line(self) -> Expect {
        Expect {
            stderr_lines: StderrLines::Exactly(1),
            ..self
        }
    }

    /// With at most one stderr line, whatever the exit status.
    pub fn at_most_one_error_line(self) -> Expect {
        Expect {
            stderr_lines: StderrLines::AtMost(1),
            ..self
        }
    }

    /// With any number of stderr lines (see [`StderrLines::Any`]).
    pub fn any_stderr(self) -> Expect {
        Expect {
            stderr_lines: StderrLines::Any,
            ..self
        }
    }

    /// Ending within `secs` seconds.
    pub fn within(self, secs: u32) -> Expect {
        Expect {
            within_secs: Some(secs),
            ..self
        }
    }
}

/// Each `(pattern, n)` of `counts`, owned.
fn owned_counts(counts: &[(&str, usize)]) -> Vec<(String, usize)> {
    counts.iter().map(|(p, n)| (p.to_string(), *n)).collect()
}

/// A check that data cannot say (pids that must match across sides, a
/// summary that must parse): every way the outcome falls short.
pub type Verify = fn(&Outcome) -> Vec<String>;

impl Scenario {
    /// The defaults a table entry fills in with `..Scenario::BASE`: no
    /// sides, no readiness check, nothing expected, 30 s, test-only, and a
    /// server that ends by itself.
    pub const BASE: Scenario = Scenario {
        name: String::new(),
        package: "",
        server: None,
        client: None,
        ready: Ready::None,
        server_expect: Expect::NOTHING,
        client_expect: Expect::NOTHING,
        timeout_secs: 30,
        pair: false,
        stop_server: false,
        verify: None,
        placement: Placement::Anywhere,
        roce_only: false,
        packages: &[],
        fault: None,
        wire: &[],
        try_this: None,
        locked_kib: 0,
    };
}

/// `sh -c SIGNAL_AT sh SIG LINE DELAY HOLD PROGRAM ARGS...`: runs the
/// program, passes its stdout on, sends it SIG DELAY seconds after it prints
/// a line that matches LINE (a shell pattern; the cells use `*` only, so
/// that it is also the glob their expectations check), then prints `exit N
/// after SIG` and exits with the program's status N. A program sent STOP is
/// held stopped for HOLD seconds, or until the wrapper gets SIGTERM, then
/// killed. The fault matrix's signals in a
/// given phase. (A shell starts background commands with SIGINT ignored;
/// `env` gives the program SIGINT's default action back, as a terminal's
/// Ctrl-C finds it.)
pub const SIGNAL_AT: &str = r#"sig=$1 line=$2 delay=$3 hold=$4; shift 4
f=$(mktemp -u); mkfifo $f
env --default-signal=INT "$@" >$f & p=$!
exec 3<$f
while IFS= read -r l <&3; do
  printf '%s\n' "$l"
  case $l in $line) [ "$delay" = 0 ] || sleep $delay; kill -$sig $p; break;; esac
done
[ $sig = STOP ] && { trap 'kill -KILL $p; kill $h' TERM; sleep $hold & h=$!; wait $h; kill -KILL $p 2>/dev/null; }
cat <&3
wait $p; s=$?; rm -f $f
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

/// SIGSTOP: the program stays, and its kernel objects with it, but it says
/// nothing more: a peer that is there and silent. [`SIGNAL_AT`] holds it
/// stopped until the other side is done, then kills it.
pub const SIGSTOP: Sig = Sig {
    name: "STOP",
    exit: 137,
    stderr: &[],
};

/// Which side of a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The server (or receiver).
    Server,
    /// The client (or sender).
    Client,
}

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
                server_expect: Expect::fails(&[self.silence]).within(70),
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
            .within(5),
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
        server_expect: Expect::fails(error).within(5),
        fault: Some(fault),
        placement: Placement::OneHost,
        ..Scenario::BASE
    }
}

/// What one side did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SideOutcome {
    /// Exit status; `None` when the side never produced a status (the agent
    /// did not get to it, or the VM died). 124 means `timeout` killed it.
    pub exit: Option<i32>,
    /// Wall time in milliseconds, when known.
    pub elapsed_ms: Option<u64>,
    /// Captured stdout.
    pub stdout: String,
    /// Captured stderr.
    pub stderr: String,
}

/// What a scenario run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The scenario's name.
    pub scenario: String,
    /// Server side, when the scenario has one.
    pub server: Option<SideOutcome>,
    /// Client side, when the scenario has one.
    pub client: Option<SideOutcome>,
    /// The user objects (`rdma res show` lines) the run left in the kernel
    /// once both sides had ended: none, for every scenario.
    pub leftover: String,
    /// Its packets between the two hosts, when the run recorded them.
    pub capture: Option<Vec<crate::capture::Packet>>,
}

// The lab's addresses and ports, which the scenarios' placeholders and
// the agents' control connection use.

/// Control port of the two-host lockstep; no example uses it.
pub const CONTROL_PORT: u16 = 7471;

/// The server side's address in the VMs (VM A's across two), on TEST-NET-1:
/// it never leaves this machine.
pub const SERVER_IP: &str = "192.0.2.1";
/// The client side's address in VM B across two VMs.
pub const CLIENT_IP: &str = "192.0.2.2";

/// Exit status of `timeout` when it had to kill the command.
pub const TIMED_OUT: i32 = 124;
// One file per example (and for the doctor's and the lab's own cells), in
// file-name order: a new file is declared here, in `TABLES`, and in the
// fault matrix's lists where it has their declarations (a test checks it).
mod apm;
pub mod bench;
mod doctor;
mod ibv_sockets_pingpong;
mod lab;
mod mckey;
mod peers;
mod rc_example;
mod rdmacm_client_server;
mod srq;

/// Each scenario file's table, in file-name order.
const TABLES: &[fn() -> Vec<Scenario>] = &[
    apm::scenarios,
    doctor::scenarios,
    ibv_sockets_pingpong::scenarios,
    lab::scenarios,
    mckey::scenarios,
    peers::scenarios,
    rc_example::scenarios,
    rdmacm_client_server::scenarios,
    srq::scenarios,
];

/// The files' [`Waiting`] declarations.
const WAITINGS: &[fn() -> Vec<Waiting>] = &[
    apm::waiting,
    ibv_sockets_pingpong::waiting,
    mckey::waiting,
    rc_example::waiting,
    rdmacm_client_server::waiting,
    srq::waiting,
];

/// The files' [`Kill`] declarations.
const KILLS: &[fn() -> Vec<Kill>] = &[
    apm::kills,
    ibv_sockets_pingpong::kills,
    mckey::kills,
    rc_example::kills,
    rdmacm_client_server::kills,
    srq::kills,
];

/// The files' [`SideChannel`] declarations.
const SIDE_CHANNELS: &[fn() -> Vec<SideChannel>] = &[
    ibv_sockets_pingpong::side_channels,
    rc_example::side_channels,
];

/// Every scenario, in table order, then the fault matrix's cells of every
/// [`Waiting`], [`Kill`] and [`SideChannel`] declaration.
pub fn build() -> Vec<Scenario> {
    let tables = TABLES.iter().flat_map(|t| t());
    let waiting = WAITINGS.iter().flat_map(|w| w()).flat_map(|w| w.cells());
    let kills = KILLS.iter().flat_map(|k| k()).flat_map(|k| k.cells());
    let side_channels = SIDE_CHANNELS
        .iter()
        .flat_map(|c| c())
        .flat_map(|c| c.cells());
    tables
        .chain(waiting)
        .chain(kills)
        .chain(side_channels)
        .collect()
}

/// [`build`]'s table, built once: every scenario of a run borrows from it.
pub fn all() -> &'static [Scenario] {
    static ALL: std::sync::OnceLock<Vec<Scenario>> = std::sync::OnceLock::new();
    ALL.get_or_init(build)
}

/// The bench's runs ([`bench::scenarios`]), built once.
pub fn bench_runs() -> &'static [Scenario] {
    static BENCH: std::sync::OnceLock<Vec<Scenario>> = std::sync::OnceLock::new();
    BENCH.get_or_init(bench::scenarios)
}

/// The scenario with this name.
pub fn find(name: &str) -> Option<&'static Scenario> {
    all().iter().chain(bench_runs()).find(|s| s.name == name)
}

/// The scenario of the doctor's probe between two hosts: one RC message.
pub const PROBE: &str = "doctor_rc_probe";

/// The most memory one process of `list` registers, in KiB, and which
/// scenario that is: what `ulimit -l` must allow (at least one page).
pub fn largest_registration<'a>(list: &[&'a Scenario]) -> (u64, &'a str) {
    list.iter()
        .map(|s| (s.locked_kib.max(4), s.name.as_str()))
        .max_by_key(|(kib, _)| *kib)
        .unwrap_or((4, "rc_example"))
}

/// The main example pairs, in table order.
pub fn pairs() -> impl Iterator<Item = &'static Scenario> {
    all().iter().filter(|s| s.pair)
}

/// The fault matrix's cells, of every example or of those named (by
/// package, or by the program that starts the cells' names: `mc`,
/// `rdmacm`), in table order; a name that selects nothing is an error.
pub fn faults(examples: &[&str]) -> Result<Vec<&'static Scenario>, String> {
    let of = |s: &Scenario, e: &str| {
        s.package == e
            || s.name
                .strip_prefix(e)
                .is_some_and(|rest| rest.starts_with('_'))
    };
    let cells = || all().iter().filter(|s| s.fault.is_some());
    if let Some(e) = examples.iter().find(|e| !cells().any(|s| of(s, e))) {
        return Err(format!("no fault cells for `{e}`"));
    }
    Ok(cells()
        .filter(|s| examples.is_empty() || examples.iter().any(|e| of(s, e)))
        .collect())
}

/// Resolves names (empty = every pair) to scenarios, or names the unknown one.
pub fn select(names: &[&str]) -> Result<Vec<&'static Scenario>, String> {
    if names.is_empty() {
        return Ok(pairs().collect());
    }
    names
        .iter()
        .map(|n| {
            find(n).ok_or_else(|| {
                let known: Vec<_> = all().iter().map(|s| s.name.as_str()).collect();
                format!("unknown scenario `{n}`; known: {}", known.join(", "))
            })
        })
        .collect()
}

/// Values for the placeholders of [`Cmd::args`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Params {
    /// `{server_ip}`.
    pub server_ip: String,
    /// `{client_ip}`: the client host's address (the server's, on one host).
    pub client_ip: String,
    /// `{dev}`.
    pub dev: String,
    /// `{gid_idx}`.
    pub gid_idx: u32,
    /// `{ib_port}`.
    pub ib_port: u32,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            server_ip: SERVER_IP.into(),
            client_ip: SERVER_IP.into(),
            dev: "rxe0".into(),
            gid_idx: 1,
            ib_port: 1,
        }
    }
}

/// Checks the value of `opt`, a device name: 1 to 64 characters of
/// `[A-Za-z0-9_.:-]`, as the kernel's RDMA and net device names are. The
/// name reaches command lines and scripts: nothing else gets that far.
pub fn check_dev(opt: &str, v: &str) -> Result<(), String> {
    let allowed = |b: u8| b.is_ascii_alphanumeric() || b"_.:-".contains(&b);
    if (1..=64).contains(&v.len()) && v.bytes().all(allowed) {
        Ok(())
    } else {
        // Debug quoting: the value itself may hold a newline.
        Err(format!(
            "{opt} {v:?}: a device name is 1 to 64 of A-Z a-z 0-9 _ . : -"
        ))
    }
}

/// Checks the value of `opt`, an IP address (v4 or v6).
pub fn check_ip(opt: &str, v: &str) -> Result<(), String> {
    match v.parse::<std::net::IpAddr>() {
        Ok(_) => Ok(()),
        Err(_) => Err(format!("{opt} {v:?}: not an IPv4 or IPv6 address")),
    }
}

/// Replaces the placeholders in one argument.
pub fn substitute(arg: &str, p: &Params) -> String {
    arg.replace("{server_ip}", &p.server_ip)
        .replace("{client_ip}", &p.client_ip)
        .replace("{dev}", &p.dev)
        .replace("{gid_idx}", &p.gid_idx.to_string())
        .replace("{ib_port}", &p.ib_port.to_string())
}

/// Each placeholder and the environment variable that carries its value
/// into a shell script ([`Cmd::args_with`], [`Params::env`]).
pub const PLACEHOLDER_VARS: &[(&str, &str)] = &[
    ("{server_ip}", "LAB_SERVER_IP"),
    ("{client_ip}", "LAB_CLIENT_IP"),
    ("{dev}", "LAB_DEV"),
    ("{gid_idx}", "LAB_GID_IDX"),
    ("{ib_port}", "LAB_IB_PORT"),
];

impl Params {
    /// The placeholders' values as the environment variables that
    /// [`Cmd::args_with`]'s scripts read; the agent runs every command with
    /// them.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        PLACEHOLDER_VARS
            .iter()
            .map(|(placeholder, var)| (*var, substitute(placeholder, self)))
            .collect()
    }
}

/// Where the shell is in a script, as far as expanding `${VAR}` goes.
#[derive(Clone, Copy, PartialEq)]
enum Quote {
    /// Unquoted: code, at the top or in `$(...)`, with its open `(`s.
    Code(usize),
    /// In `'...'`: nothing expands.
    Single,
    /// In `"..."`: `${VAR}` expands.
    Double,
}

/// `script` (a `sh -c`/`bash -c` script) with each placeholder replaced by
/// a reference to its variable ([`PLACEHOLDER_VARS`]), so no value is ever
/// parsed as shell code: `${LAB_DEV}` where the shell expands it, and
/// `'"${LAB_DEV}"'` inside single quotes, closed and reopened around it,
/// so that the script means what the pasted value meant. The quoting is
/// followed as far as the scenarios' scripts need: quotes, backslashes,
/// `$(...)` and comments (a heredoc's body, `$'...'` and backquotes are
/// taken as code; the table's test checks that every script ends unquoted).
pub fn script_with_env_refs(script: &str) -> String {
    script_refs(script).0
}

/// [`script_with_env_refs`], and whether the script ended unquoted.
fn script_refs(script: &str) -> (String, bool) {
    let mut out = String::with_capacity(script.len());
    let mut stack = vec![Quote::Code(0)];
    let mut rest = script;
    while let Some(c) = rest.chars().next() {
        let top = *stack.last().expect("the script's own level stays");
        if let Some((placeholder, var)) = PLACEHOLDER_VARS.iter().find(|(p, _)| rest.starts_with(p))
        {
            if top == Quote::Single {
                out += &format!("'\"${{{var}}}\"'");
            } else {
                out += &format!("${{{var}}}");
            }
            rest = &rest[placeholder.len()..];
            continue;
        }
        let mut take = c.len_utf8();
        match (top, c) {
            (Quote::Single, '\'') => {
                stack.pop();
            }
            (Quote::Single, _) => {}
            (Quote::Code(_) | Quote::Double, '\\') => {
                // The escaped character is taken with it.
                take += rest[1..].chars().next().map_or(0, char::len_utf8);
            }
            (Quote::Code(_) | Quote::Double, '$') if rest[1..].starts_with('(') => {
                take += 1;
                stack.push(Quote::Code(0));
            }
            (Quote::Double, '"') => {
                stack.pop();
            }
            (Quote::Double, _) => {}
            (Quote::Code(_), '\'') => stack.push(Quote::Single),
            (Quote::Code(_), '"') => stack.push(Quote::Double),
            (Quote::Code(n), '(') => *stack.last_mut().expect("not empty") = Quote::Code(n + 1),
            (Quote::Code(0), ')') if stack.len() > 1 => {
                stack.pop();
            }
            (Quote::Code(n), ')') => {
                *stack.last_mut().expect("not empty") = Quote::Code(n.saturating_sub(1));
            }
            (Quote::Code(_), '#')
                if out.ends_with(|p: char| p.is_whitespace() || p == ';') || out.is_empty() =>
            {
                // A comment, to the end of its line.
                take = rest.find('\n').unwrap_or(rest.len());
            }
            (Quote::Code(_), _) => {}
        }
        out += &rest[..take];
        rest = &rest[take..];
    }
    (out, stack == [Quote::Code(0)])
}

impl Cmd {
    /// The arguments with placeholders replaced, to run: the values pasted
    /// into a program's own arguments, but a `sh -c`/`bash -c` script gets
    /// references to the variables of [`Params::env`] instead, so a value
    /// is never shell code.
    pub fn args_with(&self, p: &Params) -> Vec<String> {
        let shell = matches!(self.program, "sh" | "bash");
        let script = shell
            .then(|| self.args.iter().position(|a| *a == "-c"))
            .flatten()
            .map(|c| c + 1);
        self.args
            .iter()
            .enumerate()
            .map(|(i, a)| {
                if Some(i) == script {
                    script_with_env_refs(a)
                } else {
                    substitute(a, p)
                }
            })
            .collect()
    }

    /// The arguments with every placeholder replaced by its value, scripts
    /// too: what a reader would type (the handout), never run.
    pub fn args_shown(&self, p: &Params) -> Vec<String> {
        self.args.iter().map(|a| substitute(a, p)).collect()
    }
}

/// Whole-string glob match where `*` matches any run of characters.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() || !text.ends_with(last) {
        return false;
    }
    // Greedy leftmost matching of the middle parts is enough for `*` only.
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

/// Whether some line of `text` (trailing whitespace ignored) matches.
pub fn has_line(text: &str, pattern: &str) -> bool {
    text.lines().any(|l| glob_match(pattern, l.trim_end()))
}

/// The lab's addresses, for expected lines that name a side's address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Addrs {
    /// The server side's address (`{server_ip}`, `{server_ip_hex}`).
    pub server_ip: String,
    /// The client side's address (`{client_ip}`, `{client_ip_hex}`).
    pub client_ip: String,
}

/// `pattern` with the address placeholders filled in; `None` when it names
/// an address and none is known (a real fabric's GIDs need not carry the
/// IPv4 address, so such a line is not checked there).
pub fn expand(pattern: &str, addrs: Option<&Addrs>) -> Option<String> {
    let names_addr = |p: &str| p.contains("{server_ip") || p.contains("{client_ip");
    if !names_addr(pattern) {
        return Some(pattern.to_string());
    }
    // An IPv4-mapped GID prints the address as bytes: 192.0.2.2 is c0:00:02:02.
    let hex = |ip: &str| {
        ip.split('.')
            .map(|o| format!("{:02x}", o.parse::<u8>().unwrap_or(0)))
            .collect::<Vec<_>>()
            .join(":")
    };
    let filled = match addrs {
        Some(a) => pattern
            .replace("{server_ip_hex}", &hex(&a.server_ip))
            .replace("{client_ip_hex}", &hex(&a.client_ip))
            .replace("{server_ip}", &a.server_ip)
            .replace("{client_ip}", &a.client_ip),
        None => pattern.to_string(),
    };
    (!names_addr(&filled)).then_some(filled)
}

/// The number of lines of `text` (trailing whitespace ignored) that match.
pub fn count(text: &str, pattern: &str) -> usize {
    text.lines()
        .filter(|l| glob_match(pattern, l.trim_end()))
        .count()
}

/// A side's stdout, or "" when it did not run.
pub fn stdout_of(side: &Option<SideOutcome>) -> &str {
    side.as_ref().map_or("", |s| s.stdout.as_str())
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

fn check_side(
    label: &str,
    expect: &Expect,
    side: Option<&SideOutcome>,
    timeout_secs: u32,
    addrs: Option<&Addrs>,
    failures: &mut Vec<String>,
) {
    let Some(side) = side else {
        failures.push(format!("{label}: no result (never ran, or the VM died)"));
        return;
    };
    match side.exit {
        None => failures.push(format!("{label}: no exit status (killed with the VM?)")),
        Some(TIMED_OUT) if expect.exit != TIMED_OUT => failures.push(format!(
            "{label}: timed out after {timeout_secs} s (exit 124)"
        )),
        Some(code) if code != expect.exit => failures.push(format!(
            "{label}: exit status {code}, expected {}",
            expect.exit
        )),
        Some(_) => {}
    }
    if let Some(secs) = expect.within_secs {
        match side.elapsed_ms {
            Some(ms) if ms < u64::from(secs) * 1000 => {}
            Some(ms) => failures.push(format!(
                "{label}: took {:.1} s, must end within {secs} s",
                ms as f64 / 1000.0
            )),
            None => failures.push(format!("{label}: no run time, must end within {secs} s")),
        }
    }
    let expanded =
        |ps: &[String]| -> Vec<String> { ps.iter().filter_map(|p| expand(p, addrs)).collect() };
    let stdout = expanded(&expect.stdout);
    let stdout: Vec<&str> = stdout.iter().map(String::as_str).collect();
    failures.extend(
        missing_in_order(&side.stdout, &stdout)
            .into_iter()
            .map(|f| format!("{label}: stdout {f}")),
    );
    for p in expanded(&expect.stderr) {
        if !has_line(&side.stderr, &p) {
            failures.push(format!("{label}: stderr has no line matching `{p}`"));
        }
    }
    let one_of = expanded(&expect.stderr_one_of);
    if !one_of.is_empty() && !one_of.iter().any(|p| has_line(&side.stderr, p)) {
        failures.push(format!(
            "{label}: stderr has no line matching any of `{}`",
            one_of.join("`, `")
        ));
    }
    let want_lines = match (expect.stderr_lines, expect.exit) {
        (StderrLines::Exactly(n), _) => Some(n),
        (StderrLines::ByExit, 0) => Some(0),
        (StderrLines::ByExit, 1) => Some(1),
        _ => None,
    };
    let got_lines = side.stderr.lines().count();
    if let StderrLines::AtMost(n) = expect.stderr_lines {
        if got_lines > n {
            failures.push(format!(
                "{label}: stderr has {got_lines} lines, expected at most {n}"
            ));
        }
    }
    if want_lines.is_some_and(|n| n != got_lines) {
        failures.push(format!(
            "{label}: stderr has {got_lines} lines, expected {}",
            want_lines.unwrap_or_default()
        ));
    }
    for (stream, text, counts) in [
        ("stdout", &side.stdout, &expect.stdout_counts),
        ("stderr", &side.stderr, &expect.stderr_counts),
    ] {
        for (p, want) in counts {
            let Some(p) = expand(p, addrs) else { continue };
            let got = count(text, &p);
            if got != *want {
                failures.push(format!(
                    "{label}: {stream} has {got} lines matching `{p}`, expected {want}"
                ));
            }
        }
    }
}

/// The patterns that do not match lines of `text` in the given order: each
/// must match a line after the one the previous pattern matched.
pub fn missing_in_order(text: &str, patterns: &[&str]) -> Vec<String> {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let mut failures = Vec::new();
    let mut next = 0;
    let mut prev: Option<&str> = None;
    for p in patterns {
        match lines[next..].iter().position(|l| glob_match(p, l)) {
            Some(i) => {
                next += i + 1;
                prev = Some(p);
            }
            None => failures.push(match prev {
                Some(prev) if has_line(text, p) => {
                    format!("has `{p}` only before `{prev}`, not after it")
                }
                _ => format!("has no line matching `{p}`"),
            }),
        }
    }
    failures
}

/// Every way `outcome` falls short of `scenario` when run with these
/// addresses (`None`: unknown, see [`expand`]); empty means PASS.
pub fn check(scenario: &Scenario, outcome: &Outcome, addrs: Option<&Addrs>) -> Vec<String> {
    let mut failures = Vec::new();
    for (label, cmd, expect, side) in [
        (
            "server",
            &scenario.server,
            &scenario.server_expect,
            &outcome.server,
        ),
        (
            "client",
            &scenario.client,
            &scenario.client_expect,
            &outcome.client,
        ),
    ] {
        if cmd.is_some() {
            check_side(
                label,
                expect,
                side.as_ref(),
                scenario.timeout_secs,
                addrs,
                &mut failures,
            );
        }
    }
    if let Some(verify) = scenario.verify {
        failures.extend(verify(outcome));
    }
    if let (Some(packets), Some(addrs)) = (&outcome.capture, addrs) {
        failures.extend(crate::capture::check(scenario.wire, packets, addrs));
    }
    if let Some(first) = outcome.leftover.lines().next() {
        failures.push(format!(
            "left {} object(s) in the kernel after both sides ended, first: {first}",
            outcome.leftover.lines().count()
        ));
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::rc_example::{rc_client, RC_CLIENT_STDOUT, RC_SERVER_STDOUT};
    use super::*;

    #[test]
    fn every_scenario_file_is_declared_with_its_tables() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/scenarios");
        let this = std::fs::read_to_string(dir.join("mod.rs")).unwrap();
        let mut seen = 0;
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let file = e.file_name().to_string_lossy().into_owned();
            let Some(name) = file.strip_suffix(".rs").filter(|n| *n != "mod") else {
                continue;
            };
            seen += 1;
            let text = std::fs::read_to_string(e.path()).unwrap();
            assert!(this.contains(&format!("mod {name};\n")), "mod {name};");
            for item in ["scenarios", "waiting", "kills", "side_channels"] {
                // The bench's runs are chained after every other table.
                let declared = text.contains(&format!("pub fn {item}() -> Vec<"))
                    && (name, item) != ("bench", "scenarios");
                let listed = [",", "]"]
                    .iter()
                    .any(|end| this.contains(&format!("{name}::{item}{end}")));
                assert_eq!(declared, listed, "{name}::{item}");
            }
        }
        assert_eq!(seen, TABLES.len() + 1);
    }
    use std::collections::HashSet;

    fn side(exit: i32, stdout: &str, stderr: &str) -> SideOutcome {
        SideOutcome {
            exit: Some(exit),
            elapsed_ms: Some(10),
            stdout: stdout.into(),
            stderr: stderr.into(),
        }
    }

    /// The multicast route cells expect what the code says: each sender's
    /// line ends in the hint (and runs without -b), each doctor cell's
    /// pattern matches the finding on a recorded `ip route get` answer,
    /// and the healthy doctor's line the judgement of the lab's route.
    #[test]
    fn the_multicast_route_cells_expect_the_hint_and_the_findings() {
        let hint = format!(
            "(hint: {})",
            crate::hints::mcast_no_rdma_route(crate::hints::EXAMPLES_GROUP)
        );
        for name in [
            "mckey_no_mcast_route",
            "mc_no_mcast_route",
            "mckey_mcast_route_elsewhere",
            "mc_mcast_route_elsewhere",
        ] {
            let s = find(name).unwrap();
            let [line] = &s.server_expect.stderr[..] else {
                panic!("{name}: one error line")
            };
            assert!(line.ends_with(&hint), "{name}: {line}");
            let args = &s.server.as_ref().unwrap().args;
            assert!(
                args.iter().any(|a| a == "-s") && !args.iter().any(|a| a == "-b"),
                "{name}"
            );
        }
        let links = [("rxe0".to_string(), 1, "d0".to_string())];
        let judge = |answer: &str| {
            crate::doctor::judge_mcast_route(
                "239.255.1.1",
                &crate::doctor::mcast_route(answer),
                "d0",
                "rxe0",
                &links,
            )
        };
        for (name, answer) in [
            (
                "doctor_no_mcast_route",
                "RTNETLINK answers: Network is unreachable\n",
            ),
            (
                "doctor_mcast_route_elsewhere",
                "multicast 239.255.1.1 dev d8 src 198.51.100.8 uid 0 \\    cache <mc> \n",
            ),
        ] {
            let finding = judge(answer).unwrap_err();
            let [pattern] = &find(name).unwrap().server_expect.stderr[..] else {
                panic!("{name}: one finding")
            };
            assert!(glob_match(pattern, &finding), "{name}: {finding}");
        }
        let healthy = judge("multicast 239.255.1.1 dev d0 src 192.0.2.1 uid 0 \n").unwrap();
        assert!(
            find("doctor_healthy")
                .unwrap()
                .server_expect
                .stdout
                .contains(&healthy),
            "{healthy}"
        );
    }

    fn good_rc() -> Outcome {
        let server = RC_SERVER_STDOUT
            .iter()
            .map(|p| p.replace('*', "1"))
            .collect::<Vec<_>>()
            .join("\n");
        let client = RC_CLIENT_STDOUT.join("\n");
        Outcome {
            scenario: "rc_example".into(),
            leftover: String::new(),
            capture: None,
            server: Some(side(0, &server, "")),
            client: Some(side(0, &client, "")),
        }
    }

    #[test]
    fn glob() {
        assert!(glob_match("abc", "abc"));
        assert!(!glob_match("abc", "abcd"));
        assert!(!glob_match("abc", "xabc"));
        assert!(glob_match("found * device(s)", "found 1 device(s)"));
        assert!(!glob_match("found * device(s)", "found 1 device(s) more"));
        assert!(glob_match("*", ""));
        assert!(glob_match("a*", "a"));
        assert!(glob_match(
            "*IB device x wasn't found*",
            "error: IB device x wasn't found!"
        ));
        assert!(glob_match(
            "MR was registered with addr=*, lkey=*, rkey=*, flags=0x7",
            "MR was registered with addr=0x55, lkey=0x1, rkey=0x2, flags=0x7"
        ));
        assert!(!glob_match("a*b*c", "acb"));
        assert!(
            !glob_match("ab*ba", "aba"),
            "prefix and suffix must not overlap"
        );
        assert!(glob_match("a**b", "ab"));
    }

    #[test]
    fn lines_ignore_trailing_whitespace_only() {
        assert!(has_line("x\r\nRemote GID =00:01  \n", "Remote GID =*"));
        assert!(!has_line("  test result is 0", "test result is 0"));
    }

    #[test]
    fn good_run_passes() {
        let s = find("rc_example").unwrap();
        assert_eq!(check(s, &good_rc(), None), Vec::<String>::new());
    }

    #[test]
    fn wrong_exit_code_fails() {
        let s = find("rc_example").unwrap();
        let mut o = good_rc();
        o.client.as_mut().unwrap().exit = Some(1);
        assert_eq!(check(s, &o, None), ["client: exit status 1, expected 0"]);
    }

    #[test]
    fn missing_line_fails() {
        let s = find("rc_example").unwrap();
        let mut o = good_rc();
        let srv = o.server.as_mut().unwrap();
        srv.stdout = srv.stdout.replace("test result is 0", "test result is 1");
        assert_eq!(
            check(s, &o, None),
            ["server: stdout has no line matching `test result is 0`"]
        );
    }

    #[test]
    fn stdout_lines_must_come_in_order() {
        assert!(missing_in_order("a\nb\nc\n", &["a", "c"]).is_empty());
        assert!(missing_in_order("a\na\n", &["a", "a"]).is_empty());
        assert_eq!(
            missing_in_order("b\na\n", &["a", "b"]),
            vec!["has `b` only before `a`, not after it".to_string()]
        );
        assert_eq!(
            missing_in_order("a\n", &["a", "a"]),
            vec!["has `a` only before `a`, not after it".to_string()]
        );
        assert_eq!(
            missing_in_order("x\n", &["a"]),
            vec!["has no line matching `a`".to_string()]
        );
    }

    #[test]
    fn timeout_is_labelled() {
        let s = find("rc_example_client_dies").unwrap();
        let o = Outcome {
            scenario: s.name.clone(),
            leftover: String::new(),
            capture: None,
            server: Some(side(TIMED_OUT, "", "")),
            client: Some(side(0, "", "")),
        };
        let f = check(s, &o, None);
        assert!(f[0].contains("timed out"), "{f:?}");
        assert_eq!(f.len(), 3, "{f:?}");
    }

    #[test]
    fn missing_side_fails_and_absent_side_is_ignored() {
        let s = find("rc_example_closed_port").unwrap();
        let mut o = Outcome {
            scenario: s.name.clone(),
            leftover: String::new(),
            capture: None,
            server: None,
            client: Some(side(
                1,
                "",
                "failed to establish TCP connection to server 1.2.3.4",
            )),
        };
        assert!(check(s, &o, None).is_empty());
        o.client = None;
        assert_eq!(check(s, &o, None).len(), 1);
    }

    fn addrs(server: &str, client: &str) -> Addrs {
        Addrs {
            server_ip: server.into(),
            client_ip: client.into(),
        }
    }

    #[test]
    fn address_patterns_are_filled_per_mode_or_skipped() {
        let two = addrs("192.0.2.1", "192.0.2.2");
        assert_eq!(
            expand("remote gid: ::ffff:{client_ip}", Some(&two)).as_deref(),
            Some("remote gid: ::ffff:192.0.2.2")
        );
        assert_eq!(
            expand("GID =*ff:ff:{server_ip_hex}", Some(&two)).as_deref(),
            Some("GID =*ff:ff:c0:00:02:01")
        );
        assert_eq!(expand("x {client_ip}", None), None);
        assert_eq!(expand("no address", None).as_deref(), Some("no address"));
    }

    #[test]
    fn counts_bounds_and_address_lines_are_checked() {
        let s = Scenario {
            name: "t".into(),
            client: Some(Cmd::new("t", &[])),
            client_expect: Expect::ok(&["start"])
                .counts(&[("sent *", 2), ("peer ::ffff:{server_ip}", 1)])
                .one_error_line()
                .within(5),
            ..Scenario::BASE
        };
        let run = |stdout: &str, stderr: &str, ms: u64| Outcome {
            scenario: "t".into(),
            leftover: String::new(),
            capture: None,
            server: None,
            client: Some(SideOutcome {
                elapsed_ms: Some(ms),
                ..side(0, stdout, stderr)
            }),
        };
        let lab = addrs("192.0.2.1", "192.0.2.2");
        let good = run(
            "start\nsent 1\nsent 2\npeer ::ffff:192.0.2.1\n",
            "warn\n",
            10,
        );
        assert!(check(&s, &good, Some(&lab)).is_empty());
        let bad = run("start\nsent 1\npeer ::ffff:192.0.2.2\n", "a\nb\n", 6000);
        assert_eq!(
            check(&s, &bad, Some(&lab)),
            [
                "client: took 6.0 s, must end within 5 s",
                "client: stderr has 2 lines, expected 1",
                "client: stdout has 1 lines matching `sent *`, expected 2",
                "client: stdout has 0 lines matching `peer ::ffff:192.0.2.1`, expected 1",
            ]
        );
        // Without known addresses the address line is not checked.
        assert_eq!(check(&s, &bad, None).len(), 3);
    }

    #[test]
    fn stderr_lines_follow_the_exit_status_unless_declared() {
        let lines = |expect: Expect, exit: i32, stderr: &str| {
            let mut f = Vec::new();
            check_side(
                "s",
                &expect,
                Some(&side(exit, "", stderr)),
                30,
                None,
                &mut f,
            );
            f
        };
        assert!(lines(Expect::ok(&[]), 0, "").is_empty());
        assert_eq!(
            lines(Expect::ok(&[]), 0, "noise\n"),
            ["s: stderr has 1 lines, expected 0"]
        );
        assert!(lines(Expect::fails(&[]), 1, "why\n").is_empty());
        assert_eq!(
            lines(Expect::fails(&[]), 1, "why\nand again\n"),
            ["s: stderr has 2 lines, expected 1"]
        );
        assert!(lines(Expect::exits(9, &[], &[]), 9, "a\nb\n").is_empty());
        assert!(lines(Expect::ok(&[]).any_stderr(), 0, "a\nb\n").is_empty());
        assert!(lines(Expect::exits(9, &[], &[]).one_error_line(), 9, "a\n").is_empty());
    }

    #[test]
    fn waiting_declarations_give_two_signal_cells() {
        let w = Waiting {
            name: "prog",
            package: "pkg",
            cmd: &["prog", "-s"],
            line: "waiting *",
            exits: [143, 130],
            stdout: &["bye"],
            stderr: &[],
        };
        let cells = w.cells();
        let names: Vec<&str> = cells.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["prog_sigterm_waiting", "prog_sigint_waiting"]);
        let int = &cells[1];
        let args = &int.server.as_ref().unwrap().args;
        assert_eq!(
            &args[..],
            [
                "-c",
                SIGNAL_AT,
                "sh",
                "INT",
                "waiting *",
                "0",
                "0",
                "prog",
                "-s"
            ]
        );
        assert_eq!(int.server_expect.exit, 130);
        assert_eq!(
            int.server_expect.stdout,
            ["waiting *", "bye", "exit 130 after INT"]
        );
        assert_eq!(int.server_expect.within_secs, Some(15));
        assert!(
            find("srq_sigint_waiting").is_some(),
            "declared cells are in the table"
        );
    }

    #[test]
    fn kill_declarations_give_a_cell_per_signal() {
        let survivor = Expect::fails(&["peer gone"]).within(20);
        let k = Kill {
            name: "prog",
            package: "pkg",
            phase: "midway",
            server: &["prog", "-s"],
            client: &["prog", "host"],
            ready: Ready::TcpListen(1),
            victim: Side::Server,
            line: "recv *",
            signals: &[SIGKILL, SIGSTOP],
            survivor,
            ..Kill::BASE
        };
        let cells = k.cells();
        let names: Vec<&str> = cells.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["prog_server_sigkill_midway", "prog_server_sigstop_midway"]
        );
        let (kill, stop) = (&cells[0], &cells[1]);
        // The victim runs under the wrapper; the survivor as declared.
        let server = kill.server.as_ref().unwrap();
        assert_eq!(server.program, "sh");
        assert_eq!(
            server.args,
            ["-c", SIGNAL_AT, "sh", "KILL", "recv *", "0", "0", "prog", "-s"]
        );
        assert_eq!(kill.server_expect.exit, 137);
        assert_eq!(kill.server_expect.stdout, ["recv *", "exit 137 after KILL"]);
        let client = kill.client.as_ref().unwrap();
        assert_eq!(
            (client.program, &client.args[..]),
            ("prog", &["host".to_string()][..])
        );
        assert_eq!(kill.client_expect.stderr, ["peer gone"]);
        assert_eq!(kill.client_expect.within_secs, Some(20));
        assert_eq!(kill.fault, Some(Fault::PeerKilled));
        assert_eq!(kill.placement, Placement::Anywhere);
        // A stopped victim is held past the survivor's bound, in one VM.
        assert_eq!(stop.server.as_ref().unwrap().args[6], "25");
        assert_eq!(stop.fault, Some(Fault::SilentPeer));
        assert_eq!(stop.placement, Placement::OneHost);
        assert!(!stop.stop_server && !kill.stop_server);
        assert!(
            find("srq_client_sigterm_midway").is_some_and(|c| c.fault == Some(Fault::Signal)),
            "declared cells are in the table"
        );
    }

    /// The wrapper, on this host: a program signalled at its line, and a
    /// stopped one let go when the wrapper gets SIGTERM, long before HOLD.
    #[test]
    fn signal_at_signals_at_the_line_and_lets_a_stopped_program_go_on_sigterm() {
        use std::process::{Command, Stdio};
        use std::time::{Duration, Instant};
        let program = ["sh", "-c", "echo starting; echo ready; exec sleep 30"];
        let run = |sig: &str, hold: &str| {
            Command::new("sh")
                .args(["-c", SIGNAL_AT, "sh", sig, "rea*", "0", hold])
                .args(program)
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let t = Instant::now();
        let out = run("TERM", "0").wait_with_output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "starting\nready\nexit 143 after TERM\n"
        );
        assert_eq!(out.status.code(), Some(143));
        let stopped = run("STOP", "60");
        std::thread::sleep(Duration::from_millis(500));
        // The shell's builtin: a minimal system has no kill program.
        let term = format!("kill -TERM {}", stopped.id());
        assert!(Command::new("sh")
            .args(["-c", &term])
            .status()
            .unwrap()
            .success());
        let out = stopped.wait_with_output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "starting\nready\nexit 137 after STOP\n"
        );
        assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    }

    #[test]
    fn one_of_takes_any_of_its_lines_and_names_them_all_when_none_matches() {
        let one_of = Scenario {
            name: "one_of".into(),
            client: Some(rc_client()),
            client_expect: Expect::fails_one_of(&["a: *", "b: *"]),
            ..Scenario::BASE
        };
        let run = |stderr: &str| Outcome {
            scenario: "one_of".into(),
            leftover: String::new(),
            capture: None,
            server: None,
            client: Some(side(1, "", stderr)),
        };
        assert!(check(&one_of, &run("b: gone"), None).is_empty());
        assert_eq!(
            check(&one_of, &run("c: gone"), None),
            ["client: stderr has no line matching any of `a: *`, `b: *`"]
        );
    }

    #[test]
    fn faults_selects_cells_by_example_or_program() {
        let all_cells = faults(&[]).unwrap();
        assert!(all_cells.iter().all(|s| s.fault.is_some()));
        assert!(all_cells
            .iter()
            .any(|s| s.name == "srq_client_sigkill_midway"));
        assert!(
            !all_cells.iter().any(|s| s.name == "srq"),
            "pairs are not cells"
        );
        let mc = faults(&["mc"]).unwrap();
        assert!(!mc.is_empty() && mc.iter().all(|s| s.name.starts_with("mc_")));
        let mckey = faults(&["mckey"]).unwrap();
        assert!(mckey.len() > mc.len(), "the package has both programs");
        assert_eq!(
            faults(&["srq", "nosuch"]).unwrap_err(),
            "no fault cells for `nosuch`"
        );
    }

    /// Both kernels' outcomes, as they came in the VMs: Debian 12's
    /// Soft-RoCE carries 8 MiB, Debian 13's 2 GiB, past what -l takes.
    #[test]
    fn past_max_msg_sz_wants_the_limit_that_applies() {
        let cell = find("srq_l_past_max_msg_sz").unwrap();
        let run = |m: &str, stderr: &str| Outcome {
            scenario: cell.name.clone(),
            leftover: String::new(),
            capture: None,
            server: Some(side(1, &format!("port max_msg_sz {m}"), stderr)),
            client: None,
        };
        let port = "-l 8388609 is longer than the largest message the port carries \
                    (max_msg_sz 8388608): give a smaller -l";
        let range = "srq: invalid value '2147483649' for -l (expected 1..2147483647)";
        assert!(check(cell, &run("8388608", port), None).is_empty());
        assert!(check(cell, &run("2147483648", range), None).is_empty());
        // The other limit's line is not the one that applies.
        assert!(!check(cell, &run("8388608", range), None).is_empty());
        assert!(!check(cell, &run("2147483648", port), None).is_empty());
    }

    #[test]
    fn objects_left_in_the_kernel_fail_the_run() {
        let s = find("rc_example").unwrap();
        let mut o = good_rc();
        o.leftover = "qp: link rxe0/1 lqpn 17 type RC state RTS comm rc_example pid 99\n\
                      mr: dev rxe0 mrn 3 comm rc_example pid 99\n"
            .into();
        assert_eq!(
            check(s, &o, None),
            [
                "left 2 object(s) in the kernel after both sides ended, first: \
              qp: link rxe0/1 lqpn 17 type RC state RTS comm rc_example pid 99"
            ]
        );
    }

    #[test]
    fn verify_adds_its_failures() {
        fn never(_: &Outcome) -> Vec<String> {
            vec!["never".into()]
        }
        let s = Scenario {
            name: "t".into(),
            verify: Some(never),
            ..Scenario::BASE
        };
        let o = Outcome {
            scenario: "t".into(),
            leftover: String::new(),
            capture: None,
            server: None,
            client: None,
        };
        assert_eq!(check(&s, &o, None), ["never"]);
    }

    /// What `program -c script` prints, with `env` and `args` after it.
    fn shell_out(program: &str, script: &str, args: &[String], env: &[(&str, String)]) -> String {
        let out = std::process::Command::new(program)
            .arg("-c")
            .arg(script)
            .args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{program} -c {script}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    #[test]
    fn a_script_reads_the_values_from_the_environment_and_means_the_same() {
        let p = Params {
            server_ip: "10.0.0.1".into(),
            client_ip: "fe80::1".into(),
            dev: "mlx5_0".into(),
            gid_idx: 3,
            ib_port: 2,
        };
        // Each quoting a placeholder meets in the scenarios' scripts.
        for (program, script) in [
            (
                "sh",
                "echo {server_ip} -d {dev} -i {ib_port} -g {gid_idx} {client_ip}",
            ),
            (
                "sh",
                "echo \"{dev} added back on x\" /dev/tcp/{server_ip}/19875",
            ),
            (
                "sh",
                "echo 'state CONNECT .*src-addr {server_ip}:51288 dst-addr'",
            ),
            (
                "sh",
                "for a in '' '-M ff0e::1 -b {server_ip}'; do echo \"[$a]\"; done",
            ),
            (
                "sh",
                "echo \"$(echo '{dev}' \"{dev}\")\" $(echo {dev}) '(' {dev}",
            ),
            ("sh", "# it's {dev}\necho {dev} \\' \"\\\"{dev}\" '{dev}'"),
            (
                "bash",
                "IFS=. read -r a b c d <<< \"{server_ip}\"; echo $a $d",
            ),
        ] {
            let new = script_with_env_refs(script);
            assert!(!new.contains("mlx5_0"), "{new}");
            let pasted = shell_out(program, &substitute(script, &p), &[], &[]);
            assert_eq!(shell_out(program, &new, &[], &p.env()), pasted, "{script}");
        }
    }

    #[test]
    fn a_hostile_value_is_never_shell_code() {
        let tmp = tempfile::tempdir().unwrap();
        let marker = tmp.path().join("F");
        let evil = format!("x;touch {};:", marker.display());
        let quote = format!("x' ; touch {} ; '", marker.display());
        let p = Params {
            server_ip: quote.clone(),
            client_ip: format!("$(touch {})", marker.display()),
            dev: evil.clone(),
            gid_idx: 0,
            ib_port: 1,
        };
        let cmd = Cmd::new(
            "sh",
            &[
                "-c",
                "echo {dev} \"{dev}\" '{server_ip}' {client_ip}; echo \"$1\"",
                "sh",
                "{dev}",
            ],
        );
        let args = cmd.args_with(&p);
        assert!(
            !args[1].contains(&evil) && !args[1].contains("touch"),
            "{}",
            args[1]
        );
        // A program's own argument (here the script's $1) keeps the value.
        assert_eq!(args[3], evil);
        let out = shell_out("sh", &args[1], &args[2..], &p.env());
        assert!(!marker.exists(), "the script ran a value: {out}");
        assert!(out.ends_with(&format!("{evil}\n")), "{out}");
        // The same script with the values pasted in, as before: it can fail.
        let _ = shell_out("sh", &substitute(&cmd.args[1], &p), &[], &[]);
        assert!(marker.exists());
    }

    #[test]
    fn every_script_of_the_table_is_read_to_its_end_unquoted() {
        for s in all() {
            for c in [&s.server, &s.client].into_iter().flatten() {
                if !matches!(c.program, "sh" | "bash") {
                    continue;
                }
                assert_eq!(c.args.first().map(String::as_str), Some("-c"), "{}", s.name);
                let (refs, unquoted) = script_refs(&c.args[1]);
                assert!(
                    unquoted,
                    "{}: the quoting is not followed to the end",
                    s.name
                );
                assert!(
                    !PLACEHOLDER_VARS.iter().any(|(p, _)| refs.contains(p)),
                    "{}",
                    s.name
                );
            }
        }
    }

    #[test]
    fn placeholders() {
        let p = Params {
            server_ip: "10.0.0.1".into(),
            client_ip: "10.0.0.2".into(),
            dev: "mlx5_0".into(),
            gid_idx: 3,
            ib_port: 2,
        };
        assert_eq!(
            rc_client().args_with(&p),
            ["-d", "mlx5_0", "-g", "3", "10.0.0.1"]
        );
        assert_eq!(
            substitute("/dev/tcp/{server_ip}/1 -i {ib_port}", &p),
            "/dev/tcp/10.0.0.1/1 -i 2"
        );
        assert_eq!(substitute("{unknown}", &p), "{unknown}");
    }

    #[test]
    fn table_is_sane() {
        let mut names = HashSet::new();
        for s in all() {
            assert!(
                names.insert(s.name.as_str()),
                "duplicate scenario {}",
                s.name
            );
            assert!(
                s.name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_'),
                "{} must be usable as a file stem and test name",
                s.name
            );
            assert!(
                s.server.is_some() || s.client.is_some(),
                "{} is empty",
                s.name
            );
            if s.pair {
                assert!(s.server.is_some() && s.client.is_some(), "{}", s.name);
                assert!(!s.package.is_empty(), "{}", s.name);
            }
            if s.server.is_none() {
                assert_eq!(s.ready, Ready::None, "{}", s.name);
            }
            assert!((1..=600).contains(&s.timeout_secs), "{}", s.name);
            // Every placeholder in an expected line is one `expand` fills.
            let lab = addrs("192.0.2.1", "192.0.2.2");
            for e in [&s.server_expect, &s.client_expect] {
                let counted = e.stdout_counts.iter().chain(&e.stderr_counts).map(|c| &c.0);
                for p in e
                    .stdout
                    .iter()
                    .chain(&e.stderr)
                    .chain(&e.stderr_one_of)
                    .chain(counted)
                {
                    let filled = expand(p, Some(&lab)).unwrap_or_default();
                    assert!(
                        !filled.contains('{'),
                        "{}: unknown placeholder in `{p}`",
                        s.name
                    );
                }
            }
        }
        assert!(pairs().count() >= 1);
    }

    #[test]
    fn select_defaults_to_pairs_and_rejects_unknown() {
        let all: Vec<_> = select(&[])
            .unwrap()
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(all, pairs().map(|s| s.name.as_str()).collect::<Vec<_>>());
        assert!(select(&["nope"]).unwrap_err().contains("rc_example"));
    }
}
