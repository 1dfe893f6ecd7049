//! The kernel the VMs boot: this host's newest Debian kernel that has
//! Soft-RoCE (`rdma_rxe`), its version read from the image itself.

use super::*;

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

/// The running kernel if `usable`, else the newest usable one among the
/// versions that have an image in /boot (Debian's `-amd64`, Ubuntu's
/// `-generic`).
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
        .filter(|v| v.ends_with("-amd64") || v.ends_with("-generic"))
        .collect();
    v.sort_by(|a, b| compare_versions(b, a));
    v.into_iter().find(|v| usable(v)).cloned()
}

pub(super) fn has_rxe(version: &str) -> bool {
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

pub(super) fn usable_kernel(version: &str) -> bool {
    Path::new("/boot")
        .join(format!("vmlinuz-{version}"))
        .is_file()
        && has_rxe(version)
}

pub(super) fn boot_versions() -> Vec<String> {
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

/// The version string an x86 kernel image (bzImage) carries in its boot
/// header: the 16-bit pointer at 0x20e, plus 0x200, points at text like
/// `6.1.0-56-amd64 (debian-kernel@lists.debian.org) #1 SMP ...`.
pub fn image_version(image: &[u8]) -> Option<String> {
    // "HdrS", the boot protocol's magic, at 0x202.
    if image.get(0x202..0x206)? != b"HdrS" {
        return None;
    }
    let at = usize::from(u16::from_le_bytes([*image.get(0x20e)?, *image.get(0x20f)?])) + 0x200;
    let text = image.get(at..)?;
    let end = text.iter().position(|&b| b == 0 || b == b' ')?;
    let v = std::str::from_utf8(&text[..end]).ok()?;
    (!v.is_empty()).then(|| v.to_string())
}

/// The kernel of `--kernel IMAGE`: its version read from the image, and
/// its modules, with rdma_rxe, in `/lib/modules/<version>`, which the VMs
/// load from as from the default kernel's.
pub fn kernel_from_image(image: &Path) -> Result<Kernel, String> {
    let bytes = std::fs::read(image).map_err(|e| format!("--kernel {}: {e}", image.display()))?;
    let version = image_version(&bytes).ok_or_else(|| {
        format!(
            "--kernel {}: not an x86 kernel image (no version in its boot header)",
            image.display()
        )
    })?;
    if !has_rxe(&version) {
        return Err(format!(
            "--kernel {}: kernel {version} has no rdma_rxe module in /lib/modules/{version}: \
             install that kernel's modules (its linux-image package) too",
            image.display()
        ));
    }
    let image = image
        .canonicalize()
        .map_err(|e| format!("--kernel {}: {e}", image.display()))?;
    Ok(Kernel { version, image })
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
