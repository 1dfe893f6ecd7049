//! The coordinator's rounds beyond the pairs: the links measured again
//! alone (`--perf`) and the multicast rounds, each bounded.

use super::*;

/// With `--perf`, after the rounds: each suspect pair (its figures short
/// of `limits` on its rail) is measured again alone on that rail, as
/// rounds from `first` on, at most [`ALONE_MAX`] of them in all.
pub(super) fn remeasure(
    cells: &mut [PairCell],
    limits: &PerfLimits,
    members: &mut [Member],
    cfg: &CoordConfig,
    first: usize,
    rails: &[Option<Subnet>],
    say: &mut dyn FnMut(&str),
) {
    let mut suspects = Vec::new();
    for rail in 0..rails.len() {
        let at: Vec<usize> = (0..cells.len())
            .filter(|&i| cells[i].rail == rail)
            .collect();
        let on: Vec<PairCell> = at.iter().map(|&i| cells[i].clone()).collect();
        suspects.extend(
            crate::judge::perf::suspects(&on, limits)
                .into_iter()
                .map(|i| at[i]),
        );
    }
    for (k, &i) in suspects.iter().take(ALONE_MAX).enumerate() {
        let rail = cells[i].rail;
        let on = if rail == 0 {
            String::new()
        } else {
            format!(" on rail {rail}")
        };
        say(&format!(
            "mesh: measuring {}{on} again alone",
            crate::base::text::shown(&pair_name(members, cells[i].pair))
        ));
        let again = alone(first + k, cells[i].pair, rail, members, cfg, rails);
        (cells[i].alone, cells[i].alone_reports) = again;
    }
    if suspects.len() > ALONE_MAX {
        say(&format!(
            "mesh: {} more slow links are judged by their rounds' figures",
            suspects.len() - ALONE_MAX
        ));
    }
}

/// `cfg` with, under `--perf`, the measurements after every pair's
/// scenarios.
pub(super) fn with_perf(cfg: &CoordConfig) -> CoordConfig {
    let mut cfg = cfg.clone();
    if cfg.perf.is_some() {
        for s in catalog::perf_runs() {
            if !cfg.scenarios.contains(&s.name) {
                cfg.scenarios.push(s.name.clone());
            }
        }
    }
    cfg
}

/// The most suspect links measured again alone: a host slow with every
/// peer makes as many suspects as it has peers, and a few of its links
/// measured alone tell that as well as all of them.
pub const ALONE_MAX: usize = 8;

/// The measurements of `pair` on `rail` taken again with no other pair
/// running (`mesh --perf`), as round `r`: their results and each host's
/// own side.
pub(super) fn alone(
    r: usize,
    pair: Pair,
    rail: usize,
    members: &mut [Member],
    cfg: &CoordConfig,
    rails: &[Option<Subnet>],
) -> (Vec<ScenarioResult>, Vec<SideReport>) {
    let perf: Vec<String> = catalog::perf_runs()
        .iter()
        .map(|s| s.name.clone())
        .collect();
    let bound = round_bound(&perf);
    let cfg = CoordConfig {
        scenarios: perf,
        ..cfg.clone()
    };
    run_round(r, &[pair], members, &cfg, bound, rails, Some(rail))
        .into_iter()
        .next()
        .map(|c| (c.results, c.reports))
        .unwrap_or_default()
}

/// The multicast rounds: for each of the mesh's multicast scenarios
/// (`mckey`, `mc`), one host sends while every other receives at once.
pub(super) fn multicast(
    cfg: &CoordConfig,
    members: &mut [Member],
    say: &mut dyn FnMut(&str),
) -> Vec<McastResult> {
    let names: Vec<&str> = crate::guest::mesh::MCAST_SCENARIOS
        .iter()
        .copied()
        .filter(|n| cfg.scenarios.iter().any(|s| s == n))
        .collect();
    let mut out = Vec::new();
    for m in mcast_rounds(cfg.size, cfg.mcast_all) {
        for name in &names {
            let Some(s) = catalog::find(name) else {
                continue;
            };
            say(&format!(
                "mesh: multicast {name}: {} sends to every other host",
                shown(&members[m.sender].host.name)
            ));
            out.push(mcast_one(&m, s, members));
        }
    }
    out
}

/// Asks each of `ranks` `msg` and waits for `want` by `deadline`; those
/// that answered.
pub(super) fn ask_all(
    members: &mut [Member],
    ranks: &[usize],
    msg: &str,
    want: &str,
    deadline: Instant,
) -> Vec<usize> {
    let mut sent = Vec::new();
    for &r in ranks {
        if let Some(c) = &mut members[r].control {
            match c.send(msg) {
                Ok(()) => sent.push(r),
                Err(_) => members[r].gone(Joined::Died {
                    during: "the multicast round".into(),
                }),
            }
        }
    }
    sent.into_iter()
        .filter(|&r| {
            let answer = members[r]
                .control
                .as_mut()
                .map(|c| c.recv(want, left(deadline)));
            match answer {
                Some(Ok(line)) if line == want => true,
                // It would not run it: no receiver there, but still a host.
                Some(Ok(line)) if line.starts_with("refused") => false,
                _ => {
                    members[r].gone(Joined::Died {
                        during: "the multicast round".into(),
                    });
                    false
                }
            }
        })
        .collect()
}

/// One multicast scenario: the receivers started and ready, the sender
/// run, then each receiver's verdict (did it get every message?).
pub(super) fn mcast_one(m: &Mcast, s: &Scenario, members: &mut [Member]) -> McastResult {
    // Without its sender, no receiver is started: none could pass.
    if members[m.sender].control.is_none() {
        let why = absence(&members[m.sender].host);
        return McastResult {
            sender: m.sender,
            scenario: s.name.clone(),
            receivers: m
                .receivers
                .iter()
                .map(|&r| (r, Verdict::NotRun(why.clone())))
                .collect(),
        };
    }
    let bound = Duration::from_secs(u64::from(s.timeout_secs) * 2 + 60);
    let name = hex(s.name.as_bytes());
    let ready = ask_all(
        members,
        &m.receivers,
        &format!("mrecv {name}"),
        "ready",
        Instant::now() + bound,
    );
    let deadline = Instant::now() + bound;
    if let Some(c) = &mut members[m.sender].control {
        if c.send(&format!("msend {name}")).is_ok() {
            let _ = done_of(
                &mut members[m.sender],
                "the multicast round",
                deadline,
                std::slice::from_ref(&s.name),
            );
        }
    }
    let deadline = Instant::now() + bound;
    let mut receivers = Vec::new();
    for &r in &m.receivers {
        let verdict = if members[r].control.is_none() && !ready.contains(&r) {
            Verdict::NotRun(absence(&members[r].host))
        } else if !ready.contains(&r) {
            Verdict::NotRun(format!(
                "{} did not start its receiver",
                members[r].host.name
            ))
        } else {
            let ended = members[r].control.as_mut().map(|c| c.send("mend"));
            match ended.and_then(Result::ok).and_then(|()| {
                done_of(
                    &mut members[r],
                    "the multicast round",
                    deadline,
                    std::slice::from_ref(&s.name),
                )
            }) {
                Some(done) => done
                    .results
                    .first()
                    .map_or(Verdict::Fail, |x| x.verdict.clone()),
                None => Verdict::NotRun(format!("{} went away", members[r].host.name)),
            }
        };
        receivers.push((r, verdict));
    }
    McastResult {
        sender: m.sender,
        scenario: s.name.clone(),
        receivers,
    }
}
