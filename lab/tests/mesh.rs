//! The mesh's coordinator against stand-in hosts on loopback (`standins`):
//! no RDMA, each stand-in joins over the real authenticated channel and
//! answers every pair with a recorded result. It checks the schedule as
//! the hosts see it (each pair once, no host twice in a round), the bounds
//! (a host that never joins, one that dies mid-run), and measures the
//! coordinator's time and memory at N = 256, which the README quotes.

mod serving;
mod standins;

use rdma_lab::guest::control::{Control, Secret};
use rdma_lab::guest::mesh::coordinator::{coordinate, CoordConfig};
use rdma_lab::model::mesh::{Joined, MeshRun, Pattern, Verdict};
use standins::*;
use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

/// Every pair of the joined hosts ran once, none twice in a round.
fn check_schedule(run: &MeshRun, seen: &Seen, joined: usize) {
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), joined * (joined - 1) / 2, "each pair once");
    let mut pairs = HashSet::new();
    let mut in_round = HashSet::new();
    for (round, s, c, _, _) in seen.iter() {
        let key = if s < c { (s, c) } else { (c, s) };
        assert!(pairs.insert(key), "{s}-{c} twice");
        assert!(in_round.insert((round, s)), "{s} twice in round {round}");
        assert!(in_round.insert((round, c)), "{c} twice in round {round}");
    }
    let n = run.hosts.len();
    let rail0 = run.cells.iter().filter(|c| c.rail == 0).count();
    assert_eq!(rail0, n * (n - 1) / 2);
}

/// Peak resident memory of this process, in KiB.
fn peak_kib() -> i64 {
    nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_SELF)
        .unwrap()
        .max_rss()
}

#[test]
fn eight_hosts_each_pair_once_and_the_bad_host_fails_with_everyone() {
    let (run, seen, _) = mesh(8, &[], None, 3, Duration::ZERO, Strangers::None, false);
    check_schedule(&run, &seen, 8);
    for cell in &run.cells {
        let bad = cell.pair.server == 3 || cell.pair.client == 3;
        let want = if bad { Verdict::Fail } else { Verdict::Pass };
        assert_eq!(cell.verdict(), want, "{:?}", cell.pair);
    }
    assert!(run.hosts.iter().all(|h| h.joined == Joined::Joined));
    // The diagnosis names the host, once, and nothing else.
    let findings = rdma_lab::judge::mesh::diagnose(&run);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert!(findings[0].text.contains("node003"), "{}", findings[0].text);
    let matrix = rdma_fabric::present::mesh::matrix_text(&run, &findings);
    assert!(matrix.contains("node003"), "{matrix}");
}

/// Two hosts, the administrator's two-host check with the fabric tool
/// alone: one pair in one round, and when it fails the diagnosis cannot
/// blame either host over the other.
#[test]
fn two_hosts_are_one_pair_and_a_failure_blames_neither_alone() {
    let (run, seen, _) = mesh(2, &[], None, 99, Duration::ZERO, Strangers::None, false);
    check_schedule(&run, &seen, 2);
    assert_eq!(run.cells.len(), 1);
    assert_eq!(run.cells[0].verdict(), Verdict::Pass);
    assert!(rdma_lab::judge::mesh::diagnose(&run).is_empty());
    let (run, seen, _) = mesh(2, &[], None, 1, Duration::ZERO, Strangers::None, false);
    check_schedule(&run, &seen, 2);
    assert_eq!(run.cells[0].verdict(), Verdict::Fail);
    let findings = rdma_lab::judge::mesh::diagnose(&run);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(
        findings[0].kind,
        rdma_lab::judge::finding::FindingKind::LinkFault { a: 0, b: 1 }
    );
    assert!(
        findings[0].text.contains("cannot be pinned on either one"),
        "{}",
        findings[0].text
    );
}

