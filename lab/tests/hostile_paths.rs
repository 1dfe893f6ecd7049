//! Another local user against the result dirs of a root run (issue 44):
//! `nobody` keeps swapping the dirs root's mesh rank writes into for
//! links to a dir of its own, in which it planted links to files only
//! root may write. Root's rank 0 (the real binary, which coordinates; its
//! own host part cannot play, `--dev` naming no device, and says so) runs
//! from a shared directory (mode 777, no sticky bit, as a group's project
//! dir often is); two stand-in hosts on 127.0.0.1 play the pair whose
//! transcripts root writes.

mod serving;
mod standins;

use std::io::BufRead as _;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The uid and gid of `nobody`, the other local user.
const NOBODY: u32 = 65534;

/// What the victim's files hold, before and, if nothing is written
/// through a link, after.
const VICTIM: &str = "root's alone\n";

/// The transcripts the pair writes for rc_example, where the victim's
/// files are named so: a write through a planted link lands on them.
const TRANSCRIPTS: &[&str] = &["rc_example.server.txt", "rc_example.client.txt"];

/// The stand-ins' pair, as the transcripts' dir names it.
const PAIRS: &[&str] = &["1-2", "2-1"];

fn chmod(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// The scene: a shared dir (777, no sticky bit) to run from; nobody's
/// own dir, laid out as root's results would be, whose pairs' dirs are
/// links to root's private dir of mode-600 files; root's key; rank 1's
/// result dir; and a copy of `rdma-lab` with an example beside it, as a
/// host without the source tree runs it.
struct Scene {
    _tmp: tempfile::TempDir,
    shared: PathBuf,
    nobodys: PathBuf,
    victim: PathBuf,
    key: PathBuf,
    secret: rdma_lab::guest::control::Secret,
    lab: PathBuf,
}

impl Scene {
    fn new() -> Scene {
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path();
        chmod(t, 0o755);
        let shared = t.join("shared");
        std::fs::create_dir(&shared).unwrap();
        chmod(&shared, 0o777);
        let victim = t.join("victim");
        std::fs::create_dir(&victim).unwrap();
        for f in TRANSCRIPTS {
            std::fs::write(victim.join(f), VICTIM).unwrap();
            chmod(&victim.join(f), 0o600);
        }
        chmod(&victim, 0o700);
        let nobodys = t.join("nobodys");
        for pairs in ["pairs", "mesh/pairs"] {
            std::fs::create_dir_all(nobodys.join(pairs)).unwrap();
            for pair in PAIRS {
                std::os::unix::fs::symlink(&victim, nobodys.join(pairs).join(pair)).unwrap();
            }
        }
        Command::new("chown")
            .args(["-hR", "nobody:", &nobodys.to_string_lossy()])
            .status()
            .unwrap();
        let key = t.join("key");
        let secret = rdma_lab::guest::control::Secret::generate().unwrap();
        std::fs::write(&key, format!("{}\n", secret.text())).unwrap();
        chmod(&key, 0o600);
        let copy = t.join("copy");
        std::fs::create_dir(&copy).unwrap();
        let lab = copy.join("rdma-lab");
        std::fs::copy(env!("CARGO_BIN_EXE_rdma-lab"), &lab).unwrap();
        std::fs::write(copy.join("rc_example"), "").unwrap();
        Scene {
            _tmp: tmp,
            shared,
            nobodys,
            victim,
            key,
            secret,
            lab,
        }
    }

    /// Root's `rdma-lab mesh`, rank 0 of three on 127.0.0.1:`port`, from
    /// `cwd`, with `extra` arguments; the lines it prints, as they come.
    fn rank0(&self, port: u16, cwd: &Path, extra: &[&str]) -> (Child, Lines) {
        let mut cmd = Command::new(&self.lab);
        cmd.args([
            "mesh",
            "--rank",
            "0",
            "--size",
            "3",
            "--coordinator",
            "127.0.0.1",
        ])
        .args([
            "--port",
            &port.to_string(),
            "--dev",
            "norxe0",
            "--wait",
            "30",
        ])
        .args(["--bin-dir", "/nonexistent", "--secret-file"])
        .arg(&self.key)
        .args(extra)
        .arg("rc_example")
        .current_dir(cwd)
        .env_remove(rdma_lab::guest::control::SECRET_ENV)
        .env_remove("CARGO_TARGET_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        // The copy may still be open for writing in a child another test
        // forked meanwhile (until it execs): "text file busy", a moment.
        let mut child = (0..100)
            .find_map(|_| match cmd.spawn() {
                Err(e) if e.raw_os_error() == Some(nix::errno::Errno::ETXTBSY as i32) => {
                    std::thread::sleep(Duration::from_millis(50));
                    None
                }
                other => Some(other.unwrap()),
            })
            .expect("the copy of rdma-lab starts");
        let lines = Lines::default();
        let (out, kept) = (child.stdout.take().unwrap(), lines.clone());
        std::thread::spawn(move || {
            for l in std::io::BufReader::new(out).lines().map_while(Result::ok) {
                kept.0.lock().unwrap().push(l);
            }
        });
        (child, lines)
    }

    /// The two stand-in hosts, ranks 1 and 2, each holding its pair 2 s.
    fn stand_ins(&self, port: u16) -> Vec<std::thread::JoinHandle<()>> {
        let addr: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let plays = |_| standins::Behaviour::Plays;
        standins::stand_ins(addr, &self.secret, 1..=2, plays, Duration::from_secs(2))
    }

    /// `nobody`, from the shared dir, swapping `name` there for a link to
    /// its own dir whenever it is a dir, until the file `stop` appears.
    fn swapper(&self, name: &str, stop: &Path) -> Child {
        let script = "while [ ! -e \"$3\" ]; do
  if [ -d \"$1\" ] && [ ! -L \"$1\" ]; then
    mv \"$1\" \"$1.moved.$(date +%s%N)\" && ln -s \"$2\" \"$1\"
  fi
  sleep 0.01
done";
        Command::new("sh")
            .args(["-c", script, "sh", name])
            .arg(&self.nobodys)
            .arg(stop)
            .current_dir(&self.shared)
            .uid(NOBODY)
            .gid(NOBODY)
            .spawn()
            .unwrap()
    }

    /// Every file under nobody's dir that is not a link it planted.
    fn landed_in_nobodys(&self) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut todo = vec![self.nobodys.clone()];
        while let Some(d) = todo.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let t = e.file_type().unwrap();
                if t.is_dir() {
                    todo.push(e.path());
                } else if !t.is_symlink() {
                    found.push(e.path());
                }
            }
        }
        found
    }

    /// That nothing of root's run is in nobody's dir and every mode-600
    /// file of root's private dir holds what it held.
    fn assert_nothing_went_through(&self) {
        assert_eq!(self.landed_in_nobodys(), Vec::<PathBuf>::new());
        for f in TRANSCRIPTS {
            let p = self.victim.join(f);
            assert_eq!(
                std::fs::read_to_string(&p).unwrap(),
                VICTIM,
                "{}",
                p.display()
            );
            let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
    }
}

/// The lines a child printed so far.
#[derive(Clone, Default)]
struct Lines(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl Lines {
    fn any(&self, start: &str) -> bool {
        self.0.lock().unwrap().iter().any(|l| l.starts_with(start))
    }

    fn all(&self) -> String {
        self.0.lock().unwrap().join("\n")
    }
}

/// Waits until `child` ends or `trigger` holds, for at most `secs`.
fn until(child: &mut Child, secs: u64, trigger: &dyn Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while child.try_wait().unwrap().is_none() && !trigger() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The exit code and stderr of `child`, killed after `secs`.
fn finish(mut child: Child, secs: u64) -> (Option<i32>, String) {
    until(&mut child, secs, &|| false);
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The scene, the coordinator's port and the file that stops nobody's
/// swapping; `None` (the test is skipped) when this is not root, who
/// alone can run as root and as nobody.
fn scene() -> Option<(Scene, u16, PathBuf)> {
    if !nix::unistd::geteuid().is_root() {
        println!("skipped: needs root, to run as root and as nobody");
        return None;
    }
    let s = Scene::new();
    let stop = s.shared.parent().unwrap().join("stop");
    Some((s, standins::free_port(), stop))
}

/// Root's rank without `--out`, from the shared dir: the dir is refused as
/// the default result root, in one line that says to pass `--out`, before
/// anything is made there; nobody, who swaps `./rdma-lab` for a link as
/// soon as root's `./rdma-lab/mesh` exists, gets nothing (before, root
/// checked `./rdma-lab` once, then wrote its transcripts through the link
/// over root's own mode-600 files).
#[test]
fn a_shared_working_directory_is_no_result_root() {
    let Some((s, port, stop)) = scene() else {
        return;
    };
    let (mut zero, _) = s.rank0(port, &s.shared, &[]);
    let mesh = s.shared.join("rdma-lab/mesh");
    until(&mut zero, 60, &|| mesh.exists());
    let mut nobody = s.swapper("rdma-lab", &stop);
    // The hosts come once root took the dir (if it ever does).
    let hosts = if mesh.exists() {
        s.stand_ins(port)
    } else {
        Vec::new()
    };
    let (code, err) = finish(zero, 120);
    std::fs::write(&stop, "").unwrap();
    let _ = nobody.wait();
    s.assert_nothing_went_through();
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("the working directory {}", s.shared.display()))
            && err.contains("pass --out DIR"),
        "{err}"
    );
    assert!(!s.shared.join("rdma-lab").exists(), "nothing made there");
    for h in hosts {
        h.join().unwrap();
    }
}

/// Root's rank with `--out` to a root-owned dir in the shared dir, which
/// nobody swaps for a link to its own as soon as the run has begun
/// writing there: every file of the run lands in the run's own dir, inside
/// the dir root opened (now renamed), and nothing in nobody's dir or
/// through its links (before, every later path was resolved again: root's
/// results went to nobody's dir and its transcripts over root's files).
#[test]
fn a_result_root_swapped_for_a_link_after_it_was_opened_changes_nothing() {
    let Some((s, port, stop)) = scene() else {
        return;
    };
    let out = s.shared.join("out");
    std::fs::create_dir(&out).unwrap();
    chmod(&out, 0o700);
    let (mut zero, lines) = s.rank0(port, &s.shared, &["--out", "out"]);
    let hosts = s.stand_ins(port);
    // Once the pairs are handed out: the run wrote there already (its
    // dir), the transcripts come 2 s later at the earliest.
    until(&mut zero, 60, &|| lines.any("mesh: round 1 of "));
    let mut nobody = s.swapper("out", &stop);
    let (code, err) = finish(zero, 120);
    std::fs::write(&stop, "").unwrap();
    let _ = nobody.wait();
    for h in hosts {
        h.join().unwrap();
    }
    let stdout = lines.all();
    assert!(
        std::fs::symlink_metadata(&out).unwrap().is_symlink(),
        "nobody swapped it: {code:?}\n{}\n{err}",
        lines.all()
    );
    assert!(!err.contains("rdma-lab: "), "the run went on: {err}");
    assert!(
        stdout.contains("mesh: writing the pairs' transcripts"),
        "{code:?}\n{stdout}\n{err}"
    );
    s.assert_nothing_went_through();
    // Everything is in the dir root opened, renamed by nobody: its run's
    // dir, with rank 0's results and the pair's transcripts.
    let moved: Vec<PathBuf> = std::fs::read_dir(&s.shared)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().contains("out.moved."))
        .collect();
    assert_eq!(moved.len(), 1, "{moved:?}");
    let runs: Vec<PathBuf> = std::fs::read_dir(&moved[0])
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(runs.len(), 1, "one run dir: {runs:?}");
    let run = &runs[0];
    assert_eq!(
        std::fs::metadata(run).unwrap().permissions().mode() & 0o777,
        0o700
    );
    assert!(run.join("rank0").is_dir());
    let pair = PAIRS
        .iter()
        .map(|p| run.join("pairs").join(p))
        .find(|p| p.is_dir())
        .expect("the pair's transcripts");
    assert!(pair.join("rc_example.client.txt").is_file());
}

/// `lab --local --out DIR` with a DIR other users may write without the
/// sticky bit: refused in one line naming it and its mode, before anything
/// runs or is made there.
#[test]
fn lab_local_refuses_a_result_root_others_could_swap_entries_in() {
    let t = tempfile::tempdir().unwrap();
    let shared = t.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    chmod(&shared, 0o777);
    let bin = t.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::fs::write(bin.join("rc_example"), "").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rdma-lab"))
        .args(["lab", "--local", "--dev", "rxe0", "--bin-dir"])
        .arg(&bin)
        .arg("--out")
        .arg(&shared)
        .arg("rc_example")
        .env_remove("CARGO_TARGET_DIR")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("--out {}", shared.display()))
            && err.contains("without the sticky bit (mode 777)"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(&shared).unwrap().count(), 0);
}
