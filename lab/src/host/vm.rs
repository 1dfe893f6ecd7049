//! Booting the throwaway Soft-RoCE VMs with virtme-ng and waiting for them
//! with a host-side deadline.

use crate::host::setup::Tools;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Budget for one TCG boot and poweroff (15-35 s measured, slower on a busy
/// CI machine) while there is at most one guest per host core; see
/// [`boot_bound`].
pub const BOOT_SECS: u64 = 180;

/// Guests of this process started and not yet dropped.
static GUESTS: AtomicUsize = AtomicUsize::new(0);

/// The most a boot's bound grows: eight guests to a core.
const BOOT_SHARE_MAX: u64 = 8;

/// The bound on one emulated (TCG) boot while `guests` guests share this
/// host's cores: [`BOOT_SECS`] per guest a core must carry (a guest's boot
/// under TCG is one busy thread), at most [`BOOT_SHARE_MAX`] times that. A
/// Debian 13 kernel's eight fabric guests on 2 cores did not all start
/// within a flat 180 s; each boot is as slow as the guests beside it make
/// it. Under KVM a boot is [`BOOT_SECS`], however many run.
pub fn boot_bound(accel: &Accel, guests: usize) -> Duration {
    if *accel == Accel::Kvm {
        return Duration::from_secs(BOOT_SECS);
    }
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let share = u64::try_from(guests.div_ceil(cores)).unwrap_or(u64::MAX);
    Duration::from_secs(BOOT_SECS.saturating_mul(share.clamp(1, BOOT_SHARE_MAX)))
}

/// The guests of this process now running.
pub fn guests() -> usize {
    GUESTS.load(Ordering::SeqCst)
}

/// Memory of the lab's one or two VMs: room for the agent, the examples
/// and tshark's captures.
pub const VM_MEMORY: &str = "2G";

/// Drivers that udev's coldplug would load in a VM for QEMU's emulated
/// hardware and the host CPU's features (KVM, AHCI and the CD-ROM, the
/// watchdogs, the PC speaker, mouse and serio, SIMD crypto): none of them
/// serves the lab, and under TCG their loading is most of the boot (udev
/// settled in 57 s with them, 15 s without, on the same loaded 2 cores).
/// The kernel's command line keeps udev from loading them by alias; a
/// scenario may still load one by name.
pub const NOT_LOADED: &[&str] = &[
    "kvm_amd",
    "kvm_intel",
    "kvm",
    "irqbypass",
    "ccp",
    "crct10dif_pclmul",
    "crc32_pclmul",
    "crc32c_intel",
    "ghash_clmulni_intel",
    "sha512_ssse3",
    "sha256_ssse3",
    "sha1_ssse3",
    "aesni_intel",
    "crypto_simd",
    "cryptd",
    "sr_mod",
    "cdrom",
    "sg",
    "ahci",
    "libahci",
    "libata",
    "iTCO_wdt",
    "iTCO_vendor_support",
    "intel_pmc_bxt",
    "i6300esb",
    "watchdog",
    "evdev",
    "psmouse",
    "serio_raw",
    "pcspkr",
    "joydev",
    "button",
    "floppy",
    "i2c_i801",
    "lpc_ich",
    "bochs",
    "drm",
];

/// MACs of the two VMs' NICs on the QEMU socket wire.
pub const MAC_A: &str = "52:54:00:12:34:01";
/// See [`MAC_A`].
pub const MAC_B: &str = "52:54:00:12:34:02";

pub use crate::results::report::Accel;

/// KVM when /dev/kvm opens read-write and a KVM guest really runs here
/// (`probe`: what QEMU, with the CPU model vng gives it, makes of a
/// boot), unless `force_tcg`; TCG otherwise, with why. The CPU's flags
/// decide nothing: a nested guest may lack `vmx` in /proc/cpuinfo and
/// run KVM, and one with /dev/kvm may create a VM but not run it.
pub fn choose_accel(
    kvm_rw: bool,
    force_tcg: bool,
    probe: impl FnOnce() -> Result<(), String>,
) -> Accel {
    if force_tcg {
        Accel::Tcg("--tcg".into())
    } else if !kvm_rw {
        Accel::Tcg("/dev/kvm does not open read-write".into())
    } else {
        match probe() {
            Ok(()) => Accel::Kvm,
            Err(why) => Accel::Tcg(format!("a KVM guest did not run here: {why}")),
        }
    }
}

/// [`choose_accel`] on this machine, with `tools`' QEMU and kernel;
/// the probe's verdict is kept for this boot of the host.
pub fn detect_accel(force_tcg: bool, tools: &Tools) -> Accel {
    let kvm_rw = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/kvm")
        .is_ok();
    choose_accel(kvm_rw, force_tcg, || cached_probe(tools))
}

/// How long a KVM guest may take to boot into its kernel's panic (no root
/// file system): a second or two where KVM works.
const PROBE_SECS: u64 = 20;

/// The probe's verdict, from [`probe_kvm`] or from the file that keeps it
/// for this boot of the host, this QEMU and this kernel.
fn cached_probe(tools: &Tools) -> Result<(), String> {
    let qemu = tools
        .qemu
        .clone()
        .unwrap_or_else(|| PathBuf::from("qemu-system-x86_64"));
    let boot_id = fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
    let key = format!(
        "{}\n{}\n{}\n",
        boot_id.trim(),
        qemu.display(),
        tools.kernel.image.display()
    );
    let file = crate::host::setup::cache_dir().join("kvm-probe");
    if let Some(verdict) = fs::read_to_string(&file)
        .ok()
        .and_then(|t| t.strip_prefix(&key).map(str::to_string))
    {
        return match verdict.trim() {
            "ok" => Ok(()),
            why => Err(format!(
                "{why} (kept from an earlier probe: {})",
                file.display()
            )),
        };
    }
    let verdict = probe_kvm(&qemu, &tools.kernel.image);
    let text = match &verdict {
        Ok(()) => "ok".to_string(),
        Err(why) => why.replace('\n', " "),
    };
    if let Some(dir) = file.parent() {
        let _ = fs::create_dir_all(dir);
        let _ = fs::write(&file, format!("{key}{text}\n"));
    }
    verdict
}

/// Boots `kernel` under KVM with vng's CPU model (`-cpu host`) and no root
/// file system, so that it panics and QEMU ends (`-no-reboot`): a guest
/// that KVM really runs does so in a second or two. QEMU failing (a CPU
/// feature KVM refuses, say) or a guest still running after
/// [`PROBE_SECS`] means no KVM.
pub fn probe_kvm(qemu: &Path, kernel: &Path) -> Result<(), String> {
    use std::io::Read;
    let mut child = Command::new("timeout")
        .args(["-k", "5", &PROBE_SECS.to_string()])
        .arg(qemu)
        .args(["-accel", "kvm", "-cpu", "host", "-m", "256", "-smp", "1"])
        .args([
            "-nodefaults",
            "-no-user-config",
            "-display",
            "none",
            "-no-reboot",
        ])
        .arg("-kernel")
        .arg(kernel)
        .args(["-append", "panic=-1 console=ttyS0 quiet"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", qemu.display()))?;
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    let first = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    match status.code() {
        Some(0) => Ok(()),
        Some(124 | 137) => Err(format!("the guest was still booting after {PROBE_SECS} s")),
        _ => Err(format!("QEMU ended with {status}: {first}")),
    }
}

/// A VM to boot.
#[derive(Debug, Clone)]
pub struct VmSpec {
    /// Short name used in messages and the console log's file name.
    pub name: String,
    /// Shell command line run inside (vng --exec).
    pub exec: String,
    /// The writable host dir in the guest that is the VM's own.
    pub rwdir: PathBuf,
    /// A writable host dir that it shares with other VMs (a queue of
    /// scenarios), if any.
    pub shared: Option<PathBuf>,
    /// Extra QEMU options (the socket NIC in two-host mode).
    pub qemu_opts: Option<String>,
    /// Number of vCPUs.
    pub cpus: u32,
    /// NUMA nodes, each with one of the vCPUs and an equal share of the
    /// memory, when two or more (then `cpus` is as many); 0 or 1: none.
    pub numa_nodes: u32,
    /// Memory, as vng's `--memory` reads it ([`VM_MEMORY`] for the lab's
    /// one or two VMs).
    pub memory: String,
}

/// A running VM.
pub struct Vm {
    name: String,
    child: Child,
    started: Instant,
    /// KVM or TCG: what bounds its boot.
    accel: Accel,
    /// Where the console (vng's stdout and stderr) goes.
    pub console: PathBuf,
    /// The CPU its processes (vng, QEMU) used, in milliseconds, sampled.
    cpu: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

/// The vng command line for `spec`.
pub fn vng_args(tools: &Tools, accel: &Accel, spec: &VmSpec) -> Vec<String> {
    let mut v = vec![
        "-r".to_string(),
        tools.kernel.image.to_string_lossy().into_owned(),
        // virtiofsd does not start on the machines we run on; 9p does.
        "--force-9p".into(),
        "--cpus".into(),
        spec.cpus.to_string(),
        "--memory".into(),
        spec.memory.clone(),
        format!("--rwdir={}", spec.rwdir.display()),
    ];
    if let Some(dir) = &spec.shared {
        v.push(format!("--rwdir={}", dir.display()));
    }
    v.extend(numa_args(spec));
    if let Accel::Tcg(_) = accel {
        v.push("--disable-kvm".into());
    }
    v.push("--append".into());
    v.push(format!("modprobe.blacklist={}", NOT_LOADED.join(",")));
    // Marks the VM as the lab's own: only there is the scenarios' public
    // test key taken as a secret.
    v.push("--append".into());
    v.push(crate::guest::control::VM_MARK.into());
    if let Some(q) = &tools.qemu {
        v.push("--qemu".into());
        v.push(q.to_string_lossy().into_owned());
    }
    if let Some(q) = &spec.qemu_opts {
        v.push(format!("--qemu-opts={q}"));
    }
    v.push("--exec".into());
    v.push(spec.exec.clone());
    v
}

/// vng's `--numa` options of `spec`: node `k` with vCPU `k` and its share
/// of the memory (given in `M` or `G`); none under two nodes.
fn numa_args(spec: &VmSpec) -> Vec<String> {
    let n = spec.numa_nodes;
    let mib = |m: &str| -> Option<u64> {
        let (num, unit) = m.split_at(m.len().checked_sub(1)?);
        let num: u64 = num.parse().ok()?;
        match unit {
            "G" => num.checked_mul(1024),
            "M" => Some(num),
            _ => None,
        }
    };
    match mib(&spec.memory) {
        Some(total) if n >= 2 => (0..n)
            .flat_map(|k| {
                [
                    "--numa".to_string(),
                    format!("{}M,cpus={k}", total / u64::from(n)),
                ]
            })
            .collect(),
        _ => Vec::new(),
    }
}

impl Vm {
    /// Starts vng in its own process group, so that a hung VM can be killed
    /// with everything it spawned.
    pub fn boot(tools: &Tools, accel: &Accel, spec: &VmSpec, console: &Path) -> Result<Vm, String> {
        let log = File::create(console).map_err(|e| format!("{}: {e}", console.display()))?;
        Vm::boot_to(tools, accel, spec, console, log)
    }

    /// [`Vm::boot`] with its console going to `log`, already made (at
    /// `console`, which the VM's errors name).
    pub fn boot_to(
        tools: &Tools,
        accel: &Accel,
        spec: &VmSpec,
        console: &Path,
        log: File,
    ) -> Result<Vm, String> {
        use std::os::unix::process::CommandExt;
        let log2 = log.try_clone().map_err(|e| e.to_string())?;
        let mut path = std::env::var_os("PATH").unwrap_or_default();
        if let Some(dir) = tools.vng.parent() {
            // vng runs virtme-run from its own directory (a virtual
            // environment's bin is not on PATH).
            let mut p = dir.as_os_str().to_os_string();
            p.push(":");
            p.push(&path);
            path = p;
        }
        let child = Command::new(&tools.vng)
            .args(vng_args(tools, accel, spec))
            .env("PATH", path)
            // virtme-ng 1.35 (Debian 13's) checks --rwdir paths relative to
            // its working directory: "/" makes that check right.
            .current_dir("/")
            // No tty, no stdin: vng must not wait on a console.
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log2)
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start vng: {e}"))?;
        // The run's dir goes when the run passes, unless --keep: the
        // console is there to watch while it runs, and to read after a
        // failure.
        eprintln!(
            "lab: booting VM {} (console, kept if the run fails or with --keep: {})",
            spec.name,
            console.display()
        );
        GUESTS.fetch_add(1, Ordering::SeqCst);
        Ok(Vm {
            name: spec.name.clone(),
            cpu: crate::base::cpu::sample_group(child.id()),
            child,
            started: Instant::now(),
            accel: accel.clone(),
            console: console.to_path_buf(),
        })
    }

    /// Whether vng has exited.
    pub fn exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    fn kill(&mut self) {
        // Our own process group (see boot), so this reaches qemu too.
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &format!("-{}", self.child.id())])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Waits until the guest has started its program, which creates
    /// `marker`, and returns how long the boot took: a guest that hangs
    /// while booting (a kernel that cannot take its command line, say) is
    /// killed after [`boot_bound`] of the most guests that ran beside it
    /// meanwhile, instead of at the end of the whole run's budget.
    pub fn wait_for_boot(&mut self, marker: &Path) -> Result<Duration, String> {
        let mut most = guests();
        while !marker.exists() {
            if self.exited() {
                // Its exit status and console are reported by wait().
                return Ok(self.started.elapsed());
            }
            most = most.max(guests());
            let bound = boot_bound(&self.accel, most);
            if self.started.elapsed() >= bound {
                self.kill();
                return Err(format!(
                    "VM {} killed: its program had not started after {} s, the bound with {most} guests on this host's cores (no {}); console: {}\n{}",
                    self.name,
                    bound.as_secs(),
                    marker.display(),
                    self.console.display(),
                    tail(&self.console, 20)
                ));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        Ok(self.started.elapsed())
    }

    /// Waits until `deadline`, killing the VM if it is still running then.
    /// Returns the elapsed time, or why it failed.
    pub fn wait(mut self, deadline: Instant) -> Result<Duration, String> {
        loop {
            match self.child.try_wait() {
                Ok(Some(st)) => {
                    let t = self.started.elapsed();
                    eprintln!(
                        "lab: VM {} exited after {:.1} s",
                        self.name,
                        t.as_secs_f64()
                    );
                    return if st.success() {
                        Ok(t)
                    } else {
                        Err(format!(
                            "VM {}: vng failed ({st}); console: {}\n{}",
                            self.name,
                            self.console.display(),
                            tail(&self.console, 20)
                        ))
                    };
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(200))
                }
                _ => {
                    self.kill();
                    return Err(format!(
                        "VM {} killed: still running after {:.0} s; console: {}\n{}",
                        self.name,
                        self.started.elapsed().as_secs_f64(),
                        self.console.display(),
                        tail(&self.console, 20)
                    ));
                }
            }
        }
    }
}

impl Drop for Vm {
    fn drop(&mut self) {
        if !self.exited() {
            self.kill();
        }
        GUESTS.fetch_sub(1, Ordering::SeqCst);
        crate::base::cpu::add_ended(self.cpu.load(Ordering::Relaxed) as f64 / 1000.0);
    }
}

/// Last `n` lines of a file, for error messages.
pub fn tail(path: &Path, n: usize) -> String {
    // The console holds whatever the guest printed, bytes and escapes.
    let text = fs::read(path).unwrap_or_default();
    let text = crate::base::text::escape_controls(&String::from_utf8_lossy(&text));
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// A localhost port nobody listens on right now, for the QEMU socket wire.
pub fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free port: {e}"))
}

/// Waits until the host has a TCP listener on `port`, read from
/// /proc/net/tcp: connecting to probe it would take QEMU's only connection.
pub fn wait_host_listen(port: u16, vm: &mut Vm, secs: u64) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let listening = ["/proc/net/tcp", "/proc/net/tcp6"].iter().any(|p| {
            fs::read_to_string(p).is_ok_and(|t| crate::base::netstat::tcp_listening(&t, port))
        });
        if listening {
            return Ok(());
        }
        if vm.exited() || Instant::now() > deadline {
            return Err(format!(
                "VM A's QEMU never listened on 127.0.0.1:{port}; console:\n{}",
                tail(&vm.console, 20)
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[cfg(test)]
mod tests;
