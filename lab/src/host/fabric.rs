//! A fabric: N VMs on one Ethernet segment, each with Soft-RoCE on its
//! NIC, and, as on a real cluster, Slurm (munged, slurmctld on node0,
//! slurmd on each) and OpenSSH (sshd on each, root's key trusted
//! everywhere), so that a command can be run across them as an
//! administrator would: `srun -N 4 ...` or `ssh node2 ...`.
//!
//! The segment is QEMU's socket netdev in multicast mode: every VM's NIC
//! joins the group 230.0.0.1 on a free UDP port, bound to 127.0.0.1, and
//! sees every frame the others send, as on a hub. It needs no extra
//! package, no root, and no change to the host's network (no bridge, no
//! tap), and nothing leaves the machine. `vde_switch` (Debian's vde2) would
//! switch instead of flooding, which does not matter for a handful of
//! nodes, and would be one more daemon to start, wait for and kill.
//!
//! The run dir holds what the host writes once per run (the prelude, the
//! hosts file, slurm.conf, the munge key, the ssh keys and known_hosts)
//! and one rwdir per node (`node0`, ...), where each VM writes its
//! progress (`booted`, `ready`, `exit`), its command's `output` and its
//! daemons' logs. The prelude ([`PRELUDE`]) gets every value as an
//! argument; only the files above carry values, never its text.

use crate::host::setup::{self, Tools};
use crate::host::vm::{boot_bound, Accel, Vm, VmSpec, BOOT_SECS};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The guest prelude: each VM's first command (see its header).
pub const PRELUDE: &str = include_str!("fabric_prelude.sh");

/// The most nodes a fabric may have: their addresses are 192.0.2.1 up to
/// 192.0.2.N on one /24.
pub const MAX_NODES: usize = 254;

/// Each VM's memory: four TCG guests fit beside a build on a small host.
pub const NODE_MEMORY: &str = "1G";

/// How long a fabric's nodes may take to come up together, after the
/// slowest boot: the rest of the prelude (rxe, the daemons, and Slurm
/// seeing every node idle) on a busy TCG host.
pub const SETUP_SECS: u64 = 180;

/// A fabric to boot.
#[derive(Debug, Clone)]
pub struct FabricSpec {
    /// Number of nodes (VMs), `node0` to `node{n-1}`.
    pub n: usize,
    /// The run dir: must exist, be private (the keys go in it) and be
    /// visible in the guest ([`crate::host::lab::guest_can_see`]).
    pub dir: PathBuf,
    /// Per node, the shell command line it runs once every node is up,
    /// as root, with `SLURM_CONF`, `FABRIC_NODE`, `FABRIC_NODES` and
    /// `FABRIC_DIR` set; wrap its programs in `timeout`.
    pub exec: Vec<String>,
    /// Run munged, slurmctld (node0) and slurmd (each node).
    pub slurm: bool,
    /// Run sshd on each node and give root an administrator's ~/.ssh.
    pub ssh: bool,
    /// How long the commands may take, in seconds, once the nodes are up.
    pub budget_secs: u64,
    /// NICs per node, 1 or [`MAX_RAILS`]: NIC `k` of every node on a
    /// segment (a multicast group) of its own, with Soft-RoCE `rxe{k}`
    /// on it and an address on rail `k`'s subnet ([`FabricSpec::rail_addr`]).
    pub rails: usize,
    /// The node that is a guest of two NUMA nodes, if any: its NIC `k` on
    /// a PCIe expander bridge of NUMA node `k` (its `numa_node` and
    /// `local_cpulist` say so), and one more NIC on the root bus, on no
    /// node ([`SPARE_MAC`]), with neither an address nor Soft-RoCE.
    pub numa: Option<usize>,
}

/// The MAC of the spare NIC of [`FabricSpec::numa`]'s node, on the root
/// bus and on no NUMA node, on a segment of its own.
pub const SPARE_MAC: &str = "52:54:00:12:3f:01";