#[test]
fn a_host_that_never_joins_and_one_that_dies_leave_the_rest_complete() {
    // Rank 5 never starts; rank 2 goes away when handed its third pair.
    let (run, seen, took) = mesh(
        6,
        &[5],
        Some((2, Behaviour::DiesAt(3))),
        99,
        Duration::ZERO,
        Strangers::None,
        false,
    );
    assert!(took.0 < Duration::from_secs(60), "{took:?}");
    assert_eq!(run.hosts[5].joined, Joined::NeverJoined { waited_secs: 5 });
    assert!(
        matches!(&run.hosts[2].joined, Joined::Died { during } if during.starts_with("round ")),
        "{:?}",
        run.hosts[2].joined
    );
    for cell in &run.cells {
        let v = cell.verdict();
        if cell.pair.has(5) {
            assert!(
                matches!(&v, Verdict::NotRun(why) if why.contains("never joined")),
                "{v:?}"
            );
        } else if !cell.pair.has(2) {
            assert_eq!(v, Verdict::Pass, "{:?}", cell.pair);
        }
    }
    // Each absence is said, with its host's name.
    let findings = rdma_lab::judge::mesh::diagnose(&run);
    let text: Vec<&str> = findings.iter().map(|f| f.text.as_str()).collect();
    assert!(text.iter().any(|t| t.contains("node005")), "{text:#?}");
    assert!(text.iter().any(|t| t.contains("node002")), "{text:#?}");
    // The four hosts that stayed ran every pair among them.
    let among: Vec<_> = run
        .cells
        .iter()
        .filter(|c| !c.pair.has(5) && !c.pair.has(2))
        .collect();
    assert_eq!(among.len(), 6);
    drop(seen);
}

/// The scale the README quotes: 256 hosts with eight rails each (2048
/// ports), 32640 pairs in 255 rounds, each with its counters. The figures
/// quoted are a release build's, and a debug build takes most of a minute
/// over it: it runs in `cargo xtask test` (release), not in the inner
/// loop, where the 32 hosts on eight rails check the coordinator at scale.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a release build's scale: `cargo test --release` and `cargo xtask test` run it"
)]
fn coordinator_at_256_hosts() {
    let before = peak_kib();
    let (run, seen, took) = mesh(256, &[], None, 17, Duration::ZERO, Strangers::None, false);
    check_schedule(&run, &seen, 256);
    let failed = run
        .cells
        .iter()
        .filter(|c| c.verdict() == Verdict::Fail)
        .count();
    assert_eq!(failed, 255, "host 17's pairs");
    let ports: usize = run.hosts.iter().map(|h| h.ports.len()).sum();
    assert_eq!(ports, 2048, "eight rails a host");
    println!(
        "mesh of 256 stand-in hosts on loopback, {ports} rail ports: {} pairs in 255 rounds: \
         coordinated in {:.1} s, {:.1} s with writing their {} transcript files; peak memory \
         of the process (coordinator and 256 stand-in threads) {} MiB (before: {} MiB)",
        run.cells.len(),
        took.1.as_secs_f64(),
        took.0.as_secs_f64(),
        run.cells.len() * 4,
        peak_kib() / 1024,
        before / 1024
    );
}

/// With `--rails`, 32 hosts of eight rails each: every pair on each rail
/// (3968 cells) of a round at once.
#[test]
fn coordinator_at_32_hosts_on_eight_rails() {
    let before = peak_kib();
    let (run, seen, took) = mesh(32, &[], None, 17, Duration::ZERO, Strangers::None, true);
    check_schedule(&run, &seen, 32);
    assert_eq!(run.rails.len(), 8, "every rail runs");
    assert_eq!(run.cells.len(), 8 * 496, "each pair on each rail");
    let failed = run
        .cells
        .iter()
        .filter(|c| c.verdict() == Verdict::Fail)
        .count();
    assert_eq!(failed, 31, "host 17's pairs on rail 0");
    println!(
        "mesh of 32 stand-in hosts on loopback with --rails: {} cells on 8 rails in 31 rounds: \
         coordinated in {:.1} s, {:.1} s with their transcripts; peak memory {} MiB (before: {} \
         MiB)",
        run.cells.len(),
        took.1.as_secs_f64(),
        took.0.as_secs_f64(),
        peak_kib() / 1024,
        before / 1024
    );
}

