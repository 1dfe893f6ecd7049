use super::*;

/// The lab's server host, all of it known.
fn rxe0() -> HostInfo {
    HostInfo {
        role: "server".into(),
        dev: "rxe0".into(),
        port: 1,
        link_layer: Some("Ethernet".into()),
        gid_index: Some(1),
        gid_type: Some("RoCE v2".into()),
        active_mtu: Some(1024),
    }
}

/// `h` with only what every host has.
fn bare(h: HostInfo) -> HostInfo {
    HostInfo {
        link_layer: None,
        gid_index: None,
        gid_type: None,
        active_mtu: None,
        ..h
    }
}

#[test]
fn host_records_round_trip() {
    let h = rxe0();
    assert_eq!(parse_host_record(&host_record(&h)), Some(h.clone()));
    let bare = bare(h);
    assert_eq!(parse_host_record(&host_record(&bare)), Some(bare));
    assert_eq!(parse_host_record("server\trxe0"), None);
}

#[test]
fn boot_phases_round_trip_and_a_times_file_reads_its_whole_lines() {
    let p = BootPhases {
        kernel_secs: 3.94,
        tmpfiles_secs: 10.55,
        udev_secs: 88.22,
        agent_secs: 109.2,
        rxe_secs: 4.3,
        doctor_secs: 3.78,
    };
    assert_eq!(BootPhases::parse(&p.record()), Some(p));
    assert_eq!(BootPhases::parse("kernel=1\n"), None);
    // Marks in another order (Debian 13's virtme-ng): none, not -0.0.
    let odd = BootPhases {
        tmpfiles_secs: -0.01,
        ..p
    };
    assert!(odd.to_string().contains("systemd-tmpfiles 0.0 s"), "{odd}");
    let dir = tempfile::tempdir().expect("a temp dir");
    fs::write(
        dir.path().join(times_file("both")),
        "a\t3100\t900\nb\t60000\t-\nc\t12",
    )
    .expect("written");
    let t = read_times(&Dir::open(dir.path()).expect("opened"), "both");
    assert_eq!(t.len(), 2, "{t:?}: c is still being written");
    assert_eq!((t[0].wall_ms, t[0].busy_ms), (3100, Some(900)));
    assert_eq!((t[1].name.as_str(), t[1].busy_ms), ("b", None));
}

#[test]
fn a_host_reads_as_one_line() {
    let h = rxe0();
    assert_eq!(
        h.to_string(),
        "server host: rxe0 port 1 (Ethernet), GID index 1 (RoCE v2), active MTU 1024"
    );
    let bare = bare(h);
    assert_eq!(
        bare.to_string(),
        "server host: rxe0 port 1 (link layer unknown)"
    );
}
