//! `cargo xtask setup`: installs the lab's tools when they are missing (as
//! root) or prints the commands to run (otherwise), and picks the kernel,
//! QEMU and virtme-ng the VMs boot with.
//!
//! It respects the machine: it reads `/etc/os-release` and uses that
//! distribution's package names (Debian 12 and 13, Ubuntu 22.04 and 24.04;
//! elsewhere it says what to install and stops), installs only what is
//! missing, with `--no-install-recommends --no-remove`, and never removes a
//! package or touches the system Python. When the distribution's QEMU
//! cannot be installed without removing a package (on machines with a newer
//! `qemu-utils` from backports), it says which, and unpacks the
//! distribution's own QEMU packages into a directory of the project's
//! instead. virtme-ng comes from the distribution where it is packaged, and
//! otherwise from PyPI into a virtual environment of the project's.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What every supported distribution installs under the same name.
/// busybox-static is there because vng builds an initramfs (Debian kernels
/// have 9p and virtio as modules) and refuses a dynamically linked busybox,
/// which it checks with `file` (a dependency of Debian's virtme-ng package,
/// but not of virtme-ng from PyPI: a fresh Debian 12 has no `file`); gcc
/// and libc6-dev build the bindings' C wrappers.
pub const COMMON_PACKAGES: &[&str] = &[
    "rdma-core",
    "ibverbs-providers",
    "libibverbs-dev",
    "librdmacm-dev",
    "libclang-dev",
    "pkg-config",
    "gcc",
    "libc6-dev",
    "rdmacm-utils",
    "ibverbs-utils",
    "iproute2",
    "kmod",
    "busybox-static",
    "file",
];

/// The distribution's QEMU for x86-64 guests.
pub const QEMU_PACKAGE: &str = "qemu-system-x86";

/// The packages a private QEMU is unpacked from (they conflict together).
pub const QEMU_PRIVATE_PACKAGES: &[&str] =
    &["qemu-system-x86", "qemu-system-common", "qemu-system-data"];

/// virtme-ng from PyPI, at the release the lab was tried with: a later
/// one may change what vng accepts.
pub const VIRTME_NG_PIP: &str = "virtme-ng==1.42";

/// `/etc/os-release`, the fields that choose package names.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OsRelease {
    /// `ID`, e.g. `debian`, `ubuntu`.
    pub id: String,
    /// `VERSION_ID`, e.g. `12`, `24.04`.
    pub version_id: String,
    /// `PRETTY_NAME`, for messages.
    pub pretty_name: String,
}

/// Reads the `KEY=value` lines of os-release (values may be quoted).
pub fn parse_os_release(text: &str) -> OsRelease {
    let mut os = OsRelease::default();
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let value = value
            .trim()
            .trim_matches('"')
            .trim_matches('\'')
            .to_string();
        match key.trim() {
            "ID" => os.id = value,
            "VERSION_ID" => os.version_id = value,
            "PRETTY_NAME" => os.pretty_name = value,
            _ => {}
        }
    }
    os
}

/// Where virtme-ng comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VngSource {
    /// The distribution's package of that name.
    Apt(&'static str),
    /// PyPI, into the project's virtual environment ([`venv_dir`]).
    Venv,
}

/// A distribution's names for what the lab needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The distribution, for messages.
    pub distro: String,
    /// Kernel package(s) to install when no kernel in /boot has rdma_rxe.
    pub kernel: &'static [&'static str],
    /// Where virtme-ng comes from.
    pub vng: VngSource,
    /// The package of a libclang >= 19 that CI also builds the bindings
    /// with, where the default libclang is older; `None` where the default
    /// is 19 or later, or the distribution has none.
    pub libclang_19: Option<&'static str>,
    /// The package of a Chromium that runs headless, for the handout's PDF
    /// and check: Debian's `chromium`; `None` on Ubuntu, whose `chromium`
    /// is a snap that neither CI machines nor containers run.
    pub chromium: Option<&'static str>,
}