/// The pairs of a round run at once: with each pair taking 300 ms, every
/// pair of a round overlaps in time with every other of its round (no
/// clock bound is asserted, only the overlap).
#[test]
fn a_rounds_pairs_run_at_once() {
    let overlaps = |seen: &Seen| {
        let seen = seen.lock().unwrap();
        let mut pairs = 0;
        let mut overlapping = 0;
        for (i, a) in seen.iter().enumerate() {
            for b in &seen[i + 1..] {
                if a.0 == b.0 {
                    pairs += 1;
                    overlapping += usize::from(a.3 < b.4 && b.3 < a.4);
                }
            }
        }
        (pairs, overlapping)
    };
    let (_, seen, _) = mesh(
        6,
        &[],
        None,
        99,
        Duration::from_millis(300),
        Strangers::None,
        false,
    );
    let (pairs, overlapping) = overlaps(&seen);
    assert_eq!((pairs, overlapping), (5 * 3, 5 * 3), "5 rounds of 3 pairs");
}

/// The hosts join and every pair runs though strangers hold connections
/// open, flood, trickle and send garbage: each is turned away within its
/// handshake's bound.
#[test]
fn strangers_at_the_port_keep_no_host_out() {
    let (run, seen, took) = mesh(4, &[], None, 99, Duration::ZERO, Strangers::Hostile, false);
    check_schedule(&run, &seen, 4);
    assert!(run.hosts.iter().all(|h| h.joined == Joined::Joined));
    assert!(run.cells.iter().all(|c| c.verdict() == Verdict::Pass));
    assert!(took.0 < Duration::from_secs(60), "{took:?}");
}

/// The JSON lines of `run`'s report, and its exit status (whether it
/// passed), as `rdma-lab mesh --json` writes them.
fn reported(run: &MeshRun) -> (Vec<serde_json::Value>, bool) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("mesh.json");
    let files = rdma_fabric::present::mesh::ReportFiles {
        json: Some(json.clone()),
        ..Default::default()
    };
    let passed = rdma_fabric::present::mesh::report(run, &files).unwrap();
    let text = std::fs::read_to_string(json).unwrap();
    let lines = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (lines, passed)
}

/// The `finding` lines of a report.
fn finding_lines(lines: &[serde_json::Value]) -> Vec<&serde_json::Value> {
    lines.iter().filter(|l| l["type"] == "finding").collect()
}

/// A host without an RDMA device joins to say so: the coordinator does not
/// wait out --wait for it (120 s here), its pairs are not run with that
/// reason, and the diagnosis names it, its cause and its doctor's finding.
#[test]
fn a_host_that_cannot_take_part_is_named_with_its_cause_at_once() {
    let (run, _, took) = mesh_with_one(4, 1, Behaviour::CannotRun);
    assert!(took.0 < Duration::from_secs(60), "waited for it: {took:?}");
    assert_eq!(
        run.hosts[1].joined,
        Joined::CannotRun {
            why: NO_DEVICE.into()
        }
    );
    for cell in &run.cells {
        if cell.pair.has(1) {
            assert!(
                matches!(&cell.verdict(), Verdict::NotRun(why) if why.starts_with("node001 cannot take part: no RDMA device")),
                "{:?}",
                cell.verdict()
            );
        } else {
            assert_eq!(cell.verdict(), Verdict::Pass, "{:?}", cell.pair);
        }
    }
    let findings = rdma_lab::judge::mesh::diagnose(&run);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let text = &findings[0].text;
    assert!(
        text.starts_with(&format!("node001 cannot take part: {NO_DEVICE}"))
            && text.contains(NO_DEVICE_FINDING)
            && !text.contains("never joined"),
        "{text}"
    );
    let (lines, passed) = reported(&run);
    assert!(!passed, "a host that cannot take part fails the run");
    let found = finding_lines(&lines);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["kind"], "cannot_take_part");
    assert_eq!(found[0]["ranks"], serde_json::json!([1]));
    let host = lines
        .iter()
        .find(|l| l["type"] == "host" && l["rank"] == 1)
        .unwrap();
    assert_eq!(host["joined"], "cannot_run");
    assert_eq!(host["cannot_run"], NO_DEVICE);
}

