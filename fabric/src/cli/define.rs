//! The fabric's commands as clap defines them: each option's name, help,
//! default, environment variable, range and conflicts in one place, from
//! which the parser, each command's help, the completions and the man
//! page are made. A value is checked as it is read, and refused in one
//! line that names the option ([`super::refuse`]).

use super::args::Whole;
use crate::model::mesh::PerfLimits;
use crate::{guest, model};
use clap::{Args, CommandFactory, Subcommand, ValueEnum};
use std::net::IpAddr;
use std::path::PathBuf;

/// The fabric's commands.
#[derive(Debug, Subcommand)]
pub enum FabricCommand {
    /// Check this host's RDMA setup and, with --peer, the path to a peer
    #[command(
        long_about = "Check this host's RDMA setup: the devices, ports, MTUs, \
    the GID table, ulimit -l and rdma_cm (tried as the examples try it, with \
    --bin-dir's rdmacm_server), the address's netdev, and that the route to the \
    examples' multicast group 239.255.1.1, and to --mcast GROUP's, leaves through \
    that netdev. With --peer (run the doctor there too, with --peer this host), \
    also the path to the peer: one RC message; both doctors need the same secret \
    (--secret-file F or RDMA_LAB_SECRET). Each finding is one line on stderr, \
    what is wrong and what to do; the exit status is 1 when there is one."
    )]
    Doctor(DoctorArgs),
    /// Smoke-test a fabric of N hosts: every pair, a matrix, a diagnosis
    #[command(long_about = "Smoke-test a fabric of N hosts: every pair (or --ring, \
    --star) runs the doctor's RC probe and the example pairs (or the NAMEs) in \
    parallel rounds, then an N x N matrix and a diagnosis that names a bad host \
    or link. Under srun each task takes its rank from Slurm; another launcher \
    sets --rank, --size and --coordinator; --ssh starts the ranks itself. The \
    ranks need one secret (--secret-file F, RDMA_LAB_SECRET or --secret-stdin). \
    Rank 0 (or the --ssh launcher) coordinates on TCP 7471 (--port), and every \
    wait is bounded (--wait). Rail 0 is a subnet, not a device name: without \
    --dev, --ip or --netdev each host plays it on its port on the coordinator's \
    subnet, else on its lowest, and a host whose devices are named in another \
    order is said, not failed. A rail whose every link fell alike against \
    --baseline is named as the fabric. Rank 0's results hold the pairs' \
    transcripts, which --html's page links to.")]
    Mesh(Box<MeshArgs>),
    /// Write a new key, the secret two hosts or a mesh share
    #[command(long_about = "Write a new key (32 random bytes, as 64 hex digits) to \
    FILE, which must not exist, mode 600: the secret two hosts or a mesh share \
    (--secret-file FILE, or its text in RDMA_LAB_SECRET). Copy it to the other \
    hosts privately. Nothing else is accepted as a secret, since a pass phrase \
    could be guessed offline.")]
    Keygen(KeygenArgs),
}

/// The command line the fabric's commands hang under, for the help, the
/// completions and the man page.
#[derive(Debug, clap::Parser)]
#[command(
    name = "rdma-fabric",
    version,
    about = "Smoke-test the RDMA setup of a host, of two hosts and of a fabric",
    long_about = "Smoke-test the RDMA setup of a host (doctor), of two hosts \
                  (doctor --peer) and of a fabric of N hosts (mesh), with the \
                  example binaries beside this one."
)]
pub struct Fabric {
    /// The command.
    #[command(subcommand)]
    pub command: FabricCommand,
}

/// `doctor`'s options.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// The RDMA device to check
    #[arg(long, value_name = "DEV", value_parser = dev("--dev"))]
    pub dev: Option<String>,
    /// This host's address on its RDMA netdev
    #[arg(long, value_name = "ADDR", value_parser = ip("--ip"))]
    pub ip: Option<String>,
    /// Also check the route to this IPv4 multicast group
    #[arg(long, value_name = "GROUP", value_parser = mcast)]
    pub mcast: Option<String>,
    /// The examples' GID index and binaries.
    #[command(flatten)]
    pub examples: Examples,
    /// How long to wait for the peer, the secret, who may connect.
    #[command(flatten)]
    pub session: Session,
    /// Also check the path to the peer at ADDR, whose doctor runs with --peer this host
    #[arg(long, value_name = "ADDR", value_parser = ip("--peer"))]
    pub peer: Option<String>,
    /// The TCP port the two doctors meet on
    #[arg(long, value_name = "N", default_value_t = model::CONTROL_PORT,
          value_parser = whole::<u16>("--port"))]
    pub port: u16,
}

