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
    assert_eq!(Accel::choose(true, false, runs), Accel::Kvm);
    // No flag is asked for: a nested guest without `vmx` may run KVM.
    assert_eq!(
        Accel::choose(true, false, fails),
        Accel::Tcg(
            "a KVM guest did not run here: QEMU ended with exit status: 1: failed to set MSR 0x10a"
                .into()
        )
    );
    assert_eq!(
        Accel::choose(false, false, runs),
        Accel::Tcg("/dev/kvm does not open read-write".into())
    );
    assert_eq!(Accel::choose(true, true, runs), Accel::Tcg("--tcg".into()));
    assert_eq!(Accel::choose(true, true, runs).to_string(), "TCG (--tcg)");
}
