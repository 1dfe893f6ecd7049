use super::*;
use crate::judge::mesh::diagnose;
use crate::model::mesh::testkit::{drop_host, run};
use crate::model::mesh::{McastResult, Pattern};
use serde_json::{json, Value};
use std::fs;

/// The marks of the matrix's rows, by rank: each row's mark per column,
/// read at the columns' right edges (a blank is a space).
fn marks(text: &str, n: usize) -> Vec<Vec<char>> {
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.trim_start().starts_with("node0"))
        .unwrap();
    let head: Vec<char> = lines[header].chars().collect();
    // The columns' right edges: where each label of the header ends.
    let edges: Vec<usize> = (0..head.len())
        .filter(|&i| head[i] != ' ' && head.get(i + 1).is_none_or(|c| *c == ' '))
        .collect();
    assert_eq!(edges.len(), n, "{text}");
    lines[header + 1..=header + n]
        .iter()
        .map(|l| {
            let row: Vec<char> = l.chars().collect();
            edges
                .iter()
                .map(|&e| row.get(e).copied().unwrap_or(' '))
                .collect()
        })
        .collect()
}

#[test]
fn the_matrix_crosses_out_a_bad_hosts_row_and_column() {
    let mesh = run(4, Pattern::AllPairs, |a, _| a == 2);
    let text = matrix_text(&mesh, &diagnose(&mesh));
    let m = marks(&text, 4);
    for (a, row) in m.iter().enumerate() {
        for (b, &mark) in row.iter().enumerate() {
            let want = match (a, b) {
                _ if a == b => '-',
                (2, _) | (_, 2) => 'X',
                _ => '.',
            };
            assert_eq!(mark, want, "row {a} column {b}:\n{text}");
        }
    }
    assert!(
        text.contains("4 hosts (all-pairs): 6 pairs, 3 failing, 0 not run"),
        "{text}"
    );
    assert!(
        text.contains("Failing pairs (server - client):\n"),
        "{text}"
    );
    assert!(
        text.contains("node2: rc_example, rdmacm_client_server\n"),
        "{text}"
    );
    assert!(
        text.contains("Diagnosis:\n  - node2 fails with every one of its 3 peers"),
        "{text}"
    );
}

#[test]
fn the_matrix_leaves_unscheduled_pairs_blank_and_marks_those_not_run() {
    let mut mesh = run(6, Pattern::Ring, |_, _| false);
    drop_host(&mut mesh, 3, Joined::NeverJoined { waited_secs: 30 });
    let text = matrix_text(&mesh, &diagnose(&mesh));
    let m = marks(&text, 6);
    assert_eq!(m[0], vec!['-', '.', ' ', ' ', ' ', '.'], "{text}");
    assert_eq!(m[3], vec![' ', ' ', '?', '-', '?', ' '], "{text}");
    assert!(text.contains("node3 never joined"), "{text}");
}

#[test]
fn a_run_that_passed_says_so() {
    let mesh = run(3, Pattern::AllPairs, |_, _| false);
    let text = matrix_text(&mesh, &diagnose(&mesh));
    assert!(
        text.ends_with("Diagnosis:\n  every pair passed\n"),
        "{text}"
    );
    assert!(!text.contains("Failing pairs"));
}

#[test]
fn long_names_label_the_columns_by_rank_with_a_legend() {
    let mut mesh = run(3, Pattern::AllPairs, |_, _| false);
    for h in &mut mesh.hosts {
        h.name = format!("compute-node-{:02}.rack7.example.net", h.rank);
    }
    let text = matrix_text(&mesh, &[]);
    assert!(
        text.contains("columns: 0 = compute-node-00, 1 = compute-node-01, 2 = compute-node-02"),
        "{text}"
    );
    assert!(text.contains("\n0 compute-node-00 - . .\n"), "{text}");
}

#[test]
fn the_terminal_gets_a_hosts_escape_sequences_escaped() {
    let mut mesh = run(3, Pattern::AllPairs, |a, _| a == 0);
    mesh.hosts[0].name = "evil\x1b]0;owned\x07".into();
    let text = matrix_text(&mesh, &diagnose(&mesh));
    assert!(!text.contains('\x1b') && !text.contains('\x07'), "{text:?}");
    assert!(text.contains("evil\\u{1b}]0;owned\\u{7}"), "{text}");
}