/// How the examples run: their GID index, and where their binaries are.
#[derive(Debug, Args)]
pub struct Examples {
    /// The GID index the examples are to use
    #[arg(long, value_name = "N", value_parser = whole::<u32>("--gid-idx"))]
    pub gid_idx: Option<u32>,
    /// Where the example binaries are
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
}

/// What two hosts' sessions share: how long to wait, the secret, who may
/// connect.
#[derive(Debug, Args)]
#[command(next_help_heading = "Session")]
pub struct Session {
    /// How long to wait for the other hosts, in seconds
    #[arg(long, value_name = "SECS", default_value_t = guest::agent::PEER_WAIT_SECS,
          value_parser = wait)]
    pub wait: u64,
    /// The key the hosts share (a file of `keygen`, mode 600); else RDMA_LAB_SECRET
    #[arg(long, value_name = "F")]
    pub secret_file: Option<PathBuf>,
    /// Only this address (repeatable) may connect
    #[arg(long, value_name = "ADDR", value_parser = allow)]
    pub allow: Vec<IpAddr>,
}

/// How the mesh's hosts are paired.
#[derive(Debug, Args)]
#[command(next_help_heading = "Pairs")]
pub struct Pairing {
    /// The scenarios each pair runs (default: the doctor's RC probe and every example pair)
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,
    /// Pair each host with its neighbours only
    #[arg(long, conflicts_with = "star")]
    pub ring: bool,
    /// Pair one host (a rank, or a host's name) with every other
    #[arg(long, value_name = "HOST")]
    pub star: Option<String>,
    /// Which hosts send in the multicast round
    #[arg(long, value_name = "WHO", value_enum, default_value_t = Senders::First)]
    pub mcast_senders: Senders,
    /// Run one pair at a time (the benchmark's baseline)
    #[arg(long)]
    pub serial: bool,
    /// Also run each pair on every other rail (subnet) both hosts have a port on, all rails at once
    #[arg(long)]
    pub rails: bool,
}

/// Which hosts send in the multicast round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Senders {
    /// Every host in turn
    All,
    /// Host 0
    First,
}

/// How the mesh's ranks are started and meet.
#[derive(Debug, Args)]
#[command(next_help_heading = "Launch")]
pub struct Launch {
    /// Start a rank on each HOST (comma-separated) with your ssh (BatchMode), and make the secret
    #[arg(long, value_name = "HOST,HOST...")]
    pub ssh: Option<String>,
    /// With --ssh, run the binaries from this dir on each host instead of a copy
    #[arg(long, value_name = "DIR")]
    pub remote_dir: Option<String>,
    /// This host's rank, 0 to size - 1 (else RDMA_LAB_RANK, else srun's SLURM_PROCID)
    #[arg(long, value_name = "R", value_parser = whole::<usize>("--rank"))]
    pub rank: Option<usize>,
    /// How many hosts (else RDMA_LAB_SIZE, else srun's SLURM_NTASKS)
    #[arg(long, value_name = "N", value_parser = whole::<usize>("--size"))]
    pub size: Option<usize>,
    /// Rank 0's host (else RDMA_LAB_COORDINATOR, else the first of srun's SLURM_JOB_NODELIST)
    #[arg(long, value_name = "HOST")]
    pub coordinator: Option<String>,
    /// The TCP port rank 0 coordinates on; the pairs meet on the next ports, one a rail
    #[arg(long, value_name = "N", default_value_t = model::CONTROL_PORT, value_parser = mesh_port)]
    pub port: u16,
    /// How long to wait, the secret, who may connect.
    #[command(flatten)]
    pub session: Session,
    /// Read the secret from the first line of stdin (what --ssh's ranks are given)
    #[arg(long, conflicts_with = "secret_file")]
    pub secret_stdin: bool,
}

