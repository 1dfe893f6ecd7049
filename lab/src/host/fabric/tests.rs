use super::*;

fn spec(n: usize) -> FabricSpec {
    FabricSpec {
        n,
        dir: PathBuf::from("/work/x/target/lab/fabric 1"),
        exec: vec!["true".into(); n],
        slurm: true,
        ssh: true,
        budget_secs: 300,
        rails: 1,
        numa: None,
    }
}

#[test]
fn nodes_have_their_own_macs_and_addresses() {
    assert_eq!(FabricSpec::mac(0), "52:54:00:12:35:01");
    assert_eq!(FabricSpec::mac(3), "52:54:00:12:35:04");
    assert_eq!(FabricSpec::mac(253), "52:54:00:12:35:fe");
    assert_eq!(FabricSpec::addr(0), "192.0.2.1");
    assert_eq!(FabricSpec::addr(253), "192.0.2.254");
    let macs: std::collections::HashSet<_> = (0..MAX_NODES).map(FabricSpec::mac).collect();
    assert_eq!(macs.len(), MAX_NODES);
    // Not the two-VM lab's MACs.
    assert!(!macs.contains(crate::host::vm::MAC_A) && !macs.contains(crate::host::vm::MAC_B));
}

#[test]
fn hosts_lists_every_node() {
    let t = hosts_text(4);
    assert!(t.starts_with("127.0.0.1\tlocalhost\n"));
    assert!(t.ends_with("192.0.2.1\tnode0\n192.0.2.2\tnode1\n192.0.2.3\tnode2\n192.0.2.4\tnode3\n"));
}

#[test]
fn slurm_conf_names_the_controller_the_nodes_and_one_partition() {
    let t = slurm_conf(4);
    for line in [
        "ClusterName=fabric",
        "SlurmctldHost=node0(192.0.2.1)",
        "AuthType=auth/munge",
        "SlurmUser=root",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "ReturnToService=2",
        "MpiDefault=none",
        "StateSaveLocation=/run/slurm/ctld",
        "SlurmdSpoolDir=/run/slurm/d",
        "NodeName=node0 NodeAddr=192.0.2.1 CPUs=1 State=UNKNOWN",
        "NodeName=node3 NodeAddr=192.0.2.4 CPUs=1 State=UNKNOWN",
        "PartitionName=all Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
    ] {
        assert!(t.lines().any(|l| l == line), "no {line:?} in\n{t}");
    }
    assert_eq!(t.lines().filter(|l| l.starts_with("NodeName=")).count(), 4);
    assert!(!t.to_lowercase().contains("cgroup"), "{t}");
    // Every key=value line is one setting, as slurm.conf reads it.
    for l in t.lines().filter(|l| !l.starts_with('#')) {
        assert!(l.contains('=') && !l.contains("  "), "{l:?}");
    }
    // The dirs the prelude makes are the ones the conf names.
    for dir in ["/run/slurm/ctld", "/run/slurm/d"] {
        assert!(PRELUDE.contains(dir), "{dir}");
    }
    // slurmd's cgroup plugin works without systemd, and the prelude
    // puts cgroup.conf beside slurm.conf.
    assert!(CGROUP_CONF.lines().any(|l| l == "IgnoreSystemd=yes"));
    assert!(CGROUP_CONF.lines().any(|l| l == "CgroupPlugin=cgroup/v2"));
    assert!(PRELUDE.contains(r#"cp "$dir/slurm.conf" "$dir/cgroup.conf" /etc/slurm/"#));
}

#[test]
fn known_hosts_names_every_node_with_the_one_host_key() {
    let t = known_hosts(2, "ssh-ed25519 AAAAC3Nz rdma-lab fabric host\n");
    assert_eq!(t, "node0,192.0.2.1,node1,192.0.2.2 ssh-ed25519 AAAAC3Nz\n");
}

#[test]
fn the_prelude_gets_its_values_as_quoted_arguments() {
    let s = spec(4);
    assert_eq!(
        prelude_command(&s, 2, Duration::from_secs(540)),
        "sh '/work/x/target/lab/fabric 1/prelude.sh' '/work/x/target/lab/fabric 1' 2 4 52:54:00:12:35:03 192.0.2.3 1 1 540 300 '' ''"
    );
    let two = FabricSpec {
        rails: 2,
        numa: None,
        ..spec(4)
    };
    assert!(prelude_command(&two, 2, Duration::from_secs(540))
        .ends_with(" 540 300 52:54:00:12:36:03 198.51.100.3"));
    // Its text has no value of a run in it.
    for v in ["192.0.2", "52:54:00", "node0"] {
        assert!(!PRELUDE.contains(v), "{v}");
    }
    assert!(qemu_nic(1, &[4000]).contains("mcast=230.0.0.1:4000,localaddr=127.0.0.1"));
    assert!(qemu_nic(1, &[4000]).ends_with("mac=52:54:00:12:35:02"));
    // Two rails: a NIC on each segment, each with its MAC.
    let two = qemu_nic(1, &[4000, 4002]);
    assert!(two.contains("id=s0,mcast=230.0.0.1:4000,"), "{two}");
    assert!(
        two.ends_with(
            "-netdev socket,id=s1,mcast=230.0.0.2:4002,localaddr=127.0.0.1 \
             -device virtio-net-pci,netdev=s1,mac=52:54:00:12:36:02"
        ),
        "{two}"
    );
    assert_eq!(FabricSpec::rail_addr(1, 2), "198.51.100.3");
}

#[test]
fn a_spec_is_checked() {
    assert!(spec(4).check().is_ok());
    assert!(spec(0).check().is_err());
    assert!(spec(MAX_NODES + 1).check().is_err());
    let mut s = spec(4);
    s.exec.pop();
    assert!(s.check().unwrap_err().contains("needs 4 commands"));
    s = spec(4);
    s.rails = MAX_RAILS + 1;
    assert!(s.check().unwrap_err().contains("1 to 2 NICs"));
    s = spec(4);
    s.dir = PathBuf::from("/run/x");
    assert!(s.check().is_err());
}

#[test]
fn a_numa_nodes_nics_hang_off_each_nodes_expander_and_one_off_the_root_bus() {
    let opts = qemu_numa_nics(3, &[4000, 4002], 4004);
    assert!(opts.contains("-device pxb-pcie,id=px1,bus_nr=32,numa_node=1,bus=pcie.0"));
    assert!(opts.contains("-device virtio-net-pci,netdev=s1,bus=rp1,mac=52:54:00:12:36:04"));
    assert!(opts.contains("-device virtio-net-pci,netdev=s0,bus=rp0,mac=52:54:00:12:35:04"));
    assert!(opts.ends_with(&format!("bus=pcie.0,mac={SPARE_MAC}")));
    assert!(opts.contains("mcast=230.0.0.9:4004,localaddr=127.0.0.1"));
}
