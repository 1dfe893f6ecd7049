//! The lab's VMs for a run: one VM, or one per lane side by side, for a
//! single host; two joined by a QEMU socket netdev for two hosts; what
//! their boot left for the report.

use super::*;

/// Boot, one host: both sides in VM A, or in each lane's VM side by side
/// (A, A2, ...), each taking the next scenario from their queue; the
/// lanes' result dirs and the slowest boot.
pub(super) fn boot_one_vm(
    ctx: &RunCtx,
    tools: &host::setup::Tools,
    accel: &host::vm::Accel,
    notes: &mut Vec<String>,
) -> Result<(Vec<Dir>, Duration), String> {
    let queue = ctx.queue()?;
    let lanes = ctx.lane_dirs()?;
    let mut vms = Vec::new();
    for out in &lanes {
        let mut cfg = ctx.agent(Role::Both, SERVER_IP, Net::Dummy, out, Params::default());
        cfg.queue.clone_from(&queue);
        let lane = out.path().file_name().unwrap_or_default().to_string_lossy();
        let spec = VmSpec {
            name: lane.to_uppercase(),
            exec: ctx.exec(&cfg, out)?,
            rwdir: out.path().to_path_buf(),
            shared: queue.clone(),
            qemu_opts: None,
            cpus: 2,
            numa_nodes: 0,
            memory: host::vm::VM_MEMORY.into(),
        };
        vms.push(ctx.boot(tools, accel, &spec, &format!("vm-{lane}.console"))?);
    }
    let mut boot = Duration::ZERO;
    let mut booted = Vec::new();
    for (mut vm, out) in vms.into_iter().zip(&lanes) {
        match vm.wait_for_boot(&out.join(crate::guest::agent::LOG_FILE)) {
            Ok(t) => {
                boot = boot.max(t);
                booted.push(vm);
            }
            Err(e) => notes.push(e),
        }
    }
    for vm in booted {
        // A boot slowed by the guests beside it takes nothing from the
        // scenarios' budget.
        if let Err(e) = vm.wait(ctx.started + boot + ctx.budget) {
            notes.push(e);
        }
    }
    for out in &lanes {
        agent_note(out, "both", notes);
    }
    Ok((lanes, boot))
}

/// Boot, two VMs on a QEMU socket wire: A serves, B is the client and
/// holds the report; B's result dir and the slower boot time.
pub(super) fn boot_two_vms(
    ctx: &RunCtx,
    tools: &host::setup::Tools,
    accel: &host::vm::Accel,
    notes: &mut Vec<String>,
) -> Result<(Dir, Duration), String> {
    let (a, b) = (ctx.sub("a")?, ctx.sub("b")?);
    let port = host::vm::free_port()?;
    let (spec_a, spec_b) = two_vm_specs(ctx, &a, &b, port)?;
    let mut vm_a = ctx.boot(tools, accel, &spec_a, "vm-a.console")?;
    // QEMU's connect side fails at once if the listen side is not up.
    host::vm::wait_host_listen(port, &mut vm_a, 60)?;
    let mut vm_b = ctx.boot(tools, accel, &spec_b, "vm-b.console")?;
    let booted = vm_a
        .wait_for_boot(&a.join(crate::guest::agent::LOG_FILE))
        .and_then(|ta| Ok(ta.max(vm_b.wait_for_boot(&b.join(crate::guest::agent::LOG_FILE))?)));
    let mut boot = Duration::ZERO;
    match booted {
        // Dropping the VMs kills whichever still runs.
        Err(e) => notes.push(e),
        Ok(t) => {
            boot = t;
            let deadline =
                ctx.started + boot + ctx.budget + Duration::from_secs(host::vm::BOOT_SECS);
            for r in [vm_a.wait(deadline), vm_b.wait(deadline)] {
                if let Err(e) = r {
                    notes.push(e);
                }
            }
        }
    }
    agent_note(&a, "server", notes);
    agent_note(&b, "client", notes);
    Ok((b, boot))
}