/// Which port of each host plays rail 0.
#[derive(Debug, Args)]
#[command(next_help_heading = "Ports")]
pub struct Ports {
    /// This host's address on its RDMA netdev (rail 0's subnet)
    #[arg(long, value_name = "ADDR", value_parser = ip("--ip"), conflicts_with = "netdev")]
    pub ip: Option<String>,
    /// The netdev whose address is this host's (rail 0's subnet)
    #[arg(long, value_name = "NETDEV", value_parser = dev("--netdev"))]
    pub netdev: Option<String>,
    /// The RDMA device (repeatable: one a rail, in the rails' order)
    #[arg(long, value_name = "DEV", value_parser = dev("--dev"))]
    pub dev: Vec<String>,
    /// The examples' GID index and binaries.
    #[command(flatten)]
    pub examples: Examples,
}

/// `--perf`: each link measured, and what names one slow.
#[derive(Debug, Args)]
#[command(next_help_heading = "Measuring (--perf)")]
pub struct Perf {
    /// Also measure each pair with perftest (ib_write_bw, ib_send_lat), and a suspect again alone
    #[arg(long)]
    pub perf: bool,
    /// Name a link slow under R of the median bandwidth
    #[arg(long, value_name = "R", default_value_t = PerfLimits::default().min_bw_ratio,
          value_parser = share("--min-bw-ratio", 0.0, 1.0, "between 0 and 1"))]
    pub min_bw_ratio: f64,
    /// Name a link slow under G Gb/s
    #[arg(long, value_name = "G", value_parser = share("--min-gbps", 0.0, f64::INFINITY, "above 0"))]
    pub min_gbps: Option<f64>,
    /// Name a link slow over R times the median latency
    #[arg(long, value_name = "R", default_value_t = PerfLimits::default().max_lat_ratio,
          value_parser = share("--max-lat-ratio", 1.0, f64::INFINITY, "above 1"))]
    pub max_lat_ratio: f64,
    /// Name a link slow under R of its ports' link rate
    #[arg(long, value_name = "R", value_parser = rate_ratio)]
    pub min_rate_ratio: Option<f64>,
    /// Measure bandwidth with the QP timeout your jobs use (perftest's -u, 4.096 usec x 2^T; perftest's 14 otherwise)
    #[arg(long, value_name = "T", value_parser = qp_timeout)]
    pub qp_timeout: Option<u8>,
    /// Run each host's measurements on any CPU, not its NIC's local ones (sysfs's local_cpulist)
    #[arg(long)]
    pub no_pin: bool,
}