#[test]
fn the_page_has_the_diagnosis_and_escapes_what_hosts_say() {
    let mut mesh = run(4, Pattern::AllPairs, |a, _| a == 1);
    mesh.hosts[1].name = "<script>alert(1)</script>".into();
    mesh.hosts[1].findings = vec!["port \"1\" & <b>down</b>".into()];
    mesh.hosts[2].name = "n2\u{202e}gpj.exe\x1b[2J\x00".into();
    let findings = diagnose(&mesh);
    let page = html(&mesh, &findings);
    assert!(!page.contains("<script") && !page.contains("<b>"), "{page}");
    // Shown as it is, and nothing a terminal or a renderer would obey.
    assert!(page.contains("n2\\u{202e}gpj.exe[2J"), "{page}");
    assert!(!page
        .chars()
        .any(|c| (c.is_control() && c != '\n') || crate::base::text::is_invisible(c)));
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt; fails with every one"));
    assert!(page.contains("port &quot;1&quot; &amp; &lt;b&gt;down&lt;/b&gt;"));
    assert!(
        page.find("Diagnosis") < page.find("<table"),
        "the diagnosis comes first"
    );
    // Self-contained: no script, no external resource.
    for outside in ["http:", "https:", "src=", "<link", "@import"] {
        assert!(!page.contains(outside), "{outside}");
    }
    // Each pair's cell of a scenario links to both sides' transcripts.
    let c = &mesh.cells[0];
    let (s, k) = (c.pair.server, c.pair.client);
    assert!(page.contains(&format!(
        "<a href=\"pairs/{s}-{k}/rc_example.server.txt\">server</a> <a href=\"pairs/{s}-{k}/rc_example.client.txt\">client</a>"
    )));
    assert!(page.contains(&format!("<tr id=\"pair-{s}-{k}\">")));
    assert!(page.contains(&format!("href=\"#pair-{s}-{k}\"")));
    assert_eq!(page.matches("<td class=\"fail\"").count(), 6 + 3 * 2);
}

/// A page written anywhere links to the transcripts in the run's dir,
/// relative to where it is: each run's dir has a name of its own.
#[test]
fn the_page_links_to_the_runs_dir_from_where_it_is() {
    use std::path::Path;
    let run_dir = Path::new("/r/rdma-lab/mesh/1795-ab12cd34");
    assert_eq!(
        link_prefix(Path::new("/r/page.html"), run_dir),
        "rdma-lab/mesh/1795-ab12cd34/"
    );
    assert_eq!(link_prefix(&run_dir.join("page.html"), run_dir), "");
    assert_eq!(
        link_prefix(Path::new("/r/reports/./x/../mesh.html"), run_dir),
        "../rdma-lab/mesh/1795-ab12cd34/"
    );
    let mesh = run(2, Pattern::AllPairs, |_, _| false);
    let page = html_linked(&mesh, &[], "../run/");
    assert!(page.contains("<a href=\"../run/pairs/"), "{page}");
}

#[test]
fn a_page_of_a_run_that_passed_says_so() {
    let mesh = run(2, Pattern::AllPairs, |_, _| false);
    assert!(html(&mesh, &[]).contains("<p class=\"ok\">every pair passed</p>"));
}

/// A run of 4 with node2 bad, a multicast round and a hostile host name.
fn fixture() -> MeshRun {
    let mut mesh = run(4, Pattern::AllPairs, |a, _| a == 2);
    mesh.hosts[3].name = "n3 <&> \"'\x00".into();
    mesh.hosts[2].findings = vec!["rxe0 port 1 is DOWN".into()];
    mesh.mcast = vec![McastResult {
        sender: 0,
        scenario: "mckey".into(),
        receivers: vec![
            (1, Verdict::Pass),
            (2, Verdict::Fail),
            (3, Verdict::NotRun("gone".into())),
        ],
    }];
    mesh
}

