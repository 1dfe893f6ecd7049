//! The lab's command line, the same under both of its names: `cargo xtask`
//! (the developer's, in the source tree) and `rdma-lab` (the binary that
//! runs from a copy): `setup | lab | doctor | keygen | list | handout | ladder | fmt
//! | test | bench`; see `help`.

// The lab's functions stay short (threshold in clippy.toml); CI denies it.

use crate::host::lab::LabOptions;
use crate::model::Mode;
use crate::{base, catalog, guest, host, model};
use std::process::ExitCode;

/// Each command: its name, its synopsis and what it does.
const COMMANDS: &[(&str, &str, &str)] = &[
    (
        "setup",
        "setup",
        "install what the lab needs (as root; otherwise print the commands)",
    ),
    (
        "lab",
        "lab [NAME...] [--faults] [--two-hosts [--capture]] [--kernel IMAGE] [--keep] [--tcg]
       [--local [--dev DEV] [--ip ADDR] [--gid-idx N] [--serve | --peer ADDR]
        [--port N] [--wait SECS] [--bin-dir DIR] [--secret-file F] [--allow ADDR...]]
       [--junit FILE] [--json FILE]",
        "run scenarios (default: every example pair; --faults: the fault
            matrix, of every example or of those NAMEd) in a Soft-RoCE VM,
            in two VMs (--two-hosts) or on this host's RDMA device (--local);
            with --local, two real hosts: one runs --serve --ip ITS_ADDR,
            the other --peer THAT_ADDR --ip ITS_OWN and prints the report;
            they meet on TCP port 7471 (--port) and wait 120 s (--wait)
            for each other, and prove that they hold the same secret
            (a key of `keygen`: --secret-file F, mode 600, or
            RDMA_LAB_SECRET; --serve makes one when neither is given and
            prints the peer's command);
            --allow ADDR (repeatable) narrows who may connect; --bin-dir runs the examples from a copy of
            target/release instead of building them; the doctor runs
            first and its findings are printed; --junit and --json write
            the reports CI systems read; --kernel boots that image (its
            modules in /lib/modules) instead of the default; results go to
            target/lab/<run>/, kept on failure or with --keep; the VMs use
            KVM where the CPU offers it, --tcg (or XTASK_TCG=1) forces
            emulation",
    ),
    (
        "doctor",
        "doctor [--dev DEV] [--ip ADDR] [--gid-idx N] [--mcast GROUP] [--bin-dir DIR]
       [--peer ADDR [--port N] [--wait SECS] [--secret-file F] [--allow ADDR...]]",
        "check this host's RDMA setup (devices, ports, MTUs, the GID table,
            ulimit -l, rdma_cm, tried as the examples try it with
            --bin-dir's rdmacm_server, the address's netdev, and that the route to
            the examples' multicast group 239.255.1.1, and to --mcast
            GROUP's, leaves through that netdev) and, with --peer (run
            the doctor there too, with --peer this host), the path to the
            peer: one RC message (both doctors need the same secret:
            --secret-file F or RDMA_LAB_SECRET); each finding is one line on stderr, what
            is wrong and what to do; exit 1 when there is one",
    ),
    (
        "mesh",
        "mesh [NAME...] [--ring | --star HOST] [--mcast-senders all] [--serial]
       [--ssh HOST,HOST... [--remote-dir DIR] [--coordinator HOST]
        | --rank R --size N --coordinator HOST]
       [--port N] [--wait SECS] [--ip ADDR | --netdev NETDEV] [--dev DEV]
       [--gid-idx N] [--bin-dir DIR] [--secret-file F | --secret-stdin] [--allow ADDR...]
       [--out DIR] [--junit FILE] [--json FILE] [--html FILE]",
        "smoke-test a fabric of N hosts: every pair (or --ring, --star)
            runs the doctor's RC probe and the example pairs (or the
            NAMEs) in parallel rounds, then an N x N matrix and a
            diagnosis that names a bad host or link; under srun each task
            takes its rank from Slurm (SLURM_PROCID, SLURM_NTASKS,
            SLURM_JOB_NODELIST), another launcher sets --rank, --size and
            --coordinator (or RDMA_LAB_RANK, RDMA_LAB_SIZE,
            RDMA_LAB_COORDINATOR); the ranks need one secret
            (--secret-file F, RDMA_LAB_SECRET or --secret-stdin); --ssh
            starts a rank on each HOST with your ssh (BatchMode), from a
            copy of the binaries or --remote-dir, and makes the secret
            itself; rank 0 (or the --ssh launcher) coordinates on TCP
            7471 (--port), the pairs meet on the next port, and every
            wait is bounded (--wait, 120 s, to join); --allow ADDR
            (repeatable) lets only those addresses (and the launcher's
            hosts') join; --serial runs one pair at a time (the
            benchmark's baseline)",
    ),
    (
        "keygen",
        "keygen FILE",
        "write a new key (32 random bytes, as 64 hex digits) to FILE, which
            must not exist, mode 600: the secret two hosts or a mesh share
            (--secret-file FILE, or its text in RDMA_LAB_SECRET); copy it
            to the other hosts privately; nothing else is accepted as a
            secret, since a pass phrase could be guessed offline",
    ),
    (
        "list",
        "list [--full]",
        "list the scenarios; --full prints everything each one declares
            (commands, expectations, wire facts) and where it may run",
    ),
    (
        "handout",
        "handout [--pdf] [--check] [--key] [--out DIR] [--from RUN] [--tcg]",
        "run every pair and the exercises across two VMs with capture, then
            write the lab handout: DIR/handout.html (default target/handout)
            with the captures in DIR/pcaps/; --pdf also prints
            DIR/handout.pdf with headless Chromium; --key also writes the
            instructor's DIR/key.html, every exercise's answer open; --from RUN writes it
            from a kept run's result dir instead of a new run; --check opens
            it in headless Chromium and checks what it rendered",
    ),
    (
        "ladder",
        "ladder DIR [NAME...]",
        "the packet ladders of a kept two-host run with --capture (its
            result dir): cuts DIR/wire.pcap per scenario again and draws them",
    ),
    (
        "fmt",
        "fmt [--check]",
        "cargo fmt --all [--check] over the whole workspace",
    ),
    (
        "test",
        "test",
        "setup, fmt, clippy, host tests, then the Soft-RoCE test suite",
    ),
    (
        "bench",
        "bench pingpong [--two-hosts] [--tcg] | bench mesh",
        "pingpong: ibv_sockets_pingpong vs ibv_rc_pingpong, 4096 B x 1000
            iters, alternating runs in one boot; medians and their ratio;
            mesh: four VMs under Slurm, the all-pairs mesh in parallel
            rounds vs one pair at a time, in one boot, and their ratio",
    ),
];