/// Where the mesh's results and reports go, and its baselines.
#[derive(Debug, Args)]
#[command(next_help_heading = "Reports")]
pub struct Reports {
    /// Put each rank's results in a fresh private dir in DIR (else in ./rdma-fabric-results/mesh; target/mesh under cargo xtask)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write the JUnit XML report to FILE
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write the JSON Lines report to FILE
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the page (matrix, heatmaps, transcripts' links) to FILE
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Keep every host's report as the judge took it, for --replay
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Judge and show a --record FILE again, with no host
    #[arg(long, value_name = "FILE", conflicts_with_all = ON_HOSTS)]
    pub replay: Option<PathBuf>,
    /// Also judge each link against its own bandwidth in FILE (an earlier --json or --save-baseline)
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write a baseline to FILE from a measured run that passed
    #[arg(long, value_name = "FILE")]
    pub save_baseline: Option<PathBuf>,
}

/// The options that measure, or judge measurements, which need `--perf`
/// (on hosts; `--replay` judges what was measured).
pub const NEED_PERF: &[&str] = &[
    "min_bw_ratio",
    "min_gbps",
    "max_lat_ratio",
    "min_rate_ratio",
    "qp_timeout",
    "baseline",
    "save_baseline",
];

/// The options of a run on hosts, which `--replay` does not take.
const ON_HOSTS: &[&str] = &[
    "names",
    "ring",
    "star",
    "mcast_senders",
    "serial",
    "rails",
    "ssh",
    "remote_dir",
    "rank",
    "size",
    "coordinator",
    "port",
    "wait",
    "secret_file",
    "allow",
    "secret_stdin",
    "ip",
    "netdev",
    "dev",
    "gid_idx",
    "bin_dir",
    "perf",
    "min_bw_ratio",
    "min_gbps",
    "max_lat_ratio",
    "min_rate_ratio",
    "qp_timeout",
    "no_pin",
    "out",
    "record",
];

/// `mesh`'s options.
#[derive(Debug, Args)]
pub struct MeshArgs {
    /// How the hosts are paired.
    #[command(flatten)]
    pub pairing: Pairing,
    /// How the ranks are started and meet.
    #[command(flatten)]
    pub launch: Launch,
    /// Which port of each host plays rail 0.
    #[command(flatten)]
    pub ports: Ports,
    /// What `--perf` measures and names slow.
    #[command(flatten)]
    pub perf: Perf,
    /// Where the results and reports go.
    #[command(flatten)]
    pub reports: Reports,
}

/// `keygen`'s operand.
#[derive(Debug, Args)]
pub struct KeygenArgs {
    /// The new key's file
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// The fabric's commands under `prog`, as clap reads and shows them.
pub fn root(prog: &'static str) -> clap::Command {
    Fabric::command()
        .name(prog)
        .bin_name(prog)
        .color(clap::ColorChoice::Never)
        // The same help on every terminal, in a pipe and in the tests.
        .term_width(80)
        .disable_help_subcommand(true)
        // As with getopt, an option given twice keeps its last value.
        .mut_subcommands(|c| c.args_override_self(true))
}

/// The names of the fabric's commands, in the order the help lists them.
pub fn names() -> Vec<String> {
    root("rdma-fabric")
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect()
}

/// A parser of a whole number of `T` for `opt`, refused in one line that
/// names the option, its value and the range.
pub fn whole<T: Whole + Clone + Send + Sync + 'static>(
    opt: &'static str,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {
    move |v| v.parse().map_err(|_| super::args::not_whole::<T>(opt, v))
}

/// A parser of a device or netdev name for `opt`: the values reach the
/// scenarios' command lines.
pub fn dev(opt: &'static str) -> impl Fn(&str) -> Result<String, String> + Clone + Send + Sync {
    move |v| Ok(model::check_dev(opt, v).map(|()| v.to_string())?)
}

/// A parser of an IP address for `opt`, kept as given.
pub fn ip(opt: &'static str) -> impl Fn(&str) -> Result<String, String> + Clone + Send + Sync {
    move |v| Ok(model::check_ip(opt, v).map(|()| v.to_string())?)
}

/// `--mcast GROUP`: an IPv4 multicast address.
fn mcast(v: &str) -> Result<String, String> {
    super::args::mcast_group(v).map(|()| v.to_string())
}

/// `--allow ADDR`: an IP address.
fn allow(v: &str) -> Result<IpAddr, String> {
    v.parse().map_err(|e| {
        format!(
            "--allow {}: {e}: give an IP address",
            crate::base::text::shown(v)
        )
    })
}

/// `--wait SECS`: 1 to a day.
fn wait(v: &str) -> Result<u64, String> {
    let secs = whole::<u64>("--wait")(v)?;
    if (1..=86400).contains(&secs) {
        Ok(secs)
    } else {
        Err(format!("--wait {secs}: give 1 to 86400 seconds"))
    }
}

/// The mesh's `--port N`: the pairs meet on the next ports, one a rail.
fn mesh_port(v: &str) -> Result<u16, String> {
    let port = whole::<u16>("--port")(v)?;
    let top = 65534 - guest::mesh::messages::RAILS_MAX as u16;
    if (1..=top).contains(&port) {
        Ok(port)
    } else {
        Err(format!(
            "--port {port}: give 1 to {top} (the pairs use the next ports, one a rail)"
        ))
    }
}

/// A parser of a number for `opt` over `low` (and under `high`), refused
/// with `range` in words.
fn share(
    opt: &'static str,
    low: f64,
    high: f64,
    range: &'static str,
) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync {
    move |v| match v.parse::<f64>() {
        Ok(x) if x.is_finite() && x > low && x < high => Ok(x),
        _ => Err(format!(
            "{opt} {}: give a number {range}",
            crate::base::text::shown(v)
        )),
    }
}

/// `--min-rate-ratio R`: above 0, at most 1 (a link at its ports' rate).
fn rate_ratio(v: &str) -> Result<f64, String> {
    share("--min-rate-ratio", 0.0, 1.0, "above 0, at most 1")(v).or_else(|e| match v.parse() {
        Ok(x) if x == 1.0 => Ok(x),
        _ => Err(e),
    })
}

/// `--qp-timeout T`: 1 to 31, as the verbs' QP attribute takes it.
fn qp_timeout(v: &str) -> Result<u8, String> {
    match v.parse::<u8>() {
        Ok(t @ 1..=31) => Ok(t),
        _ => Err(format!(
            "--qp-timeout {}: give a whole number from 1 to 31",
            crate::base::text::shown(v)
        )),
    }
}
