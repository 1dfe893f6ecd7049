//! One side of a scenario as this host runs it: the program under
//! `timeout`, its output in the result dir, ready when its scenario says
//! so, escaped once it ended; and the serving host's result files as they
//! cross to the peer, escaped as the peer writes them.

use super::*;

/// Whether `rdma res show cm_id` output shows a listener on `port`.
pub fn cm_listening(rdma_res_cm_id: &str, port: u16) -> bool {
    let suffix = format!(":{port}");
    rdma_res_cm_id.lines().any(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        let after = |key: &str| f.windows(2).find(|w| w[0] == key).map(|w| w[1]);
        after("state") == Some("LISTEN") && after("src-addr").is_some_and(|a| a.ends_with(&suffix))
    })
}

/// The sysfs spelling of the IPv4-mapped GID of `ip`
/// (`0000:0000:0000:0000:0000:ffff:c000:0201` for 192.0.2.1).
pub fn ipv4_mapped_gid(ip: &str) -> Option<String> {
    let ip: std::net::Ipv4Addr = ip.parse().ok()?;
    let o = ip.octets();
    Some(format!(
        "0000:0000:0000:0000:0000:ffff:{:02x}{:02x}:{:02x}{:02x}",
        o[0], o[1], o[2], o[3]
    ))
}

fn is_ready(ready: Ready, out: &Dir, stdout: &str) -> bool {
    match ready {
        Ready::None => true,
        Ready::TcpListen(port) => ["/proc/net/tcp", "/proc/net/tcp6"]
            .iter()
            .any(|p| fs::read_to_string(p).is_ok_and(|t| tcp_listening(&t, port))),
        Ready::RdmaCmListen(port) => Command::new("rdma")
            .args(["res", "show", "cm_id"])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .is_ok_and(|o| cm_listening(&String::from_utf8_lossy(&o.stdout), port)),
        Ready::Line(pattern) => read_in(out, stdout).is_some_and(|t| model::has_line(&t, pattern)),
    }
}

/// PATH with the workspace binaries first, then this very lab (whose
/// binary `rdma-lab` sits beside it, built or copied there), so shell
/// snippets in scenarios can name them (`rdma-lab doctor`).
pub(super) fn search_path(bin_dir: &Path) -> std::ffi::OsString {
    let mut dirs = vec![bin_dir.to_path_buf()];
    if let Some(dir) = own_exe().and_then(|e| e.parent().map(Path::to_path_buf)) {
        dirs.push(dir);
    }
    if let Some(p) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&p));
    }
    std::env::join_paths(dirs).unwrap_or_default()
}

/// The running lab binary (`xtask` or `rdma-lab`).
fn own_exe() -> Option<PathBuf> {
    std::env::current_exe().ok()
}

/// What runs as `program`: the lab's own commands are this binary's, never
/// a stale copy; the examples are the bin dir's, else PATH's.
pub(super) fn program_path(cfg: &AgentConfig, program: &str) -> std::ffi::OsString {
    let local = cfg.bin_dir.join(program);
    match own_exe() {
        Some(exe) if ["xtask", "rdma-lab"].contains(&program) => exe.into_os_string(),
        _ if local.is_file() => local.into_os_string(),
        _ => program.into(),
    }
}

/// One side running under `timeout`, its output going to files.
pub(super) struct Running {
    child: Option<Child>,
    /// Why `child` is none: the command and the system's error.
    cannot_start: Option<String>,
    started: Instant,
    /// The result dir, and the side's files in it without their extension.
    out: Dir,
    base: String,
}