/// A host whose port's counters show packets lost during its pairs has
/// each of its links named lossy, from the counters that crossed in the
/// hosts' `done`s, though every pair passed; the run fails on them.
#[test]
fn links_whose_counters_show_loss_are_named_lossy() {
    let (run, _, _) = mesh_with_one(4, 2, Behaviour::Lossy);
    assert!(run.cells.iter().all(|c| c.verdict() == Verdict::Pass));
    let findings = rdma_lab::judge::mesh::diagnose(&run);
    let lossy: Vec<&str> = findings.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(lossy.len(), 3, "{lossy:#?}");
    for f in &lossy {
        assert!(
            f.contains(
                "37 packets lost of 1000 sent (3.7%; the other links lose 0% at the median) \
                 while their pair ran (node002's rcvd_seq_err +37"
            ),
            "{f}"
        );
        assert!(f.contains("a lossy link between them"), "{f}");
    }
    let (lines, passed) = reported(&run);
    assert!(!passed);
    let found = finding_lines(&lines);
    assert!(found.iter().all(|f| f["kind"] == "lossy"), "{found:?}");
}

/// With `--perf`, a host whose links measure a tenth of the others'
/// bandwidth is named as the host, with the numbers, after its links were
/// measured again alone; the JSON has each link's figures, and the page a
/// bandwidth heatmap and a latency one.
#[test]
fn a_host_slow_with_every_peer_is_named_with_its_numbers() {
    let (run, _, _) = mesh_with_one(4, 2, Behaviour::Slow);
    assert!(run.cells.iter().all(|c| c.verdict() == Verdict::Pass));
    let findings = rdma_lab::judge::mesh::diagnose(&run);
    let texts: Vec<&str> = findings.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(texts.len(), 1, "{texts:#?}");
    assert!(
        texts[0].starts_with(
            "node002 is slow with every one of its 3 measured peers (node000: 0.800 Gb/s, \
             median 8.00 Gb/s (10%); node001: 0.800 Gb/s"
        ),
        "{}",
        texts[0]
    );
    // Its links were measured again alone, and no other.
    let again: Vec<_> = run.cells.iter().filter(|c| !c.alone.is_empty()).collect();
    assert_eq!(again.len(), 3);
    assert!(again.iter().all(|c| c.pair.has(2)));
    let (lines, passed) = reported(&run);
    assert!(!passed);
    let links: Vec<&serde_json::Value> = lines.iter().filter(|l| l["type"] == "link").collect();
    assert_eq!(links.len(), 6);
    for l in &links {
        let on_2 = l["server"] == 2 || l["client"] == 2;
        assert_eq!(l["gbps"], if on_2 { 0.8 } else { 8.0 }, "{l}");
        assert_eq!(l["usec"], 2.0);
        assert_eq!(l["alone"], on_2, "{l}");
    }
    assert_eq!(finding_lines(&lines)[0]["kind"], "slow_host");
    let page = rdma_fabric::present::mesh::html(&run, &findings);
    assert!(page.contains("Bandwidth (ib_write_bw, Gb/s)"));
    assert!(page.contains("Latency (ib_send_lat, usec)"));
    // node2's links red, as the diagnosis names them, the others green.
    assert_eq!(page.matches(">0.800</a>").count(), 6, "{page}");
    assert!(page.contains("<td class=\"fail\"><a href=\"#pair-"));
    assert_eq!(page.matches(">8.00</a>").count(), 6);
}

/// A host whose links look slow only in the busy rounds is measured again
/// alone and named for nothing.
#[test]
fn a_link_slow_only_in_a_busy_round_is_not_named() {
    let (run, _, _) = mesh_with_one(4, 2, Behaviour::SlowInRounds);
    let findings = rdma_lab::judge::mesh::diagnose(&run);
    assert!(findings.is_empty(), "{findings:#?}");
    assert_eq!(run.cells.iter().filter(|c| !c.alone.is_empty()).count(), 3);
}

