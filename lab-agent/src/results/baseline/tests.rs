use super::*;

/// A report's lines: its `run` line (`version`, `rails`), then links.
fn report(version: &str, links: &[&str]) -> String {
    report_of("rdma-fabric", version, links)
}

/// A report's lines, its `run` line saying `tool` wrote it.
fn report_of(tool: &str, version: &str, links: &[&str]) -> String {
    let mut lines = vec![format!(
        r#"{{"type":"run","tool":"{tool}","version":"{version}","date":"2026-11-20","rails":[null,"198.51.100.0/24"],"measured":true,"qp_timeout":20}}"#
    )];
    lines.push(r#"{"type":"pair","rail":0,"server_name":"a","client_name":"b"}"#.into());
    lines.extend(links.iter().map(|l| l.to_string()));
    lines.join("\n") + "\n"
}

const OURS: &str = env!("CARGO_PKG_VERSION");

#[test]
fn a_report_gives_its_rails_and_each_links_figure() {
    let text = report(
        OURS,
        &[
            r#"{"type":"link","rail":1,"server_name":"node2","client_name":"node1","gbps":11.8}"#,
            r#"{"type":"link","rail":0,"server_name":"node0","client_name":"node1","gbps":null}"#,
        ],
    );
    let b = from_json_lines(&text).unwrap();
    assert_eq!(b.date, "2026-11-20");
    assert_eq!(b.rails, [None, Some("198.51.100.0/24".to_string())]);
    assert_eq!(b.qp_timeout, Some(20));
    assert_eq!(b.links.len(), 2);
    assert_eq!(b.links[0].hosts, ["node1", "node2"]);
    assert_eq!((b.links[0].rail, b.links[0].gbps), (1, Some(11.8)));
    assert_eq!(b.links[1].gbps, None);
    // The lab's mesh wrote the same lines under its own name.
    let by_lab = from_json_lines(&report_of("rdma-lab", OURS, &[&links_of(&text)])).unwrap();
    assert_eq!(by_lab.links, b.links);
}

/// The lines after a report's `run` line.
fn links_of(text: &str) -> String {
    text.lines().skip(1).collect::<Vec<_>>().join("\n")
}

#[test]
fn what_is_not_a_baseline_is_refused_by_cause() {
    let link = r#"{"type":"link","rail":0,"server_name":"a","client_name":"b","gbps":1.5}"#;
    assert_eq!(from_json_lines(link), Err(BaselineError::NoRunLine));
    assert_eq!(
        from_json_lines(&report("0.0.1", &[link])),
        Err(BaselineError::OtherVersion("0.0.1".into()))
    );
    let unmeasured = r#"{"type":"link","rail":0,"server_name":"a","client_name":"b"}"#;
    assert_eq!(
        from_json_lines(&report(OURS, &[unmeasured])),
        Err(BaselineError::NotMeasured)
    );
    assert_eq!(
        from_json_lines(&report(OURS, &[link, "not json"])),
        Err(BaselineError::NotJson(4))
    );
    assert_eq!(from_json_lines("[1]\n"), Err(BaselineError::NotJson(1)));
    let other = r#"{"type":"run","tool":"other","version":"1"}"#;
    assert_eq!(
        from_json_lines(&format!("{other}\n{link}\n")),
        Err(BaselineError::NotOurs)
    );
    // Each cause reads as a sentence of its own.
    assert!(BaselineError::OtherVersion("0.0.1".into())
        .to_string()
        .starts_with("made by rdma-fabric 0.0.1, not "));
}

#[test]
fn a_baselines_names_are_bounded_as_they_are_read() {
    let long = "n".repeat(10_000);
    let link = format!(
        r#"{{"type":"link","rail":0,"server_name":"{long}","client_name":"b","gbps":1.5}}"#
    );
    let b = from_json_lines(&report(OURS, &[&link])).unwrap();
    assert!(b.links[0].hosts.iter().all(|h| h.len() <= 255));
}

proptest::proptest! {
    /// Whatever the lines, reading them ends in a baseline or a cause.
    #[test]
    fn any_text_reads_as_a_baseline_or_a_cause(text in "\\PC{0,400}") {
        let _ = from_json_lines(&text);
        let _ = from_json_lines(&report(OURS, &[&text]));
    }
}
