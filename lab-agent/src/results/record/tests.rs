use super::*;
use crate::model::mesh::testkit;
use crate::model::mesh::Pattern;

#[test]
fn a_run_reads_back_as_it_was_written() {
    let mut run = testkit::run(4, Pattern::AllPairs, |a, b| (a, b) == (1, 3));
    run.cells[0]
        .counters
        .push((1, "rnr_nak_retry_err".into(), u64::MAX));
    let back = from_text(&to_text(&run)).expect("a record");
    assert_eq!(back, run);
}

#[test]
fn another_format_is_refused_by_name() {
    let run = testkit::run(2, Pattern::AllPairs, |_, _| false);
    let text = to_text(&run).replace(FORMAT, "rdma-lab mesh record 0");
    let e = from_text(&text).unwrap_err();
    assert!(
        matches!(&e, RecordError::Format(f) if f == "rdma-lab mesh record 0"),
        "{e:?}"
    );
    assert!(e.to_string().contains("\"rdma-lab mesh record 0\""), "{e}");
    assert!(matches!(from_text("{}"), Err(RecordError::NotARecord(_))));
}

#[test]
fn a_rank_past_the_hosts_is_refused() {
    let mut run = testkit::run(3, Pattern::AllPairs, |_, _| false);
    run.cells[0].pair.client = 7;
    let e = from_text(&to_text(&run)).unwrap_err();
    assert!(matches!(e, RecordError::RankPastHosts(3)), "{e:?}");
    let mut run = testkit::run(3, Pattern::AllPairs, |_, _| false);
    run.hosts.swap(0, 1);
    assert!(matches!(
        from_text(&to_text(&run)),
        Err(RecordError::RankOutOfPlace)
    ));
}
