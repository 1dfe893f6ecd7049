//! `cargo xtask setup`: installs the lab's tools when they are missing (as
//! root) or prints the commands to run (otherwise), and picks the kernel the
//! VMs boot.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Debian packages the lab needs on the host. busybox-static is there
/// because vng builds an initramfs (Debian kernels have 9p and virtio as
/// modules) and refuses a dynamically linked busybox.
pub const APT_PACKAGES: &[&str] = &[
    "qemu-system-x86",
    "rdma-core",
    "ibverbs-providers",
    "libibverbs-dev",
    "librdmacm-dev",
    "libclang-dev",
    "pkg-config",
    "rdmacm-utils",
    "ibverbs-utils",
    "iproute2",
    "kmod",
    "busybox-static",
];

/// Kernel package installed when no kernel in /boot has rdma_rxe.
pub const KERNEL_PACKAGE: &str = "linux-image-amd64";

/// The kernel the VMs boot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// `uname -r` spelling, e.g. `6.1.0-56-amd64`.
    pub version: String,
    /// Its image, `/boot/vmlinuz-<version>`.
    pub image: PathBuf,
}

fn quiet(cmd: &mut Command) -> Option<std::process::Output> {
    cmd.stdin(Stdio::null()).output().ok()
}

fn dpkg_installed(pkg: &str) -> bool {
    quiet(Command::new("dpkg").args(["-s", pkg])).is_some_and(|o| {
        o.status.success()
            && String::from_utf8_lossy(&o.stdout)
                .lines()
                .any(|l| l.starts_with("Status:") && l.ends_with(" installed"))
    })
}

