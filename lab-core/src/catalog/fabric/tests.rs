use super::*;

/// The `mesh_step NAME` lines of one of `lab/fabric/`'s scripts.
fn steps_of(script: &str) -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../lab/fabric");
    let text = std::fs::read_to_string(dir.join(script)).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("mesh_step "))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

fn names(steps: &[Step]) -> Vec<String> {
    steps.iter().map(|s| s.name.to_string()).collect()
}

#[test]
fn every_mesh_run_of_the_scripts_is_declared_once_in_order() {
    assert_eq!(steps_of("test.sh"), names(TEST));
    let mut recorded = steps_of("record-healthy.sh");
    recorded.extend(steps_of("record-faults.sh"));
    recorded.extend(steps_of("record-baseline.sh"));
    let mut declared = names(RECORDED);
    recorded.sort();
    declared.sort();
    assert_eq!(recorded, declared);
}

#[test]
fn every_failing_step_names_what_failed() {
    for s in TEST.iter().chain(RECORDED) {
        assert_eq!(s.status != 0, !s.findings.is_empty(), "{}", s.name);
        assert!(!s.says.is_empty() && !s.faults.is_empty(), "{}", s.name);
    }
}