/// The name the lab was called by: `cargo xtask` or `rdma-lab`.
static PROG: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

fn prog() -> &'static str {
    PROG.get().copied().unwrap_or("cargo xtask")
}

/// The usage of every command, or of one.
fn usage(only: Option<&str>) -> String {
    let mut text = format!("usage: {} <command> [--help]\n\n", prog());
    for (_, synopsis, what) in COMMANDS.iter().filter(|c| only.map_or(true, |o| o == c.0)) {
        if synopsis.len() <= 8 {
            text += &format!("  {synopsis:9} {what}\n");
        } else {
            text += &format!("  {synopsis}\n            {what}\n");
        }
    }
    if only.is_none() {
        text += "\n  (agent ...  internal: the runner inside the VMs)\n";
    }
    text
}

/// Where a user reads more: `rdma-lab lab --help`, or the commands'.
fn see_help(cmd: Option<&str>) -> String {
    match cmd {
        Some(c) => format!("`{} {c} --help` shows its options", prog()),
        None => format!("`{} --help` lists the commands", prog()),
    }
}

/// The long options `cmd`'s synopsis names, `--help` among them.
fn options_of(cmd: &str) -> Vec<String> {
    let synopsis = COMMANDS.iter().find(|c| c.0 == cmd).map_or("", |c| c.1);
    let mut opts: Vec<String> = synopsis
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(String::from)
        .collect();
    opts.push("--help".into());
    opts.sort();
    opts.dedup();
    opts
}

/// The one of `known` that `word` is a likely typo of: at most a third of
/// its letters (and at least one) edited away.
fn closest<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let most = (word.chars().count() / 3).max(1);
    known
        .into_iter()
        .map(|k| (edits(word, k), k))
        .filter(|(d, _)| *d <= most)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The Levenshtein distance between `a` and `b`, by characters.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diag + usize::from(ca != *cb))
                .min(above + 1)
                .min(row[j] + 1);
            diag = above;
        }
    }
    row[b.len()]
}

/// ` (did you mean `X`?)` when there is a close one, else nothing.
fn did_you_mean(x: Option<&str>) -> String {
    x.map(|x| format!(" (did you mean `{x}`?)"))
        .unwrap_or_default()
}

/// A command line `getopts` refused, in one line: what, the closest
/// option where one is, and where to read more.
fn option_error(cmd: &str, e: &getopts::Fail) -> String {
    match e {
        getopts::Fail::UnrecognizedOption(o) => {
            let o = o.trim_start_matches('-');
            let given = if o.chars().count() == 1 {
                format!("-{o}")
            } else {
                format!("--{o}")
            };
            let known = options_of(cmd);
            let near = closest(&given, known.iter().map(String::as_str));
            format!(
                "unknown option `{given}` for `{cmd}`{}; {}",
                did_you_mean(near),
                see_help(Some(cmd))
            )
        }
        other => format!("{cmd}: {other}; {}", see_help(Some(cmd))),
    }
}

/// `args` read against `opts` (each command's own, plus `--help`); `None`
/// when `--help` asked for the command's usage, which is then printed.
fn parse(
    cmd: &str,
    mut opts: getopts::Options,
    args: &[String],
) -> Result<Option<getopts::Matches>, String> {
    opts.optflag("h", "help", "");
    let m = opts.parse(args).map_err(|e| option_error(cmd, &e))?;
    if m.opt_present("help") {
        print!("{}", usage(Some(cmd)));
        return Ok(None);
    }
    Ok(Some(m))
}

/// `args` of a command that takes no option and no operand.
fn no_args(cmd: &str, args: &[String]) -> Result<bool, String> {
    let Some(m) = parse(cmd, getopts::Options::new(), args)? else {
        return Ok(false);
    };
    no_operands(cmd, &m)?;
    Ok(true)
}

/// Refuses operands to a command that takes none.
fn no_operands(cmd: &str, m: &getopts::Matches) -> Result<(), String> {
    match m.free.first() {
        Some(extra) => Err(format!(
            "unexpected argument `{extra}` for `{cmd}`; {}",
            see_help(Some(cmd))
        )),
        None => Ok(()),
    }
}

/// `--NAME N`, a number, or `default`.
fn num_opt<T: std::str::FromStr>(m: &getopts::Matches, name: &str, default: T) -> Result<T, String>
where
    T::Err: std::fmt::Display,
{
    match m.opt_str(name) {
        Some(v) => v.parse().map_err(|e| format!("--{name} {v}: {e}")),
        None => Ok(default),
    }
}

