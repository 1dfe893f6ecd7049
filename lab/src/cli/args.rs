//! The lab's commands and their help, among the fabric's; what every
//! command shares (reading a command line, refused in one line that says
//! where to read more) is the fabric's, re-exported.

pub(super) use rdma_fabric::cli::args::*;
pub(super) use rdma_fabric::cli::usage::*;

/// The lab's commands before the fabric's: their name, synopsis and what
/// they do.
const LAB_FIRST: &[Command] = &[
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
       [--out DIR] [--junit FILE] [--json FILE]",
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
            a fresh private dir, target/lab/<run>/ (./rdma-lab/lab/<run>/
            beside a copy, DIR/<run>/ with --out DIR), kept on failure or
            with --keep; the VMs use
            KVM where the CPU offers it, --tcg (or XTASK_TCG=1) forces
            emulation",
    ),
];

/// The lab's commands after the fabric's.
const LAB_REST: &[Command] = &[
    (
        "list",
        "list [--full]",
        "list the scenarios; --full prints everything each one declares
            (commands, expectations, wire facts) and where it may run",
    ),
    (
        "handout",
        "handout [--pdf] [--check] [--key] [--paper a4|letter] [--out DIR] [--from RUN] [--tcg]",
        "run every pair and the exercises across two VMs with capture, then
            write the lab handout: three labs, each a student's edition (no
            answers: a step to check each prediction) and a teacher's
            (every answer open, the porting notes), DIR/lab1.html and
            DIR/lab1-teacher.html to lab3, and all three in one,
            DIR/handout.html and DIR/handout-teacher.html (default
            target/handout), with the captures in DIR/pcaps/ and the
            transcripts in DIR/transcripts/; --pdf also prints each with
            headless Chromium, on --paper a4 (the default) or letter; --key also writes the
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
        "fabric-record",
        "fabric-record [healthy] [faults] [baseline]",
        "run the fabric's record scripts (lab/fabric/record-NAME.sh, all
            by default: one fault a mesh run, each on a fabric of four
            VMs, side by side) and keep the record of each run that exited
            as catalog::fabric declares in lab/tests/data/fabric/, which
            the host tests replay (mesh --replay)",
    ),
    (
        "bench",
        "bench pingpong [--two-hosts] [--tcg] | bench mesh [--rails]",
        "pingpong: ibv_sockets_pingpong vs ibv_rc_pingpong, 4096 B x 1000
            iters, alternating runs in one boot; medians and their ratio;
            mesh: four VMs under Slurm, the all-pairs mesh in parallel
            rounds vs one pair at a time, in one boot, and their ratio;
            --rails: four VMs of two NICs, both rails at once vs one rail
            at a time (--perf)",
    ),
];

/// Every command of the lab, the fabric's (`doctor`, `mesh`, `keygen`) in
/// their place among them, as the help lists them.
pub(super) fn lab_commands() -> &'static [Command] {
    static ALL: std::sync::OnceLock<Vec<Command>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        [
            LAB_FIRST,
            rdma_fabric::cli::read::fabric_commands(),
            LAB_REST,
        ]
        .concat()
    })
}
