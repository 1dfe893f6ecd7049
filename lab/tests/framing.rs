//! A mesh host that holds the secret and lies about what its links moved
//! (its stand-in perftest over-reports, or reports figures no port could
//! give) or what its port counted, against stand-in hosts on loopback: no
//! innocent host is named slow or lossy, and the liar is named for the
//! figures that cannot be true.

mod serving;
mod standins;

use rdma_lab::model::mesh::MeshRun;
use standins::*;

/// The liar's rank: with four hosts, the client of two of its three
/// pairs, so that it writes those pairs' transcripts itself.
const LIAR: usize = 3;

/// The `finding` lines of `run`'s JSON report, as `mesh --json` writes
/// them: each `(kind, ranks)`, with its text.
fn findings(run: &MeshRun) -> Vec<(String, Vec<u64>, String)> {
    let found = rdma_lab::judge::mesh::diagnose(run);
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("mesh.json");
    let files = rdma_fabric::present::mesh::ReportFiles {
        json: Some(json.clone()),
        ..Default::default()
    };
    rdma_fabric::present::mesh::report(run, &files).unwrap();
    let text = std::fs::read_to_string(json).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|l: &serde_json::Value| l["type"] == "finding")
        .collect();
    assert_eq!(lines.len(), found.len());
    lines
        .iter()
        .map(|l| {
            let ranks = l["ranks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_u64().unwrap())
                .collect();
            let kind = l["kind"].as_str().unwrap().to_string();
            (kind, ranks, l["text"].as_str().unwrap().to_string())
        })
        .collect()
}

/// No finding names a host but the liar slow, alone or by a link of two
/// honest hosts: every kind of slowness must include the liar.
fn no_honest_host_named_slow(found: &[(String, Vec<u64>, String)]) {
    for (kind, ranks, text) in found {
        if kind.starts_with("slow") || kind == "lossy" {
            assert!(ranks.contains(&(LIAR as u64)), "{kind} {ranks:?}: {text}");
        }
    }
}

/// The run with host [`LIAR`] lying as `lie`, and its findings.
fn lying(lie: Lie) -> Vec<(String, Vec<u64>, String)> {
    lying_run(lie).1
}

/// [`lying`] with its run.
fn lying_run(lie: Lie) -> (MeshRun, Vec<(String, Vec<u64>, String)>) {
    let (run, _, _) = mesh_with_one(4, LIAR, Behaviour::Lies(lie));
    let found = findings(&run);
    no_honest_host_named_slow(&found);
    (run, found)
}

/// A host whose perftest reports 2.1 times what it moved (the review's
/// smallest lie that framed a host: a host is slow under half the median)
/// gets no host named, and is named for nothing: its figures are each
/// capped by what the host that received them counted.
#[test]
fn a_host_over_reporting_twice_frames_no_one() {
    let found = lying(Lie::Times(2.1));
    assert!(found.is_empty(), "{found:#?}");
}

/// A 400-fold lie is more than the ports could move (100 Gb/s each): its
/// figures are refused and the liar is named for them, alone, in the
/// terminal's diagnosis and on the page as any finding is.
#[test]
fn a_host_over_reporting_400_times_is_named_for_an_impossible_report() {
    let (run, found) = lying_run(Lie::Times(400.0));
    let diagnosis = rdma_lab::judge::mesh::diagnose(&run);
    let said = "node003 reported 3200.00 Gb/s on a 100 Gb/s port";
    let text = rdma_fabric::present::mesh::matrix_text(&run, &diagnosis);
    assert!(
        text.contains(&format!("\nDiagnosis:\n  - {said}")),
        "{text}"
    );
    let page = rdma_fabric::present::mesh::html(&run, &diagnosis);
    assert!(
        page.contains(&format!("<li class=\"impossible\">{said}")),
        "{page}"
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    let (kind, ranks, text) = &found[0];
    assert_eq!(
        (kind.as_str(), ranks.as_slice()),
        ("impossible_report", &[3][..])
    );
    assert!(
        text.starts_with("node003 reported 3200.00 Gb/s on a 100 Gb/s port"),
        "{text}"
    );
}

/// Negative and infinite figures are refused and name the liar, never an
/// honest host (a negative figure once named every host slow, and an
/// infinite one made the median infinite).
#[test]
fn a_host_reporting_negative_or_infinite_figures_is_named_for_them() {
    for (lie, said) in [
        (Lie::Negative, "node003 reported -8.00 Gb/s"),
        (Lie::Infinite, "node003 reported inf Gb/s"),
    ] {
        let found = lying(lie);
        assert_eq!(found.len(), 1, "{lie:?}: {found:#?}");
        let (kind, ranks, text) = &found[0];
        assert_eq!(
            (kind.as_str(), ranks.as_slice()),
            ("impossible_report", &[3][..])
        );
        assert!(text.starts_with(said), "{lie:?}: {text}");
    }
}

/// A host that counts ten times the packets it sent and none it lost,
/// while every link loses 0.8% of its packets: its links' shares, beside
/// every other link, would make those look lossy (each of the other
/// hosts' links was named on the judge before it); each link's share
/// beside others is the larger of its two hosts', each over the packets
/// its own port received, so nothing is named.
#[test]
fn a_host_counting_more_packets_sent_than_it_sent_frames_no_link() {
    let (run, _, _) = mesh_with_one(4, LIAR, Behaviour::InflatesSent);
    let found = findings(&run);
    assert!(found.is_empty(), "{found:#?}");
}