/// Refuses a `--dev` that is not a device name and an `--ip` or `--peer`
/// that is not an IP address, before anything runs: the values reach the
/// scenarios' command lines.
fn check_values(m: &getopts::Matches) -> Result<(), String> {
    if let Some(v) = m.opt_str("dev") {
        model::check_dev("--dev", &v)?;
    }
    // A command that has no such option has no such value to check.
    for opt in ["ip", "peer"].into_iter().filter(|o| m.opt_defined(o)) {
        if let Some(v) = m.opt_str(opt) {
            model::check_ip(&format!("--{opt}"), &v)?;
        }
    }
    if let Some(v) = m
        .opt_defined("netdev")
        .then(|| m.opt_str("netdev"))
        .flatten()
    {
        model::check_dev("--netdev", &v)?;
    }
    Ok(())
}

/// `cargo xtask lab`: its options read into the lab's, the run, its report.
fn lab_cmd(args: &[String]) -> Result<bool, String> {
    // `lab --mesh ...` is `mesh ...`, for those who start from `lab`.
    if args.iter().any(|a| a == "--mesh") {
        let rest: Vec<String> = args.iter().filter(|a| *a != "--mesh").cloned().collect();
        return mesh_cmd(&rest);
    }
    let Some(m) = parse("lab", lab_getopts(), args)? else {
        return Ok(true);
    };
    let role = lab_role(&m)?;
    let opts = lab_options(&m, &role)?;
    let mut names: Vec<&str> = m.free.iter().map(String::as_str).collect();
    if m.opt_present("faults") {
        names = crate::catalog::faults(&names)?
            .iter()
            .map(|s| s.name.as_str())
            .collect();
    }
    // A peer without a secret is told at once, before any build.
    if let model::Local::Peer(_) = role {
        crate::guest::control::Secret::load(opts.secret_file.as_deref())
            .unwrap_or_else(|| Err(crate::guest::control::Secret::missing()))?;
    }
    let report = crate::host::lab::run_scenarios(&opts, &names)?;
    if role == model::Local::Serve {
        return Ok(print_served(&report));
    }
    host::lab::print_transcripts(&report.outcomes, report.addrs.as_ref());
    let failed = host::lab::print_summary(&report);
    crate::present::report::write(
        &report,
        m.opt_str("junit").as_deref().map(std::path::Path::new),
        m.opt_str("json").as_deref().map(std::path::Path::new),
    )?;
    Ok(failed == 0 && report.notes.is_empty() && report.findings.is_empty())
}

/// The options `lab` takes: its flags, its values, and `--allow`.
fn lab_getopts() -> getopts::Options {
    let mut opts = getopts::Options::new();
    for flag in [
        "two-hosts",
        "local",
        "keep",
        "tcg",
        "faults",
        "capture",
        "serve",
    ] {
        opts.optflag("", flag, "");
    }
    for value in TWO_HOST_VALUES.iter().chain(&["junit", "json", "kernel"]) {
        opts.optopt("", value, "", "");
    }
    opts.optmulti("", "allow", "", "");
    opts
}

/// `lab`'s options checked against each other, and which half of a run
/// `--local` takes (alone without it).
fn lab_role(m: &getopts::Matches) -> Result<model::Local, String> {
    check_values(m)?;
    let (two, local) = (m.opt_present("two-hosts"), m.opt_present("local"));
    if two && local {
        return Err("--two-hosts and --local exclude each other".into());
    }
    if m.opt_present("capture") && !two {
        return Err("--capture goes with --two-hosts: it records the wire between the VMs".into());
    }
    let local_only = [
        "dev",
        "ip",
        "gid-idx",
        "serve",
        "peer",
        "port",
        "wait",
        "bin-dir",
        "secret-file",
        "allow",
    ];
    if let Some(o) = local_only.iter().find(|o| !local && m.opt_present(o)) {
        return Err(format!("--{o} goes with --local"));
    }
    if m.opt_present("kernel") && local {
        return Err("--kernel is the VMs' kernel: it does not go with --local".into());
    }
    let (serve, peer) = (m.opt_present("serve"), m.opt_str("peer"));
    let role = match (serve, peer) {
        (true, Some(_)) => return Err("--serve and --peer exclude each other".into()),
        (true, None) => model::Local::Serve,
        (false, Some(p)) => model::Local::Peer(p),
        (false, None) => model::Local::Alone,
    };
    if role != model::Local::Alone && !m.opt_present("ip") {
        return Err("two hosts need --ip: this host's address on its RDMA netdev".into());
    }
    if !serve && m.opt_present("allow") {
        return Err("--allow goes with --serve: it narrows who may connect to this host".into());
    }
    if serve && !m.free.is_empty() {
        return Err("--serve runs the scenarios the peer names: give the NAMEs there".into());
    }
    Ok(role)
}

/// The lab's options from `lab`'s checked ones: the mode (with `role`
/// under `--local`) and every other choice.
fn lab_options(m: &getopts::Matches, role: &model::Local) -> Result<LabOptions, String> {
    let (two, local) = (m.opt_present("two-hosts"), m.opt_present("local"));
    let gid_idx = match m.opt_str("gid-idx") {
        Some(v) => Some(v.parse().map_err(|e| format!("--gid-idx {v}: {e}"))?),
        None => None,
    };
    let mode = if local {
        Mode::Local {
            dev: m.opt_str("dev"),
            ip: m.opt_str("ip").unwrap_or_else(|| "127.0.0.1".into()),
            gid_idx,
            role: role.clone(),
        }
    } else if two {
        Mode::TwoHosts
    } else {
        Mode::SingleHost
    };
    let agent_exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    Ok(LabOptions {
        keep: m.opt_present("keep"),
        tcg: m.opt_present("tcg") || crate::host::lab::tcg_from_env(),
        capture: m.opt_present("capture"),
        kernel: m.opt_str("kernel").map(std::path::PathBuf::from),
        bin_dir: m.opt_str("bin-dir").map(std::path::PathBuf::from),
        wait_secs: m
            .opt_str("wait")
            .map(|v| v.parse().map_err(|e| format!("--wait {v}: {e}")))
            .transpose()?,
        port: num_opt(m, "port", model::CONTROL_PORT)?,
        secret_file: m.opt_str("secret-file").map(std::path::PathBuf::from),
        allow: allow_list(m)?,
        ..LabOptions::new(mode, agent_exe)
    })
}

