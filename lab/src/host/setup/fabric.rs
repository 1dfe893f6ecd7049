//! What a fabric of VMs needs on this host: Slurm, munge, OpenSSH,
//! perftest and numactl, installed when missing with none of their
//! services started here (a policy-rc.d held while apt runs).

use super::*;

/// Debian's packages a fabric's nodes run (the VMs share the host's root
/// file system, so the host must have them): Slurm 22.05 on Debian 12,
/// 24.11 on Debian 13, with munge; OpenSSH's server and client; perftest,
/// which `mesh --perf` measures each link with, and numactl, which binds
/// a measurement's memory to its NIC's NUMA node (the fabric's two-node
/// guest shows it).
pub fn fabric_packages(slurm: bool, ssh: bool) -> Vec<&'static str> {
    let mut p = vec!["perftest", "numactl"];
    if slurm {
        p.extend(["munge", "slurmctld", "slurmd", "slurm-client"]);
    }
    if ssh {
        p.extend(["openssh-server", "openssh-client"]);
    }
    p
}

/// The command that installs `pkgs` for a fabric, for a user who is not
/// root, with why it must not start them.
pub(super) fn fabric_install_hint(pkgs: &[&str]) -> String {
    format!(
        "not root; run as root: apt-get install --no-install-recommends --no-remove {} \
         (Debian's maintainer scripts start munge, slurmd, slurmctld and ssh on this host \
         unless {POLICY_RC_D} denies it: exit 101)",
        pkgs.join(" ")
    )
}

/// Installs what a fabric needs ([`fabric_packages`]) when it is missing,
/// only for a fabric run and without recommends, and never starts them on
/// this host: Debian's maintainer scripts start munge, slurmd, slurmctld
/// and sshd through invoke-rc.d or deb-systemd-invoke, which both ask
/// [`POLICY_RC_D`] first, so the install runs under one that denies every
/// start ([`ServicesHeld`]). Not root: names the command and fails.
pub fn ensure_fabric_packages(slurm: bool, ssh: bool) -> Result<(), String> {
    let _one = one_apt();
    let missing: Vec<&str> = fabric_packages(slurm, ssh)
        .into_iter()
        .filter(|p| !dpkg_installed(p))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    if !is_root() {
        return Err(format!(
            "{} missing (a fabric's nodes run them); {}",
            missing.join(" "),
            fabric_install_hint(&missing)
        ));
    }
    eprintln!(
        "setup: {} missing (a fabric's nodes run them); installing, with no service started here",
        missing.join(" ")
    );
    run_checked("apt-get", &["-o", "DPkg::Lock::Timeout=300", "update"])?;
    let held = ServicesHeld::hold()?;
    let installed = apt_install(&missing.iter().map(|p| p.to_string()).collect::<Vec<_>>());
    drop(held);
    installed?;
    if Path::new("/run/systemd/system").is_dir() {
        // policy-rc.d stops the starts, not deb-systemd-helper's enabling.
        eprintln!(
            "setup: Debian enabled their services for this host's next boot; \
             the fabric needs only the programs: `systemctl disable munge slurmd slurmctld ssh` undoes that"
        );
    }
    Ok(())
}

/// Where Debian's maintainer scripts ask whether they may start a
/// service (invoke-rc.d(8), deb-systemd-invoke(1p)); 101 means no.
pub const POLICY_RC_D: &str = "/usr/sbin/policy-rc.d";

/// The policy setup puts in place for one install, and removes after it.
pub(super) const DENY_STARTS: &str = "#!/bin/sh\n\
# rdma-lab setup: no service starts while it installs a fabric's packages.\n\
# Removed when that install ends; if it is still here, nothing runs it.\n\
exit 101\n";

/// No service starts on this host while this is held: [`POLICY_RC_D`]
/// denies every start, written by [`ServicesHeld::hold`] and removed when
/// dropped. A policy that was there already is kept when it denies
/// starts (as Docker's images' does), and refused otherwise: setup never
/// changes an administrator's own policy.
pub struct ServicesHeld {
    ours: bool,
}

impl ServicesHeld {
    /// Puts [`DENY_STARTS`] in place, or checks the one there: asked
    /// whether munge may start (a query: policy-rc.d starts nothing), it
    /// must say 101.
    pub fn hold() -> Result<ServicesHeld, String> {
        use std::os::unix::fs::OpenOptionsExt;
        let path = Path::new(POLICY_RC_D);
        if path.symlink_metadata().is_ok() {
            let code =
                quiet(Command::new(path).args(["munge", "start"])).and_then(|o| o.status.code());
            if code == Some(101) {
                return Ok(ServicesHeld { ours: false });
            }
            return Err(format!(
                "{POLICY_RC_D} lets services start (it says {code:?} to `munge start`, not 101), and setup does not change it: install by hand: apt-get install --no-install-recommends --no-remove {}",
                fabric_packages(true, true).join(" ")
            ));
        }
        // create_new: never through a link planted since the check.
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o755)
            .open(path)
            .and_then(|mut f| std::io::Write::write_all(&mut f, DENY_STARTS.as_bytes()))
            .map_err(|e| format!("{POLICY_RC_D}: {e}"))?;
        Ok(ServicesHeld { ours: true })
    }
}

impl Drop for ServicesHeld {
    fn drop(&mut self) {
        // Only ours, and only if nobody replaced it meanwhile.
        if self.ours && std::fs::read_to_string(POLICY_RC_D).is_ok_and(|t| t == DENY_STARTS) {
            let _ = std::fs::remove_file(POLICY_RC_D);
        }
    }
}