/// A host whose second NIC is on the wrong subnet is named as that NIC,
/// from the ports every host reported, though all its pairs passed; the
/// JSON has a `rail` finding for it and the run fails on it.
#[test]
fn a_nic_on_the_wrong_subnet_is_a_rail_finding_of_the_run() {
    let (run, _, _) = mesh_with_one(4, 1, Behaviour::WrongRail);
    assert!(run.cells.iter().all(|c| c.verdict() == Verdict::Pass));
    assert_eq!(
        run.hosts[3].ports.len(),
        8,
        "the ports crossed in the hello"
    );
    let findings = rdma_lab::judge::mesh::diagnose(&run);
    let texts: Vec<&str> = findings.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "node001 rxe1 is on 203.0.113.0/24, not on rail 198.51.100.0/24 as every other \
          host's port: a NIC on the wrong subnet (the address of nrxe1)"
        ]
    );
    let (lines, passed) = reported(&run);
    assert!(!passed, "the run fails on its finding");
    let found = finding_lines(&lines);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["kind"], "rail");
    assert_eq!(found[0]["ranks"], serde_json::json!([1]));
}

/// A mesh whose only problem is one host's doctor finding tells one story:
/// the diagnosis names the host and the finding, and that its pairs passed
/// anyway; the JSON has a `finding` line for it; the run fails on it.
#[test]
fn a_doctor_finding_alone_is_a_finding_of_the_run() {
    let (run, _, _) = mesh_with_one(4, 2, Behaviour::Finding);
    assert!(run.cells.iter().all(|c| c.verdict() == Verdict::Pass));
    let findings = rdma_lab::judge::mesh::diagnose(&run);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(
        findings[0].text,
        format!(
            "node002's doctor found: {LOW_MEMLOCK} (its 3 pairs passed anyway): the examples \
             meet it there, so fix it there"
        )
    );
    let matrix = rdma_fabric::present::mesh::matrix_text(&run, &findings);
    assert!(!matrix.contains("every pair passed"), "{matrix}");
    let (lines, passed) = reported(&run);
    assert!(!passed, "the run fails on its finding");
    let found = finding_lines(&lines);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["kind"], "doctor");
    assert_eq!(found[0]["ranks"], serde_json::json!([2]));
    // Without the finding the same run passes: the status follows from
    // the diagnosis.
    let mut clean = run.clone();
    clean.hosts[2].findings.clear();
    assert!(rdma_lab::judge::mesh::diagnose(&clean).is_empty());
    assert!(reported(&clean).1);
}

/// A flood of connections from another host, held and renewed for the
/// whole wait, delays the hosts' joins but never denies them (before, it
/// took every one of the coordinator's 32 handshake slots).
#[test]
fn a_connection_flood_keeps_no_host_out() {
    let (run, seen, took) = mesh(4, &[], None, 99, Duration::ZERO, Strangers::Flood, false);
    assert!(
        run.hosts.iter().all(|h| h.joined == Joined::Joined),
        "{:?}",
        run.hosts
    );
    check_schedule(&run, &seen, 4);
    assert!(took.0 < Duration::from_secs(60), "{took:?}");
}

/// A host that answers with a 1 MB not-run reason has it cut to size; one
/// that answers with a million-element list is refused unread and counts
/// as gone (before, the reason reached the reports whole, and the list
/// took the coordinator from 22 MB to 161 MB).
#[test]
fn every_field_from_a_host_is_bounded() {
    let (run, _, _) = mesh_with_one(4, 1, Behaviour::LongReason);
    let reasons: Vec<usize> = run
        .cells
        .iter()
        .flat_map(|c| &c.results)
        .filter_map(|r| match &r.verdict {
            Verdict::NotRun(why) => Some(why.len()),
            _ => None,
        })
        .collect();
    assert!(!reasons.is_empty());
    assert!(reasons.iter().all(|&n| n <= 1100), "{reasons:?}");
    let (run, _, _) = mesh_with_one(3, 2, Behaviour::HugeList);
    assert!(
        matches!(&run.hosts[2].joined, Joined::Died { during } if during.contains("more than 4096 values")),
        "{:?}",
        run.hosts[2].joined
    );
}