/// A serving host's end of a run: the notes (some are the peer's words),
/// or that the peer prints the report; whether there were none.
fn print_served(report: &crate::results::report::LabReport) -> bool {
    for n in &report.notes {
        println!("note: {}", crate::base::text::escape_controls(n));
    }
    if report.notes.is_empty() {
        println!("lab: served the peer; it prints the report");
    }
    report.notes.is_empty()
}

/// The options with a value that `lab --local` and `doctor` share: the
/// device, the addresses and the two-host session's.
const TWO_HOST_VALUES: &[&str] = &[
    "dev",
    "ip",
    "gid-idx",
    "peer",
    "port",
    "wait",
    "bin-dir",
    "secret-file",
];

fn doctor_cmd(args: &[String]) -> Result<bool, String> {
    let mut opts = getopts::Options::new();
    for value in TWO_HOST_VALUES.iter().chain(&["mcast"]) {
        opts.optopt("", value, "", "");
    }
    opts.optmulti("", "allow", "", "");
    let Some(m) = parse("doctor", opts, args)? else {
        return Ok(true);
    };
    check_values(&m)?;
    no_operands("doctor", &m)?;
    let mut mcast = vec![hints::EXAMPLES_GROUP.to_string()];
    if let Some(g) = m.opt_str("mcast") {
        mcast_group(&g)?;
        if !mcast.contains(&g) {
            mcast.push(g);
        }
    }
    let gid_idx = match m.opt_str("gid-idx") {
        Some(v) => Some(v.parse().map_err(|e| format!("--gid-idx {v}: {e}"))?),
        None => None,
    };
    let secret_file = m.opt_str("secret-file").map(std::path::PathBuf::from);
    host::lab::doctor(&host::lab::DoctorRequest {
        dev: m.opt_str("dev"),
        ip: m.opt_str("ip"),
        peer: m.opt_str("peer"),
        gid_idx,
        mcast,
        port: num_opt(&m, "port", model::CONTROL_PORT)?,
        wait_secs: num_opt(&m, "wait", guest::agent::PEER_WAIT_SECS)?,
        bin_dir: m.opt_str("bin-dir").map(std::path::PathBuf::from),
        secret_file,
        allow: allow_list(&m)?,
    })
}

/// `--mcast GROUP`: an IPv4 multicast address, the only kind whose route
/// the doctor knows how to fix.
fn mcast_group(g: &str) -> Result<(), String> {
    match g.parse::<std::net::Ipv4Addr>() {
        Ok(a) if a.is_multicast() => Ok(()),
        _ => Err(format!(
            "--mcast {g}: give an IPv4 multicast address (224.0.0.0/4), as the examples' -m takes"
        )),
    }
}

/// The `--allow` addresses, each an IP address.
fn allow_list(m: &getopts::Matches) -> Result<Vec<std::net::IpAddr>, String> {
    m.opt_strs("allow")
        .iter()
        .map(|a| {
            a.parse()
                .map_err(|e| format!("--allow {a}: {e}: give an IP address"))
        })
        .collect()
}

fn handout_cmd(args: &[String]) -> Result<bool, String> {
    let mut opts = getopts::Options::new();
    opts.optflag("", "pdf", "");
    opts.optflag("", "check", "");
    opts.optflag("", "key", "");
    opts.optflag("", "tcg", "");
    opts.optopt("", "out", "", "");
    opts.optopt("", "from", "", "");
    let Some(m) = parse("handout", opts, args)? else {
        return Ok(true);
    };
    no_operands("handout", &m)?;
    let out = m.opt_str("out").map_or_else(
        || base::workspace::target_dir().join("handout"),
        std::path::PathBuf::from,
    );
    if m.opt_present("pdf") || m.opt_present("check") {
        // Before the run: a missing Chromium is better said at once.
        host::setup::ensure_print_tools(m.opt_present("check"))?;
    }
    let opts = LabOptions {
        keep: true,
        tcg: m.opt_present("tcg") || host::lab::tcg_from_env(),
        capture: true,
        ..LabOptions::new(
            Mode::TwoHosts,
            std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?,
        )
    };
    let names: Vec<&str> = crate::present::handout::scenarios()
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    let report = match m.opt_str("from") {
        Some(dir) => host::lab::load_two_host_run(
            std::path::Path::new(&dir),
            &crate::present::handout::scenarios(),
        )?,
        None => crate::host::lab::run_scenarios(&opts, &names)?,
    };
    let failed = if m.opt_present("from") {
        let failed: Vec<&str> = report
            .outcomes
            .iter()
            .filter(|o| !report.failures(o).is_empty())
            .map(|o| o.scenario.as_str())
            .collect();
        if !failed.is_empty() {
            println!("handout: in that run, these failed: {}", failed.join(", "));
        }
        failed.len()
    } else {
        host::lab::print_summary(&report)
    };
    let html = crate::present::handout::write(&report, &out)?;
    println!("handout: {}", html.display());
    if m.opt_present("key") {
        let key = crate::present::handout::write_key(&report, &out)?;
        println!("handout: the instructor's key, {}", key.display());
    }
    if m.opt_present("pdf") {
        let pdf = out.join("handout.pdf");
        crate::present::handout::pdf(&html, &pdf)?;
        println!("handout: {}", pdf.display());
    }
    let mut looks_right = true;
    if m.opt_present("check") {
        let failures = crate::present::handout::check_in_chromium(&html);
        for f in &failures {
            println!("handout check: {f}");
        }
        looks_right = failures.is_empty();
        if looks_right {
            println!("handout check: Chromium renders every chapter and ladder, and prints it");
        }
    }
    Ok(failed == 0 && report.notes.is_empty() && looks_right)
}

