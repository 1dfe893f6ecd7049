use super::*;

#[test]
fn the_loss_counters_of_rxe_and_mlx5_are_known() {
    for loss in [
        "rcvd_seq_err",
        "completer_retry_err",
        "duplicate_request",
        "out_of_seq_request",
        "retry_exceeded_err",
        "packet_seq_err",
        "local_ack_timeout_err",
        "rnr_nak_retry_err",
        "roce_adp_retrans",
        "port_rcv_errors",
        "port_xmit_discards",
    ] {
        assert!(is_loss(loss), "{loss}");
    }
    for not in [
        "sent_pkts",
        "rcvd_pkts",
        "rdma_sends",
        "port_xmit_data",
        "ack_deferred",
    ] {
        assert!(!is_loss(not), "{not}");
    }
}

#[test]
fn only_loss_counters_that_rose_are_kept() {
    let c = |v: &[(&str, u64)]| -> Vec<(String, u64)> {
        v.iter().map(|(n, x)| (n.to_string(), *x)).collect()
    };
    let before = c(&[
        ("rcvd_seq_err", 3),
        ("sent_pkts", 100),
        ("duplicate_request", 7),
    ]);
    let after = c(&[
        ("rcvd_seq_err", 40),
        ("sent_pkts", 900),
        ("duplicate_request", 7),
        ("completer_retry_err", 2),
    ]);
    assert_eq!(
        rose(&before, &after),
        // completer_retry_err was not read before: its count is the
        // port's lifetime's, not this pair's.
        c(&[("rcvd_seq_err", 37), ("sent_pkts", 800)])
    );
}

#[test]
fn a_counters_dir_reads_as_numbers() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("rcvd_seq_err"), "12\n").unwrap();
    std::fs::write(dir.path().join("lifespan"), "10\n").unwrap();
    std::fs::write(dir.path().join("garbage"), "n/a\n").unwrap();
    assert_eq!(
        read_dir(dir.path()),
        [
            ("lifespan".to_string(), 10),
            ("rcvd_seq_err".to_string(), 12)
        ]
    );
    assert!(read_dir(&dir.path().join("none")).is_empty());
}

#[test]
fn rdma_statistic_reads_as_numbers() {
    // As rxe's `rdma -j statistic show link rxe0/1` printed it in a VM
    // (cut), with an mlx5 optional counter added.
    let json =
        r#"[{"ifname":"rxe0","port":1,"sent_pkts":9,"rcvd_seq_err":3,"roce_adp_retrans":2}]"#;
    let parsed = parse_rdma_statistic(json);
    let named: Vec<(&str, u64)> = parsed.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    assert_eq!(
        named,
        [
            ("rcvd_seq_err", 3),
            ("roce_adp_retrans", 2),
            ("sent_pkts", 9)
        ]
    );
    for not in [
        "",
        "Wrong device name",
        "[]",
        "{\"port\":1}",
        "[{\"port\":1}]",
    ] {
        assert!(parse_rdma_statistic(not).is_empty(), "{not}");
    }
}
