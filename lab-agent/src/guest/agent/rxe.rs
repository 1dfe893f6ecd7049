//! The VM's own set-up: rxe0 on its netdev, the GID of its address, the
//! QP numbers the client VM uses up, and where the boot went.

use super::*;

fn run_cmd_logged(log_file: &mut File, program: &str, args: &[&str]) -> bool {
    let _ = writeln!(log_file, "$ {program} {}", args.join(" "));
    match Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
    {
        Ok(o) => {
            let _ = log_file.write_all(&o.stdout);
            let _ = log_file.write_all(&o.stderr);
            let _ = writeln!(log_file, "-> {}", o.status);
            o.status.success()
        }
        Err(e) => {
            let _ = writeln!(log_file, "-> cannot run: {e}");
            false
        }
    }
}

fn find_netdev_by_mac(mac: &str) -> Option<String> {
    let mac = mac.to_ascii_lowercase();
    fs::read_dir("/sys/class/net")
        .ok()?
        .flatten()
        .find_map(|e| {
            let addr = fs::read_to_string(e.path().join("address")).ok()?;
            (addr.trim() == mac).then(|| e.file_name().to_string_lossy().into_owned())
        })
}

fn poll<T>(secs: u64, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Index of `gid` in the port's GID table.
fn gid_index(dev: &str, port: u32, gid: &str) -> Option<u32> {
    let dir = format!("/sys/class/infiniband/{dev}/ports/{port}/gids");
    (0..256).find(|i| fs::read_to_string(format!("{dir}/{i}")).is_ok_and(|g| g.trim() == gid))
}

/// Creates rxe0 on the requested netdev and finds the GID index of our IPv4
/// address (1 on a fresh rxe, but derived rather than assumed).
pub(super) fn setup_rxe(cfg: &mut AgentConfig, log: &mut Log) -> Result<(), String> {
    let name = format!("setup.{}.log", cfg.role.as_str());
    let path = out(cfg).join(&name);
    let mut f = out(cfg)
        .create(&name)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let run = |f: &mut File, line: &str| {
        let v: Vec<&str> = line.split_whitespace().collect();
        run_cmd_logged(f, v[0], &v[1..])
    };
    run(&mut f, "modprobe rdma_rxe");
    run(&mut f, "modprobe rdma_ucm");
    run(&mut f, "ip link set lo up");
    let netdev = match &cfg.net {
        Net::None => return Ok(()),
        Net::Dummy => {
            run(&mut f, "ip link add d0 type dummy");
            // A dummy netdev does no ARP by default, so every address on its
            // subnet would "resolve"; with ARP on, a missing host fails
            // address resolution as it does on a real network.
            run(&mut f, "ip link set d0 arp on");
            "d0".to_string()
        }
        Net::Mac(mac) => match poll(2, || find_netdev_by_mac(mac)) {
            Some(n) => n,
            None => {
                // Debian kernels build virtio_net as a module that nothing
                // else may have loaded yet.
                run(&mut f, "modprobe virtio_net");
                poll(15, || find_netdev_by_mac(mac))
                    .ok_or_else(|| format!("no netdev with MAC {mac}"))?
            }
        },
    };
    rxe_provider_only(&mut f);
    run(&mut f, &format!("ip addr add {}/24 dev {netdev}", cfg.ip));
    run(&mut f, &format!("ip link set {netdev} up"));
    // rdma_resolve_addr of a multicast address without a bind address needs
    // a route to it (a default route on a real host); the VMs have none.
    run(&mut f, &format!("ip route add 224.0.0.0/4 dev {netdev}"));
    run(
        &mut f,
        &format!("rdma link add {} type rxe netdev {netdev}", cfg.params.dev),
    );
    let gid = ipv4_mapped_gid(&cfg.ip).ok_or_else(|| format!("bad ip {}", cfg.ip))?;
    let (dev, port) = (cfg.params.dev.clone(), cfg.params.ib_port);
    let state = format!("/sys/class/infiniband/{dev}/ports/{port}/state");
    let active = poll(15, || {
        fs::read_to_string(&state)
            .ok()
            .filter(|s| s.contains("ACTIVE"))
    });
    let idx = poll(15, || gid_index(&dev, port, &gid));
    run(&mut f, "rdma link show");
    run(&mut f, "ip addr show");
    let _ = writeln!(f, "port state: {active:?}; gid {gid} at index {idx:?}");
    if active.is_none() {
        return Err(format!(
            "{dev} port {port} did not become ACTIVE; see {}",
            path.display()
        ));
    }
    let idx = idx.ok_or_else(|| format!("no GID {gid} on {dev}; see {}", path.display()))?;
    cfg.params.gid_idx = idx;
    log.say(&format!(
        "{dev} is up on {netdev}, {} has GID index {idx}",
        cfg.ip
    ));
    if cfg.role == Role::Client && matches!(cfg.net, Net::Mac(_)) {
        offset_qp_numbers(cfg, &mut f);
    }
    Ok(())
}

/// The directory of libibverbs' provider list that this VM's programs
/// read in place of `/etc/libibverbs.d`.
const RXE_ONLY: &str = "/run/rdma-lab/libibverbs.d";

/// Has libibverbs in this VM load rxe's provider alone: it loads every
/// provider its list names (Debian's has 17, mlx5's and efa's among them)
/// in each program that opens a device, a fifth of a second of each start
/// under TCG, and the VM has no device but rxe. A mount over the list in
/// this throwaway VM only (never on a real host: [`Net::None`] returns
/// earlier); if it fails, every provider loads as before.
fn rxe_provider_only(f: &mut File) {
    let list = "/etc/libibverbs.d";
    let made = fs::create_dir_all(RXE_ONLY).and_then(|()| {
        fs::copy(
            format!("{list}/rxe.driver"),
            format!("{RXE_ONLY}/rxe.driver"),
        )
    });
    match made {
        Ok(_) => {
            run_cmd_logged(f, "mount", &["--bind", RXE_ONLY, list]);
        }
        Err(e) => {
            let _ = writeln!(f, "rxe's provider alone: {e}");
        }
    }
}

/// How many QP numbers the client VM uses up before the run.
pub const QP_OFFSET: usize = 3;

/// Uses up [`QP_OFFSET`] QP numbers on the client VM, so that its QPs
/// are not numbered as the server VM's: two fresh VMs running the same
/// steps would give both hosts' QPs the same numbers, and a capture could
/// not answer "to which QP does the server send?". Each run of
/// ibv_sockets_pingpong's client creates its QP before it connects to
/// its server, finds none on this host's loopback, and exits; the
/// programs of the run are untouched.
fn offset_qp_numbers(cfg: &AgentConfig, f: &mut File) {
    let program = program_path(cfg, "ibv_sockets_pingpong");
    let program = program.to_string_lossy();
    let gid = cfg.params.gid_idx.to_string();
    let dev = cfg.params.dev.as_str();
    let args = ["10", &program, "-d", dev, "-g", &gid, "127.0.0.1"];
    for _ in 0..QP_OFFSET {
        run_cmd_logged(f, "timeout", &args);
    }
}

pub(super) fn save_dmesg(cfg: &AgentConfig) {
    if let Ok(o) = Command::new("dmesg").stdin(Stdio::null()).output() {
        let text = String::from_utf8_lossy(&o.stdout);
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(200)..].join("\n");
        let _ = out(cfg).write(&format!("dmesg.{}.txt", cfg.role.as_str()), tail + "\n");
    }
}