fn ladder_cmd(args: &[String]) -> Result<bool, String> {
    let Some(m) = parse("ladder", getopts::Options::new(), args)? else {
        return Ok(true);
    };
    let Some((dir, names)) = m.free.split_first() else {
        return Err(format!(
            "ladder: which run? give a kept run's result dir; {}",
            see_help(Some("ladder"))
        ));
    };
    let addrs = Mode::TwoHosts
        .addrs()
        .expect("the two-host lab has addresses");
    let captures = crate::capture::split(std::path::Path::new(dir))?;
    if let Some(n) = names
        .iter()
        .find(|n| !captures.iter().any(|c| &c.scenario == *n))
    {
        return Err(format!("{dir} has no capture of `{n}`"));
    }
    let mut ok = true;
    let mut out = String::new();
    for c in captures
        .iter()
        .filter(|c| names.is_empty() || names.contains(&c.scenario))
    {
        let rungs = crate::capture::ladder::rungs(&c.packets, &addrs, catalog::find(&c.scenario));
        out += &crate::capture::ladder::text(&c.scenario, &rungs, &addrs);
        if catalog::find(&c.scenario).is_some_and(|s| s.pair) {
            for fault in crate::capture::ladder::faults(&rungs) {
                ok = false;
                out += &format!("{fault}\n");
            }
        }
        if let Some(s) = catalog::find(&c.scenario).filter(|s| !s.wire.is_empty()) {
            let failures = crate::judge::wire::check(s.wire, &c.packets, &addrs);
            if failures.is_empty() {
                out += &format!("wire facts: all {} hold\n", s.wire.len());
            } else {
                ok = false;
                out += &format!("wire facts: {}\n", failures.join("; "));
            }
        }
        out.push('\n');
    }
    // One write: a closed pipe (`| head`) ends the output, quietly. The
    // ladders are drawn from packets, which a peer writes.
    print!("{}", crate::base::text::escape_controls(&out));
    Ok(ok)
}

fn bench_cmd(args: &[String]) -> Result<bool, String> {
    let mut opts = getopts::Options::new();
    opts.optflag("", "two-hosts", "");
    opts.optflag("", "tcg", "");
    let Some(m) = parse("bench", opts, args)? else {
        return Ok(true);
    };
    if m.free == ["mesh"] {
        return crate::host::bench::mesh();
    }
    if m.free != ["pingpong"] {
        return Err(format!(
            "bench: which one? pingpong or mesh; {}",
            see_help(Some("bench"))
        ));
    }
    let mode = if m.opt_present("two-hosts") {
        Mode::TwoHosts
    } else {
        Mode::SingleHost
    };
    crate::host::bench::pingpong(
        mode,
        m.opt_present("tcg") || crate::host::lab::tcg_from_env(),
    )
}

/// `mesh`'s options.
fn mesh_getopts() -> getopts::Options {
    let mut opts = getopts::Options::new();
    for flag in ["ring", "secret-stdin", "serial"] {
        opts.optflag("", flag, "");
    }
    opts.optmulti("", "allow", "", "");
    for value in [
        "star",
        "mcast-senders",
        "ssh",
        "remote-dir",
        "rank",
        "size",
        "coordinator",
        "port",
        "wait",
        "ip",
        "netdev",
        "dev",
        "gid-idx",
        "bin-dir",
        "secret-file",
        "out",
        "junit",
        "json",
        "html",
    ] {
        opts.optopt("", value, "", "");
    }
    opts
}

/// The mesh's secret: `--secret-stdin`'s first line, `--secret-file`'s,
/// or `RDMA_LAB_SECRET`; `None` for the ssh launcher, which makes one.
fn mesh_secret(m: &getopts::Matches) -> Result<guest::control::Secret, String> {
    if m.opt_present("secret-stdin") {
        use std::io::{BufRead as _, Read as _};
        // One bounded line: a launcher writes the secret and a newline.
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .take(4096)
            .read_line(&mut line)
            .map_err(|e| format!("--secret-stdin: {e}"))?;
        return guest::control::Secret::from_text(&line, "--secret-stdin");
    }
    let file = m.opt_str("secret-file").map(std::path::PathBuf::from);
    guest::control::Secret::load(file.as_deref())
        .unwrap_or_else(|| Err(guest::control::Secret::missing()))
}

/// The pattern of `--ring` or `--star HOST` (a rank, or a name of
/// `hosts`); all pairs by default.
fn mesh_pattern(
    m: &getopts::Matches,
    hosts: &[String],
) -> Result<crate::model::mesh::Pattern, String> {
    use crate::model::mesh::Pattern;
    match (m.opt_present("ring"), m.opt_str("star")) {
        (true, Some(_)) => Err("--ring and --star: choose one".into()),
        (true, None) => Ok(Pattern::Ring),
        (false, None) => Ok(Pattern::AllPairs),
        (false, Some(h)) => match hosts.iter().position(|n| *n == h) {
            Some(r) => Ok(Pattern::Star(r)),
            None => h
                .parse()
                .map(Pattern::Star)
                .map_err(|_| format!("--star {h}: give a rank, or one of the hosts' names")),
        },
    }
}

