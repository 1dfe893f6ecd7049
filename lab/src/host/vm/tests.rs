use super::*;

#[test]
fn an_emulated_boot_may_take_as_long_as_the_guests_beside_it_make_it() {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let flat = Duration::from_secs(BOOT_SECS);
    let tcg = Accel::Tcg("test".into());
    assert_eq!(boot_bound(&tcg, 0), flat);
    assert_eq!(boot_bound(&tcg, cores), flat);
    assert_eq!(boot_bound(&tcg, cores + 1), flat * 2);
    assert_eq!(boot_bound(&tcg, 4 * cores), flat * 4);
    // At most eight guests to a core, however many there are.
    assert_eq!(boot_bound(&tcg, 254 * cores), flat * 8);
    assert_eq!(boot_bound(&tcg, usize::MAX), flat * 8);
    // Under KVM a guest's boot does not wait on the others'.
    assert_eq!(boot_bound(&Accel::Kvm, 8 * cores), flat);
}

#[test]
fn kvm_where_a_guest_runs_and_the_device_opens() {
    let runs = || Ok(());
    let fails = || Err("QEMU ended with exit status: 1: failed to set MSR 0x10a".into());
    assert_eq!(choose_accel(true, false, runs), Accel::Kvm);
    // No flag is asked for: a nested guest without `vmx` may run KVM.
    assert_eq!(
        choose_accel(true, false, fails),
        Accel::Tcg(
            "a KVM guest did not run here: QEMU ended with exit status: 1: failed to set MSR 0x10a"
                .into()
        )
    );
    assert_eq!(
        choose_accel(false, false, runs),
        Accel::Tcg("/dev/kvm does not open read-write".into())
    );
    assert_eq!(choose_accel(true, true, runs), Accel::Tcg("--tcg".into()));
    assert_eq!(choose_accel(true, true, runs).to_string(), "TCG (--tcg)");
}

/// The lab marks the kernel command line of its VMs, where the scenarios'
/// public test key is taken; every other option stays as it was.
#[test]
fn the_vms_kernel_command_line_marks_them_as_the_labs() {
    let tools = Tools {
        kernel: crate::host::setup::Kernel {
            version: "6.1.0-1-amd64".into(),
            image: "/boot/vmlinuz-6.1.0-1-amd64".into(),
        },
        vng: "/usr/bin/vng".into(),
        qemu: None,
    };
    let spec = VmSpec {
        name: "A".into(),
        exec: "true".into(),
        rwdir: "/tmp/a".into(),
        shared: None,
        qemu_opts: None,
        cpus: 1,
        numa_nodes: 0,
        memory: VM_MEMORY.into(),
    };
    let args = vng_args(&tools, &Accel::Tcg("test".into()), &spec);
    let appended: Vec<&str> = args
        .windows(2)
        .filter(|w| w[0] == "--append")
        .map(|w| w[1].as_str())
        .collect();
    assert_eq!(appended.len(), 2, "{args:?}");
    assert!(appended[0].starts_with("modprobe.blacklist="));
    assert_eq!(appended[1], crate::guest::control::VM_MARK);
}

#[test]
fn numa_nodes_each_get_a_vcpu_and_a_share_of_the_memory() {
    let spec = |memory: &str, numa_nodes| VmSpec {
        name: "N".into(),
        exec: "true".into(),
        rwdir: "/tmp/n".into(),
        shared: None,
        qemu_opts: None,
        cpus: 2,
        numa_nodes,
        memory: memory.into(),
    };
    assert_eq!(
        numa_args(&spec("1G", 2)),
        ["--numa", "512M,cpus=0", "--numa", "512M,cpus=1"]
    );
    assert_eq!(numa_args(&spec("2048M", 2))[1], "1024M,cpus=0");
    assert!(numa_args(&spec("1G", 1)).is_empty());
    assert!(numa_args(&spec("1T", 2)).is_empty());
}