/// The plan for `os`, or, on a distribution we do not know, what to install
/// by hand.
pub fn plan(os: &OsRelease) -> Result<Plan, String> {
    let distro = if os.pretty_name.is_empty() {
        format!("{} {}", os.id, os.version_id)
    } else {
        os.pretty_name.clone()
    };
    let (kernel, vng, libclang_19): (&'static [&'static str], _, _) =
        match (os.id.as_str(), os.version_id.as_str()) {
            ("debian", "12") => (&["linux-image-amd64"], VngSource::Venv, Some("libclang-19-dev")),
            ("debian", "13") => (&["linux-image-amd64"], VngSource::Apt("virtme-ng"), None),
            // Ubuntu ships rdma_rxe in linux-modules-extra, which the generic
            // kernel's meta package pulls in.
            ("ubuntu", "22.04") => (&["linux-image-generic"], VngSource::Venv, None),
            ("ubuntu", "24.04") => (
                &["linux-image-generic"],
                VngSource::Apt("virtme-ng"),
                Some("libclang-19-dev"),
            ),
            _ => {
                return Err(format!(
                    "setup knows the package names of Debian 12 and 13 and Ubuntu 22.04 and 24.04, not of {distro}.\n\
                     Install by hand: QEMU for x86-64 guests, rdma-core with the libibverbs and librdmacm \
                     headers and providers, rdmacm and ibverbs utilities, libclang, pkg-config, a C compiler, \
                     iproute2, kmod, a static busybox, a kernel image in /boot with the rdma_rxe module, and \
                     virtme-ng (python3 -m venv <dir> && <dir>/bin/pip install virtme-ng); then run the lab again."
                ))
            }
        };
    Ok(Plan {
        distro,
        kernel,
        vng,
        libclang_19,
        chromium: (os.id == "debian").then_some("chromium"),
    })
}

/// The kernel the VMs boot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// `uname -r` spelling, e.g. `6.1.0-56-amd64`.
    pub version: String,
    /// Its image, `/boot/vmlinuz-<version>`.
    pub image: PathBuf,
}

/// What the VMs are booted with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tools {
    /// The kernel.
    pub kernel: Kernel,
    /// The `vng` to run.
    pub vng: PathBuf,
    /// The QEMU binary to give vng, when it is not the system's.
    pub qemu: Option<PathBuf>,
}

fn quiet(cmd: &mut Command) -> Option<std::process::Output> {
    cmd.stdin(Stdio::null()).output().ok()
}

fn dpkg_installed(pkg: &str) -> bool {
    quiet(Command::new("dpkg-query").args(["-W", "-f=${Status}", pkg])).is_some_and(|o| {
        o.status.success() && String::from_utf8_lossy(&o.stdout).ends_with(" installed")
    })
}

