use super::*;

/// Checks that `rounds` cover each pair of `n` hosts at most once,
/// with no host twice in a round; returns how many pairs they cover
/// and each host's count of pairs served. Plain slices and `while`
/// loops: an unoptimised build calls a function for every `Vec` index
/// and iterator step, and this runs over 180 million pairs.
fn check_rounds(n: usize, rounds: &[Vec<Pair>]) -> (usize, Vec<usize>) {
    let mut seen = vec![false; n * n];
    let mut served = vec![0; n];
    let mut in_round = vec![usize::MAX; n];
    let (seen_s, served_s, in_round_s) = (&mut seen[..], &mut served[..], &mut in_round[..]);
    let mut pairs = 0;
    let mut r = 0;
    while r < rounds.len() {
        let round = &rounds[r][..];
        assert!(!round.is_empty(), "n={n}: round {r} is empty");
        let mut i = 0;
        while i < round.len() {
            let (a, b) = (round[i].server, round[i].client);
            assert!(a < n && b < n && a != b, "n={n}: bad pair {a}-{b}");
            assert!(
                in_round_s[a] != r && in_round_s[b] != r,
                "n={n}: host twice in round {r}"
            );
            in_round_s[a] = r;
            in_round_s[b] = r;
            let key = if a < b { a * n + b } else { b * n + a };
            assert!(!seen_s[key], "n={n}: pair {a}-{b} twice");
            seen_s[key] = true;
            served_s[a] += 1;
            pairs += 1;
            i += 1;
        }
        r += 1;
    }
    (pairs, served)
}

/// Checks the all-pairs schedule of every `n` in `ns`: each pair once,
/// no host twice in a round, the fewest rounds, the serving shared.
fn check_all_pairs(ns: std::ops::RangeInclusive<usize>) {
    for n in ns {
        let rounds = schedule(n, Pattern::AllPairs).unwrap();
        let want_rounds = if n % 2 == 0 { n - 1 } else { n };
        assert_eq!(rounds.len(), want_rounds, "n={n}");
        let (pairs, served) = check_rounds(n, &rounds);
        assert_eq!(pairs, n * (n - 1) / 2, "n={n}");
        // Each host serves about half of its n - 1 pairs.
        let (low, high) = ((n - 1) / 2, n / 2);
        for (h, s) in served.iter().enumerate() {
            assert!((low..=high).contains(s), "n={n}: host {h} serves {s}");
        }
    }
}

// Every n from 2 to 1024 in two tests of equal work (it grows as n
// cubed), which the harness runs in parallel.
#[test]
fn all_pairs_covers_every_pair_once_in_the_fewest_rounds() {
    check_all_pairs(2..=812);
}

#[test]
fn all_pairs_covers_every_pair_once_up_to_1024_hosts() {
    check_all_pairs(813..=1024);
}

#[test]
fn all_pairs_keeps_every_host_busy_in_an_even_mesh() {
    for n in [2, 4, 10, 64] {
        for round in schedule(n, Pattern::AllPairs).unwrap() {
            assert_eq!(round.len(), n / 2, "n={n}");
        }
    }
    // An odd mesh: exactly one host sits out each round.
    for round in schedule(7, Pattern::AllPairs).unwrap() {
        assert_eq!(round.len(), 3);
    }
}

#[test]
fn ring_covers_each_neighbour_edge_once() {
    for n in 2..=200 {
        let rounds = schedule(n, Pattern::Ring).unwrap();
        let want_rounds = match n {
            2 => 1,
            n if n % 2 == 0 => 2,
            _ => 3,
        };
        assert_eq!(rounds.len(), want_rounds, "n={n}");
        let (pairs, served) = check_rounds(n, &rounds);
        let all: Vec<Pair> = rounds.concat();
        if n == 2 {
            assert_eq!(pairs, 1);
            continue;
        }
        assert_eq!(pairs, n, "n={n}");
        for (i, s) in served.iter().enumerate() {
            assert!(all.iter().any(|p| p.joins(i, (i + 1) % n)), "n={n} i={i}");
            assert_eq!(*s, 1, "n={n}: host {i}");
        }
    }
}