/// The two VMs' specs, their agents' files written: A serves from
/// `a`, B runs the client sides from `b`, joined on 127.0.0.1:`port`.
pub(super) fn two_vm_specs(
    ctx: &RunCtx,
    a: &Dir,
    b: &Dir,
    port: u16,
) -> Result<(VmSpec, VmSpec), String> {
    let dump = wire_dump(ctx.opts, &ctx.dir);
    // The two VMs are two hosts: A serves, B runs the client sides
    // from a copy of the binaries, as a host without the source
    // tree would, and holds the report.
    let params = Params {
        client_ip: CLIENT_IP.into(),
        ..Params::default()
    };
    let mut cfg_a = ctx.agent(
        Role::Server,
        SERVER_IP,
        Net::Mac(host::vm::MAC_A.into()),
        a,
        params.clone(),
    );
    let mut cfg_b = ctx.agent(
        Role::Client,
        CLIENT_IP,
        Net::Mac(host::vm::MAC_B.into()),
        b,
        params,
    );
    let bin = b
        .make_dir("bin")
        .map_err(|e| format!("{}: {e}", b.join("bin").display()))?;
    cfg_b.bin_dir = copy_binaries(&ctx.bin_dir, &bin)?;
    // The lab itself too, as a host without the source tree gets it.
    if let Some(lab) = ctx.opts.agent_exe.parent().map(|d| d.join("rdma-lab")) {
        bin.copy_from(&lab, "rdma-lab")
            .map_err(|e| format!("copying {}: {e}", lab.display()))?;
    }
    // A secret of this run's own, in a file each VM's agent reads.
    let secret = crate::guest::control::Secret::generate()?;
    for (cfg, dir) in [(&mut cfg_a, a), (&mut cfg_b, b)] {
        dir.write("secret", format!("{}\n", secret.text()))
            .map_err(|e| format!("{}: {e}", dir.join("secret").display()))?;
        cfg.secret_file = Some(dir.join("secret"));
    }
    // One vCPU each: two TCG guests share this host's cores.
    let spec_a = VmSpec {
        name: "A".into(),
        exec: ctx.exec(&cfg_a, a)?,
        rwdir: a.path().to_path_buf(),
        shared: None,
        qemu_opts: Some(qemu_nic("listen", port, host::vm::MAC_A) + &dump),
        cpus: 1,
        numa_nodes: 0,
        memory: host::vm::VM_MEMORY.into(),
    };
    let spec_b = VmSpec {
        name: "B".into(),
        exec: ctx.exec(&cfg_b, b)?,
        rwdir: b.path().to_path_buf(),
        shared: None,
        qemu_opts: Some(qemu_nic("connect", port, host::vm::MAC_B)),
        cpus: 1,
        numa_nodes: 0,
        memory: host::vm::VM_MEMORY.into(),
    };
    Ok((spec_a, spec_b))
}

/// QEMU's options for a VM's end of the socket wire: `side` is `listen`
/// or `connect`, on 127.0.0.1:`port`, the NIC with `mac`.
pub(super) fn qemu_nic(side: &str, port: u16, mac: &str) -> String {
    format!(
        "-netdev socket,id=s0,{side}=127.0.0.1:{port} -device virtio-net-pci,netdev=s0,mac={mac}"
    )
}

/// With `--capture`, QEMU's option that records both directions of A's end
/// of the wire, which is everything between the two hosts; else empty.
/// QEMU is given a path: the run's dir, fresh and private.
pub(super) fn wire_dump(opts: &LabOptions, dir: &Dir) -> String {
    if opts.capture {
        format!(
            " -object filter-dump,id=f0,netdev=s0,file={}",
            dir.join(crate::capture::WIRE_PCAP).display()
        )
    } else {
        String::new()
    }
}

/// The VMs' accelerator, kernel and boot time (`None` with `--local`); the
/// kernel's version is also written into the result dir.
pub(super) fn vm_info(
    tools: Option<host::setup::Tools>,
    accel: host::vm::Accel,
    (boot, phases): (Duration, Option<crate::results::BootPhases>),
    dir: &Dir,
) -> Option<VmInfo> {
    let vms = tools.map(|t| VmInfo {
        accel,
        kernel: t.kernel.version,
        boot,
        phases,
        // This thread booted and waited for them: what they used.
        cpu_secs: Some(crate::base::cpu::take_ended()),
    });
    if let Some(v) = &vms {
        let _ = dir.write(KERNEL_FILE, &v.kernel);
    }
    vms
}
