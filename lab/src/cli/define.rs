//! The lab's own commands as clap defines them, each option once: its
//! help, default, range and the options it excludes. The fabric's three
//! (`doctor`, `mesh`, `keygen`) are `rdma_fabric::cli::define`'s, listed
//! among these and dispatched by name.

use crate::model;
use clap::{Args, Subcommand, ValueEnum};
use rdma_fabric::cli::define::{dev, ip, whole, Session};
use std::path::PathBuf;

/// The lab's own commands.
#[derive(Debug, Subcommand)]
pub enum LabCommand {
    /// Install what the lab needs (as root; otherwise print the commands)
    Setup,
    /// Run scenarios in a Soft-RoCE VM, in two VMs, or on this host and a peer
    #[command(long_about = "Run scenarios (default: every example pair; --faults: \
        the fault matrix, of every example or of those NAMEd) in a Soft-RoCE VM, in \
        two VMs (--two-hosts) or on this host's RDMA device (--local). With --local, \
        two real hosts: one runs --serve --ip ITS_ADDR, the other --peer THAT_ADDR \
        --ip ITS_OWN and prints the report; they meet on TCP port 7471 (--port), wait \
        120 s (--wait) for each other, and prove that they hold the same secret (a key \
        of `keygen`: --secret-file F, mode 600, or RDMA_LAB_SECRET; --serve makes one \
        when neither is given and prints the peer's command). The doctor runs first \
        and its findings are printed. Results go to a fresh private dir, \
        target/lab/<run>/ (./rdma-lab/lab/<run>/ beside a copy, DIR/<run>/ with --out \
        DIR), kept on failure or with --keep. The VMs use KVM where the CPU offers \
        it; --tcg (or XTASK_TCG=1) forces emulation.")]
    Lab(Box<LabArgs>),
    /// List the scenarios
    List(ListArgs),
    /// Write the lab handout: three labs, each a student's and a teacher's edition
    #[command(long_about = "Run every pair and the exercises across two VMs with \
        capture, then write the lab handout: three labs, each a student's edition (no \
        answers: a step to check each prediction) and a teacher's (every answer open, \
        the porting notes), DIR/lab1.html and DIR/lab1-teacher.html to lab3, and all \
        three in one, DIR/handout.html and DIR/handout-teacher.html, with the captures \
        in DIR/pcaps/ and the transcripts in DIR/transcripts/.")]
    Handout(HandoutArgs),
    /// Draw the packet ladders of a kept two-host run with --capture
    Ladder(LadderArgs),
    /// Run cargo fmt --all over the whole workspace
    Fmt(FmtArgs),
    /// Run setup, fmt, clippy, the host tests, then the Soft-RoCE test suite
    Test,
    /// Run the fabric's record scripts and keep each run's record
    #[command(
        long_about = "Run the fabric's record scripts (lab/fabric/record-NAME.sh, \
        all by default: one fault a mesh run, each on a fabric of four VMs, side by \
        side) and keep the record of each run that exited as catalog::fabric declares \
        in lab/tests/data/fabric/, which the host tests replay (mesh --replay)."
    )]
    FabricRecord(FabricRecordArgs),
    /// Run a benchmark: two ways of one thing in one boot, and their ratio
    Bench(BenchArgs),
    /// The runner inside the VMs and on a `lab --local` host (internal)
    #[command(hide = true)]
    Agent(AgentArgs),
}

/// `agent`'s options: what the lab wrote for it.
#[derive(Debug, Args)]
pub struct AgentArgs {
    /// The agent's configuration, the JSON the lab wrote into the run's dir
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
}

/// The lab's commands that come before the fabric's in the help.
pub const FIRST: &[&str] = &["setup", "lab"];

/// The lab's commands under `prog`, as clap reads and shows them.
pub fn root(prog: &'static str) -> clap::Command {
    LabCommand::augment_subcommands(clap::Command::new(prog))
        .bin_name(prog)
        .color(clap::ColorChoice::Never)
        .term_width(80)
        .disable_help_subcommand(true)
        // As with getopt, an option given twice keeps its last value.
        .mut_subcommands(|c| c.args_override_self(true))
}

/// `lab`'s options.
#[derive(Debug, Args)]
pub struct LabArgs {
    /// The scenarios to run (default: every example pair)
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,
    /// Run the fault matrix, of every example or of those NAMEd
    #[arg(long)]
    pub faults: bool,
    /// Run across two VMs
    #[arg(long, conflicts_with = "local")]
    pub two_hosts: bool,
    /// With --two-hosts, record the wire between the VMs
    #[arg(long)]
    pub capture: bool,
    /// Boot this kernel image (its modules in /lib/modules) instead of the default
    #[arg(long, value_name = "IMAGE")]
    pub kernel: Option<PathBuf>,
    /// Keep the run's result dir when it passes
    #[arg(long)]
    pub keep: bool,
    /// Run the VMs under emulation (TCG), also when KVM is there
    #[arg(long)]
    pub tcg: bool,
    /// The run's reports and where its results go.
    #[command(flatten)]
    pub reports: LabReports,
    /// Run on this host's RDMA device, alone or with a peer.
    #[command(flatten)]
    pub local: Local,
}

