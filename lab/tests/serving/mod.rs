//! A real serving agent (`rdma-lab agent --config F`, its role the server, as `lab --local
//! --serve` runs it) on 127.0.0.1, for the hostile-peer tests to attack.
#![allow(dead_code)]

use rdma_lab::guest::agent::{AgentConfig, Net, Role};
use rdma_lab::guest::control::{Control, Secret};
use rdma_lab::model::Params;
use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A key as `rdma-lab keygen` writes one.
pub const SECRET: &str = "9306cc4a4e6dbfdcb9738e1bf9ed50c39e9f03a23c00201bf49374083e678c94";

/// An agent on 127.0.0.1 in `role`, with no RDMA set-up of its own, its
/// results in `out`, the key in `secret`, meeting its peer on `port` and
/// waiting `wait` s for it.
pub fn loopback_agent(
    role: Role,
    out: PathBuf,
    secret: PathBuf,
    port: u16,
    wait: u64,
) -> AgentConfig {
    AgentConfig {
        role,
        ip: "127.0.0.1".into(),
        net: Net::None,
        out,
        bin_dir: "/nonexistent".into(),
        params: Params {
            server_ip: "127.0.0.1".into(),
            client_ip: "127.0.0.1".into(),
            ..Params::default()
        },
        scenarios: Vec::new(),
        wait_secs: wait,
        port,
        auto_gid: false,
        secret_file: Some(secret),
        secret: None,
        allow: Vec::new(),
        doctor_only: false,
        queue: None,
        dir: None,
    }
}

/// A serving agent and its private result dir.
pub struct Serving {
    pub child: Child,
    dir: tempfile::TempDir,
    port: u16,
}

impl Serving {
    /// Starts `rdma-lab agent` serving on a free port, waiting `wait` s for
    /// a peer, with [`SECRET`] in a mode-600 file.
    pub fn start(wait: u32) -> Serving {
        Serving::start_with(wait, |_| {})
    }

    /// [`Serving::start`], its configuration changed by `tweak` first.
    pub fn start_with(wait: u32, tweak: impl FnOnce(&mut AgentConfig)) -> Serving {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("secret");
        std::fs::write(&secret, SECRET).unwrap();
        std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
        let out = dir.path().join("out");
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut cfg = loopback_agent(Role::Server, out, secret, port, wait.into());
        tweak(&mut cfg);
        let config = dir.path().join("agent.json");
        std::fs::write(&config, cfg.to_json()).unwrap();
        let args = [
            "agent".to_string(),
            "--config".into(),
            config.to_string_lossy().into_owned(),
        ];
        let child = Command::new(env!("CARGO_BIN_EXE_rdma-lab"))
            .args(&args)
            .env_remove(rdma_lab::guest::control::SECRET_ENV)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let s = Serving { child, dir, port };
        // Listening once it logged so.
        let deadline = Instant::now() + Duration::from_secs(10);
        while !s.log().contains("control: listening") {
            assert!(Instant::now() < deadline, "the agent did not listen");
            std::thread::sleep(Duration::from_millis(20));
        }
        s
    }

    pub fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    pub fn log(&self) -> String {
        String::from_utf8_lossy(&std::fs::read(self.out().join("agent.log")).unwrap_or_default())
            .into_owned()
    }

    /// The port it serves on.
    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn connect(&self) -> TcpStream {
        TcpStream::connect(("127.0.0.1", self.port)).unwrap()
    }

    /// An authenticated session, as a legitimate peer opens it.
    pub fn session(&self) -> Control {
        let mut c = Control::new(self.connect()).unwrap();
        let secret = Secret::from_text(SECRET, "test").unwrap();
        c.authenticate_client(&secret, Duration::from_secs(5))
            .unwrap();
        c
    }

    /// Waits for the agent to end (within `secs`), and its log.
    pub fn finish(mut self, secs: u64) -> (i32, String, Self) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        let code = loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                break st.code().unwrap_or(-1);
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the agent ran past {secs} s:\n{}", self.log());
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        (code, self.log(), self)
    }

    /// The result files of any scenario, which must be none.
    pub fn ran(&self) -> Vec<String> {
        std::fs::read_dir(self.out())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| {
                !n.starts_with("agent.") && (n.ends_with(".stdout") || n.ends_with(".status"))
            })
            .collect()
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The largest resident size of any child this test process has waited
/// for (every one an agent or an xtask command) stayed under 64 MiB.
pub fn assert_children_stayed_small() {
    use nix::sys::resource::{getrusage, UsageWho};
    let kib = getrusage(UsageWho::RUSAGE_CHILDREN).unwrap().max_rss();
    assert!(kib < 64 * 1024, "a child grew to {kib} KiB");
}

/// The lines of `log` that say `what`.
pub fn lines_with<'a>(log: &'a str, what: &str) -> Vec<&'a str> {
    log.lines().filter(|l| l.contains(what)).collect()
}

pub fn read_all(s: &mut TcpStream) -> String {
    s.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
    let mut got = Vec::new();
    let _ = s.read_to_end(&mut got);
    String::from_utf8_lossy(&got).into_owned()
}

/// A connection to 127.0.0.1:`port` from the loopback address `from`: a
/// stranger on another host, as the serving host sees it.
pub fn connect_from(from: std::net::Ipv4Addr, port: u16) -> TcpStream {
    try_connect_from(from, port).expect("a connection from another loopback address")
}

/// [`connect_from`], or `None` when the connection fails.
pub fn try_connect_from(from: std::net::Ipv4Addr, port: u16) -> Option<TcpStream> {
    use nix::sys::socket::{bind, connect, socket, AddressFamily, SockFlag, SockType, SockaddrIn};
    use std::net::{Ipv4Addr, SocketAddrV4};
    use std::os::fd::AsRawFd;
    let fd = socket(
        AddressFamily::Inet,
        SockType::Stream,
        SockFlag::empty(),
        None,
    )
    .ok()?;
    bind(
        fd.as_raw_fd(),
        &SockaddrIn::from(SocketAddrV4::new(from, 0)),
    )
    .ok()?;
    let to = SocketAddrV4::new(Ipv4Addr::LOCALHOST, port);
    connect(fd.as_raw_fd(), &SockaddrIn::from(to)).ok()?;
    Some(TcpStream::from(fd))
}

/// A new key file `key` in `dir` holding `text`, mode 600, as `rdma-lab
/// keygen` writes one.
pub fn key_file(dir: &std::path::Path, text: &str) -> PathBuf {
    let key = dir.join("key");
    let _ = std::fs::remove_file(&key);
    std::fs::write(&key, format!("{}\n", text.trim())).unwrap();
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    key
}

/// The real binary as rank 1 of a mesh of two, its coordinator on
/// 127.0.0.1:`port`, no secret from the environment: the rest of its
/// command line is the caller's.
pub fn mesh_rank1(port: u16) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rdma-lab"));
    c.args(["mesh", "--rank", "1", "--size", "2", "--coordinator"])
        .args(["127.0.0.1", "--port", &port.to_string()])
        .env_remove(rdma_lab::guest::control::SECRET_ENV);
    c
}
