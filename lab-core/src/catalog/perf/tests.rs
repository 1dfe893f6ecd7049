use super::*;

/// A report as perftest 4.5 writes it with `--out_json`.
const REPORT: &str = "{\n\"results\": {\nMsgSize: 65536,\nn_iterations: 915,\n\
    BW_peak: 0.00,\nBW_average: 0.24,\nMsgRate: 0.000457\n}\n}\n";

#[test]
fn the_figures_of_a_report_are_read_and_nothing_else() {
    assert_eq!(figure(REPORT, BW_KEY), Some(0.24));
    assert_eq!(figure(REPORT, "MsgRate"), Some(0.000457));
    assert_eq!(figure("  t_typical: 15.62,\n", LAT_KEY), Some(15.62));
    // The table's header names the figure too, with no number after it.
    assert_eq!(figure(" #bytes  BW average[Gb/sec]\n", BW_KEY), None);
    assert_eq!(figure("BW_average: nan,\n", BW_KEY), None);
    assert_eq!(figure("BW_averages: 3,\n", BW_KEY), None);
    assert_eq!(figure("", BW_KEY), None);
    // perftest 24.01 and later write standard JSON.
    let json = "{\n \"results\": {\n  \"MsgSize\": 65536,\n  \"BW_average\": 0.45,\n  \"t_typical\": 9.71\n }\n}\n";
    assert_eq!(figure(json, BW_KEY), Some(0.45));
    assert_eq!(figure(json, LAT_KEY), Some(9.71));
    assert_eq!(figure("\"BW_average_x\": 1,\n", BW_KEY), None);
}

#[test]
fn each_side_runs_perftest_with_values_as_arguments_not_in_the_script() {
    for s in scenarios() {
        for cmd in [s.server.as_ref().unwrap(), s.client.as_ref().unwrap()] {
            assert_eq!(cmd.program, "sh");
            assert_eq!(cmd.args[1], REPORTED);
            assert!(!REPORTED.contains('{'), "{REPORTED}");
        }
        assert!(s
            .client
            .as_ref()
            .unwrap()
            .args
            .contains(&"{server_ip}".into()));
        assert_eq!(s.packages, ["perftest"]);
        // The bandwidth runs take the mesh's QP timeout (perftest's own
        // unless `--qp-timeout` gives one) and measure their whole
        // duration; the latency run keeps perftest's timeout.
        let args = crate::model::params::Params {
            qp_timeout: 20,
            ..Default::default()
        };
        let line: Vec<String> = s
            .client
            .as_ref()
            .unwrap()
            .args
            .iter()
            .map(|a| crate::model::params::substitute(a, &args))
            .collect();
        let has = |pair: [&str; 2]| line.windows(2).any(|w| w == pair);
        let bw = s.name != SEND_LAT;
        assert_eq!(has(["-u", "20"]), bw, "{line:?}");
        assert_eq!(has(["-D", &DURATION_SECS.to_string()]), bw, "{line:?}");
        assert_eq!(has(["--margin", "0"]), bw, "{line:?}");
    }
}

#[test]
fn each_measurement_names_its_perftest_program() {
    let programs: Vec<&str> = super::super::perf_runs()
        .iter()
        .filter_map(program)
        .collect();
    assert_eq!(programs, ["ib_write_bw", "ib_write_bw", "ib_send_lat"]);
    let rc = super::super::find("rc_example").unwrap();
    assert_eq!(program(rc), None);
}

/// A bandwidth is the messages' bytes over the run's duration, which
/// holds where perftest's own timing does not: it reported 0 in the
/// fabric test when its estimate of an emulated CPU's clock failed.
#[test]
fn a_bandwidth_is_the_bytes_completed_over_the_duration() {
    let untimed = "results: {\nMsgSize: 65536,\nn_iterations: 7,\nBW_peak: 0.000000,\n\
                   BW_average: 0.000000,\nMsgRate: 0.000000,\n}\n";
    let g = bandwidth(untimed).unwrap();
    assert!((g - 0.001835).abs() < 1e-6, "{g}");
    // 915 messages of 64 KiB in 2 s (perftest's own 0.24 where its clock
    // held); perftest's figure where the report has no count.
    let g = bandwidth(REPORT).unwrap();
    assert!((g - 0.239862).abs() < 1e-6, "{g}");
    assert_eq!(bandwidth("BW_average: 0.24,\n"), Some(0.24));
    // No message completed is nothing moved; an untimed figure without a
    // count is none.
    assert_eq!(
        bandwidth(&untimed.replace("n_iterations: 7", "n_iterations: 0")),
        Some(0.0)
    );
    assert_eq!(bandwidth("BW_average: 0.000000,\n"), None);
}

/// An executable script `name` in `dir`.
fn script(dir: &std::path::Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let mut perm = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&path, perm).unwrap();
}

