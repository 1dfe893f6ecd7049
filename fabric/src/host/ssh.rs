//! `mesh --ssh HOSTS`: this process coordinates, and starts one
//! rank on each host with the user's own OpenSSH (`BatchMode`, their keys
//! and their `~/.ssh/config`), from a private copy of the binaries it puts
//! there (`mktemp -d` on the host, `scp`) or from `--remote-dir`, a
//! directory the hosts share. The mesh's secret is made here, for this
//! run, and reaches each rank on its standard input: never in an argument
//! (other users see those) nor in a file.
//!
//! ssh hands a remote command to the remote user's shell as one string:
//! every word of it is a checked value (a host name, a number, a scenario
//! of the table, a path this process chose or checked) and is quoted.

use super::mesh::{check_host_name, coord_config, own_name, scenario_names, MeshOptions};
use crate::base::text::shell_quote;
use crate::guest::control::Secret;
use crate::model::mesh::{Joined, MeshRun};
use crate::model::Scenario;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// ssh's options: never a prompt (a password, an unknown host key), a
/// bounded connect.
const SSH_OPTS: &[&str] = &[
    "-o",
    "BatchMode=yes",
    "-o",
    "ConnectTimeout=15",
    // A host that stops answering once connected is given up in 30 s.
    "-o",
    "ServerAliveInterval=10",
    "-o",
    "ServerAliveCountMax=3",
];

/// How long one preparing step (`mktemp`, a copy, the clean-up) may take
/// a host.
const STEP_SECS: u64 = 300;

/// What the launcher needs beyond the mesh's options.
#[derive(Debug, Clone)]
pub struct SshLaunch {
    /// The hosts, rank 0 first.
    pub hosts: Vec<String>,
    /// A directory the hosts share that holds `rdma-fabric` and the example
    /// binaries; else each gets a private copy.
    pub remote_dir: Option<String>,
    /// The name the hosts reach this one by (else its own).
    pub coordinator: Option<String>,
}

/// A rank started on a host.
struct Started {
    host: String,
    dir: String,
    copied: bool,
    child: Option<Child>,
    failed: Option<String>,
}

/// `ssh HOST WORDS...`, each word quoted for the remote shell.
fn ssh(host: &str, words: &[String]) -> Command {
    let mut c = Command::new("ssh");
    c.args(SSH_OPTS).arg("--").arg(host);
    c.arg(
        words
            .iter()
            .map(|w| shell_quote(w))
            .collect::<Vec<_>>()
            .join(" "),
    );
    c.stdin(Stdio::null());
    c
}

/// A command's output, or one line that says why it failed.
fn run(mut c: Command, what: &str) -> Result<String, String> {
    use std::io::Read as _;
    let mut child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{what}: {e}"))?;
    let deadline = Instant::now() + Duration::from_secs(STEP_SECS);
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(100)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{what}: no answer within {STEP_SECS} s"));
            }
        }
    };
    // The step has ended: what it printed is all there, and small.
    let read = |r: Option<&mut dyn std::io::Read>| {
        let mut t = String::new();
        if let Some(r) = r {
            let _ = r.take(64 * 1024).read_to_string(&mut t);
        }
        t
    };
    let out = read(child.stdout.as_mut().map(|r| r as &mut dyn std::io::Read));
    let err = read(child.stderr.as_mut().map(|r| r as &mut dyn std::io::Read));
    if status.success() {
        return Ok(out.trim().to_string());
    }
    let line = err.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
    Err(format!("{what}: {}", crate::base::text::shown(line)))
}

/// A private directory on `host` (`mktemp -d`, mode 0700), checked to be
/// the plain absolute path it should be.
fn remote_tempdir(host: &str) -> Result<String, String> {
    let words = ["mktemp", "-d", "/tmp/rdma-lab.XXXXXXXXXX"].map(String::from);
    let dir = run(ssh(host, &words), &format!("ssh {host} mktemp -d"))?;
    if of_mktemp_form(&dir) {
        Ok(dir)
    } else {
        Err(format!(
            "ssh {host} mktemp -d said {:?}",
            crate::base::text::shown(&dir)
        ))
    }
}