/// `--mcast-senders all` (every host sends in turn) or `first` (host 0,
/// the default).
fn mcast_senders(m: &getopts::Matches) -> Result<bool, String> {
    match m.opt_str("mcast-senders").as_deref() {
        None | Some("first") => Ok(false),
        Some("all") => Ok(true),
        Some(other) => Err(format!("--mcast-senders {other}: give all or first")),
    }
}

/// `mesh`'s options read into the run's.
fn mesh_options(m: &getopts::Matches, hosts: &[String]) -> Result<host::mesh::MeshOptions, String> {
    check_values(m)?;
    let (pattern, mcast_all) = (mesh_pattern(m, hosts)?, mcast_senders(m)?);
    let gid_idx = m
        .opt_str("gid-idx")
        .map(|v| v.parse().map_err(|e| format!("--gid-idx {v}: {e}")))
        .transpose()?;
    let (port, wait_secs): (u16, u64) = (
        num_opt(m, "port", model::CONTROL_PORT)?,
        num_opt(m, "wait", guest::agent::PEER_WAIT_SECS)?,
    );
    // The pairs meet on the next port; a day is the longest wait.
    if !(1..=65534).contains(&port) {
        return Err(format!(
            "--port {port}: give 1 to 65534 (the pairs use the next port)"
        ));
    }
    if !(1..=86400).contains(&wait_secs) {
        return Err(format!("--wait {wait_secs}: give 1 to 86400 seconds"));
    }
    // The secret last of what is read, the result dir only then made.
    let secret = if m.opt_present("ssh") {
        guest::control::Secret::generate()?
    } else {
        mesh_secret(m)?
    };
    let out = match m.opt_str("out") {
        Some(o) => std::path::PathBuf::from(o),
        None => host::mesh::default_out()?,
    };
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(host::mesh::MeshOptions {
        names: m.free.clone(),
        pattern,
        port,
        wait_secs,
        ip: m.opt_str("ip"),
        netdev: m.opt_str("netdev"),
        dev: m.opt_str("dev"),
        gid_idx,
        bin_dir: m.opt_str("bin-dir").map(std::path::PathBuf::from),
        out,
        secret,
        mcast_all,
        serial: m.opt_present("serial"),
        allow: allow_list(m)?,
    })
}

