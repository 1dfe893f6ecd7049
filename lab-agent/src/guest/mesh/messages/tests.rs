use super::*;

#[test]
fn a_subnet_from_ip_addr() {
    let out = "1: lo    inet 127.0.0.1/8 scope host lo\n\
               2: eth0    inet 192.0.2.3/24 brd 192.0.2.255 scope global eth0\n";
    assert_eq!(subnet_of(out, "192.0.2.3").as_deref(), Some("192.0.2.0/24"));
    assert_eq!(subnet_of(out, "127.0.0.1").as_deref(), Some("127.0.0.0/8"));
    assert_eq!(subnet_of(out, "192.0.2.4"), None);
}

#[test]
fn messages_round_trip() {
    let h = Hello {
        rank: 3,
        name: "node3".into(),
        ip: "192.0.2.4".into(),
        netdev: "eth0".into(),
        mtu: Some(1500),
        gid_type: Some("RoCE v2".into()),
        subnet: Some("192.0.2.0/24".into()),
        findings: vec!["a finding".into()],
        cannot_run: None,
        ports: vec![Port {
            dev: "mlx5_1".into(),
            port: 1,
            netdev: "ens5".into(),
            addr: "198.51.100.4".parse().unwrap(),
            prefix: 24,
            rate: Some("200 Gb/sec (4X HDR)".into()),
        }],
    };
    assert_eq!(Hello::from_json(h.to_json().as_bytes()).unwrap(), h);
    let h = Hello {
        cannot_run: Some("no RDMA device".into()),
        ..h
    };
    assert_eq!(Hello::from_json(h.to_json().as_bytes()).unwrap(), h);
    let a = Assignment {
        rail: 0,
        round: 2,
        role: Role::Client,
        server_ip: "192.0.2.1".into(),
        client_ip: "192.0.2.4".into(),
        nonce: "ab".into(),
        scenarios: vec!["rc_example".into()],
        qp_timeout: None,
    };
    assert_eq!(Assignment::from_json(a.to_json().as_bytes()).unwrap(), a);
    let a = Assignment {
        qp_timeout: Some(20),
        ..a
    };
    assert_eq!(Assignment::from_json(a.to_json().as_bytes()).unwrap(), a);
    // A QP timeout reaches perftest's command line: only a QP's 1 to 31.
    for bad in ["0", "32", "-1", "\"20\"", "2.5"] {
        let json = a
            .to_json()
            .replace("\"qp_timeout\":20", &format!("\"qp_timeout\":{bad}"));
        let e = Assignment::from_json(json.as_bytes()).unwrap_err();
        assert!(e.contains("QP timeout"), "{bad}: {e}");
    }
    let r = vec![ScenarioResult {
        scenario: "rc_example".into(),
        verdict: Verdict::NotRun("gone".into()),
        detail: "d".into(),
        server_log: Some("s".into()),
        client_log: None,
        unstarted: None,
    }];
    assert_eq!(results_from_json(results_json(&r).as_bytes()).unwrap(), r);
}