/// [`REPORTED`] run as a side runs it, with a stand-in `ib_write_bw` (a
/// script that writes a report to its `--out_json_file`) on `PATH`, on
/// `cpus`: its stdout and exit status.
fn reported(cpus: &str) -> (String, Option<i32>) {
    let dir = tempfile::tempdir().unwrap();
    reported_in(dir.path(), cpus, "")
}

/// [`reported`], with `numa_node`, in `dir` (where a test may put a
/// stand-in `numactl` too).
fn reported_in(dir: &std::path::Path, cpus: &str, numa_node: &str) -> (String, Option<i32>) {
    script(
        dir,
        "ib_write_bw",
        "#!/bin/sh\nsleep 0.3\nfor a; do case $a in --out_json_file=*) \
         printf 'BW_average: 1.5,\\n' >\"${a#*=}\" ;; esac; done\nexit 3\n",
    );
    let params = crate::model::params::Params {
        cpus: cpus.into(),
        numa_node: numa_node.into(),
        ..Default::default()
    };
    let s = &scenarios()[0];
    let cmd = s.server.as_ref().unwrap();
    let path = format!("{}:{}", dir.display(), std::env::var("PATH").unwrap());
    let out = std::process::Command::new(cmd.program)
        .args(cmd.args_with(&params))
        .envs(params.env())
        .env("PATH", path)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code(),
    )
}

#[test]
fn a_measurement_runs_on_the_cpus_it_is_given_and_says_so_from_its_process() {
    // Unpinned: wherever the scheduler may put it, as the kernel says.
    let (out, status) = reported("");
    assert_eq!(status, Some(3), "perftest's own status: {out}");
    assert_eq!(figure(&out, BW_KEY), Some(1.5), "{out}");
    let all = ran_on(&out).expect("the process's own CPUs");
    // Pinned to the last of them: that one alone.
    let last = crate::model::numa::cpus(&all).unwrap().pop().unwrap();
    let (out, status) = reported(&last.to_string());
    assert_eq!(status, Some(3), "{out}");
    assert_eq!(ran_on(&out), Some(last.to_string()), "{out}");
    assert_eq!(figure(&out, BW_KEY), Some(1.5), "{out}");
}

#[test]
fn where_a_measurement_ran_is_read_only_from_a_cpu_list() {
    assert_eq!(ran_on("x\nCpus_allowed_list:\t1\n").as_deref(), Some("1"));
    assert_eq!(
        ran_on("Cpus_allowed_list: 0-15,32-47").as_deref(),
        Some("0-15,32-47")
    );
    assert_eq!(ran_on("Cpus_allowed_list: ;reboot"), None);
    assert_eq!(ran_on("BW_average: 1"), None);
}

#[test]
fn a_measurement_on_a_node_binds_its_memory_where_numactl_is() {
    let dir = tempfile::tempdir().unwrap();
    // numactl's stand-in notes its arguments and runs the rest on the
    // CPUs named, as numactl does (with the memory policy too).
    script(
        dir.path(),
        "numactl",
        "#!/bin/sh\necho \"$1 $2\" >\"$(dirname \"$0\")/numactl.args\"\n\
         cpus=${2#--physcpubind=}\nshift 2\nexec taskset -c \"$cpus\" \"$@\"\n",
    );
    let (out, status) = reported_in(dir.path(), "0", "0");
    assert_eq!(status, Some(3), "{out}");
    let args = std::fs::read_to_string(dir.path().join("numactl.args")).unwrap();
    assert_eq!(args.trim(), "--membind=0 --physcpubind=0");
    assert_eq!(ran_on(&out).as_deref(), Some("0"), "{out}");
    // The stand-in set no policy: the kernel's own word for it.
    assert_eq!(memory_of(&out).as_deref(), Some("default"), "{out}");
    assert_eq!(figure(&out, BW_KEY), Some(1.5), "{out}");
    // Without a node, taskset: numactl is not run.
    std::fs::remove_file(dir.path().join("numactl.args")).unwrap();
    let (out, _) = reported_in(dir.path(), "0", "");
    assert!(!dir.path().join("numactl.args").exists(), "{out}");
    assert_eq!(ran_on(&out).as_deref(), Some("0"), "{out}");
}

#[test]
fn a_memory_policy_is_read_only_as_the_kernel_writes_one() {
    assert_eq!(
        memory_of("Memory_policy: bind:1").as_deref(),
        Some("bind:1")
    );
    assert_eq!(
        memory_of("x\nMemory_policy: default\n").as_deref(),
        Some("default")
    );
    assert_eq!(
        memory_of("Memory_policy: interleave:0-3").as_deref(),
        Some("interleave:0-3")
    );
    assert_eq!(memory_of("Memory_policy: bind:;reboot"), None);
    assert_eq!(memory_of("Memory_policy: <b>"), None);
    assert_eq!(memory_of("Memory_policy:"), None);
}