/// A host whose pairs' port another process holds: the pairs it serves
/// did not run, with that reason, and the diagnosis blames no host or
/// link for them (before, the peers' failed sessions named the host).
#[test]
fn a_port_held_by_another_process_is_its_own_verdict() {
    let (run, _, _) = mesh_with_one(4, 1, Behaviour::PortHeld);
    for cell in &run.cells {
        let v = cell.verdict();
        if cell.pair.server == 1 {
            assert_eq!(
                v,
                Verdict::NotRun("port 7472 on node001 is in use by another process".into()),
                "{:?}",
                cell.pair
            );
        } else {
            assert_eq!(v, Verdict::Pass, "{:?}", cell.pair);
        }
    }
    let findings = rdma_lab::judge::mesh::diagnose(&run);
    assert!(
        findings.iter().all(|f| !f.text.contains("node001")),
        "{findings:#?}"
    );
}

/// With `--allow`, a host from another address is closed before it takes
/// a handshake slot, even one that holds the secret; the wait goes on.
#[test]
fn allow_closes_other_addresses_before_they_take_a_slot() {
    let port = free_port();
    let secret = Secret::generate().unwrap();
    let out = tempfile::tempdir().unwrap();
    let cfg = CoordConfig {
        listen: format!("127.0.0.1:{port}").parse().unwrap(),
        size: 2,
        names: Vec::new(),
        pattern: Pattern::AllPairs,
        scenarios: vec!["rc_example".into()],
        wait_secs: 3,
        secret: secret.clone(),
        out: rdma_lab::base::rundir::Dir::open(out.path()).unwrap(),
        mcast_all: false,
        serial: false,
        rails: false,
        allow: vec!["127.0.0.1".parse().unwrap()],
        perf: None,
    };
    let outsider = thread::spawn(move || {
        let s = (0..100)
            .find_map(|_| {
                serving::try_connect_from(std::net::Ipv4Addr::new(127, 0, 0, 2), port).or_else(
                    || {
                        thread::sleep(Duration::from_millis(50));
                        None
                    },
                )
            })
            .unwrap();
        let mut c = Control::new(s).unwrap();
        c.authenticate_client(&secret, Duration::from_secs(5))
    });
    let mut said = Vec::new();
    let run = coordinate(&cfg, &mut |l| said.push(l.to_string())).unwrap();
    let joined = outsider.join().unwrap();
    assert!(joined.is_err(), "the outsider got in");
    assert!(run.hosts.iter().all(|h| h.joined != Joined::Joined));
    assert!(
        said.iter()
            .any(|l| l.starts_with("mesh: turned away 127.0.0.2:") && l.contains("--allow")),
        "{said:#?}"
    );
}

/// Links planted where the pairs' transcripts go (in a result dir the user
/// handed over with `--out`) are replaced, never written through: the file
/// they point at is unchanged (before, the coordinator wrote through them).
#[test]
fn transcripts_never_go_through_a_planted_link() {
    use rdma_lab::model::mesh::{transcript_path, Pair};
    let port = free_port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let secret = Secret::generate().unwrap();
    let out = tempfile::tempdir().unwrap();
    let victim = out.path().join("victim");
    std::fs::write(&victim, "root's alone\n").unwrap();
    for (server, client) in [(0, 1), (1, 0)] {
        for side in ["server", "client"] {
            let at = out.path().join(transcript_path(
                Pair { server, client },
                0,
                "rc_example",
                side,
            ));
            std::fs::create_dir_all(at.parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(&victim, &at).unwrap();
        }
    }
    let cfg = CoordConfig {
        listen: addr,
        size: 2,
        names: Vec::new(),
        pattern: Pattern::AllPairs,
        scenarios: vec!["rc_example".into()],
        wait_secs: 30,
        secret: secret.clone(),
        out: rdma_lab::base::rundir::Dir::open(out.path()).unwrap(),
        mcast_all: false,
        serial: false,
        rails: false,
        allow: Vec::new(),
        perf: None,
    };
    let seen: Seen = Arc::default();
    let hosts: Vec<_> = (0..2)
        .map(|r| {
            let (secret, seen) = (secret.clone(), seen.clone());
            let faults = Faults::none();
            thread::spawn(move || {
                stand_in(
                    r,
                    addr,
                    secret,
                    Behaviour::Plays,
                    faults,
                    seen,
                    Duration::ZERO,
                )
            })
        })
        .collect();
    let run = coordinate(&cfg, &mut |_| {}).unwrap();
    for h in hosts {
        h.join().unwrap();
    }
    assert_eq!(run.cells.len(), 1);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "root's alone\n");
}