/// Where the guest's boot went before this agent started: the kernel's
/// log says when it ran init and, in virtme-ng-init's lines, how long
/// systemd-tmpfiles and udev's coldplug took; /proc/uptime how long ago
/// the kernel started.
pub(super) fn guest_boot() -> Option<BootPhases> {
    let uptime: f64 = fs::read_to_string("/proc/uptime")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    let out = Command::new("dmesg").stdin(Stdio::null()).output().ok()?;
    let log = String::from_utf8_lossy(&out.stdout);
    let at = |what: &str| -> Option<f64> {
        let line = log.lines().find(|l| l.contains(what))?;
        line.strip_prefix('[')?
            .split(']')
            .next()?
            .trim()
            .parse()
            .ok()
    };
    let span = |from: &str, to: &str| Some(at(to)? - at(from)?);
    Some(BootPhases {
        kernel_secs: at(" as init process")?,
        tmpfiles_secs: span("running systemd-tmpfiles", "basic initialization done")
            .unwrap_or_default(),
        udev_secs: span("triggering udev coldplug", "udev is done").unwrap_or_default(),
        agent_secs: uptime,
        ..BootPhases::default()
    })
}

/// The boot's phases, the doctor's time added, in [`boot_file`].
pub(super) fn record_boot(
    cfg: &AgentConfig,
    phases: Option<BootPhases>,
    doctor: Instant,
    log: &mut Log,
) {
    let Some(mut p) = phases else {
        return;
    };
    p.doctor_secs = doctor.elapsed().as_secs_f64();
    log.say(&format!("boot: {p}"));
    let _ = out(cfg).write(&boot_file(cfg.role.as_str()), record_line(&p));
}
