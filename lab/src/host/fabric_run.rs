//! A script of node0's run across a fabric of VMs ([`crate::host::fabric`])
//! as a cluster's administrator would run it: the release binaries copied
//! where a host without the source tree keeps them, every node with the
//! route that the examples' multicast takes, node0 running the script.
//! The fabric's test and its benchmark are both such a run.

use crate::base::workspace::{cargo, target_dir};
use crate::host::fabric::{boot_fabric, FabricSpec, NodeOutcome};
use crate::host::{lab, setup, vm};
use std::fs;
use std::path::PathBuf;

/// Each node's first step: the examples' multicast leaves through the
/// fabric's NIC (the doctor checks this route, and the lab's own VMs set
/// it too).
const MCAST_ROUTE: &str = "ip route add 224.0.0.0/4 dev \"$(ip -o -4 addr show | \
     awk '$4 ~ /^192\\.0\\.2\\./ { print $2; exit }')\"";

/// The fabric test's script on node0 (`lab/fabric/test.sh` after
/// `common.sh`).
pub const TEST_SCRIPT: &str = concat!(
    include_str!("../../fabric/common.sh"),
    "\n",
    include_str!("../../fabric/test.sh")
);

/// The record scripts (`lab/fabric/record-*.sh` after `common.sh`), each
/// on a fabric of its own: one fault a mesh run, each run's record kept.
pub const RECORD_SCRIPTS: [&str; 2] = [
    concat!(
        include_str!("../../fabric/common.sh"),
        "\n",
        include_str!("../../fabric/record-healthy.sh")
    ),
    concat!(
        include_str!("../../fabric/common.sh"),
        "\n",
        include_str!("../../fabric/record-faults.sh")
    ),
];

/// Where the records are kept in the source tree.
pub fn records_dir() -> PathBuf {
    crate::base::workspace::workspace_root().join("lab/tests/data/fabric")
}

/// `cargo xtask fabric-record`: the record scripts on two fabrics of four
/// VMs side by side, then every step's record (`NAME.record.json`) copied
/// into [`records_dir`]; the names of those copied. Fails, copying
/// nothing, when a node or a step of [`crate::catalog::fabric::RECORDED`]
/// left no record.
pub fn record() -> Result<Vec<String>, String> {
    let runs: Vec<Result<FabricRun, String>> = std::thread::scope(|scope| {
        let started: Vec<_> = RECORD_SCRIPTS
            .iter()
            .map(|script| scope.spawn(move || run_script(4, 2, script, 2400)))
            .collect();
        started
            .into_iter()
            .map(|t| t.join().unwrap_or_else(|_| Err("a fabric failed".into())))
            .collect()
    });
    let mut found = Vec::new();
    for run in runs {
        let run = run?;
        if let Some(n) = run.nodes.iter().find(|n| !n.ok()) {
            return Err(format!(
                "{}: {:?}; see {}",
                n.name,
                n.error,
                n.console.display()
            ));
        }
        for step in crate::catalog::fabric::RECORDED {
            let file = run.node0.join(format!("{}.record.json", step.name));
            if file.is_file() {
                found.push((step.name, file));
            }
        }
    }
    if let Some(missing) = crate::catalog::fabric::RECORDED
        .iter()
        .find(|s| !found.iter().any(|(n, _)| *n == s.name))
    {
        return Err(format!("{}: no record was written", missing.name));
    }
    let dir = records_dir();
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (name, file) in &found {
        let to = dir.join(format!("{name}.record.json"));
        fs::copy(file, &to).map_err(|e| format!("{}: {e}", to.display()))?;
    }
    Ok(found.iter().map(|(n, _)| n.to_string()).collect())
}

/// What a fabric run left.
#[derive(Debug)]
pub struct FabricRun {
    /// node0's rwdir: where its script wrote its results.
    pub node0: PathBuf,
    /// Every node's outcome.
    pub nodes: Vec<NodeOutcome>,
}

/// The release binaries a node needs, built and copied into `dir/bin`:
/// the eight examples and `rdma-lab`.
fn binaries(dir: &std::path::Path) -> Result<PathBuf, String> {
    let pairs: Vec<_> = crate::catalog::pairs().collect();
    lab::build(&pairs)?;
    let built = cargo()
        .args(["build", "--release", "-p", "rdma-lab"])
        .status()
        .is_ok_and(|s| s.success());
    if !built {
        return Err("cargo build --release -p rdma-lab failed".into());
    }
    let release = target_dir().join("release");
    let bin = lab::copy_binaries(&release, &dir.join("bin"))?;
    fs::copy(release.join("rdma-lab"), bin.join("rdma-lab"))
        .map_err(|e| format!("copying rdma-lab: {e}"))?;
    Ok(bin)
}

/// A fresh private run dir under the build's `lab/`.
fn run_dir() -> Result<PathBuf, String> {
    use std::os::unix::fs::DirBuilderExt;
    let parent = crate::base::workspace::results_dir("lab")?;
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // Fabrics of one process side by side (the fabric tests) each get
    // their own.
    static RUNS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = parent.join(format!("fabric-{secs}-{}-{n}", std::process::id()));
    fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

/// Boots `n` nodes with Slurm and sshd; node0 runs `script` as
/// `sh SCRIPT OUT BIN` (its rwdir, the binaries), bounded by `budget_secs`.
pub fn run_script(
    n: usize,
    rails: usize,
    script: &str,
    budget_secs: u64,
) -> Result<FabricRun, String> {
    let tools = setup::ensure()?;
    let accel = vm::Accel::detect(std::env::var_os("XTASK_TCG").is_some(), &tools);
    setup::ensure_package("nftables", "for the fabric's faults")?;
    let dir = run_dir()?;
    let bin = binaries(&dir)?;
    let script_file = dir.join("node0-script.sh");
    fs::write(&script_file, script).map_err(|e| format!("{}: {e}", script_file.display()))?;
    let spec = FabricSpec {
        n,
        dir: dir.clone(),
        exec: Vec::new(),
        slurm: true,
        ssh: true,
        budget_secs,
        rails,
    };
    let node0 = spec.rwdir(0);
    let words = [
        "sh".to_string(),
        script_file.to_string_lossy().into_owned(),
        node0.to_string_lossy().into_owned(),
        bin.to_string_lossy().into_owned(),
    ];
    let run0: Vec<String> = words
        .iter()
        .map(|w| crate::base::text::shell_quote(w))
        .collect();
    let exec = (0..n)
        .map(|i| match i {
            0 => format!("{MCAST_ROUTE}; {}", run0.join(" ")),
            _ => MCAST_ROUTE.to_string(),
        })
        .collect();
    let spec = FabricSpec { exec, ..spec };
    let nodes = boot_fabric(&tools, &accel, &spec)?;
    Ok(FabricRun { node0, nodes })
}