impl Running {
    pub(super) fn start(cfg: &AgentConfig, s: &Scenario, side: &str, cmd: &model::Cmd) -> Running {
        let out = out(cfg).clone();
        let base = |ext: &str| result_file(&s.name, side, ext);
        let program = program_path(cfg, cmd.program);
        let files = out
            .create(&base("stdout"))
            .and_then(|o| Ok((o, out.create(&base("stderr"))?)));
        let child = files.and_then(|(o, e)| {
            Command::new("timeout")
                .args(["-k", "5", &s.timeout_secs.to_string()])
                .arg(program)
                .args(cmd.args_with(&cfg.params))
                // What the scripts of args_with read instead of values.
                .envs(cfg.params.env())
                .env("RUST_BACKTRACE", "1")
                .env("PATH", search_path(&cfg.bin_dir))
                .stdin(Stdio::null())
                .stdout(o)
                .stderr(e)
                .spawn()
        });
        let (child, cannot_start) = match child {
            Ok(c) => (Some(c), None),
            Err(e) => {
                let why = format!("{}: {e}", cmd.program);
                // For the reader of the transcript; the status says it
                // for the judge.
                let _ = out.write(&base("stderr"), format!("agent: cannot start {why}\n"));
                (None, Some(why))
            }
        };
        Running {
            child,
            cannot_start,
            started: Instant::now(),
            out,
            base: result_file(&s.name, side, ""),
        }
    }

    /// The side's file with `ext`.
    pub(super) fn file(&self, ext: &str) -> String {
        format!("{}{ext}", self.base)
    }

    /// SIGTERM to `timeout`, which passes it on to the command. The shell's
    /// builtin `kill` sends it: a minimal Debian has no `kill` program
    /// (procps), and without the signal the server would run into its
    /// time limit. `Err` says why the signal could not be sent.
    pub(super) fn terminate(&mut self) -> Result<(), String> {
        let Some(c) = &self.child else {
            return Ok(());
        };
        let pid = c.id().to_string();
        let out = Command::new("sh")
            .args(["-c", "kill -TERM \"$1\"", "sh", &pid])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("sh: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "kill -TERM {pid}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }

    fn exited(&mut self) -> bool {
        match &mut self.child {
            Some(c) => !matches!(c.try_wait(), Ok(None)),
            None => true,
        }
    }

    /// Waits (bounded by `timeout -k`), escapes what the side wrote (a
    /// program prints what its peer sent it) and writes the status file.
    pub(super) fn finish(mut self) -> i32 {
        use std::os::unix::process::ExitStatusExt;
        let code = match self.child.as_mut().map(|c| c.wait()) {
            Some(Ok(st)) => st.code().unwrap_or_else(|| 128 + st.signal().unwrap_or(0)),
            _ => 127,
        };
        for ext in ["stdout", "stderr"] {
            escape_file(&self.out, &self.file(ext));
        }
        let _ = self.out.write(
            &self.file("status"),
            crate::results::record_line(&crate::results::SideStatus {
                exit: code,
                elapsed_ms: self.started.elapsed().as_millis() as u64,
                cannot_start: self.cannot_start.take(),
            }),
        );
        code
    }
}

/// One side of a scenario run alone on this host: a mesh's multicast
/// round starts its receivers (and waits until each is ready) and its
/// sender, each on its own host, with no session between them.
pub struct SideRun(Running);

impl SideRun {
    /// Starts `side` (`"server"` or `"client"`) of `s`, its result files in
    /// `cfg.out`; `None` when `s` has no such side.
    pub fn start(cfg: &AgentConfig, s: &Scenario, side: &str) -> Option<SideRun> {
        let cmd = match side {
            "server" => s.server.as_ref()?,
            _ => s.client.as_ref()?,
        };
        Some(SideRun(Running::start(cfg, s, side, cmd)))
    }

    /// Waits, bounded by `s`'s time limit, until it is ready by `s.ready`.
    pub fn wait_ready(&mut self, cfg: &AgentConfig, s: &Scenario) {
        let mut log = Log::new(out(cfg), "mcast");
        wait_ready(s, cfg.params.tcp_shift, &mut self.0, &mut log);
    }

