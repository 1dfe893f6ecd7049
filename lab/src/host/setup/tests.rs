use super::*;

#[test]
fn the_cache_is_never_in_tmp() {
    let target = Path::new("/work/repo/target");
    let v = |s: &str| Some(std::ffi::OsString::from(s));
    let dir = |x, h| cache_dir_from(x, h, target);
    assert_eq!(
        dir(v("/c"), v("/root")),
        Path::new("/c/rdma-examples"),
        "XDG_CACHE_HOME first"
    );
    assert_eq!(
        dir(None, v("/root")),
        Path::new("/root/.cache/rdma-examples")
    );
    for (x, h) in [(None, None), (v(""), v("")), (v("rel"), v("home"))] {
        assert_eq!(
            dir(x.clone(), h.clone()),
            Path::new("/work/repo/target/cache/rdma-examples"),
            "{x:?} {h:?}"
        );
    }
    assert_eq!(
        dir(v("rel"), v("/home/u")),
        Path::new("/home/u/.cache/rdma-examples")
    );
}

#[test]
fn versions_sort_numerically() {
    assert_eq!(
        compare_versions("6.10.0-1-amd64", "6.9.0-1-amd64"),
        Ordering::Greater
    );
    assert_eq!(
        compare_versions("6.1.0-56-amd64", "6.1.0-9-amd64"),
        Ordering::Greater
    );
    assert_eq!(
        compare_versions("6.1.0-56-amd64", "6.1.0-56-amd64"),
        Ordering::Equal
    );
    assert_eq!(compare_versions("6.1", "6.1.0"), Ordering::Less);
}

#[test]
fn image_versions_come_from_the_boot_header() {
    let mut img = vec![0u8; 0x400];
    img[0x202..0x206].copy_from_slice(b"HdrS");
    img[0x20e..0x210].copy_from_slice(&0x100u16.to_le_bytes());
    let text = b"6.12.57+deb13-amd64 (debian-kernel@lists.debian.org) #1 SMP\0";
    img[0x300..0x300 + text.len()].copy_from_slice(text);
    assert_eq!(image_version(&img).as_deref(), Some("6.12.57+deb13-amd64"));
    let mut no_magic = img.clone();
    no_magic[0x202] = b'X';
    assert_eq!(image_version(&no_magic), None);
    assert_eq!(image_version(&img[..0x300]), None, "pointer past the end");
    assert_eq!(image_version(b"short"), None);
}

#[test]
fn the_default_kernel_reads_its_own_version() {
    // Where a kernel is installed, its image says the version its name
    // says, so `--kernel` with it names the same kernel as the default.
    if let Some(k) = find_kernel() {
        assert_eq!(kernel_from_image(&k.image).unwrap(), k);
    }
}