#[test]
fn a_hello_keeps_only_well_formed_ports_and_at_most_ports_max() {
    let good = r#"{"dev":"rxe1","port":1,"netdev":"e1","addr":"198.51.100.2","prefix":24}"#;
    let bad = [
        r#"{"dev":"rxe1","port":1,"netdev":"e1","addr":"$(reboot)","prefix":24}"#,
        r#"{"dev":"rxe1","port":1,"netdev":"e1","addr":"198.51.100.2","prefix":33}"#,
        r#"{"dev":"rxe1","netdev":"e1","addr":"198.51.100.2","prefix":24}"#,
    ];
    let mut ports: Vec<&str> = bad.to_vec();
    ports.extend(std::iter::repeat_n(good, PORTS_MAX + 5));
    let hello = format!(r#"{{"rank":1,"ports":[{}]}}"#, ports.join(","));
    let h = Hello::from_json(hello.as_bytes()).unwrap();
    // The three bad ones are among the first PORTS_MAX read, and dropped.
    assert_eq!(h.ports.len(), PORTS_MAX - bad.len());
    assert!(h
        .ports
        .iter()
        .all(|p| p.subnet().to_string() == "198.51.100.0/24"));
}

#[test]
fn a_pair_that_names_a_command_or_a_stranger_scenario_is_refused() {
    let bad_ip =
        br#"{"role":"client","server_ip":"$(reboot)","client_ip":"192.0.2.1","scenarios":[]}"#;
    assert!(Assignment::from_json(bad_ip)
        .unwrap_err()
        .contains("not an address"));
    let bad_name = br#"{"role":"client","server_ip":"192.0.2.2","client_ip":"192.0.2.1","scenarios":["rm -rf /"]}"#;
    assert!(Assignment::from_json(bad_name)
        .unwrap_err()
        .contains("unknown scenario"));
    let bad_role = br#"{"role":"both","server_ip":"192.0.2.2","client_ip":"192.0.2.1"}"#;
    assert!(Assignment::from_json(bad_role).is_err());
    assert!(Hello::from_json(b"not json").is_err());
}

#[test]
fn a_million_element_list_is_refused_unparsed_and_every_field_is_cut() {
    let list = format!("[{}0]", "0,".repeat(1_000_000));
    let e = results_from_json(list.as_bytes()).unwrap_err();
    assert!(e.contains("more than 4096 values"), "{e}");
    // Commas, brackets and quotes inside strings are not values.
    let quoted = format!(
        r#"[{{"scenario":"x","why":"{}\"[,{{"}}]"#,
        ",[{".repeat(5000)
    );
    assert!(results_from_json(quoted.as_bytes()).is_ok());
    let long = "y".repeat(200_000);
    let r = vec![ScenarioResult {
        scenario: long.clone(),
        verdict: Verdict::NotRun(long.clone()),
        detail: long.clone(),
        server_log: Some(long.clone()),
        client_log: None,
        unstarted: Some(long.clone()),
    }];
    let back = results_from_json(results_json(&r).as_bytes()).unwrap();
    let unstarted = back[0].unstarted.as_ref().unwrap();
    assert!(unstarted.chars().count() <= FIELD_MAX + 1);
    let Verdict::NotRun(why) = &back[0].verdict else {
        panic!("{:?}", back[0].verdict)
    };
    assert!(why.chars().count() <= FIELD_MAX + 1);
    assert!(back[0].detail.chars().count() <= FIELD_MAX + 1);
    assert!(back[0].scenario.chars().count() <= NAME_MAX + 1);
    assert!(back[0].server_log.as_ref().unwrap().len() <= TRANSCRIPT_MAX + 8);
    let mut h = Hello::from_json(br#"{"rank":1}"#).unwrap();
    h.name = long.clone();
    h.findings = vec![long; 100];
    let h = Hello::from_json(h.to_json().as_bytes()).unwrap();
    assert!(h.name.chars().count() <= NAME_MAX + 1);
    assert_eq!(h.findings.len(), FINDINGS_MAX);
    assert!(h
        .findings
        .iter()
        .all(|f| f.chars().count() <= FIELD_MAX + 1));
}

#[test]
fn a_done_carries_its_counters_bounded_and_a_bare_list_still_reads() {
    let done = Done {
        results: vec![ScenarioResult {
            scenario: "rc_example".into(),
            verdict: Verdict::Pass,
            detail: String::new(),
            server_log: None,
            client_log: Some("c".into()),
            unstarted: None,
        }],
        counters: vec![
            ("rcvd_seq_err".into(), 37),
            ("completer_retry_err".into(), 412),
        ],
        side: None,
    };
    assert_eq!(done_from_json(done_json(&done).as_bytes()).unwrap(), done);
    let bare = done_from_json(results_json(&done.results).as_bytes()).unwrap();
    assert_eq!((bare.results, bare.counters), (done.results, Vec::new()));
    let many: Vec<String> = (0..COUNTERS_MAX + 10)
        .map(|i| format!(r#"["{}", {i}]"#, "x".repeat(200)))
        .chain([r#"["neg", -1]"#.to_string(), r#"[1, 2]"#.to_string()])
        .collect();
    let text = format!(r#"{{"results":[],"counters":[{}]}}"#, many.join(","));
    let d = done_from_json(text.as_bytes()).unwrap();
    assert_eq!(d.counters.len(), COUNTERS_MAX);
    // Cut to NAME_MAX characters and an ellipsis.
    assert!(d
        .counters
        .iter()
        .all(|(n, _)| n.chars().count() <= NAME_MAX + 1));
}

/// A host's own side crosses whole, and bounded: a few measurements,
/// each report cut, each kept only for a scenario its pair ran, once.
#[test]
fn a_done_carries_its_own_side_bounded_to_its_pairs_measurements() {
    let m = |scenario: &str, report: String| Measure {
        scenario: scenario.into(),
        report,
        received: vec![("port_rcv_data".into(), 500)],
        mtu: Some(1024),
    };
    let side = SideReport {
        rank: 0,
        measures: vec![m("perf_write_bw", "n_iterations: 7,\n".into())],
        elapsed_ms: Some(2500),
    };
    let done = Done {
        side: Some(side.clone()),
        ..Done::default()
    };
    assert_eq!(done_from_json(done_json(&done).as_bytes()).unwrap(), done);
    let rank = r#"{"results":[],"side":{"rank":3,"measures":[]}}"#;
    assert_eq!(
        done_from_json(rank.as_bytes()).unwrap().side.unwrap().rank,
        0
    );
    let mut all = vec![m("perf_send_lat", String::new())];
    all.extend((0..MEASURES_MAX + 5).map(|_| m("perf_write_bw", "x".repeat(REPORT_MAX * 2))));
    let big = Done {
        side: Some(SideReport {
            measures: all,
            ..side
        }),
        ..Done::default()
    };
    let read = done_from_json(done_json(&big).as_bytes()).unwrap();
    let measures = &read.side.as_ref().unwrap().measures;
    assert_eq!(measures.len(), MEASURES_MAX);
    assert!(measures[1].report.chars().count() <= REPORT_MAX + 1);
    let kept = read.kept(&["perf_write_bw".into()]);
    let names: Vec<String> = (kept.side.unwrap().measures.into_iter())
        .map(|m| m.scenario)
        .collect();
    assert_eq!(names, ["perf_write_bw"], "once, and only what its pair ran");
}

/// A round's assignments: one object or a list of rails, each rail once
/// and below [`RAILS_MAX`], at most that many; a host that cannot read
/// them still knows how many `done`s are waited for.
#[test]
fn a_rounds_rails_are_bounded_and_each_named_once() {
    let one = |rail: usize| Assignment {
        round: 2,
        role: Role::Client,
        server_ip: "198.51.100.1".into(),
        client_ip: "198.51.100.2".into(),
        nonce: "ab".into(),
        scenarios: Vec::new(),
        rail,
        qp_timeout: None,
    };
    let list = vec![one(0), one(1), one(7)];
    let json = assignments_json(&list);
    assert_eq!(assignments_from_json(json.as_bytes()).unwrap(), list);
    assert_eq!(assignments_count(json.as_bytes()), 3);
    let single = assignments_json(&[one(0)]);
    assert!(single.starts_with('{'), "one rail is an object: {single}");
    assert_eq!(
        assignments_from_json(single.as_bytes()).unwrap(),
        vec![one(0)]
    );
    assert_eq!(assignments_count(single.as_bytes()), 1);
    let twice = assignments_json(&[one(1), one(1)]);
    assert!(assignments_from_json(twice.as_bytes())
        .unwrap_err()
        .contains("rail 1 handed out twice"));
    let far = assignments_json(&[one(0), one(RAILS_MAX)]);
    assert!(assignments_from_json(far.as_bytes())
        .unwrap_err()
        .contains("past the last (15)"));
    assert_eq!(assignments_count(far.as_bytes()), 2, "counted all the same");
    let many: Vec<Assignment> = (0..=RAILS_MAX).map(one).collect();
    let many = assignments_json(&many);
    assert!(assignments_from_json(many.as_bytes())
        .unwrap_err()
        .contains("more than 16"));
    assert_eq!(assignments_count(many.as_bytes()), RAILS_MAX);
    assert_eq!(assignments_count(b"not json"), 1);
}

/// A message's object is read only from an object: a list of its fields
/// (which serde's derive would read in their order) is not one, and a
/// key given twice takes its last value. A message of another shape
/// reads as it did when the messages were read from `Value`s.
#[test]
fn an_object_is_read_only_from_an_object_and_other_shapes_as_before() {
    let e = Hello::from_json(b"[1]").unwrap_err();
    assert!(e.contains("without a rank"), "{e}");
    assert_eq!(Hello::from_json(br#"{"rank":1,"rank":2}"#).unwrap().rank, 2);
    let port = r#"["rxe1",1,"e1","198.51.100.2",24]"#;
    let h = Hello::from_json(format!(r#"{{"rank":1,"ports":[{port}]}}"#).as_bytes()).unwrap();
    assert!(h.ports.is_empty(), "a port as a list is no port");
    let d = done_from_json(br#"{"results":[],"side":[]}"#).unwrap();
    assert_eq!(d.side, None, "a side as a list is no side");
    let d = done_from_json(br#"{"results":[["x","pass"]]}"#).unwrap();
    assert_eq!(d.results[0].verdict, Verdict::NotRun(String::new()));
    assert_eq!(
        Plan::from_json(b"5").unwrap(),
        Plan {
            round_secs: 60,
            rounds: 0
        }
    );
    for pair in [&b"5"[..], b"null", b"\"x\""] {
        let e = assignments_from_json(pair).unwrap_err();
        assert!(e.contains("with the role ``"), "{e}");
    }
    let e = done_from_json(b"5").unwrap_err();
    assert!(e.contains("without results"), "{e}");
}

/// A host's claim that a program never started is kept only on a
/// failure, cut and escaped as a detail is.
#[test]
fn only_a_failure_keeps_its_unstarted_claim_cut_to_size() {
    let claim = format!("client: could not start /x\x1b[2J {}", "z".repeat(5000));
    let result = |scenario: &str, verdict| ScenarioResult {
        scenario: scenario.into(),
        verdict,
        detail: "d".into(),
        server_log: None,
        client_log: None,
        unstarted: Some(claim.clone()),
    };
    let done = Done {
        results: vec![
            result("rc_example", Verdict::Pass),
            result("mckey", Verdict::Fail),
        ],
        counters: Vec::new(),
        side: None,
    };
    let kept = done.kept(&["rc_example".into(), "mckey".into()]);
    assert_eq!(kept.results[0].unstarted, None);
    let u = kept.results[1].unstarted.as_deref().unwrap();
    assert_eq!(u, cut(&claim, FIELD_MAX));
    assert!(u.len() < 2 * FIELD_MAX && !u.contains('\x1b'), "{u}");
}

/// The probe's result reads every path finding: one that says the probe
/// never started is told apart whatever else was found (the MTUs, which
/// come first).
#[test]
fn the_probe_result_finds_an_unstarted_probe_behind_an_mtu_finding() {
    use crate::results::{findings_text, DoctorFinding};
    let tmp = tempfile::tempdir().unwrap();
    let dir = Dir::open(tmp.path()).unwrap();
    let not_run =
        "the doctor's RC probe did not run, since the client host cannot start its side: x";
    let findings = [
        DoctorFinding::said("the MTUs differ"),
        DoctorFinding::unstarted(not_run, "x"),
    ];
    dir.write(&findings_file("path"), findings_text(&findings))
        .unwrap();
    let r = probe_result(&dir).unwrap();
    assert_eq!(r.verdict, Verdict::Fail);
    assert_eq!(r.unstarted.as_deref(), Some(not_run));
    assert_eq!(r.detail, format!("the MTUs differ; {not_run}"));
    // A finding of the path alone is the path's.
    dir.write(&findings_file("path"), findings_text(&findings[..1]))
        .unwrap();
    let r = probe_result(&dir).unwrap();
    assert_eq!((r.verdict, r.unstarted), (Verdict::Fail, None));
    dir.write(&findings_file("path"), "").unwrap();
    assert_eq!(probe_result(&dir).unwrap().verdict, Verdict::Pass);
}