#[test]
fn junit_has_a_suite_per_pair_and_passes_the_schema() {
    let mesh = fixture();
    let xml = junit(&mesh, &diagnose(&mesh));
    // 6 pairs, the doctor, multicast and the diagnosis.
    assert_eq!(xml.matches("<testsuite ").count(), 6 + 3, "{xml}");
    assert_eq!(
        xml.matches("<testcase ").count(),
        6 * 2 + 4 + 3 + 1,
        "{xml}"
    );
    assert!(xml.contains(r#"<testsuite name="node0-node1" tests="2" failures="0""#));
    assert!(xml.contains(r#"<testsuite name="doctor" tests="4" failures="1""#));
    assert!(xml
        .contains(r#"<testsuite name="multicast" tests="3" failures="1" errors="0" skipped="1""#));
    assert!(xml.contains("n3 &lt;&amp;&gt; &quot;&apos;"));
    assert!(xml.contains(r#"<failure message="rc_example: client: exit status 1, expected 0""#));
    assert!(xml.contains(r#"<skipped message="not run: gone"/>"#));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mesh.xml");
    fs::write(&file, &xml).unwrap();
    assert_eq!(
        crate::present::xml::validate_junit(
            &file,
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/junit.xsd"),
        ),
        Vec::<String>::new()
    );
}

#[test]
fn junit_of_a_missing_host_fails_its_doctor_case_and_skips_its_pairs() {
    let mut mesh = run(3, Pattern::AllPairs, |_, _| false);
    drop_host(&mut mesh, 1, Joined::NeverJoined { waited_secs: 9 });
    let xml = junit(&mesh, &diagnose(&mesh));
    assert!(xml.contains(r#"<failure message="never joined (waited 9 s)" type="doctor finding">"#));
    assert_eq!(
        xml.matches("<skipped message=\"not run: host 1 is missing\"/>")
            .count(),
        4
    );
}

#[test]
fn json_lines_has_a_line_per_pair_scenario_host_receiver_and_finding() {
    let mesh = fixture();
    let findings = diagnose(&mesh);
    let text = json_lines(&mesh, &findings);
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let count = |t: &str| lines.iter().filter(|l| l["type"] == t).count();
    assert_eq!(count("pair"), 12);
    assert_eq!(count("host"), 4);
    assert_eq!(count("multicast"), 3);
    assert_eq!(count("finding"), findings.len());
    // First, what wrote it, when, and on which rails.
    assert_eq!(count("run"), 1);
    assert_eq!(lines[0]["type"], "run");
    assert_eq!(lines[0]["tool"], "rdma-fabric");
    assert_eq!(lines[0]["rails"], json!([null]));
    assert_eq!(lines.len(), 1 + 12 + 4 + 3 + findings.len());
    assert!(lines.iter().all(|l| l["pattern"] == "all-pairs"));
    let host3 = lines
        .iter()
        .find(|l| l["type"] == "host" && l["rank"] == 3)
        .unwrap();
    assert_eq!(host3["name"], "n3 <&> \"'\x00");
    let fault = lines.iter().find(|l| l["type"] == "finding").unwrap();
    assert_eq!(fault["kind"], "host_fault");
    assert_eq!(fault["ranks"], json!([2]));
    let gone = lines.iter().find(|l| l["status"] == "not_run").unwrap();
    assert_eq!(gone["reason"], "gone");
}

#[test]
fn a_hosts_doctor_findings_are_printed_and_fail_the_run() {
    let mut mesh = run(3, Pattern::AllPairs, |_, _| false);
    assert!(!matrix_text(&mesh, &diagnose(&mesh)).contains("Doctor findings"));
    mesh.hosts[1].findings = vec!["`ulimit -l` is 64 KiB".into()];
    let text = matrix_text(&mesh, &diagnose(&mesh));
    assert!(
        text.contains("Doctor findings:\n  node1: `ulimit -l` is 64 KiB\n"),
        "{text}"
    );
    assert_eq!(report(&mesh, &ReportFiles::default()), Ok(false));
}

#[test]
fn a_host_with_its_devices_in_another_order_is_said_and_passes() {
    let run = crate::model::mesh::testkit::swapped_run();
    let text = matrix_text(&run, &[]);
    assert!(text.contains(
        "\nDevices named otherwise (each rail pairs the ports on its subnet):\n  node1: rail 0 \
         rxe1, rail 1 rxe0, where most hosts have rail 0 rxe0, rail 1 rxe1\n"
    ));
    assert!(text.contains("every pair passed"), "{text}");
    let json = json_lines(&run, &[]);
    assert!(json.contains("\"name\":\"node1\""));
    let node1: serde_json::Value = json
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["type"] == "host" && v["rank"] == 1)
        .unwrap();
    assert_eq!(node1["rail_devs"], serde_json::json!(["rxe1", "rxe0"]));
}

#[test]
fn each_links_json_says_where_its_perftest_ran_and_its_memory() {
    use crate::model::mesh::{Measure, PerfLimits, SideReport};
    let mut run = run(2, Pattern::AllPairs, |_, _| false);
    run.perf = Some(PerfLimits::default());
    let side = |rank, report: &str| SideReport {
        rank,
        measures: vec![Measure {
            scenario: "perf_write_bw".into(),
            report: report.into(),
            ..Measure::default()
        }],
        elapsed_ms: None,
    };
    run.cells[0].reports = vec![
        side(
            0,
            "Cpus_allowed_list: 1\nMemory_policy: bind:1\nBW_average: 1,\n",
        ),
        side(1, "Cpus_allowed_list: 0-3\nBW_average: 1,\n"),
    ];
    let link: Value = json_lines(&run, &[])
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["type"] == "link")
        .unwrap();
    assert_eq!(
        link["ran_on"],
        json!([
            {"rank": 0, "name": "node0", "scenario": "perf_write_bw", "cpus": "1",
             "memory": "bind:1"},
            {"rank": 1, "name": "node1", "scenario": "perf_write_bw", "cpus": "0-3",
             "memory": null},
        ])
    );
}