/// The most NICs a fabric's node has: two rails, each on a documentation
/// subnet of its own (192.0.2.0/24 and 198.51.100.0/24; the third,
/// 203.0.113.0/24, is the fault tests' wrong subnet).
pub const MAX_RAILS: usize = 2;

impl FabricSpec {
    /// The host name of node `i`.
    pub fn node(i: usize) -> String {
        format!("node{i}")
    }

    /// The MAC of node `i`'s NIC (locally administered, QEMU's prefix; not
    /// the two-VM lab's 52:54:00:12:34:xx).
    pub fn mac(i: usize) -> String {
        Self::rail_mac(0, i)
    }

    /// The MAC of node `i`'s NIC on rail `rail`: 52:54:00:12:35:xx on rail
    /// 0, 52:54:00:12:36:xx on rail 1.
    pub fn rail_mac(rail: usize, i: usize) -> String {
        format!("52:54:00:12:{:02x}:{:02x}", 0x35 + rail, i + 1)
    }

    /// Node `i`'s address on rail `rail`: 192.0.2.x, then 198.51.100.x.
    pub fn rail_addr(rail: usize, i: usize) -> String {
        let net = if rail == 0 { "192.0.2" } else { "198.51.100" };
        format!("{net}.{}", i + 1)
    }

    /// The address of node `i` on the segment (TEST-NET-1, as the lab's
    /// other VMs).
    pub fn addr(i: usize) -> String {
        format!("192.0.2.{}", i + 1)
    }

    /// Node `i`'s rwdir.
    pub fn rwdir(&self, i: usize) -> PathBuf {
        self.dir.join(Self::node(i))
    }

    fn check(&self) -> Result<(), String> {
        if !(1..=MAX_NODES).contains(&self.n) {
            return Err(format!(
                "a fabric has 1 to {MAX_NODES} nodes, not {}",
                self.n
            ));
        }
        if !(1..=MAX_RAILS).contains(&self.rails) {
            return Err(format!(
                "a fabric's node has 1 to {MAX_RAILS} NICs, not {}",
                self.rails
            ));
        }
        if self.exec.len() != self.n {
            return Err(format!(
                "a fabric of {} nodes needs {} commands, not {}",
                self.n,
                self.n,
                self.exec.len()
            ));
        }
        if !self.dir.is_absolute() || !crate::host::lab::guest_can_see(&self.dir) {
            return Err(format!(
                "{}: the run dir must be an absolute path the VMs see",
                self.dir.display()
            ));
        }
        Ok(())
    }
}

/// `/etc/hosts` of every node: localhost and the N nodes.
pub fn hosts_text(n: usize) -> String {
    let mut t = String::from("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n");
    for i in 0..n {
        t.push_str(&format!(
            "{}\t{}\n",
            FabricSpec::addr(i),
            FabricSpec::node(i)
        ));
    }
    t
}

/// The run's slurm.conf, valid for Slurm 22.05 (Debian 12) and 24.11
/// (Debian 13): munge authentication, everything as root, no cgroup
/// confinement (see [`CGROUP_CONF`]), state in the guests'
/// tmpfs /run/slurm (the prelude makes its dirs), one partition of all.
pub fn slurm_conf(n: usize) -> String {
    let mut t = format!(
        "# Written by rdma-lab for one fabric run of {n} VMs.\n\
         ClusterName=fabric\n\
         SlurmctldHost={}({})\n\
         AuthType=auth/munge\n\
         CredType=cred/munge\n\
         SlurmUser=root\n\
         SlurmdUser=root\n\
         ProctrackType=proctrack/linuxproc\n\
         TaskPlugin=task/none\n\
         JobAcctGatherType=jobacct_gather/none\n\
         MpiDefault=none\n\
         ReturnToService=2\n\
         StateSaveLocation=/run/slurm/ctld\n\
         SlurmdSpoolDir=/run/slurm/d\n\
         SlurmctldPidFile=/run/slurm/slurmctld.pid\n\
         SlurmdPidFile=/run/slurm/slurmd.pid\n\
         # TCG guests are slow: the default 10 s is tight for four.\n\
         MessageTimeout=30\n",
        FabricSpec::node(0),
        FabricSpec::addr(0)
    );
    for i in 0..n {
        t.push_str(&format!(
            "NodeName={} NodeAddr={} CPUs=1 State=UNKNOWN\n",
            FabricSpec::node(i),
            FabricSpec::addr(i)
        ));
    }
    t.push_str("PartitionName=all Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n");
    t
}