#[test]
fn kernel_choice() {
    let boot: Vec<String> = [
        "6.1.0-9-amd64",
        "6.1.0-56-amd64",
        "6.12.0-1-amd64",
        "6.8.0-40-generic",
        "6.20-custom",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // The running kernel wins when usable.
    assert_eq!(
        pick_kernel("6.18.44-fc", &boot, |_| true).as_deref(),
        Some("6.18.44-fc")
    );
    // Otherwise the newest usable distribution kernel.
    assert_eq!(
        pick_kernel("6.18.44-fc", &boot, |v| v != "6.18.44-fc").as_deref(),
        Some("6.12.0-1-amd64")
    );
    assert_eq!(
        pick_kernel("x", &boot, |v| v.starts_with("6.1.")).as_deref(),
        Some("6.1.0-56-amd64")
    );
    assert_eq!(
        pick_kernel("x", &boot, |v| v.ends_with("-generic")).as_deref(),
        Some("6.8.0-40-generic")
    );
    assert_eq!(pick_kernel("x", &boot, |_| false), None);
}

fn os(id: &str, version: &str) -> OsRelease {
    OsRelease {
        id: id.into(),
        version_id: version.into(),
        pretty_name: String::new(),
    }
}

#[test]
fn os_release_is_read_with_quotes() {
    let text = "PRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"13\"\nID=debian\n";
    let o = parse_os_release(text);
    assert_eq!(o.id, "debian");
    assert_eq!(o.version_id, "13");
    assert_eq!(o.pretty_name, "Debian GNU/Linux 13 (trixie)");
}

#[test]
fn each_distribution_has_its_names() {
    let d12 = plan(&os("debian", "12")).unwrap();
    assert_eq!(d12.kernel, ["linux-image-amd64"]);
    assert_eq!(d12.vng, VngSource::Venv);
    assert_eq!(d12.libclang_19, Some("libclang-19-dev"));
    let d13 = plan(&os("debian", "13")).unwrap();
    assert_eq!(d13.vng, VngSource::Apt("virtme-ng"));
    assert_eq!(d13.libclang_19, None);
    assert_eq!(d13.chromium, Some("chromium"));
    let u22 = plan(&os("ubuntu", "22.04")).unwrap();
    assert_eq!(u22.kernel, ["linux-image-generic"]);
    assert_eq!(u22.vng, VngSource::Venv);
    assert_eq!(u22.chromium, None, "Ubuntu's chromium is a snap");
    let u24 = plan(&os("ubuntu", "24.04")).unwrap();
    assert_eq!(u24.vng, VngSource::Apt("virtme-ng"));
    let other = plan(&OsRelease {
        id: "fedora".into(),
        version_id: "41".into(),
        pretty_name: "Fedora Linux 41".into(),
    })
    .unwrap_err();
    assert!(other.contains("not of Fedora Linux 41"), "{other}");
    assert!(other.contains("rdma_rxe"), "{other}");
}

#[test]
fn apt_removals_are_named() {
    // What apt-get install -s --no-install-recommends qemu-system-x86
    // prints on a Debian 12 machine with qemu-utils from backports.
    let text = "Reading package lists...\nRecommended packages:\n  gstreamer1.0-plugins-base ibverbs-providers\nThe following packages will be REMOVED:\n  qemu-utils\nThe following NEW packages will be installed:\n  ipxe-qemu libbrlapi0.8 qemu-system-x86 seabios\n0 upgraded, 27 newly installed, 1 to remove and 80 not upgraded.\n";
    assert_eq!(parse_removals(text), ["qemu-utils"]);
    assert!(parse_removals("0 upgraded, 1 newly installed").is_empty());
}

#[test]
fn depends_lines_give_first_alternatives() {
    let line = "Depends: libaio1 (>= 0.3.93), libc6 (>= 2.34), qemu-system-common (= 1:7.2), libjpeg62-turbo | libjpeg8, python3:any";
    assert_eq!(
        parse_depends(line),
        [
            "libaio1",
            "libc6",
            "qemu-system-common",
            "libjpeg62-turbo",
            "python3"
        ]
    );
}

/// What `dpkg -S '*/librdmacm.so.1'` and `dpkg-query -W -f '${Provides}'`
/// answer, recorded on Debian 12 and on Debian 13 (the t64 names).
fn recorded_provides(pkg: &str) -> String {
    match pkg {
        "librdmacm1t64" => "librdmacm1 (= 56.1-1)".into(),
        "libibverbs1t64" => "libibverbs1 (= 56.1-1)".into(),
        "libfoo1t64" => "libfoo1 (= 2.0-1)".into(),
        _ => String::new(),
    }
}

#[test]
fn runtime_libraries_are_known_by_name_or_by_what_they_provide() {
    let d12 = "librdmacm1:amd64: /usr/lib/x86_64-linux-gnu/librdmacm.so.1\n";
    let d13 = "librdmacm1t64:amd64: /usr/lib/x86_64-linux-gnu/librdmacm.so.1\n";
    let d13_verbs = "libibverbs1t64:amd64: /usr/lib/x86_64-linux-gnu/libibverbs.so.1\n";
    assert!(owned_by_runtime_package(d12, recorded_provides));
    assert!(owned_by_runtime_package(d13, recorded_provides));
    assert!(owned_by_runtime_package(d13_verbs, recorded_provides));
    // A library no runtime package has, under either naming.
    let other = "libfoo1t64:amd64: /usr/lib/x86_64-linux-gnu/libfoo.so.1\n";
    assert!(!owned_by_runtime_package(other, recorded_provides));
    let other12 = "libnl-3-200:amd64: /usr/lib/x86_64-linux-gnu/libnl-3.so.200\n";
    assert!(!owned_by_runtime_package(other12, recorded_provides));
    // Owned by two packages, one of which is not a runtime package.
    let two = "librdmacm1t64:amd64, libfoo1t64:amd64: /usr/lib/x86_64-linux-gnu/librdmacm.so.1\n";
    assert!(!owned_by_runtime_package(two, recorded_provides));
    assert!(!owned_by_runtime_package("", recorded_provides));
}

#[test]
fn a_fabric_installs_only_what_it_runs_and_never_starts_it() {
    assert_eq!(
        fabric_packages(true, false),
        [
            "perftest",
            "numactl",
            "munge",
            "slurmctld",
            "slurmd",
            "slurm-client"
        ]
    );
    assert_eq!(
        fabric_packages(false, true),
        ["perftest", "numactl", "openssh-server", "openssh-client"]
    );
    assert_eq!(fabric_packages(false, false), ["perftest", "numactl"]);
    let hint = fabric_install_hint(&["munge", "openssh-server"]);
    assert!(
        hint.contains("apt-get install --no-install-recommends --no-remove munge openssh-server"),
        "{hint}"
    );
    assert!(
        hint.contains(POLICY_RC_D) && !hint.contains("sudo"),
        "{hint}"
    );
    assert!(DENY_STARTS.starts_with("#!/bin/sh\n") && DENY_STARTS.ends_with("exit 101\n"));
}

#[test]
fn non_root_commands_install_without_recommends_or_removals() {
    let m = Missing {
        apt: vec!["rdma-core".into(), "busybox-static".into()],
        qemu_conflicts: None,
        venv: true,
    };
    let c = commands(&m);
    assert_eq!(c[0], "apt-get update");
    assert!(
        c[1].contains("install -y --no-install-recommends --no-remove rdma-core busybox-static"),
        "{}",
        c[1]
    );
    assert!(
        c[2].contains("-m venv") && c[2].ends_with("/bin/pip install virtme-ng==1.42"),
        "{}",
        c[2]
    );
    assert!(!c
        .iter()
        .any(|l| l.contains("sudo") || l.contains("--break-system-packages")));
}