/// Whether `dir` is exactly what `mktemp -d /tmp/rdma-lab.XXXXXXXXXX`
/// makes: the prefix and ten letters or digits, nothing else (no `/`, no
/// `..`): the launcher later removes it with `rm -rf`.
fn of_mktemp_form(dir: &str) -> bool {
    dir.strip_prefix("/tmp/rdma-lab.")
        .is_some_and(|x| x.len() == 10 && x.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// Copies `rdma-lab` and the example binaries into `dir` on `host`.
fn copy_binaries(host: &str, dir: &str, files: &[PathBuf]) -> Result<(), String> {
    let mut c = Command::new("scp");
    c.args(SSH_OPTS).args(["-q", "-p", "--"]).args(files);
    c.arg(format!("{host}:{dir}/"));
    c.stdin(Stdio::null());
    run(c, &format!("scp to {host}")).map(|_| ())
}

/// The example binaries that a host running `names` (scenarios of the
/// table) starts: their sides' programs and those their scripts name, the
/// doctor's probes', and mckey's two for the multicast round. A copy of
/// only these is a few megabytes less per binary left out, on every host.
pub fn binaries_needed(names: &[String]) -> Vec<&'static str> {
    let probe = crate::catalog::find(crate::catalog::PROBE);
    let list: Vec<&Scenario> = names
        .iter()
        .filter_map(|n| crate::catalog::find(n))
        .chain(probe)
        .collect();
    let multicast = list.iter().any(|s| s.package == "mckey");
    let starts = |b: &str| {
        list.iter()
            .flat_map(|s| [&s.server, &s.client])
            .flatten()
            .any(|c| c.program == b || c.args.iter().any(|a| a.contains(b)))
    };
    crate::catalog::binaries()
        .iter()
        .copied()
        .filter(|b| {
            starts(b)
                || *b == crate::guest::doctor::CM_PROBE
                || (multicast && ["mckey", "mc"].contains(b))
        })
        .collect()
}

/// The binary each host runs its rank with: the fabric tool, not the lab
/// (which carries the VMs, the set-up and the handout to no purpose).
pub const TOOL: &str = "rdma-fabric";

/// The fabric tool to copy: this binary when it is [`TOOL`], else the one
/// beside the example binaries or beside this one (a build's).
fn tool(bin_dir: &Path) -> Result<PathBuf, String> {
    let me = std::env::current_exe().map_err(|e| format!("mesh: this binary: {e}"))?;
    if me.file_name().is_some_and(|n| n == TOOL) {
        return Ok(me);
    }
    let found = [Some(bin_dir), me.parent()]
        .into_iter()
        .flatten()
        .map(|d| d.join(TOOL))
        .find(|f| f.is_file());
    found.ok_or_else(|| {
        format!(
            "mesh --ssh: no {TOOL} in {} to copy to the hosts: build it (cargo build \
                 --release) or copy it there",
            bin_dir.display()
        )
    })
}

/// The files a host needs: the fabric tool ([`tool`]) and the example
/// binaries that `names` take ([`binaries_needed`]).
fn files_to_copy(bin_dir: &Path, names: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut files = vec![tool(bin_dir)?];
    for b in binaries_needed(names) {
        let f = bin_dir.join(b);
        if !f.is_file() {
            return Err(format!(
                "{} has no {b}: build it first (cargo build --release)",
                bin_dir.display()
            ));
        }
        files.push(f);
    }
    Ok(files)
}

/// The files without their debug info (`objcopy --strip-debug`, binutils'),
/// in a private temporary dir: a fifth of their size, to copy to every
/// host; a panic's backtrace there still names its functions. `None` where
/// a file cannot be stripped (no objcopy): the files are copied as built.
fn stripped_copies(files: &[PathBuf]) -> Option<(tempfile::TempDir, Vec<PathBuf>)> {
    if files.is_empty() {
        return None;
    }
    let dir = crate::base::tmp::private_tempdir("rdma-lab-copies-", "the stripped copies").ok()?;
    let stripped = files
        .iter()
        .map(|f| {
            let to = dir.path().join(f.file_name()?);
            let ok = Command::new("objcopy")
                .arg("--strip-debug")
                .arg(f)
                .arg(&to)
                .stdin(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            ok.then_some(to)
        })
        .collect::<Option<Vec<PathBuf>>>()?;
    Some((dir, stripped))
}

/// The remote command of rank `rank`.
fn rank_words(
    opts: &MeshOptions,
    dir: &str,
    rank: usize,
    size: usize,
    coordinator: &str,
    names: &[String],
) -> Vec<String> {
    let mut w: Vec<String> = vec![
        format!("{dir}/{TOOL}"),
        "mesh".into(),
        "--rank".into(),
        rank.to_string(),
        "--size".into(),
        size.to_string(),
        "--coordinator".into(),
        coordinator.into(),
        "--port".into(),
        opts.port.to_string(),
        "--wait".into(),
        opts.wait_secs.to_string(),
        "--secret-stdin".into(),
    ];
    for d in &opts.rail_devs {
        w.extend(["--dev".to_string(), d.clone()]);
    }
    if let Some(v) = &opts.netdev {
        w.extend(["--netdev".to_string(), v.clone()]);
    }
    if let Some(g) = opts.gid_idx {
        w.extend(["--gid-idx".to_string(), g.to_string()]);
    }
    if !opts.pin {
        w.push("--no-pin".into());
    }
    w.extend(names.iter().cloned());
    w
}

/// Prepares `host` (rank `rank`): its private copy of the binaries, or
/// the shared `--remote-dir`; a host that cannot be reached keeps why.
fn prepare(launch: &SshLaunch, files: &[PathBuf], rank: usize) -> Started {
    let host = launch.hosts[rank].clone();
    let mut s = Started {
        host: host.clone(),
        dir: String::new(),
        copied: false,
        child: None,
        failed: None,
    };
    match &launch.remote_dir {
        Some(d) => s.dir.clone_from(d),
        None => match remote_tempdir(&host) {
            Ok(d) => {
                s.copied = true;
                s.dir.clone_from(&d);
                if let Err(e) = copy_binaries(&host, &d, files) {
                    s.failed = Some(e);
                }
            }
            Err(e) => s.failed = Some(e),
        },
    }
    s
}

/// Starts rank `rank` on its prepared host, the secret on its stdin, its
/// output in `ssh-RANK.log` of the result dir.
fn start(s: &mut Started, opts: &MeshOptions, rank: usize, size: usize, coordinator: &str) {
    if s.failed.is_some() {
        return;
    }
    let mut words = rank_words(opts, &s.dir, rank, size, coordinator, &opts.names);
    if s.copied {
        // Its results beside its private copy, removed with it: the
        // transcripts are the coordinator's by then.
        words.extend(["--out".to_string(), format!("{}/out", s.dir)]);
    }
    let mut c = ssh(&s.host, &words);
    c.stdin(Stdio::piped());
    if let Ok(f) = opts.out.create(&format!("ssh-{rank}.log")) {
        if let Ok(g) = f.try_clone() {
            c.stdout(f).stderr(g);
        }
    }
    match c.spawn() {
        Ok(mut child) => {
            if let Some(mut stdin) = child.stdin.take() {
                let _ = writeln!(stdin, "{}", opts.secret.text());
            }
            s.child = Some(child);
        }
        Err(e) => s.failed = Some(format!("ssh {}: {e}", s.host)),
    }
}

/// Waits for each rank's ssh until `deadline`, ends what still runs, and
/// removes the private copies.
fn finish(started: &mut [Started], deadline: Instant) {
    for s in started.iter_mut() {
        if let Some(child) = &mut s.child {
            while Instant::now() < deadline && matches!(child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(200));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
    // Every host's copy removed side by side: one login each, which on a
    // slow host takes seconds, and a run has up to hundreds of hosts.
    std::thread::scope(|scope| {
        for s in started
            .iter()
            .filter(|s| s.copied && of_mktemp_form(&s.dir))
        {
            scope.spawn(move || {
                let words = ["rm", "-rf", "--", s.dir.as_str()].map(String::from);
                let _ = run(ssh(&s.host, &words), "cleanup");
            });
        }
    });
}

/// The hosts of `--ssh`: two or more, each a host name (never an option
/// of ssh's).
pub fn check_hosts(hosts: &[String]) -> Result<(), String> {
    for h in hosts {
        check_host_name(h)?;
    }
    if hosts.len() < 2 || hosts.len() > super::mesh::MAX_HOSTS {
        return Err(format!(
            "mesh --ssh: name 2 hosts or more (at most {})",
            super::mesh::MAX_HOSTS
        ));
    }
    Ok(())
}

/// The whole launch: the hosts checked, each rank started, the run
/// coordinated here; hosts that could not be started say why.
pub fn run_ssh(opts: &MeshOptions, launch: &SshLaunch, bin_dir: &Path) -> Result<MeshRun, String> {
    check_hosts(&launch.hosts)?;
    let names = scenario_names(&opts.names)?;
    let opts = &MeshOptions {
        names,
        secret: Secret::generate()?,
        ..opts.clone()
    };
    let coordinator = launch.coordinator.clone().unwrap_or_else(own_name);
    check_host_name(&coordinator)?;
    let listen = super::mesh::listen_addr(&coordinator, opts.port)?;
    let cfg = coord_config(opts, listen, launch.hosts.len(), launch.hosts.clone())?;
    let files = if launch.remote_dir.is_some() {
        Vec::new()
    } else {
        files_to_copy(bin_dir, &opts.names)?
    };
    // Kept until the copies are made.
    let stripped = stripped_copies(&files);
    let files = stripped.as_ref().map_or(files, |(_, f)| f.clone());
    // Every host prepared side by side, before the joins' wait begins:
    // copying the binaries is not joining.
    let mut started: Vec<Started> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..launch.hosts.len())
            .map(|r| {
                let files = &files;
                scope.spawn(move || prepare(launch, files, r))
            })
            .collect();
        handles
            .into_iter()
            .enumerate()
            .map(|(r, h)| {
                h.join().unwrap_or_else(|_| Started {
                    host: launch.hosts[r].clone(),
                    dir: String::new(),
                    copied: false,
                    child: None,
                    failed: Some("its launcher thread failed".into()),
                })
            })
            .collect()
    });
    let coordinating = std::thread::spawn(move || coordinate_quietly(&cfg));
    let size = launch.hosts.len();
    for (rank, s) in started.iter_mut().enumerate() {
        start(s, opts, rank, size, &coordinator);
    }
    let run = coordinating
        .join()
        .map_err(|_| "mesh: the coordinator failed".to_string())?;
    finish(&mut started, Instant::now() + Duration::from_secs(30));
    let mut run = run?;
    for (s, h) in started.iter().zip(&mut run.hosts) {
        if let (Some(why), Joined::NeverJoined { .. }) = (&s.failed, &h.joined) {
            h.findings
                .push(format!("the launcher could not start it: {why}"));
        }
    }
    Ok(run)
}

/// The coordinator, its lines printed as it goes.
fn coordinate_quietly(
    cfg: &crate::guest::mesh::coordinator::CoordConfig,
) -> Result<MeshRun, String> {
    Ok(crate::guest::mesh::coordinator::coordinate(
        cfg,
        &mut |l| println!("{l}"),
    )?)
}

#[cfg(test)]
mod tests;