/// The run's cgroup.conf, beside slurm.conf: no cgroup plugin confines a
/// job (`proctrack/linuxproc`, `task/none`), but slurmd still starts its
/// cgroup plugin (22.05 and 24.11), whose cgroup/v2 asks systemd over
/// dbus for a scope; the guests have no systemd, so it makes its
/// hierarchy itself (`IgnoreSystemd`, meant for such test systems).
pub const CGROUP_CONF: &str =
    "# Written by rdma-lab for a fabric run: the guests have no systemd.\n\
CgroupPlugin=cgroup/v2\n\
IgnoreSystemd=yes\n";

/// root's known_hosts in every node: the run's one host key under every
/// node's name and address.
pub fn known_hosts(n: usize, host_pub: &str) -> String {
    let key: Vec<&str> = host_pub.split_whitespace().take(2).collect();
    let names: Vec<String> = (0..n)
        .flat_map(|i| [FabricSpec::node(i), FabricSpec::addr(i)])
        .collect();
    format!("{} {}\n", names.join(","), key.join(" "))
}

/// The `vng --exec` line of node `i`: the prelude with its arguments;
/// `boot_wait` bounds its wait for every node to be ready.
pub fn prelude_command(spec: &FabricSpec, i: usize, boot_wait: Duration) -> String {
    let dir = spec.dir.to_string_lossy().into_owned();
    [
        "sh".to_string(),
        spec.dir.join("prelude.sh").to_string_lossy().into_owned(),
        dir,
        i.to_string(),
        spec.n.to_string(),
        FabricSpec::mac(i),
        FabricSpec::addr(i),
        u8::from(spec.slurm).to_string(),
        u8::from(spec.ssh).to_string(),
        boot_wait.as_secs().to_string(),
        spec.budget_secs.to_string(),
        // The second rail's NIC, or none.
        if spec.rails > 1 {
            FabricSpec::rail_mac(1, i)
        } else {
            String::new()
        },
        if spec.rails > 1 {
            FabricSpec::rail_addr(1, i)
        } else {
            String::new()
        },
    ]
    .iter()
    .map(|w| crate::base::text::shell_quote(w))
    .collect::<Vec<_>>()
    .join(" ")
}

