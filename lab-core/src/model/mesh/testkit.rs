use super::*;
use crate::model::rails::Port;

/// The scenarios every pair of a test run runs.
pub const SCENARIOS: &[&str] = &["rc_example", "rdmacm_client_server"];

/// A healthy host `node<rank>` on 192.0.2.0/24, MTU 1500, RoCE v2.
pub fn host(rank: usize) -> MeshHost {
    MeshHost {
        rank,
        name: format!("node{rank}"),
        rdma_addr: format!("192.0.2.{}", rank + 1),
        netdev: "eth0".into(),
        mtu: Some(1500),
        gid_type: Some("RoCE v2".into()),
        subnet: Some("192.0.2.0/24".into()),
        findings: Vec::new(),
        ports: Vec::new(),
        joined: Joined::Joined,
    }
}

/// A scenario's result with its transcripts.
pub fn result(scenario: &str, verdict: Verdict) -> ScenarioResult {
    let detail = match &verdict {
        Verdict::Fail => format!("{scenario}: client: exit status 1, expected 0"),
        Verdict::NotRun(why) | Verdict::PortHeld(why) => why.clone(),
        _ => String::new(),
    };
    ScenarioResult {
        scenario: scenario.into(),
        verdict,
        detail,
        server_log: Some(format!("server of {scenario}\n")),
        client_log: Some(format!("client of {scenario}\n")),
        unstarted: None,
    }
}

/// A run of `n` healthy hosts on `pattern`'s schedule, where the pairs
/// `fails(a, b)` names fail every scenario and the rest pass; no
/// multicast round.
pub fn run(n: usize, pattern: Pattern, fails: impl Fn(usize, usize) -> bool) -> MeshRun {
    let mut cells = Vec::new();
    for (r, round) in schedule(n, pattern).unwrap().into_iter().enumerate() {
        for pair in round {
            let bad = fails(pair.server, pair.client) || fails(pair.client, pair.server);
            let verdict = if bad { Verdict::Fail } else { Verdict::Pass };
            cells.push(PairCell {
                rail: 0,
                pair,
                round: r,
                results: SCENARIOS
                    .iter()
                    .map(|s| result(s, verdict.clone()))
                    .collect(),
                counters: Vec::new(),
                alone: Vec::new(),
                rate_gbps: None,
                reports: Vec::new(),
                alone_reports: Vec::new(),
            });
        }
    }
    MeshRun {
        rails: vec![None],
        hosts: (0..n).map(host).collect(),
        cells,
        mcast: Vec::new(),
        pattern_name: pattern.name(),
        perf: None,
        baseline: None,
    }
}

/// Marks host `rank` as not taking part, `joined` saying how, and its
/// pairs as not run.
pub fn drop_host(run: &mut MeshRun, rank: usize, joined: Joined) {
    run.hosts[rank].joined = joined;
    for c in run.cells.iter_mut().filter(|c| c.pair.has(rank)) {
        for r in &mut c.results {
            *r = result(
                &r.scenario,
                Verdict::NotRun(format!("host {rank} is missing")),
            );
        }
    }
}

/// A port of `dev` (port 1, netdev `n` and its name) at `addr/prefix`.
pub fn port(dev: &str, addr: &str, prefix: u8) -> Port {
    Port {
        dev: dev.into(),
        port: 1,
        netdev: format!("n{dev}"),
        addr: addr.parse().unwrap(),
        prefix,
        rate: None,
    }
}

/// A healthy run of four hosts on two rails, node1's devices made in the
/// other order (`rxe1` on rail 0).
pub fn swapped_run() -> MeshRun {
    let mut run = run(4, Pattern::Ring, |_, _| false);
    run.rails = vec![None, Some(port("x", "198.51.100.0", 24).subnet())];
    for h in &mut run.hosts {
        let (a, b) = if h.rank == 1 {
            ("rxe1", "rxe0")
        } else {
            ("rxe0", "rxe1")
        };
        h.ports = vec![
            port(a, &h.rdma_addr, 24),
            port(b, &format!("198.51.100.{}", h.rank + 1), 24),
        ];
    }
    run
}