/// `which`: the first executable `name` on PATH.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Whether we run as root (no libc: `id -u` says).
pub fn is_root() -> bool {
    quiet(Command::new("id").arg("-u"))
        .is_some_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// The project's directory under the user's cache directory
/// (`$XDG_CACHE_HOME/rdma-examples`, by default `~/.cache/rdma-examples`):
/// the virtual environment and a private QEMU live there.
pub fn cache_dir() -> PathBuf {
    cache_dir_from(
        std::env::var_os("XDG_CACHE_HOME"),
        std::env::var_os("HOME"),
        &crate::base::workspace::target_dir(),
    )
}

/// [`cache_dir`] from the values of `XDG_CACHE_HOME` and `HOME`; without
/// either, under the build's target dir (`target`). Never the shared
/// /tmp: root runs the QEMU and virtme-ng found there, and any local user
/// could have put their own at a fixed path in /tmp first. A relative
/// value is ignored, as the XDG spec says: it would depend on the
/// current directory.
fn cache_dir_from(
    xdg_cache_home: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
    target: &Path,
) -> PathBuf {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    xdg_cache_home
        .and_then(absolute)
        .or_else(|| home.and_then(absolute).map(|h| h.join(".cache")))
        .unwrap_or_else(|| target.join("cache"))
        .join("rdma-examples")
}

/// The project's virtual environment for virtme-ng from PyPI.
pub fn venv_dir() -> PathBuf {
    cache_dir().join("venv")
}

/// Where a private QEMU is unpacked.
pub fn private_qemu_dir() -> PathBuf {
    cache_dir().join("qemu")
}

fn private_qemu_binary() -> PathBuf {
    private_qemu_dir().join("root/usr/bin/qemu-system-x86_64")
}

/// Where `vng` is: on PATH (the distribution's package), or in the
/// project's virtual environment.
pub fn vng_path() -> Option<PathBuf> {
    which("vng").or_else(|| Some(venv_dir().join("bin/vng")).filter(|p| is_executable(p)))
}

/// The QEMU to give vng: none when the system has one, else the private one.
pub fn qemu_path() -> Option<Option<PathBuf>> {
    if which("qemu-system-x86_64").is_some() {
        return Some(None);
    }
    let private = private_qemu_binary();
    is_executable(&private).then_some(Some(private))
}

/// What a host needs to run the examples' binaries without the source
/// tree (the README's list): the libraries and the userspace drivers.
pub const RUNTIME_PACKAGES: &[&str] = &["libibverbs1", "librdmacm1", "ibverbs-providers"];

/// Whether a library an example binary names (`readelf -d`'s NEEDED) is
/// the C runtime's, which every host has, or is in [`RUNTIME_PACKAGES`]
/// (`dpkg -S` says which package has it; `dpkg-query` what that package
/// provides, since Debian 13 and Ubuntu 24.04 renamed the libraries for the
/// 64-bit `time_t` transition: `librdmacm1t64` provides `librdmacm1`).
pub fn runtime_library_ok(lib: &str) -> bool {
    const C_RUNTIME: &[&str] = &[
        "libc.so.6",
        "libm.so.6",
        "libgcc_s.so.1",
        "libpthread.so.0",
        "libdl.so.2",
        "librt.so.1",
        "ld-linux-x86-64.so.2",
    ];
    if C_RUNTIME.contains(&lib) {
        return true;
    }
    let Some(owners) = quiet(Command::new("dpkg").args(["-S", &format!("*/{lib}")]))
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    else {
        return false;
    };
    owned_by_runtime_package(&owners, |pkg| {
        quiet(Command::new("dpkg-query").args(["-W", "-f=${Provides}", pkg]))
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    })
}

/// Whether every package `dpkg -S` names in `owners` is one of
/// [`RUNTIME_PACKAGES`] by its name, or by what it provides (`provides`
/// answers as `dpkg-query -f '${Provides}'` does: `librdmacm1 (= 56.1-1)`).
pub fn owned_by_runtime_package(owners: &str, provides: impl Fn(&str) -> String) -> bool {
    let packages: Vec<&str> = owners
        .lines()
        .filter_map(|l| l.split(": ").next())
        .flat_map(|names| names.split(", "))
        .map(|p| p.split(':').next().unwrap_or("").trim())
        .filter(|p| !p.is_empty())
        .collect();
    !packages.is_empty()
        && packages.iter().all(|pkg| {
            RUNTIME_PACKAGES.contains(pkg)
                || parse_depends(&format!("Provides: {}", provides(pkg)))
                    .iter()
                    .any(|p| RUNTIME_PACKAGES.contains(&p.as_str()))
        })
}

/// The packages an `apt-get` run says it would remove (the indented lines
/// after "The following packages will be REMOVED:").
pub fn parse_removals(apt_output: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in apt_output.lines() {
        if line.starts_with("The following packages will be REMOVED") {
            inside = true;
            continue;
        }
        if inside {
            if !line.starts_with(' ') {
                break;
            }
            out.extend(
                line.split_whitespace()
                    .map(|p| p.trim_end_matches('*').to_string()),
            );
        }
    }
    out
}

/// The names in a `Depends:` line, first alternative of each, without
/// versions or architecture qualifiers.
pub fn parse_depends(line: &str) -> Vec<String> {
    let list = line.split_once(':').map_or(line, |(_, l)| l);
    list.split(',')
        .filter_map(|dep| {
            let first = dep.split('|').next()?.trim();
            let name = first.split([' ', '(']).next()?.trim();
            let name = name.split(':').next()?.to_string();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

fn apt_env(cmd: &mut Command) -> &mut Command {
    cmd.env("DEBIAN_FRONTEND", "noninteractive")
        .stdin(Stdio::null())
}

fn run_loud(program: &str, args: &[&str]) -> Result<std::process::Output, String> {
    eprintln!("setup: $ {program} {}", args.join(" "));
    let out = apt_env(&mut Command::new(program))
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    eprint!("{}", String::from_utf8_lossy(&out.stdout));
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    Ok(out)
}

fn run_checked(program: &str, args: &[&str]) -> Result<(), String> {
    let out = run_loud(program, args)?;
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

/// The install command line for `pkgs`.
fn apt_install_args(pkgs: &[String]) -> Vec<String> {
    let mut args: Vec<String> = [
        "-o",
        "DPkg::Lock::Timeout=300",
        "install",
        "-y",
        "--no-install-recommends",
        "--no-remove",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(pkgs.iter().cloned());
    args
}

/// Installs `pkgs` without recommends and without removing anything; when
/// apt would have to remove a package, names it and fails.
fn apt_install(pkgs: &[String]) -> Result<(), String> {
    if pkgs.is_empty() {
        return Ok(());
    }
    let args = apt_install_args(pkgs);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run_loud("apt-get", &args)?;
    if out.status.success() {
        return Ok(());
    }
    let removals = would_remove(pkgs);
    if removals.is_empty() {
        return Err(format!(
            "`apt-get {}` failed: {}",
            args.join(" "),
            out.status
        ));
    }
    Err(format!(
        "installing {} would remove {}, which setup never does: install what is missing by hand, or free the conflict",
        pkgs.join(" "),
        removals.join(" ")
    ))
}

/// What installing `pkgs` would remove, asked of apt without doing it.
fn would_remove(pkgs: &[String]) -> Vec<String> {
    let mut cmd = Command::new("apt-get");
    cmd.args(["install", "-s", "--no-install-recommends"])
        .args(pkgs);
    quiet(apt_env(&mut cmd))
        .map(|o| parse_removals(&String::from_utf8_lossy(&o.stdout)))
        .unwrap_or_default()
}

/// The runtime dependencies of the private QEMU's packages, less the
/// packages themselves.
fn private_qemu_deps() -> Vec<String> {
    let mut deps = Vec::new();
    for pkg in QEMU_PRIVATE_PACKAGES {
        let Some(out) = quiet(Command::new("apt-cache").args(["show", "--no-all-versions", pkg]))
        else {
            continue;
        };
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            if line.starts_with("Depends:") || line.starts_with("Pre-Depends:") {
                deps.extend(parse_depends(line));
            }
        }
    }
    deps.sort();
    deps.dedup();
    deps.retain(|d| !QEMU_PRIVATE_PACKAGES.contains(&d.as_str()));
    deps
}

/// Downloads the distribution's QEMU packages into [`private_qemu_dir`] and
/// unpacks them there: no package of the system changes.
fn unpack_private_qemu() -> Result<PathBuf, String> {
    let dir = private_qemu_dir();
    let debs = dir.join("debs");
    let root = dir.join("root");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&debs).map_err(|e| format!("{}: {e}", debs.display()))?;
    eprintln!(
        "setup: $ cd {} && apt-get download {}",
        debs.display(),
        QEMU_PRIVATE_PACKAGES.join(" ")
    );
    let out = apt_env(&mut Command::new("apt-get"))
        .current_dir(&debs)
        .arg("download")
        .args(QEMU_PRIVATE_PACKAGES)
        .output()
        .map_err(|e| format!("cannot run apt-get: {e}"))?;
    if !out.status.success() {
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
        return Err(format!(
            "apt-get download {} failed",
            QEMU_PRIVATE_PACKAGES.join(" ")
        ));
    }
    for deb in std::fs::read_dir(&debs)
        .map_err(|e| e.to_string())?
        .flatten()
    {
        let path = deb.path();
        run_checked(
            "dpkg-deb",
            &["-x", &path.to_string_lossy(), &root.to_string_lossy()],
        )?;
    }
    // QEMU looks for its firmware relative to its binary; the BIOS and the
    // NIC ROMs are the system's (seabios, ipxe-qemu, installed as its
    // dependencies).
    for (link, target) in [
        ("usr/share/seabios", "/usr/share/seabios"),
        ("usr/lib/ipxe", "/usr/lib/ipxe"),
    ] {
        let link = root.join(link);
        let _ = std::fs::create_dir_all(link.parent().expect("has a parent"));
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(target, &link)
            .map_err(|e| format!("{}: {e}", link.display()))?;
    }
    let bin = private_qemu_binary();
    let ok = quiet(Command::new(&bin).arg("--version")).is_some_and(|o| o.status.success());
    if !ok {
        return Err(format!(
            "the unpacked QEMU ({}) does not run",
            bin.display()
        ));
    }
    Ok(bin)
}

/// What is missing, decided without changing anything.
#[derive(Debug, Default)]
struct Missing {
    apt: Vec<String>,
    /// The packages that block the system QEMU, when a private one is needed.
    qemu_conflicts: Option<Vec<String>>,
    venv: bool,
}

fn missing(plan: &Plan) -> Missing {
    let mut m = Missing::default();
    let mut want: Vec<&str> = COMMON_PACKAGES.to_vec();
    if find_kernel().is_none() {
        want.extend(plan.kernel);
    }
    match plan.vng {
        VngSource::Apt(pkg) if vng_path().is_none() => want.push(pkg),
        VngSource::Venv if vng_path().is_none() => {
            m.venv = true;
            let has_venv = quiet(Command::new("python3").args(["-c", "import ensurepip, venv"]))
                .is_some_and(|o| o.status.success());
            if !has_venv {
                want.push("python3-venv");
            }
        }
        _ => {}
    }
    m.apt = want
        .into_iter()
        .filter(|p| !dpkg_installed(p))
        .map(str::to_string)
        .collect();
    if qemu_path().is_none() {
        let qemu = vec![QEMU_PACKAGE.to_string()];
        let blocked = would_remove(&qemu);
        if blocked.is_empty() {
            m.apt.push(QEMU_PACKAGE.to_string());
        } else {
            m.qemu_conflicts = Some(blocked);
        }
    }
    m
}

/// The commands that install what `m` lists, for a user who is not root.
fn commands(m: &Missing) -> Vec<String> {
    let mut c = Vec::new();
    let mut apt = m.apt.clone();
    if m.qemu_conflicts.is_some() {
        apt.extend(private_qemu_deps());
    }
    if !apt.is_empty() {
        c.push("apt-get update".to_string());
        c.push(format!(
            "DEBIAN_FRONTEND=noninteractive apt-get {}",
            apt_install_args(&apt).join(" ")
        ));
    }
    if m.qemu_conflicts.is_some() {
        let dir = private_qemu_dir();
        c.push(format!(
            "mkdir -p {d}/debs && cd {d}/debs && apt-get download {p} && for f in *.deb; do dpkg-deb -x \"$f\" {d}/root; done && ln -sfn /usr/share/seabios {d}/root/usr/share/seabios && ln -sfn /usr/lib/ipxe {d}/root/usr/lib/ipxe",
            d = dir.display(),
            p = QEMU_PRIVATE_PACKAGES.join(" ")
        ));
    }
    if m.venv {
        let v = venv_dir();
        c.push(format!(
            "python3 -m venv {v} && {v}/bin/pip install {VIRTME_NG_PIP}",
            v = v.display()
        ));
    }
    c
}

fn read_plan() -> Result<Plan, String> {
    let text = std::fs::read_to_string("/etc/os-release")
        .or_else(|_| std::fs::read_to_string("/usr/lib/os-release"))
        .map_err(|e| format!("cannot read /etc/os-release: {e}"))?;
    plan(&parse_os_release(&text))
}

/// Installs whatever is missing (quiet when nothing is) and returns what
/// the VMs boot with. Not root: prints the commands and fails, never sudo.
pub fn ensure() -> Result<Tools, String> {
    let plan = read_plan()?;
    let mut m = missing(&plan);
    if m.apt.is_empty() && m.qemu_conflicts.is_none() && !m.venv {
        return tools();
    }
    if is_root() {
        // Fresh package lists first: what apt would remove is only known
        // with them, and a fresh machine may have none.
        run_checked("apt-get", &["-o", "DPkg::Lock::Timeout=300", "update"])?;
        m = missing(&plan);
    }
    let mut what = m.apt.clone();
    if let Some(conflicts) = &m.qemu_conflicts {
        what.push(format!(
            "QEMU (private copy: the system's {QEMU_PACKAGE} would need {} removed)",
            conflicts.join(" ")
        ));
    }
    if m.venv {
        what.push(format!("virtme-ng (PyPI, into {})", venv_dir().display()));
    }
    eprintln!("setup ({}): missing: {}", plan.distro, what.join(", "));
    if !is_root() {
        eprintln!("setup: not root; run these as root, then retry:");
        for c in commands(&m) {
            eprintln!("  {c}");
        }
        return Err("setup: missing tools and not root".into());
    }
    apt_install(&m.apt)?;
    if let Some(conflicts) = &m.qemu_conflicts {
        eprintln!(
            "setup: {QEMU_PACKAGE} would need {} removed; setup removes nothing, so it unpacks the distribution's QEMU packages into {} instead",
            conflicts.join(" "),
            private_qemu_dir().display()
        );
        apt_install(&private_qemu_deps())?;
        unpack_private_qemu()?;
    }
    if m.venv {
        let v = venv_dir();
        let vs = v.to_string_lossy().into_owned();
        run_checked("python3", &["-m", "venv", &vs])?;
        run_checked(&format!("{vs}/bin/pip"), &["install", VIRTME_NG_PIP])?;
    }
    let t = tools()?;
    eprintln!(
        "setup: done; VMs boot {} ({}) with {}",
        t.kernel.version,
        t.kernel.image.display(),
        t.qemu
            .as_ref()
            .map_or("the system's QEMU".to_string(), |q| q.display().to_string())
    );
    Ok(t)
}

fn tools() -> Result<Tools, String> {
    Ok(Tools {
        kernel: find_kernel().ok_or("setup: no kernel in /boot has rdma_rxe")?,
        vng: vng_path()
            .ok_or("setup: no vng found (PATH, or the project's virtual environment)")?,
        qemu: qemu_path().ok_or("setup: no QEMU found (system or private)")?,
    })
}

/// The directory of the libclang that the distribution's `libclang-dev`
/// stands for (`/usr/lib/llvm-14/lib` on Debian 12): bindgen would take the
/// newest one installed, so a machine with libclang 19 beside the default
/// would never test the default.
pub fn default_libclang() -> Option<PathBuf> {
    let out = quiet(Command::new("dpkg-query").args(["-W", "-f=${Depends}", "libclang-dev"]))?;
    let deps = String::from_utf8_lossy(&out.stdout).into_owned();
    let version = parse_depends(&deps).into_iter().find_map(|d| {
        d.strip_prefix("libclang-")?
            .strip_suffix("-dev")
            .map(str::to_string)
    })?;
    Some(PathBuf::from(format!("/usr/lib/llvm-{version}/lib"))).filter(|p| p.is_dir())
}

/// One apt at a time in this process, held for a whole check and install:
/// the Soft-RoCE suite's batches and the two fabrics run side by side, and
/// two `apt-get update`s at once fail on apt's lock of its lists (exit
/// 100), which apt does not wait for as it waits for dpkg's.
fn one_apt() -> std::sync::MutexGuard<'static, ()> {
    static APT: std::sync::Mutex<()> = std::sync::Mutex::new(());
    APT.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Installs the distribution's `pkg` when it is missing, for `why` (tshark
/// for a capture, chromium for the handout's PDF): only when asked for,
/// without recommends. Not root: names the command and fails.
pub fn ensure_package(pkg: &str, why: &str) -> Result<(), String> {
    let _one = one_apt();
    if dpkg_installed(pkg) {
        return Ok(());
    }
    if !is_root() {
        return Err(format!(
            "{pkg} is missing ({why}); not root; run as root: apt-get install --no-install-recommends --no-remove {pkg}"
        ));
    }
    eprintln!("setup: {pkg} is missing ({why}); installing it");
    // A fresh machine may have no package lists yet: this can come before
    // the lab's own setup, which fetches them.
    run_checked("apt-get", &["-o", "DPkg::Lock::Timeout=300", "update"])?;
    apt_install(&[pkg.to_string()])
}

/// This distribution's package of a headless Chromium, if it has one
/// ([`Plan::chromium`]).
pub fn chromium_package() -> Option<&'static str> {
    read_plan().ok().and_then(|p| p.chromium)
}

/// What prints and checks the lab's HTML pages: a headless Chromium
/// (Debian's `chromium`, where none is on PATH and the distribution has
/// it) and, to `check` a print, poppler's `pdftotext`. Installed only when
/// asked for, without recommends; not root: the command, and an error.
pub fn ensure_print_tools(check: bool) -> Result<(), String> {
    if crate::base::browser::on_path().is_none() {
        if let Some(pkg) = chromium_package() {
            ensure_package(pkg, "to print or check the lab's pages")?;
        }
        crate::base::browser::find_chromium()?;
    }
    if check {
        ensure_package("poppler-utils", "to check the printed handout")?;
    }
    Ok(())
}

/// For CI's second build of the bindings: the directory of a libclang >= 19
/// (installing its package where the distribution has one and the default
/// libclang is older), or why there is none to use.
pub fn ensure_libclang_19() -> Result<Option<PathBuf>, String> {
    let plan = read_plan()?;
    let Some(pkg) = plan.libclang_19 else {
        return Ok(None);
    };
    if !dpkg_installed(pkg) {
        if !is_root() {
            return Err(format!(
                "not root; run as root: apt-get install --no-install-recommends --no-remove {pkg}"
            ));
        }
        apt_install(&[pkg.to_string()])?;
    }
    Ok(Some(PathBuf::from("/usr/lib/llvm-19/lib")))
}

mod fabric;
mod kernel;

pub use fabric::*;
pub use kernel::*;

#[cfg(test)]
mod tests;