#[test]
fn star_pairs_its_centre_with_every_other_host() {
    for n in 2..=200 {
        for c in [0, n / 2, n - 1] {
            let rounds = schedule(n, Pattern::Star(c)).unwrap();
            assert_eq!(rounds.len(), n - 1, "n={n} c={c}");
            let (pairs, served) = check_rounds(n, &rounds);
            assert_eq!(pairs, n - 1);
            for h in (0..n).filter(|&h| h != c) {
                assert!(rounds.concat().iter().any(|p| p.joins(c, h)));
            }
            // The centre serves about half of its pairs.
            assert_eq!(served[c], n / 2, "n={n} c={c}");
        }
    }
}

#[test]
fn a_star_outside_the_mesh_is_an_error_and_tiny_meshes_have_no_rounds() {
    let e = schedule(4, Pattern::Star(4)).unwrap_err();
    assert_eq!(
        e,
        CentreNotAHost {
            centre: 4,
            hosts: 4
        }
    );
    assert!(e.to_string().contains("ranks 0 to 3"), "{e}");
    assert!(schedule(0, Pattern::Star(0)).is_err());
    for n in 0..2 {
        assert_eq!(schedule(n, Pattern::AllPairs), Ok(Vec::new()));
        assert_eq!(schedule(n, Pattern::Ring), Ok(Vec::new()));
    }
    assert_eq!(schedule(1, Pattern::Star(0)), Ok(Vec::new()));
}

#[test]
fn patterns_read_back_their_names() {
    for p in [Pattern::AllPairs, Pattern::Ring, Pattern::Star(3)] {
        assert_eq!(Pattern::parse(&p.name()), Ok(p));
    }
    for bad in ["", "star", "star:", "star:-1", "mesh"] {
        let e = Pattern::parse(bad).unwrap_err();
        assert_eq!(e, UnknownPattern(bad.into()));
        assert!(
            e.to_string().contains("all-pairs, ring or star:RANK"),
            "{e}"
        );
    }
}

#[test]
fn multicast_rounds_send_from_zero_or_from_everyone() {
    assert_eq!(
        mcast_rounds(3, false),
        vec![Mcast {
            sender: 0,
            receivers: vec![1, 2]
        }]
    );
    let all = mcast_rounds(4, true);
    assert_eq!(all.len(), 4);
    for (i, m) in all.iter().enumerate() {
        assert_eq!(m.sender, i);
        assert_eq!(m.receivers.len(), 3);
        assert!(!m.receivers.contains(&i));
    }
    assert!(mcast_rounds(1, true).is_empty());
    assert!(mcast_rounds(0, false).is_empty());
}

fn result(scenario: &str, verdict: Verdict) -> ScenarioResult {
    ScenarioResult {
        scenario: scenario.into(),
        verdict,
        detail: String::new(),
        server_log: None,
        client_log: None,
        unstarted: None,
    }
}

#[test]
fn a_pair_fails_when_any_scenario_failed() {
    let cell = |vs: Vec<Verdict>| PairCell {
        rail: 0,
        pair: Pair {
            server: 0,
            client: 1,
        },
        round: 0,
        results: vs.into_iter().map(|v| result("s", v)).collect(),
        counters: Vec::new(),
        alone: Vec::new(),
        rate_gbps: None,
        reports: Vec::new(),
        alone_reports: Vec::new(),
    };
    let late = Verdict::NotRun("deadline".into());
    use Verdict::*;
    assert_eq!(cell(vec![Pass, Fail, late.clone()]).verdict(), Fail);
    assert_eq!(cell(vec![Pass, late.clone()]).verdict(), late);
    assert_eq!(cell(vec![Pass, Skip]).verdict(), Pass);
    assert_eq!(cell(vec![Skip]).verdict(), Skip);
    assert!(matches!(cell(vec![]).verdict(), NotRun(_)));
    assert_eq!(cell(vec![Fail, Pass, Fail]).failed(), vec!["s", "s"]);
}

#[test]
fn a_transcripts_path_is_by_rank_and_cannot_leave_its_dir() {
    let p = Pair {
        server: 2,
        client: 0,
    };
    assert_eq!(
        transcript_path(p, 0, "rc_example", "server"),
        "pairs/2-0/rc_example.server.txt"
    );
    assert_eq!(
        transcript_path(p, 0, "../x/y z", "client"),
        "pairs/2-0/.._x_y_z.client.txt"
    );
    assert_eq!(
        transcript_path(p, 3, "perf_send_lat", "client"),
        "pairs/2-0/rail3/perf_send_lat.client.txt"
    );
}