/// `mesh`: launched by ssh from here, or one rank of another launcher's;
/// rank 0 (or this launcher) prints the matrix and writes the reports.
fn mesh_cmd(args: &[String]) -> Result<bool, String> {
    let Some(m) = parse("mesh", mesh_getopts(), args)? else {
        return Ok(true);
    };
    let ssh_hosts: Vec<String> = m
        .opt_str("ssh")
        .map(|l| {
            l.split(',')
                .filter(|h| !h.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let run = if ssh_hosts.is_empty() {
        let num = |k: &str| {
            m.opt_str(k)
                .map(|v| v.parse::<usize>().map_err(|e| format!("--{k} {v}: {e}")))
                .transpose()
        };
        let ranked = host::mesh::ranked(num("rank")?, num("size")?, m.opt_str("coordinator"))?;
        let opts = mesh_options(&m, &ranked.names)?;
        host::mesh::run_ranked(&opts, &ranked)?
    } else {
        host::ssh::check_hosts(&ssh_hosts)?;
        let opts = mesh_options(&m, &ssh_hosts)?;
        let launch = host::ssh::SshLaunch {
            hosts: ssh_hosts,
            remote_dir: m.opt_str("remote-dir"),
            coordinator: m.opt_str("coordinator"),
        };
        let bin_dir = host::mesh::bin_dir(&opts, &host::mesh::scenario_names(&opts.names)?)?;
        Some(host::ssh::run_ssh(&opts, &launch, &bin_dir)?)
    };
    let Some(run) = run else { return Ok(true) };
    crate::present::mesh::report(
        &run,
        &crate::present::mesh::ReportFiles {
            junit: m.opt_str("junit").map(Into::into),
            json: m.opt_str("json").map(Into::into),
            html: m.opt_str("html").map(Into::into),
        },
    )
}

/// `list [--full]`.
fn list_cmd(rest: &[String]) -> Result<bool, String> {
    let mut opts = getopts::Options::new();
    opts.optflag("", "full", "");
    let Some(m) = parse("list", opts, rest)? else {
        return Ok(true);
    };
    no_operands("list", &m)?;
    if m.opt_present("full") {
        let bench = catalog::bench_runs();
        for s in catalog::all().iter().chain(bench) {
            print!("{}", crate::catalog::describe(s));
        }
        return Ok(true);
    }
    for s in catalog::all() {
        let kind = match (s.pair, s.fault) {
            (true, _) => "pair".to_string(),
            (false, Some(f)) => format!("fault: {}", f.label()),
            (false, None) => "test-only".to_string(),
        };
        // A closed pipe (`| head`) ends the listing, quietly.
        println!("{:28} {kind}", s.name);
    }
    Ok(true)
}

/// `keygen FILE`.
fn keygen_cmd(args: &[String]) -> Result<bool, String> {
    let Some(m) = parse("keygen", getopts::Options::new(), args)? else {
        return Ok(true);
    };
    let [file] = &m.free[..] else {
        return Err(format!(
            "keygen: give one FILE; {}",
            see_help(Some("keygen"))
        ));
    };
    let path = std::path::Path::new(file);
    guest::control::keygen(path).map_err(|e| format!("keygen: {e}"))?;
    println!(
        "keygen: wrote a new key to {} (mode 600): copy it to the other hosts privately and give \
         each --secret-file with it",
        path.display()
    );
    Ok(true)
}

/// `help [COMMAND]`: the usage of every command, or of COMMAND.
fn help_cmd(rest: &[String]) -> Result<bool, String> {
    match rest {
        [] => print!("{}", usage(None)),
        [c] if COMMANDS.iter().any(|k| k.0 == c) => print!("{}", usage(Some(c))),
        [c] => {
            let near = closest(c, COMMANDS.iter().map(|k| k.0));
            return Err(format!(
                "no command `{c}`{}; {}",
                did_you_mean(near),
                see_help(None)
            ));
        }
        [_, extra, ..] => {
            return Err(format!(
                "unexpected argument `{extra}` for `help`; {}",
                see_help(None)
            ))
        }
    }
    Ok(true)
}

fn real_main(args: &[String]) -> Result<bool, String> {
    let Some(cmd) = args.first() else {
        print!("{}", usage(None));
        return Ok(false);
    };
    let rest = &args[1..];
    match cmd.as_str() {
        "setup" => {
            if !no_args("setup", rest)? {
                return Ok(true);
            }
            let t = host::setup::ensure()?;
            println!("setup: ok; VMs boot {}", t.kernel.image.display());
            Ok(true)
        }
        "lab" => lab_cmd(rest),
        "doctor" => doctor_cmd(rest),
        "ladder" => ladder_cmd(rest),
        "handout" => handout_cmd(rest),
        "list" => list_cmd(rest),
        "mesh" => mesh_cmd(rest),
        "keygen" => keygen_cmd(rest),
        "fmt" | "test" if !crate::base::workspace::source_tree() => Err(format!(
            "`{cmd}` works in the source tree, with cargo: run `cargo xtask {cmd}` there"
        )),
        "fmt" => {
            let mut opts = getopts::Options::new();
            opts.optflag("", "check", "");
            match parse("fmt", opts, rest)? {
                Some(m) => Ok(host::ci::fmt(m.opt_present("check"))),
                None => Ok(true),
            }
        }
        "test" => {
            if !no_args("test", rest)? {
                return Ok(true);
            }
            let (failed, times) = host::ci::run();
            print!("{}", crate::present::times::table(&times));
            let path = crate::results::times::path(
                &crate::base::workspace::target_dir(),
                crate::results::times::RUN_FILE,
            );
            if let Err(e) = times.write(&path) {
                println!("the times were not kept: {e}");
            }
            if failed.is_empty() {
                println!("all steps passed");
            } else {
                println!("failed steps:\n  {}", failed.join("\n  "));
            }
            Ok(failed.is_empty())
        }
        "bench" => bench_cmd(rest),
        "agent" => guest::agent::run(guest::agent::AgentConfig::from_cli(rest)?).map(|()| true),
        "help" | "-h" | "--help" => help_cmd(rest),
        "--version" | "-V" => {
            println!("{} {}", prog(), env!("CARGO_PKG_VERSION"));
            Ok(true)
        }
        other => {
            let near = closest(other, COMMANDS.iter().map(|c| c.0));
            Err(format!(
                "unknown command `{other}`{}; {}",
                did_you_mean(near),
                see_help(None)
            ))
        }
    }
}

/// Runs the command line of this process as the lab called `name`; its
/// exit code. A failure is one line on stderr.
pub fn main(name: &'static str) -> ExitCode {
    let _ = PROG.set(name);
    crate::base::out::set_program(name.rsplit(' ').next().unwrap_or(name));
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let result = real_main(&args);
    // What `print!` left buffered is written now, checked like the rest.
    crate::base::out::flush();
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("{}: {e}", prog().rsplit(' ').next().unwrap_or(prog()));
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn every_command_answers_help_without_running() {
        for (name, _, _) in COMMANDS {
            assert_eq!(real_main(&args(&[name, "--help"])), Ok(true), "{name}");
        }
    }

    /// A refused command line is one line that names what was refused and
    /// where to read more, never the whole help page.
    #[test]
    fn unknown_options_and_arguments_are_refused_in_one_line() {
        for bad in [
            &["lab", "--bogus"][..],
            &["lab", "--gid-idx"],
            &["lab", "--two-hosts", "--local"],
            &["bench"],
            &["bench", "pingpong", "--keep"],
            &["fmt", "--two-hosts"],
            &["list", "extra"],
            &["test", "--tcg"],
            &["nope"],
            &["lab", "--capture"],
            &["ladder"],
            &["handout", "extra"],
            &["handout", "--from"],
            &["ladder", "/nonexistent", "rc_example"],
            &["keygen"],
            &["help", "nope"],
        ] {
            let e = real_main(&args(bad)).unwrap_err();
            assert!(!e.contains('\n') && !e.contains("usage:"), "{bad:?}: {e}");
            assert!(
                e.contains("--help")
                    || e.contains("exclude each other")
                    || e.contains("goes with --two-hosts")
                    || e.contains("not the result dir"),
                "{bad:?}: {e}"
            );
        }
    }

    #[test]
    fn a_typo_is_answered_with_the_closest_name() {
        for (bad, says) in [
            (&["lab", "--two-host"][..], "unknown option `--two-host` for `lab` (did you mean `--two-hosts`?); `cargo xtask lab --help` shows its options"),
            (&["mesh", "--rign"], "(did you mean `--ring`?)"),
            (&["lab", "-x"], "unknown option `-x` for `lab`; "),
            (&["lab", "--zzzzzz"], "unknown option `--zzzzzz` for `lab`; "),
            (&["lbа"], "unknown command `lbа`; `cargo xtask --help` lists the commands"),
            (&["mesj"], "unknown command `mesj` (did you mean `mesh`?)"),
            (&["help", "doctr"], "no command `doctr` (did you mean `doctor`?)"),
        ] {
            let e = real_main(&args(bad)).unwrap_err();
            assert!(e.contains(says), "{bad:?}: {e}");
        }
        assert_eq!(edits("kitten", "sitting"), 3);
        assert_eq!(edits("", "ab"), 2);
    }

    #[test]
    fn version_and_help_of_one_command_answer() {
        for a in [&["--version"][..], &["-V"], &["help", "mesh"], &["help"]] {
            assert_eq!(real_main(&args(a)), Ok(true), "{a:?}");
        }
        assert!(options_of("mesh").contains(&"--coordinator".to_string()));
    }

    #[test]
    fn mesh_options_are_checked_in_one_line_before_anything_runs() {
        let ranked = [
            "mesh",
            "--rank",
            "0",
            "--size",
            "4",
            "--coordinator",
            "node0",
        ];
        for (extra, says) in [
            (&["--dev", "x;reboot"][..], "--dev"),
            (&["--ip", "1.2.3.4 x"], "--ip"),
            (&["--netdev", "$(reboot)"], "--netdev"),
            (&["--ring", "--star", "1"], "choose one"),
            (&["--mcast-senders", "some"], "--mcast-senders some"),
            (&["--star", "nowhere"], "--star nowhere"),
            (&["--port", "65535"], "--port 65535"),
            (&["--wait", "18446744073709551615"], "--wait"),
        ] {
            let mut a = ranked.to_vec();
            a.extend(extra);
            let e = real_main(&args(&a)).unwrap_err();
            assert!(e.contains(says) && !e.contains('\n'), "{a:?}: {e}");
        }
        for (bad, says) in [
            (
                &["mesh", "--rank", "5", "--size", "4", "--coordinator", "n"][..],
                "rank 5 of 4",
            ),
            (
                &["mesh", "--rank", "0", "--size", "1", "--coordinator", "n"],
                "2 hosts or more",
            ),
            (
                &[
                    "mesh",
                    "--rank",
                    "0",
                    "--size",
                    "2",
                    "--coordinator",
                    "$(reboot)",
                ],
                "not a host name",
            ),
            (
                &["mesh", "--rank", "x", "--size", "2", "--coordinator", "n"],
                "--rank x",
            ),
            (
                &["mesh", "--ssh", "node1,-oProxyCommand=touch"],
                "not a host name",
            ),
            (&["mesh", "--ssh", "node1"], "2 hosts or more"),
            (
                &[
                    "mesh",
                    "--rank",
                    "0",
                    "--size",
                    "100000",
                    "--coordinator",
                    "n",
                ],
                "at most 4096",
            ),
        ] {
            let e = real_main(&args(bad)).unwrap_err();
            assert!(e.contains(says) && !e.contains('\n'), "{bad:?}: {e}");
        }
    }

    #[test]
    fn two_host_options_are_checked_before_anything_runs() {
        for (bad, says) in [
            (&["lab", "--serve"][..], "goes with --local"),
            (&["lab", "--peer", "10.0.0.1"], "goes with --local"),
            (&["lab", "--local", "--serve"], "need --ip"),
            (&["lab", "--local", "--peer", "10.0.0.1"], "need --ip"),
            (
                &[
                    "lab", "--local", "--serve", "--peer", "10.0.0.1", "--ip", "10.0.0.2",
                ],
                "exclude each other",
            ),
            (
                &["lab", "--local", "--serve", "--ip", "10.0.0.1", "srq"],
                "give the NAMEs there",
            ),
            (
                &["lab", "--local", "--kernel", "/boot/x"],
                "does not go with --local",
            ),
            (&["lab", "--local", "--port", "x"], "--port x"),
            (&["doctor", "--peer", "10.0.0.2"], "--peer needs --ip"),
            (
                &["doctor", "--ip", "10.0.0.2", "--peer", "10.0.0.2"],
                "own --ip",
            ),
            (&["doctor", "extra"], "unexpected argument"),
            (
                &["doctor", "--mcast", "192.0.2.1"],
                "--mcast 192.0.2.1: give an IPv4 multicast address",
            ),
            (
                &["doctor", "--mcast", "ff0e::1"],
                "--mcast ff0e::1: give an IPv4 multicast address",
            ),
            (
                &["lab", "--kernel", "/nonexistent/vmlinuz"],
                "--kernel /nonexistent/vmlinuz",
            ),
        ] {
            let e = real_main(&args(bad)).unwrap_err();
            assert!(e.contains(says), "{bad:?}: {e}");
        }
    }

    #[test]
    fn the_usage_lists_every_command() {
        let text = usage(None);
        for (name, synopsis, _) in COMMANDS {
            assert!(text.contains(synopsis), "{name}");
        }
        assert!(usage(Some("lab")).contains("--two-hosts"));
        assert!(!usage(Some("lab")).contains("bench pingpong"));
    }

    #[test]
    fn a_directory_without_a_capture_is_refused_in_one_line() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let e = real_main(&args(&["ladder", &dir.to_string_lossy()])).unwrap_err();
        assert!(e.contains("wire.pcap") && !e.contains('\n'), "{e}");
        let e = real_main(&args(&["handout", "--from", &dir.to_string_lossy()])).unwrap_err();
        assert!(
            e.contains("not the result dir of a two-host run with --capture"),
            "{e}"
        );
    }
}
