//! A script of node0's run across a fabric of VMs ([`crate::host::fabric`])
//! as a cluster's administrator would run it: the release binaries copied
//! where a host without the source tree keeps them, every node with the
//! route that the examples' multicast takes, node0 running the script.
//! The fabric's test and its benchmark are both such a run.

use crate::base::rundir::Dir;
use crate::base::workspace::target_dir;
use crate::host::fabric::{boot_fabric, FabricSpec, NodeOutcome};
use crate::host::{lab, setup, vm};
use std::fs;
use std::path::{Path, PathBuf};

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

/// The record scripts by name (`lab/fabric/record-NAME.sh`, after
/// `common.sh`), each on a fabric of its own: one fault a mesh run, each
/// run's record kept.
pub const RECORD_SCRIPTS: [(&str, &str); 3] = [
    (
        "healthy",
        concat!(
            include_str!("../../fabric/common.sh"),
            "\n",
            include_str!("../../fabric/record-healthy.sh")
        ),
    ),
    (
        "faults",
        concat!(
            include_str!("../../fabric/common.sh"),
            "\n",
            include_str!("../../fabric/record-faults.sh")
        ),
    ),
    (
        "baseline",
        concat!(
            include_str!("../../fabric/common.sh"),
            "\n",
            include_str!("../../fabric/record-baseline.sh")
        ),
    ),
];

/// Where the records are kept in the source tree.
pub fn records_dir() -> PathBuf {
    crate::base::workspace::workspace_root().join("lab/tests/data/fabric")
}

/// `cargo xtask fabric-record [NAME...]`: the record scripts NAMEd (all
/// by default) on fabrics of four VMs side by side, then the record
/// (`STEP.record.json`) of each step that exited as
/// [`crate::catalog::fabric::RECORDED`] declares copied into
/// [`records_dir`]; the steps kept, and those not kept with why.
pub fn record(names: &[String]) -> Result<(Vec<String>, Vec<String>), String> {
    let scripts: Vec<&(&str, &str)> = RECORD_SCRIPTS
        .iter()
        .filter(|(n, _)| names.is_empty() || names.iter().any(|m| m == n))
        .collect();
    if let Some(bad) = names
        .iter()
        .find(|m| !RECORD_SCRIPTS.iter().any(|(n, _)| n == m))
    {
        return Err(format!(
            "fabric-record: no script {bad}: give healthy, faults or baseline"
        ));
    }
    let runs: Vec<Result<FabricRun, String>> = std::thread::scope(|scope| {
        let started: Vec<_> = scripts
            .iter()
            .map(|(_, script)| scope.spawn(move || run_script(4, 2, None, script, 2400)))
            .collect();
        started
            .into_iter()
            .map(|t| t.join().unwrap_or_else(|_| Err("a fabric failed".into())))
            .collect()
    });
    let dir = records_dir();
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let (mut kept, mut not) = (Vec::new(), Vec::new());
    for run in runs {
        let run = run?;
        if let Some(n) = run.nodes.iter().find(|n| !n.ok()) {
            not.push(format!(
                "{}: {:?}; see {}",
                n.name,
                n.error,
                n.console.display()
            ));
            continue;
        }
        for step in crate::catalog::fabric::RECORDED {
            match keep(&run.node0, step, &dir) {
                Ok(true) => kept.push(step.name.to_string()),
                Ok(false) => {}
                Err(e) => not.push(e),
            }
        }
    }
    Ok((kept, not))
}

/// Copies `step`'s record from `node0` into `dir` when the step ran
/// there and exited as declared; whether it did.
fn keep(node0: &Path, step: &crate::catalog::fabric::Step, dir: &Path) -> Result<bool, String> {
    let record = node0.join(format!("{}.record.json", step.name));
    let status = node0.join(format!("{}.status", step.name));
    let Ok(status) = fs::read_to_string(&status) else {
        return Ok(false);
    };
    let code: Option<i32> = status.trim().parse().ok();
    if code != Some(step.status) {
        return Err(format!(
            "{}: exited {}, declared {}: not kept (see {})",
            step.name,
            status.trim(),
            step.status,
            node0.join(format!("{}.out", step.name)).display()
        ));
    }
    let to = dir.join(format!("{}.record.json", step.name));
    fs::copy(&record, &to).map_err(|e| format!("{}: {e}", record.display()))?;
    Ok(true)
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
/// the eight examples and the fabric tool, `rdma-fabric`, as an
/// administrator copies them.
fn binaries(dir: &Dir) -> Result<PathBuf, String> {
    lab::build()?;
    let release = target_dir().join("release");
    let bin = dir
        .make_dir("bin")
        .map_err(|e| format!("{}: {e}", dir.join("bin").display()))?;
    lab::copy_binaries(&release, &bin)?;
    bin.copy_from(&release.join("rdma-fabric"), "rdma-fabric")
        .map_err(|e| format!("copying rdma-fabric: {e}"))?;
    Ok(bin.path().to_path_buf())
}

/// A fresh private run dir under the build's `lab/` (fabrics of one
/// process side by side, the fabric tests, each get their own). The
/// fabric's VMs are handed its path: they write their nodes' files there.
fn run_dir() -> Result<Dir, String> {
    let root = crate::base::workspace::results_root("lab")?;
    Ok(crate::base::fsafe::fresh_run(&root, "fabric-")?)
}

/// Boots `n` nodes with Slurm and sshd (node `numa` a guest of two NUMA
/// nodes, [`FabricSpec::numa`]); node0 runs `script` as `sh SCRIPT OUT
/// BIN` (its rwdir, the binaries), bounded by `budget_secs`.
pub fn run_script(
    n: usize,
    rails: usize,
    numa: Option<usize>,
    script: &str,
    budget_secs: u64,
) -> Result<FabricRun, String> {
    let tools = setup::ensure()?;
    let accel = vm::detect_accel(std::env::var_os("XTASK_TCG").is_some(), &tools);
    setup::ensure_package("nftables", "for the fabric's faults")?;
    let run = run_dir()?;
    let bin = binaries(&run)?;
    let script_file = run.join("node0-script.sh");
    run.write("node0-script.sh", script)
        .map_err(|e| format!("{}: {e}", script_file.display()))?;
    let spec = FabricSpec {
        n,
        dir: run.path().to_path_buf(),
        exec: Vec::new(),
        slurm: true,
        ssh: true,
        budget_secs,
        rails,
        numa,
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
