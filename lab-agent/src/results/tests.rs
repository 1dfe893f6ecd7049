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

/// Every file of a result dir that is not a program's output is a line
/// of JSON a type reads back, and nothing else reads as one.
#[test]
fn result_records_round_trip() {
    let h = rxe0();
    assert_eq!(parse_line(&record_line(&h)), Some(h.clone()));
    let bare = bare(h);
    assert_eq!(parse_line(&record_line(&bare)), Some(bare));
    assert_eq!(parse_line::<HostInfo>("server\trxe0"), None);
    let status = SideStatus {
        exit: 137,
        elapsed_ms: 5,
        cannot_start: None,
    };
    assert_eq!(record_line(&status), "{\"exit\":137,\"elapsed_ms\":5}\n");
    assert_eq!(parse_line(&record_line(&status)), Some(status));
    let unstarted = SideStatus {
        exit: 127,
        elapsed_ms: 0,
        cannot_start: Some("rc_example: No such file or directory".into()),
    };
    assert_eq!(parse_line(&record_line(&unstarted)), Some(unstarted));
    assert_eq!(parse_line::<SideStatus>("exit=0\nelapsed_ms=5\n"), None);
    for s in [AgentStatus::Ok, AgentStatus::Failed("no device".into())] {
        assert_eq!(parse_line(&record_line(&s)), Some(s));
    }
    assert_eq!(parse_line::<AgentStatus>("ok\n"), None);
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
    assert_eq!(parse_line(&record_line(&p)), Some(p));
    assert_eq!(parse_line::<BootPhases>("{\"kernel_secs\":1}\n"), None);
    // Marks in another order (Debian 13's virtme-ng): none, not -0.0.
    let odd = BootPhases {
        tmpfiles_secs: -0.01,
        ..p
    };
    assert!(odd.to_string().contains("systemd-tmpfiles 0.0 s"), "{odd}");
    let dir = tempfile::tempdir().expect("a temp dir");
    fs::write(
        dir.path().join(times_file("both")),
        "{\"name\":\"a\",\"wall_ms\":3100,\"busy_ms\":900}\n\
         {\"name\":\"b\",\"wall_ms\":60000,\"busy_ms\":null}\n{\"name\":\"c\",\"wal",
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
    let alone = HostInfo {
        role: "both".into(),
        ..bare
    };
    assert_eq!(
        alone.to_string(),
        "this host (both sides): rxe0 port 1 (link layer unknown)"
    );
}
