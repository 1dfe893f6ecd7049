use super::*;

fn t(lost: u64, sent: u64) -> Tally {
    Tally { lost, sent }
}

#[test]
fn a_tally_adds_loss_and_packets_sent_and_leaves_late_acks_out() {
    let counters = [
        ("rcvd_seq_err", 7),
        ("out_of_seq_request", 5),
        ("duplicate_request", 166),
        ("completer_retry_err", 12),
        ("sent_pkts", 900),
        ("sent_pkts", 100),
    ];
    assert_eq!(Tally::of(counters), t(12, 1000));
    // A peer's numbers do not wrap around.
    let huge = [("rcvd_seq_err", u64::MAX), ("out_of_seq_request", 9)];
    assert_eq!(Tally::of(huge).lost, u64::MAX);
}

#[test]
fn a_link_that_loses_several_times_the_usual_share_stands_out() {
    // An emulated segment: every link loses about 1% under load.
    let links = [t(10, 1000), t(14, 1200), t(9, 1100), t(40, 1000), t(0, 800)];
    let u = usual(&links);
    assert!((u.rate.unwrap() - 10.0 / 1000.0).abs() < 1e-9, "{u:?}");
    let named: Vec<usize> = (0..links.len())
        .filter(|&i| stands_out(&links[i], &u))
        .collect();
    assert_eq!(named, [3]);
    assert_eq!(
        compared(&links[3], &u),
        "40 packets lost of 1000 sent (4.0%; the other links lose 1.0% at the median)"
    );
    // The fabric test's 3% drops between two hosts showed as 1.2% of what
    // their link sent; beside it, the most a healthy link lost there,
    // 0.48%: named. 1.8 times the usual is not.
    let u = usual(&[t(48, 10_000)]);
    assert!(stands_out(&t(171, 13_762), &u));
    assert!(!stands_out(&t(86, 10_000), &u));
    // Twice the usual, but only 0.14 points over it (healthy links
    // measured all at once), is not; 0.37 points over, ten times it (a
    // lossy link that stalled on its QP timeout), is.
    let u = usual(&[t(113, 100_000)]);
    assert!(!stands_out(&t(252, 100_000), &u));
    let u = usual(&[t(4, 10_000)]);
    assert!(stands_out(&t(5, 1232), &u));
}

#[test]
fn on_a_clean_fabric_a_few_percent_stand_out_and_a_stray_gap_does_not() {
    let mut links = vec![t(0, 1000); 5];
    links.push(t(30, 1000));
    links.push(t(LOSSY_MIN - 1, 10));
    links.push(t(4, 2000)); // 0.2%: under the margin.
    links.push(t(4, 1000)); // 0.4%: over it, where the others lose none.
    let u = usual(&links);
    let named: Vec<usize> = (0..links.len())
        .filter(|&i| stands_out(&links[i], &u))
        .collect();
    assert_eq!(named, [5, 8]);
}

#[test]
fn without_packet_counts_the_loss_is_compared_as_counts() {
    let links = [t(2, 0), t(3, 0), t(2, 0), t(20, 0)];
    let u = usual(&links);
    assert_eq!(u.rate, None);
    assert!(stands_out(&links[3], &u));
    assert!(!stands_out(&links[1], &u));
    // With no share to floor it, twice the usual count is not enough.
    assert!(!stands_out(&t(6, 0), &u));
    assert!(stands_out(&t(8, 0), &u));
    assert_eq!(
        compared(&links[3], &u),
        "20 packets lost (the other links lose 2.5 at the median)"
    );
}

/// Every link of four hosts, `bad` among them lossy at 4%, the others at
/// `usual_lost` per thousand.
fn four(bad: &[(usize, usize)], usual_lost: u64) -> Vec<Link> {
    let mut links = Vec::new();
    for a in 0..4 {
        for b in a + 1..4 {
            let lost = if bad.contains(&(a, b)) {
                40
            } else {
                usual_lost
            };
            links.push((a, b, t(lost, 1000)));
        }
    }
    links
}

#[test]
fn one_bad_link_or_every_link_of_one_host_is_named_against_the_links_beside_it() {
    let named = |links: &[Link]| -> Vec<(usize, usize)> {
        lossy(links)
            .iter()
            .map(|&(i, _)| (links[i].0, links[i].1))
            .collect()
    };
    assert_eq!(named(&four(&[(1, 3)], 8)), [(1, 3)]);
    // Half the links of four hosts: the median of the whole run would be
    // lossy itself.
    let host2 = [(0, 2), (1, 2), (2, 3)];
    assert_eq!(named(&four(&host2, 8)), host2);
    assert_eq!(named(&four(&host2, 0)), host2);
    // Every link alike: the fabric's usual, none named.
    let all: Vec<(usize, usize)> = four(&[], 0).iter().map(|l| (l.0, l.1)).collect();
    assert!(named(&four(&all, 0)).is_empty());
    // Three hosts, host 2's NIC losing 4%: both its links, each against
    // the link without host 2.
    let three = [(0, 1, t(0, 1000)), (0, 2, t(40, 1000)), (1, 2, t(40, 1000))];
    assert_eq!(named(&three), [(0, 2), (1, 2)]);
    // Two hosts: one link, judged by the margin alone.
    assert_eq!(named(&[(0, 1, t(40, 1000))]), [(0, 1)]);
    assert!(named(&[(0, 1, t(4, 2000))]).is_empty());
}

/// The links beside a link are judged by their yardsticks, not their
/// tallies: a host that counts ten times the packets it sent lowers its
/// links' tallies, and by them every link without it (0.6% lost, as
/// every link) is named lossy; by their yardsticks (their other hosts'
/// shares) none is.
#[test]
fn the_links_beside_are_judged_by_their_yardsticks() {
    let links: Vec<Link> = four(&[], 6)
        .into_iter()
        .map(|(a, b, t)| {
            let sent = if b == 3 { 10_000 } else { 1000 };
            (a, b, Tally { sent, ..t })
        })
        .collect();
    let framed: Vec<(usize, usize)> = lossy(&links)
        .iter()
        .map(|&(i, _)| (links[i].0, links[i].1))
        .collect();
    assert_eq!(framed, [(0, 1), (0, 2), (1, 2)]);
    let yards = vec![
        Yard {
            rate: Some(0.006),
            lost: 6.0
        };
        links.len()
    ];
    assert!(judged(&links, &yards).is_empty());
}