/// `which`: the first executable `name` on PATH.
pub fn which(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| {
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Whether we run as root (no libc: `id -u` says).
pub fn is_root() -> bool {
    quiet(Command::new("id").arg("-u"))
        .is_some_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Where `vng` is: on PATH, or in the scripts directory of the `python3`
/// that pip installed it with (pyenv and `--user` installs put it where PATH
/// may not look until a shell rehashes).
pub fn vng_path() -> Option<PathBuf> {
    which("vng").or_else(|| {
        let scripts = quiet(Command::new("python3").args([
            "-c",
            "import sysconfig; print(sysconfig.get_path('scripts'))",
        ]))?;
        let dir = String::from_utf8_lossy(&scripts.stdout).trim().to_string();
        let user = quiet(Command::new("python3").args(["-m", "site", "--user-base"]))
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default();
        [
            Path::new(&dir).join("vng"),
            Path::new(&user).join("bin/vng"),
        ]
        .into_iter()
        .find(|p| p.is_file())
    })
}

fn pip_works() -> bool {
    quiet(Command::new("python3").args(["-m", "pip", "--version"]))
        .is_some_and(|o| o.status.success())
}

/// Orders kernel versions the way humans do (`6.10` after `6.9`).
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    fn chunks(s: &str) -> Vec<(bool, &str)> {
        let mut v = Vec::new();
        let mut start = 0;
        let b = s.as_bytes();
        for i in 1..=b.len() {
            if i == b.len() || b[i].is_ascii_digit() != b[start].is_ascii_digit() {
                v.push((b[start].is_ascii_digit(), &s[start..i]));
                start = i;
            }
        }
        v
    }
    let (ca, cb) = (chunks(a), chunks(b));
    for (x, y) in ca.iter().zip(cb.iter()) {
        let o = match (x, y) {
            ((true, x), (true, y)) => x
                .parse::<u64>()
                .unwrap_or(0)
                .cmp(&y.parse::<u64>().unwrap_or(0)),
            ((_, x), (_, y)) => x.cmp(y),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    ca.len().cmp(&cb.len())
}

/// The running kernel if `usable`, else the newest usable `*-amd64` among
/// the versions that have an image in /boot.
pub fn pick_kernel(
    running: &str,
    boot_versions: &[String],
    usable: impl Fn(&str) -> bool,
) -> Option<String> {
    if usable(running) {
        return Some(running.to_string());
    }
    let mut v: Vec<&String> = boot_versions
        .iter()
        .filter(|v| v.ends_with("-amd64"))
        .collect();
    v.sort_by(|a, b| compare_versions(b, a));
    v.into_iter().find(|v| usable(v)).cloned()
}

fn has_rxe(version: &str) -> bool {
    let dir = Path::new("/lib/modules").join(version);
    if !dir.is_dir() {
        return false;
    }
    let rxe = dir.join("kernel/drivers/infiniband/sw/rxe");
    let file = std::fs::read_dir(rxe).is_ok_and(|mut d| {
        d.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("rdma_rxe.ko")))
    });
    file || quiet(Command::new("modinfo").args(["-k", version, "rdma_rxe"]))
        .is_some_and(|o| o.status.success())
}

fn usable_kernel(version: &str) -> bool {
    Path::new("/boot")
        .join(format!("vmlinuz-{version}"))
        .is_file()
        && has_rxe(version)
}

fn boot_versions() -> Vec<String> {
    std::fs::read_dir("/boot")
        .map(|d| {
            d.flatten()
                .filter_map(|e| {
                    e.file_name()
                        .to_str()
                        .and_then(|n| n.strip_prefix("vmlinuz-"))
                        .map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The kernel the VMs should boot, if one is usable now.
pub fn find_kernel() -> Option<Kernel> {
    let running = quiet(Command::new("uname").arg("-r"))
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    pick_kernel(&running, &boot_versions(), usable_kernel).map(|version| Kernel {
        image: Path::new("/boot").join(format!("vmlinuz-{version}")),
        version,
    })
}

fn run_loud(program: &str, args: &[&str]) -> Result<std::process::Output, String> {
    eprintln!("setup: $ {program} {}", args.join(" "));
    let out = Command::new(program)
        .args(args)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    if !out.stdout.is_empty() {
        eprint!("{}", String::from_utf8_lossy(&out.stdout));
    }
    Ok(out)
}

fn run_checked(program: &str, args: &[&str]) -> Result<(), String> {
    let out = run_loud(program, args)?;
    let err = String::from_utf8_lossy(&out.stderr);
    eprint!("{err}");
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`{program} {}` failed: {}",
            args.join(" "),
            out.status
        ))
    }
}

fn pip_install() -> Result<(), String> {
    let args = ["-m", "pip", "install", "virtme-ng"];
    let out = run_loud("python3", &args)?;
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        return Ok(());
    }
    if err.contains("externally-managed-environment") {
        return run_checked(
            "python3",
            &[
                "-m",
                "pip",
                "install",
                "--break-system-packages",
                "virtme-ng",
            ],
        );
    }
    eprint!("{err}");
    Err(format!("pip install virtme-ng failed: {}", out.status))
}

/// What is missing, as (apt packages, whether pip must install virtme-ng).
fn missing(need_kernel: bool) -> (Vec<&'static str>, bool) {
    let mut apt: Vec<&str> = APT_PACKAGES
        .iter()
        .copied()
        .filter(|p| !dpkg_installed(p))
        .collect();
    let need_vng = vng_path().is_none();
    if need_vng && !pip_works() && !dpkg_installed("python3-pip") {
        apt.push("python3-pip");
    }
    if need_kernel && find_kernel().is_none() {
        apt.push(KERNEL_PACKAGE);
    }
    (apt, need_vng)
}

/// Installs whatever is missing (quiet when nothing is) and returns the
/// kernel to boot. Not root: prints the commands and fails, never sudo.
pub fn ensure() -> Result<Kernel, String> {
    let (apt, need_vng) = missing(true);
    if apt.is_empty() && !need_vng {
        return find_kernel().ok_or_else(|| "no usable kernel".to_string());
    }
    let mut what: Vec<String> = apt.iter().map(|s| s.to_string()).collect();
    if need_vng {
        what.push("virtme-ng (pip)".into());
    }
    eprintln!("setup: missing: {}", what.join(", "));
    if !is_root() {
        eprintln!("setup: not root; run these as root, then retry:");
        if !apt.is_empty() {
            eprintln!("  apt-get update");
            eprintln!(
                "  DEBIAN_FRONTEND=noninteractive apt-get install -y {}",
                apt.join(" ")
            );
        }
        if need_vng {
            eprintln!("  python3 -m pip install virtme-ng   # add --break-system-packages if pip refuses with externally-managed-environment");
        }
        return Err("setup: missing tools and not root".into());
    }
    if !apt.is_empty() {
        run_checked("apt-get", &["update"])?;
        let mut args = vec!["install", "-y"];
        args.extend(apt.iter().copied());
        run_checked("apt-get", &args)?;
    }
    if need_vng {
        pip_install()?;
        if vng_path().is_none() {
            return Err("setup: pip installed virtme-ng but no `vng` can be found".into());
        }
    }
    let kernel = find_kernel().ok_or("setup: no kernel in /boot has rdma_rxe")?;
    eprintln!(
        "setup: done; VMs boot {} ({})",
        kernel.version,
        kernel.image.display()
    );
    Ok(kernel)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn kernel_choice() {
        let boot: Vec<String> = [
            "6.1.0-9-amd64",
            "6.1.0-56-amd64",
            "6.12.0-1-amd64",
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
        // Otherwise the newest usable -amd64 one.
        assert_eq!(
            pick_kernel("6.18.44-fc", &boot, |v| v != "6.18.44-fc").as_deref(),
            Some("6.12.0-1-amd64")
        );
        assert_eq!(
            pick_kernel("x", &boot, |v| v.starts_with("6.1.")).as_deref(),
            Some("6.1.0-56-amd64")
        );
        assert_eq!(pick_kernel("x", &boot, |_| false), None);
    }
}