/// Four stand-ins with `--rails`, host 2 `how` on its second NIC: the run
/// and its findings.
fn on_rails(how: Behaviour) -> (MeshRun, Vec<rdma_lab::judge::finding::Finding>) {
    let (run, _, _) = mesh(
        4,
        &[],
        Some((2, how)),
        99,
        Duration::ZERO,
        Strangers::None,
        true,
    );
    // Rail 0 (the hosts' addresses), 172.16.2-7.0/24 and 198.51.100.0/24:
    // every pair on each, all rails of a round at once.
    assert_eq!(run.rails.len(), 8);
    for rail in 0..8 {
        assert_eq!(run.cells.iter().filter(|c| c.rail == rail).count(), 6);
    }
    let findings = rdma_lab::judge::mesh::diagnose(&run);
    (run, findings)
}

/// With `--rails --perf`, a host whose second NIC measures a tenth of the
/// others' is named as that NIC on its rail only, with numbers, measured
/// again alone on that rail; rail 0 and the other rails are clean.
#[test]
fn a_slow_nic_is_named_on_its_rail_only() {
    let (run, findings) = on_rails(Behaviour::SlowNic);
    let texts: Vec<&str> = findings.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(texts.len(), 1, "{texts:#?}");
    assert!(
        texts[0].starts_with(
            "rail 7 (198.51.100.0/24): node002 rxe1 is slow with every one of its 3 measured \
             peers (node000 rxe1: 0.800 Gb/s, median 8.00 Gb/s (10%)"
        ),
        "{}",
        texts[0]
    );
    assert!(
        texts[0]
            .ends_with("It passes on rail 0: its NIC on rail 7 (198.51.100.0/24), not the host."),
        "{}",
        texts[0]
    );
    assert_eq!(findings[0].rail, 7);
    let again: Vec<_> = run.cells.iter().filter(|c| !c.alone.is_empty()).collect();
    assert_eq!(again.len(), 3);
    assert!(again.iter().all(|c| c.pair.has(2) && c.rail == 7));
    let (lines, passed) = reported(&run);
    assert!(!passed);
    let found = finding_lines(&lines);
    assert_eq!(found[0]["kind"], "slow_host");
    assert_eq!(found[0]["rail"], 7);
    let links = lines.iter().filter(|l| l["type"] == "link").count();
    assert_eq!(links, 6 * 8, "a link line a pair and rail");
    let page = rdma_fabric::present::mesh::html(&run, &findings);
    assert!(page.contains("<h2>Rail 7 (198.51.100.0/24)</h2>"));
    let text = rdma_fabric::present::mesh::matrix_text(&run, &findings);
    assert!(text.contains("\nRail 7 (198.51.100.0/24):\n"), "{text}");
}

/// With `--rails`, a host whose every pair on its second NIC fails is
/// named as that NIC, not as the host: rail 0 passes.
#[test]
fn a_failing_nic_is_a_nic_fault_not_a_host_fault() {
    let (run, findings) = on_rails(Behaviour::BadNic);
    assert!(run
        .cells
        .iter()
        .filter(|c| c.rail == 0)
        .all(|c| c.verdict() == Verdict::Pass));
    let texts: Vec<&str> = findings.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(texts.len(), 1, "{texts:#?}");
    assert!(
        texts[0].starts_with("rail 7 (198.51.100.0/24): node002 rxe1 fails with "),
        "{}",
        texts[0]
    );
    assert!(texts[0].contains("its NIC on rail 7 (198.51.100.0/24), not the host"));
    assert_eq!(
        findings[0].kind,
        rdma_lab::judge::finding::FindingKind::HostFault { rank: 2 }
    );
}