/// QEMU's options for node `i`'s NICs, one on each rail's segment: rail
/// `k`'s group is 230.0.0.`k+1` on `ports[k]`.
pub fn qemu_nic(i: usize, ports: &[u16]) -> String {
    ports
        .iter()
        .enumerate()
        .map(|(k, port)| {
            format!(
                "-netdev socket,id=s{k},mcast=230.0.0.{}:{port},localaddr=127.0.0.1 -device virtio-net-pci,netdev=s{k},mac={}",
                k + 1,
                FabricSpec::rail_mac(k, i)
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// QEMU's options for the NICs of a node of two NUMA nodes: NIC `k` on
/// a root port of a PCIe expander bridge of node `k` (as a two-socket
/// server's NICs hang off each socket's root), and a spare NIC on the root
/// bus, on no node, alone on group 230.0.0.9 at `spare_port`.
pub fn qemu_numa_nics(i: usize, ports: &[u16], spare_port: u16) -> String {
    let mut opts: Vec<String> = ports
        .iter()
        .enumerate()
        .map(|(k, port)| {
            format!(
                "-device pxb-pcie,id=px{k},bus_nr={},numa_node={k},bus=pcie.0 \
                 -device pcie-root-port,id=rp{k},bus=px{k},chassis={},slot=1 \
                 -netdev socket,id=s{k},mcast=230.0.0.{}:{port},localaddr=127.0.0.1 \
                 -device virtio-net-pci,netdev=s{k},bus=rp{k},mac={}",
                16 * (k + 1),
                8 + k,
                k + 1,
                FabricSpec::rail_mac(k, i)
            )
        })
        .collect();
    opts.push(format!(
        "-netdev socket,id=spare,mcast=230.0.0.9:{spare_port},localaddr=127.0.0.1 \
         -device virtio-net-pci,netdev=spare,bus=pcie.0,mac={SPARE_MAC}"
    ));
    opts.join(" ")
}

/// A UDP port nobody on this host has bound, for the segment's group.
pub fn free_udp_port() -> Result<u16, String> {
    std::net::UdpSocket::bind("0.0.0.0:0")
        .and_then(|s| s.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free UDP port: {e}"))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn create_new(path: &Path, mode: u32, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
        .and_then(|mut f| f.write_all(bytes))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The munge key: 1024 random bits (mungekey's default), 0400, made here
/// rather than by mungekey so the host needs no munge of its own.
fn write_munge_key(path: &Path) -> Result<(), String> {
    let mut key = [0u8; 128];
    getrandom::fill(&mut key).map_err(|e| format!("no randomness for the munge key: {e}"))?;
    create_new(path, 0o400, &key)
}

/// A fresh ed25519 key pair at `path` and `path.pub`, with ssh-keygen.
fn ssh_keygen(path: &Path, comment: &str) -> Result<String, String> {
    let p = path.to_string_lossy();
    let st = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", &p])
        .stdin(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("cannot run ssh-keygen: {e}"))?;
    if !st.success() {
        return Err(format!("ssh-keygen -f {p} failed: {st}"));
    }
    let public = path.with_extension("pub");
    fs::read_to_string(&public).map_err(|e| format!("{}: {e}", public.display()))
}

/// The run's ssh keys: one host key for every node's sshd, and root's
/// client key, trusted by every node.
fn write_ssh_files(spec: &FabricSpec) -> Result<(), String> {
    let ssh = spec.dir.join("ssh");
    private_dir(&ssh)?;
    let host_pub = ssh_keygen(&ssh.join("host_ed25519"), "rdma-lab fabric host")?;
    ssh_keygen(&ssh.join("id_ed25519"), "root@rdma-lab-fabric")?;
    write(&ssh.join("known_hosts"), &known_hosts(spec.n, &host_pub))
}

fn private_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new()
        .mode(0o700)
        .create(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))
}

/// Everything the prelude reads, written into the run dir.
pub fn write_run_files(spec: &FabricSpec) -> Result<(), String> {
    spec.check()?;
    write(&spec.dir.join("prelude.sh"), PRELUDE)?;
    let hosts = hosts_text(spec.n);
    for (i, exec) in spec.exec.iter().enumerate() {
        let rw = spec.rwdir(i);
        private_dir(&rw)?;
        write(&rw.join("hosts"), &hosts)?;
        write(&rw.join("exec.sh"), &format!("{exec}\n"))?;
    }
    if spec.slurm {
        write_munge_key(&spec.dir.join("munge.key"))?;
        write(&spec.dir.join("slurm.conf"), &slurm_conf(spec.n))?;
        write(&spec.dir.join("cgroup.conf"), CGROUP_CONF)?;
    }
    if spec.ssh {
        write_ssh_files(spec)?;
    }
    Ok(())
}

/// What became of one node.
#[derive(Debug, Clone)]
pub struct NodeOutcome {
    /// Its host name.
    pub name: String,
    /// Its console log (vng's output).
    pub console: PathBuf,
    /// Its rwdir: `output` (its command's), the daemons' logs.
    pub rwdir: PathBuf,
    /// How long it took until the prelude started.
    pub boot: Option<Duration>,
    /// Its command's exit status (125: the prelude failed, see `failed`).
    pub status: Option<i32>,
    /// What went wrong with the VM itself (a hang, vng failing).
    pub error: Option<String>,
}

impl NodeOutcome {
    /// Whether the node came up and its command exited 0.
    pub fn ok(&self) -> bool {
        self.error.is_none() && self.status == Some(0)
    }
}

/// Boots the fabric: installs its packages if needed, writes its files,
/// boots the N VMs at once (1 vCPU, [`NODE_MEMORY`] each) on one
/// multicast segment, and waits for all. A VM that has not started its
/// prelude after [`boot_bound`] (of every guest this process runs), or
/// is still running when the budget ([`BOOT_SECS`] + [`SETUP_SECS`] +
/// `budget_secs`, from the last boot) is spent, gets every VM killed;
/// a node waits for the others to be ready that boot bound and
/// [`SETUP_SECS`]. `Err` only when no VM could be started.
pub fn boot_fabric(
    tools: &Tools,
    accel: &Accel,
    spec: &FabricSpec,
) -> Result<Vec<NodeOutcome>, String> {
    spec.check()?;
    setup::ensure_fabric_packages(spec.slurm, spec.ssh)?;
    write_run_files(spec)?;
    let ports = (0..spec.rails)
        .map(|_| free_udp_port())
        .collect::<Result<Vec<u16>, String>>()?;
    let boot_wait =
        boot_bound(accel, crate::host::vm::guests() + spec.n) + Duration::from_secs(SETUP_SECS);
    let mut vms = Vec::with_capacity(spec.n);
    let mut outcomes = Vec::with_capacity(spec.n);
    for i in 0..spec.n {
        let numa = spec.numa == Some(i);
        let vm_spec = VmSpec {
            name: FabricSpec::node(i),
            exec: prelude_command(spec, i, boot_wait),
            rwdir: spec.rwdir(i),
            shared: None,
            qemu_opts: Some(if numa {
                qemu_numa_nics(i, &ports, free_udp_port()?)
            } else {
                qemu_nic(i, &ports)
            }),
            // One vCPU each, the guests sharing this host's cores; one a
            // NUMA node on the node of two.
            cpus: if numa { 2 } else { 1 },
            numa_nodes: if numa { 2 } else { 0 },
            memory: NODE_MEMORY.into(),
        };
        let console = spec.dir.join(format!("{}.console", vm_spec.name));
        // A failure drops the VMs already started, which kills them.
        vms.push(Vm::boot(tools, accel, &vm_spec, &console)?);
        outcomes.push(NodeOutcome {
            name: vm_spec.name,
            console,
            rwdir: spec.rwdir(i),
            boot: None,
            status: None,
            error: None,
        });
    }
    wait_all(spec, vms, &mut outcomes);
    Ok(outcomes)
}

/// Waits for every VM to start its prelude, then to end; kills them all
/// when one hangs.
fn wait_all(spec: &FabricSpec, mut vms: Vec<Vm>, outcomes: &mut [NodeOutcome]) {
    for (i, (vm, o)) in vms.iter_mut().zip(outcomes.iter_mut()).enumerate() {
        match vm.wait_for_boot(&spec.rwdir(i).join("booted")) {
            Ok(t) => o.boot = Some(t),
            Err(e) => {
                o.error = Some(e);
                let hung = o.name.clone();
                // Dropping the others kills them: the fabric is incomplete.
                drop(vms);
                for other in outcomes.iter_mut().filter(|x| x.error.is_none()) {
                    other.error = Some(format!("killed: {hung} did not boot"));
                }
                return;
            }
        }
    }
    let deadline = Instant::now() + Duration::from_secs(SETUP_SECS + BOOT_SECS + spec.budget_secs);
    for (i, (vm, o)) in vms.into_iter().zip(outcomes.iter_mut()).enumerate() {
        // After a hang, `deadline` has passed: the rest are killed at once
        // if still running.
        if let Err(e) = vm.wait(deadline) {
            o.error = Some(e);
        }
        o.status = fs::read_to_string(spec.rwdir(i).join("exit"))
            .ok()
            .and_then(|s| s.trim().parse().ok());
    }
}

#[cfg(test)]
mod tests;