/// Where a lab run's results and reports go.
#[derive(Debug, Args)]
pub struct LabReports {
    /// Put the run's result dir in DIR
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write the JUnit XML report to FILE
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write the JSON report to FILE
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// `lab --local`: this host's device, and the two-host session's options.
#[derive(Debug, Args)]
#[command(next_help_heading = "This host (--local)")]
pub struct Local {
    /// Run on this host's RDMA device
    #[arg(long)]
    pub local: bool,
    /// The RDMA device
    #[arg(long, value_name = "DEV", value_parser = dev("--dev"))]
    pub dev: Option<String>,
    /// This host's address on its RDMA netdev
    #[arg(long, value_name = "ADDR", value_parser = ip("--ip"))]
    pub ip: Option<String>,
    /// The GID index the examples are to use
    #[arg(long, value_name = "N", value_parser = whole::<u32>("--gid-idx"))]
    pub gid_idx: Option<u32>,
    /// Serve the scenarios a peer names
    #[arg(long, conflicts_with = "peer")]
    pub serve: bool,
    /// Run the scenarios with the host at ADDR, which serves them, and print the report
    #[arg(long, value_name = "ADDR", value_parser = ip("--peer"))]
    pub peer: Option<String>,
    /// The TCP port the two hosts meet on
    #[arg(long, value_name = "N", default_value_t = model::CONTROL_PORT,
          value_parser = whole::<u16>("--port"))]
    pub port: u16,
    /// Run the examples from this copy of target/release instead of building them
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
    /// How long each host waits for the other, the secret, who may connect (with --serve).
    #[command(flatten)]
    pub session: Session,
}

/// The options of [`Local`] that only `--local` takes, by id.
pub const LOCAL_ONLY: &[&str] = &[
    "dev",
    "ip",
    "gid_idx",
    "serve",
    "peer",
    "port",
    "wait",
    "bin_dir",
    "secret_file",
    "allow",
];

/// `list`'s options.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print everything each scenario declares (commands, expectations, wire facts) and where it may run
    #[arg(long)]
    pub full: bool,
}

/// The paper the handout is printed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PaperName {
    /// ISO A4
    A4,
    /// US Letter
    Letter,
}

/// `handout`'s options.
#[derive(Debug, Args)]
pub struct HandoutArgs {
    /// Write the handout into DIR [default: target/handout]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Also print each with headless Chromium
    #[arg(long)]
    pub pdf: bool,
    /// The paper --pdf prints on
    #[arg(long, value_enum, default_value_t = PaperName::A4)]
    pub paper: PaperName,
    /// Also write the instructor's DIR/key.html, every exercise's answer open
    #[arg(long)]
    pub key: bool,
    /// Write it from a kept run's result dir instead of a new run
    #[arg(long, value_name = "RUN")]
    pub from: Option<PathBuf>,
    /// Open it in headless Chromium and check what it rendered
    #[arg(long)]
    pub check: bool,
    /// Run the VMs under emulation (TCG), also when KVM is there
    #[arg(long)]
    pub tcg: bool,
}

/// `ladder`'s operands.
#[derive(Debug, Args)]
pub struct LadderArgs {
    /// The kept run's result dir (its wire.pcap is cut per scenario again)
    #[arg(value_name = "DIR")]
    pub dir: String,
    /// The scenarios to draw (default: every one captured)
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,
}

/// `fmt`'s options.
#[derive(Debug, Args)]
pub struct FmtArgs {
    /// Only check, change nothing
    #[arg(long)]
    pub check: bool,
}

/// `fabric-record`'s operands.
#[derive(Debug, Args)]
pub struct FabricRecordArgs {
    /// The record scripts to run: healthy, faults, baseline (default: all)
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,
}

/// Which benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Bench {
    /// ibv_sockets_pingpong against ibv_rc_pingpong, 4096 B x 1000 iters, alternating runs in one boot
    Pingpong,
    /// Four VMs under Slurm: the all-pairs mesh in parallel rounds against one pair at a time
    Mesh,
}

/// `bench`'s options.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// The benchmark
    #[arg(value_enum, value_name = "WHICH")]
    pub which: Option<Bench>,
    /// pingpong: across two VMs
    #[arg(long)]
    pub two_hosts: bool,
    /// pingpong: under emulation (TCG), also when KVM is there
    #[arg(long)]
    pub tcg: bool,
    /// mesh: four VMs of two NICs, both rails at once against one rail at a time (--perf)
    #[arg(long)]
    pub rails: bool,
}
