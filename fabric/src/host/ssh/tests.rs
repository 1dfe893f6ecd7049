#[test]
fn the_copies_are_stripped_of_their_debug_info() {
    let exe = std::env::current_exe().expect("this test's binary");
    let (dir, copies) = stripped_copies(std::slice::from_ref(&exe)).expect("objcopy strips");
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    assert!(copies[0].starts_with(dir.path()), "{copies:?}");
    assert_eq!(copies[0].file_name(), exe.file_name());
    assert!(size(&copies[0]) > 0 && size(&copies[0]) < size(&exe) / 2);
    assert!(stripped_copies(&[]).is_none());
}

#[test]
fn a_host_gets_the_binaries_its_scenarios_and_the_doctor_start() {
    let rc = binaries_needed(&["rc_example".into()]);
    assert_eq!(rc, ["rc_example", "ibv_sockets_pingpong", "rdmacm_server"]);
    let mc = binaries_needed(&["rc_example".into(), "mckey".into()]);
    for b in ["mckey", "mc", "rc_example"] {
        assert!(mc.contains(&b), "{mc:?}");
    }
    assert!(!mc.contains(&"srq") && !mc.contains(&"apm"), "{mc:?}");
}

use super::*;

/// What a host's `mktemp -d` says is used (and later `rm -rf`'d) only
/// when it is exactly of mktemp's form: a hostile or broken host that
/// answers with `..` in it, or any other path, is refused.
#[test]
fn only_a_remote_dir_of_mktemps_form_is_taken() {
    assert!(of_mktemp_form("/tmp/rdma-lab.Ab3dE6gH9z"));
    for bad in [
        "/tmp/rdma-lab.Ab3dE6gH9z/../../home",
        "/tmp/rdma-lab.../../../..",
        "/tmp/rdma-lab.abcdefghij/x",
        "/tmp/rdma-lab.abc",
        "/tmp/rdma-lab.abcdefghi.",
        "/tmp/rdma-lab.abcdefghij\n",
        "/home/user",
        "",
    ] {
        assert!(!of_mktemp_form(bad), "{bad:?}");
    }
}

/// The options of a mesh that only pinning sets apart.
fn options(pin: bool, out: &std::path::Path) -> MeshOptions {
    MeshOptions {
        names: Vec::new(),
        pattern: crate::model::mesh::Pattern::Ring,
        port: 7471,
        wait_secs: 120,
        ip: None,
        netdev: None,
        dev: None,
        gid_idx: None,
        bin_dir: None,
        out: crate::base::rundir::Dir::open(out).unwrap(),
        secret: Secret::generate().unwrap(),
        mcast_all: false,
        serial: false,
        rails: false,
        pin,
        allow: Vec::new(),
        rail_devs: Vec::new(),
        perf: None,
    }
}

#[test]
fn a_remote_rank_is_told_not_to_pin_only_where_the_launcher_was() {
    let out = tempfile::tempdir().unwrap();
    let words = |pin| rank_words(&options(pin, out.path()), "/tmp/x", 1, 4, "node0", &[]);
    assert!(!words(true).contains(&"--no-pin".to_string()));
    assert!(words(false).contains(&"--no-pin".to_string()));
}
