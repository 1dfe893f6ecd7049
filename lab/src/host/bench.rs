//! `cargo xtask bench pingpong`: ibv_sockets_pingpong against rdma-core's
//! ibv_rc_pingpong at the same size, iterations, device and GID, in the same
//! VM boot, alternating runs, and the parser both programs' summaries share.

use crate::catalog::bench::parse_summary;
use crate::host;
use crate::host::lab::LabOptions;
use crate::model::Mode;
use crate::results::bench::{Mesh, Pingpong};

/// Target: ours at most this much slower than ibv_rc_pingpong.
pub const TARGET_RATIO: f64 = 1.05;

/// The median of `v`, which has a run at least.
fn median(v: &mut [f64]) -> f64 {
    crate::base::stats::median(v).unwrap_or(f64::NAN)
}

/// Runs the comparison in one VM boot: each run's summary, both medians.
pub fn pingpong(mode: Mode, tcg: bool) -> Result<Pingpong, String> {
    let opts = LabOptions {
        tcg,
        ..LabOptions::new(
            mode,
            std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?,
        )
    };
    let names: Vec<&str> = crate::catalog::bench_runs()
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    let report = host::lab::run_scenarios(&opts, &names)?;
    let (mut theirs, mut ours, mut runs) = (Vec::new(), Vec::new(), Vec::new());
    for o in report.outcomes.iter().map(|j| &j.outcome) {
        let client = o.client.as_ref().map(|c| c.stdout.as_str()).unwrap_or("");
        let Some(s) = parse_summary(client) else {
            // The client's own words say why; they may be a peer's.
            let said = crate::base::text::escape_controls(client.trim());
            return Err(format!(
                "{}: no summary lines in the client's output (it said: {said}; \
                 the run's files are in {})",
                o.scenario,
                report.dir.display()
            ));
        };
        runs.push((o.scenario.clone(), s.usec_per_iter, s.mbit_per_sec));
        if o.scenario.starts_with("bench_rc_") {
            theirs.push(s.usec_per_iter);
        } else {
            ours.push(s.usec_per_iter);
        }
    }
    Ok(Pingpong {
        runs,
        each: theirs.len(),
        theirs: median(&mut theirs),
        ours: median(&mut ours),
        mode: opts.mode.label().to_string(),
        target: TARGET_RATIO,
    })
}

/// node0's script of `bench mesh`: the four-VM all-pairs mesh of
/// rc_example, its rounds in parallel and then one pair at a time
/// (`--serial`), twice each, alternating, timed by node0's clock.
const MESH_BENCH: &str = r#"set -u
out=$1 bin=$2
cd /tmp || exit 1
RDMA_LAB_SECRET=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
export RDMA_LAB_SECRET
for k in 1 2; do
	for mode in parallel serial; do
		flag=
		[ "$mode" = serial ] && flag=--serial
		t0=$(date +%s.%N)
		# shellcheck disable=SC2086 # $flag is one word or none.
		timeout 1500 srun -N 4 --ntasks-per-node=1 "$bin/rdma-fabric" mesh $flag rc_example \
			>"$out/bench-$mode-$k.out" 2>&1
		s=$?
		echo "$mode $k $s $t0 $(date +%s.%N)" >>"$out/bench.times"
	done
done
"#;

/// node0's script of `bench mesh --rails`: four VMs of two NICs, every
/// pair on both rails at once (`--rails --perf`) against one rail at a
/// time (rail 0's run, then rail 1's with `--dev rxe1`, which runs there
/// what `--rails` does: the probe and the measurements), twice each,
/// alternating. A run counts when the mesh completed (exit 0, or 1 for a
/// finding: under emulation a link may be named slow).
const RAILS_BENCH: &str = r#"set -u
out=$1 bin=$2
cd /tmp || exit 1
RDMA_LAB_SECRET=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
export RDMA_LAB_SECRET
mesh() {
	timeout 1500 srun -N 4 --ntasks-per-node=1 "$bin/rdma-fabric" mesh "$@" >>"$log" 2>&1
	[ $? -le 1 ] || s=1
}
for k in 1 2; do
	for mode in parallel serial; do
		log=$out/bench-rails-$mode-$k.out s=0
		t0=$(date +%s.%N)
		if [ "$mode" = parallel ]; then
			mesh --rails --perf rc_example
		else
			mesh --perf rc_example
			mesh --perf --dev rxe1 perf_write_bw
		fi
		echo "$mode $k $s $t0 $(date +%s.%N)" >>"$out/bench.times"
	done
done
"#;

/// The wall times of `bench.times`' runs of `mode` that passed.
fn mesh_times(times: &str, mode: &str) -> Vec<f64> {
    times
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let (t0, t1): (f64, f64) = (w.get(3)?.parse().ok()?, w.get(4)?.parse().ok()?);
            (w.first() == Some(&mode) && w.get(2) == Some(&"0")).then_some(t1 - t0)
        })
        .collect()
}

/// `bench mesh`: four VMs, the all-pairs mesh in parallel rounds against
/// the same pairs one at a time, in one boot: both medians (the ideal
/// ratio for 4 hosts is 2: 3 rounds of 2 pairs against 6 pairs). With
/// `rails`, four VMs of two NICs, both rails at once against one at a
/// time (ideal 2 where the NICs, not the CPUs, are the bound).
pub fn mesh(rails: bool) -> Result<Mesh, String> {
    let (nics, script) = if rails {
        (2, RAILS_BENCH)
    } else {
        (1, MESH_BENCH)
    };
    let run = crate::host::fabric_run::run_script(4, nics, None, script, 8000)?;
    let times = std::fs::read_to_string(run.node0.join("bench.times"))
        .map_err(|e| format!("no bench.times in {}: {e}", run.node0.display()))?;
    let (mut par, mut ser) = (mesh_times(&times, "parallel"), mesh_times(&times, "serial"));
    if par.is_empty() || ser.is_empty() {
        return Err(format!(
            "a mesh run failed; see {}/bench-*.out",
            run.node0.display()
        ));
    }
    Ok(Mesh {
        parallel: (median(&mut par), par.len()),
        serial: (median(&mut ser), ser.len()),
        rails,
    })
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod mesh_tests;