    /// Waits for it to end (its `timeout` bounds it); its exit status.
    pub fn finish(self) -> i32 {
        self.0.finish()
    }
}

pub(super) fn wait_ready(s: &Scenario, shift: u16, server: &mut Running, log: &mut Log) {
    let deadline = Instant::now() + Duration::from_secs(s.timeout_secs.into());
    let stdout = server.file("stdout");
    loop {
        if is_ready(s.ready.shifted(shift), &server.out, &stdout) {
            log.say(&format!(
                "{}: server ready after {} ms",
                s.name,
                server.started.elapsed().as_millis()
            ));
            return;
        }
        if server.exited() {
            log.say(&format!("{}: server exited before it was ready", s.name));
            return;
        }
        if Instant::now() > deadline {
            log.say(&format!(
                "{}: server not ready in time; client runs anyway",
                s.name
            ));
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The server's result files of `name`, sent after its "end" so that the
/// client's result dir holds both sides.
const RESULT_EXTS: &[&str] = &["stdout", "stderr", "status", "leftover"];

pub(super) fn send_results(cfg: &AgentConfig, c: &mut Control, name: &str) -> Result<(), String> {
    use crate::guest::control::RESULT_MAX;
    for ext in RESULT_EXTS {
        if let Ok(mut bytes) = out(cfg).read(&result_file(name, "server", ext)) {
            if bytes.len() > RESULT_MAX {
                let note = format!("\n[cut at {} MiB by the serving host]\n", RESULT_MAX >> 20);
                bytes.truncate(RESULT_MAX - note.len());
                bytes.extend_from_slice(note.as_bytes());
            }
            c.send_blob(&format!("file {ext}"), &bytes)?;
        }
    }
    Ok(c.send(&format!("sent {name}"))?)
}

pub(super) fn receive_results(
    cfg: &AgentConfig,
    c: &mut Control,
    name: &str,
) -> Result<(), String> {
    let sent = format!("sent {name}");
    // One line per result file at most, then "sent".
    let line_max = "file leftover ".len() + 2 * crate::guest::control::RESULT_MAX;
    for _ in 0..=RESULT_EXTS.len() {
        let line = c.recv_max(&sent, SETUP_STEP, line_max)?;
        if line == sent {
            return Ok(());
        }
        let mut words = line.splitn(3, ' ');
        match (words.next(), words.next(), words.next()) {
            (Some("file"), Some(ext), Some(h)) if RESULT_EXTS.contains(&ext) => {
                let file = result_file(name, "server", ext);
                // The serving host's bytes, escaped before they reach a file.
                let text = escaped_bytes(&crate::guest::control::unhex(h)?);
                out(cfg)
                    .write(&file, text)
                    .map_err(|e| format!("{}: {e}", out(cfg).join(&file).display()))?;
            }
            _ => break,
        }
    }
    Err(format!(
        "control: the serving host sent more than its result files of {name} before `{sent}`"
    ))
}

/// Bytes from a peer or a program as the text a result file keeps: every
/// control and format character escaped but newlines and tabs
/// ([`crate::base::text::escape_controls`]), bytes that are not UTF-8 as
/// U+FFFD, so that a `cat` of the file obeys no escape sequence of theirs.
pub(super) fn escaped_bytes(bytes: &[u8]) -> String {
    crate::base::text::escape_controls(&String::from_utf8_lossy(bytes))
}

/// The file `name` in `out`, rewritten escaped ([`escaped_bytes`]) when
/// it holds anything to escape, and cut at what a result file may hold
/// ([`crate::guest::control::RESULT_MAX`]: a program that wrote more costs
/// this host no more memory than one that wrote that much).
pub(super) fn escape_file(out: &Dir, name: &str) {
    use crate::guest::control::RESULT_MAX;
    if let Ok((bytes, more)) = out.read_at_most(name, RESULT_MAX as u64) {
        let mut text = escaped_bytes(&bytes);
        if more {
            text += &format!("\n[cut at {} MiB by this host]\n", RESULT_MAX >> 20);
        }
        if text.as_bytes() != bytes.as_slice() {
            let _ = out.write(name, text);
        }
    }
}
