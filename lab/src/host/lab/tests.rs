use super::*;
use crate::base::workspace::workspace_root;
use rdma_fabric::host::doctor::doctor_dir;

#[test]
fn what_a_mode_cannot_run_is_skipped_with_its_reason() {
    let find = |n| catalog::find(n).unwrap();
    let local = |role| Mode::Local {
        dev: None,
        ip: "10.0.0.1".into(),
        gid_idx: None,
        role,
    };
    let peer = local(Local::Peer("10.0.0.2".into()));
    let blocked = find("doctor_udp_4791_blocked");
    assert!(skip_reason(blocked, &Mode::SingleHost, None).is_some());
    assert!(skip_reason(blocked, &Mode::TwoHosts, None).is_none());
    assert!(skip_reason(blocked, &peer, None)
        .unwrap()
        .contains("VMs only"));
    let memlock = find("srq_memlock_64");
    assert!(skip_reason(memlock, &Mode::SingleHost, None).is_none());
    assert!(skip_reason(memlock, &local(Local::Alone), None).is_none());
    assert!(skip_reason(memlock, &peer, None)
        .unwrap()
        .contains("one host"));
    // The doctor's own cells run the lab itself: VMs only.
    let doctor = find("doctor_memlock_64");
    assert!(skip_reason(doctor, &Mode::SingleHost, None).is_none());
    assert!(skip_reason(doctor, &local(Local::Alone), None)
        .unwrap()
        .contains("VMs only"));
    for pair in catalog::pairs() {
        for mode in [Mode::SingleHost, Mode::TwoHosts, peer.clone()] {
            for link in [None, Some("Ethernet"), Some("InfiniBand")] {
                assert_eq!(skip_reason(pair, &mode, link), None, "{}", pair.name);
            }
        }
    }
    // A program's own GID choice is RoCE's: an InfiniBand port skips it.
    let auto = find("rc_example_auto_gid");
    assert!(skip_reason(auto, &peer, Some("InfiniBand"))
        .unwrap()
        .contains("InfiniBand"));
    assert_eq!(skip_reason(auto, &peer, Some("Ethernet")), None);
}

#[test]
fn the_binaries_to_copy_are_the_workspace_examples() {
    // Every workspace binary but the lab's and the fabric's own: a `src/main.rs` is its
    // package's binary, and each `src/bin/NAME.rs` is one more.
    let root = workspace_root();
    let mut found = Vec::new();
    for e in fs::read_dir(&root).unwrap().flatten() {
        let dir = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if ["xtask", "lab", "fabric"].contains(&name.as_str()) || !dir.join("Cargo.toml").is_file()
        {
            continue;
        }
        if dir.join("src/main.rs").is_file() {
            found.push(name.clone());
        }
        for b in fs::read_dir(dir.join("src/bin"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let f = b.file_name().to_string_lossy().into_owned();
            if let Some(stem) = f.strip_suffix(".rs") {
                found.push(stem.to_string());
            }
        }
    }
    found.sort();
    let mut listed: Vec<String> = crate::catalog::binaries()
        .iter()
        .map(|b| b.to_string())
        .collect();
    listed.sort();
    assert_eq!(found, listed);
}

#[test]
fn doctor_files_become_findings_and_hosts() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = &Dir::open(tmp.path()).unwrap();
    let said = |t: &str| crate::results::record_line(&crate::results::DoctorFinding::said(t));
    dir.write(&crate::results::findings_file("server"), said("too low"))
        .unwrap();
    // A line that is not a finding's record is none.
    let path = said("blocked") + "blocked too\n";
    dir.write(&crate::results::findings_file("path"), path)
        .unwrap();
    dir.write(&crate::results::findings_file("client"), "")
        .unwrap();
    let h = crate::results::HostInfo {
        role: "client".into(),
        dev: "rxe0".into(),
        port: 1,
        ..Default::default()
    };
    dir.write(
        &crate::results::host_file("client"),
        crate::results::record_line(&h),
    )
    .unwrap();
    let (findings, hosts) = read_doctor(dir);
    assert_eq!(
        findings,
        ["server host: too low", "between the hosts: blocked"]
    );
    assert_eq!(hosts, [h]);
}

fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
}

#[test]
fn a_run_dir_is_new_and_private() {
    let tmp = tempfile::tempdir().unwrap();
    let opts = LabOptions {
        out: Some(tmp.path().join("out")),
        ..LabOptions::new(Mode::SingleHost, PathBuf::from("/nonexistent"))
    };
    let (root, a) = new_run_dir(&opts).unwrap();
    let (_, b) = new_run_dir(&opts).unwrap();
    assert_eq!(root.path(), tmp.path().join("out"));
    assert_eq!(mode(a.path()), 0o700);
    assert_ne!(a.path(), b.path(), "each run its own");
    assert_eq!(a.path().parent(), Some(root.path()));
}

#[test]
fn the_doctors_dir_is_fresh_and_private_whatever_was_planted() {
    // Where the doctor's dir used to be: a symlink planted there, as
    // any local user could, to a dir the doctor would have written to.
    let target = tempfile::tempdir().unwrap();
    let old = std::env::temp_dir().join(format!("rdma-doctor-{}", std::process::id()));
    std::os::unix::fs::symlink(target.path(), &old).unwrap();
    let dirs = [doctor_dir().unwrap(), doctor_dir().unwrap()];
    let _ = fs::remove_file(&old);
    for d in &dirs {
        assert_ne!(d.path(), old);
        assert_eq!(d.path().parent(), Some(std::env::temp_dir().as_path()));
        assert!(d
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("rdma-doctor-"));
        assert_eq!(mode(d.path()), 0o700);
        assert!(!fs::symlink_metadata(d.path())
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_dir(d.path()).unwrap().count(), 0);
    }
    assert_ne!(dirs[0].path(), dirs[1].path());
    assert_eq!(fs::read_dir(target.path()).unwrap().count(), 0);
    let gone = dirs[0].path().to_path_buf();
    drop(dirs);
    assert!(!gone.exists(), "removed when dropped");
}

#[test]
fn a_byte_that_is_not_utf8_keeps_the_transcript() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = &Dir::open(tmp.path()).unwrap();
    let s = catalog::find("rc_example").unwrap();
    let file = |side, ext| result_file(&s.name, side, ext);
    dir.write(&file("server", "stdout"), b"before \xff after\n")
        .unwrap();
    dir.write(&file("server", "stderr"), b"err \xfe\n").unwrap();
    dir.write(&file("server", "status"), "{\"exit\":0,\"elapsed_ms\":5}\n")
        .unwrap();
    dir.write(&file("both", "leftover"), b"qp \x80\n").unwrap();
    dir.write(
        &crate::results::findings_file("both"),
        b"{\"text\":\"bad \xc3\"}\n",
    )
    .unwrap();
    let status = crate::results::agent_status_file("both");
    dir.write(&status, b"{\"failed\":\"died \xff\"}\n").unwrap();
    let o = &collect(&[s], dir, dir)[0];
    let server = o.server.as_ref().expect("the server side is read");
    assert_eq!(server.stdout, "before \u{fffd} after\n");
    assert_eq!(server.stderr, "err \u{fffd}\n");
    assert_eq!(server.exit, Some(0));
    assert_eq!(o.leftover, "qp \u{fffd}\n");
    assert_eq!(read_doctor(dir).0, ["this host: bad \u{fffd}"]);
    let mut notes = Vec::new();
    agent_note(dir, "both", &mut notes);
    assert_eq!(notes, ["both agent: error: died \u{fffd}"]);
    // A status no agent writes is said as such, escaped.
    dir.write(&status, b"ok\x1b[2J\n").unwrap();
    notes.clear();
    agent_note(dir, "both", &mut notes);
    assert_eq!(
        notes,
        ["both agent: its status is not one it writes: ok\\u{1b}[2J\\n"]
    );
}

#[test]
fn guest_visibility() {
    assert!(guest_can_see(Path::new("/work/main/target/debug/xtask")));
    assert!(guest_can_see(Path::new("/tmp/ci/repo/target")));
    assert!(!guest_can_see(Path::new("/var/tmp/repo/target")));
    assert!(!guest_can_see(Path::new("/run/user/0/x")));
    assert!(guest_can_see(Path::new("/variable/x")));
}
