//! The session's connection: the serving host's listener, through the
//! gate, and the peer's attempts, each proving the shared secret.

use super::*;

/// The session's shared secret: the one this process holds, the
/// `--secret-file`'s, or [`crate::guest::control::SECRET_ENV`]'s.
pub(super) fn secret(cfg: &AgentConfig) -> Result<Secret, String> {
    match &cfg.secret {
        Some(s) => Ok(s.clone()),
        None => Ok(Secret::required(cfg.secret_file.as_deref())?),
    }
}

/// Waits up to `--wait` for a peer that proves it holds the secret:
/// handshakes run side by side ([`crate::guest::gate`]), so strangers, and
/// peers outside `--allow`, are turned away, each in one line, while the
/// wait goes on.
pub(super) fn control_server(
    cfg: &AgentConfig,
    secret: &Secret,
    log: &mut Log,
) -> Result<Control, AgentError> {
    use crate::guest::gate::{Event, Gate};
    let addr: SocketAddr = format!("{}:{}", cfg.ip, cfg.port)
        .parse()
        .map_err(|e| format!("control: {}: {e}", cfg.ip))?;
    let listener = TcpListener::bind(addr).map_err(|e| match e.kind() {
        std::io::ErrorKind::AddrInUse => AgentError::PortInUse {
            port: cfg.port,
            addr,
        },
        _ => AgentError::Failed(format!("control: bind {addr}: {e}")),
    })?;
    let mut gate = Gate::new(listener, cfg.allow.clone()).map_err(|e| format!("control: {e}"))?;
    log.say(&format!(
        "control: listening on {addr}, for {} s",
        cfg.wait_secs
    ));
    let deadline = Instant::now() + Duration::from_secs(cfg.wait_secs);
    let secret = secret.clone();
    let handshake = move |stream: TcpStream, peer: SocketAddr| {
        let mut c = Control::new(stream)?;
        match c.authenticate_server(&secret) {
            Ok(()) => Ok(c),
            Err(HandshakeError::Auth(why)) => Err(format!(
                "control: {}: the peer at {peer}: {why}",
                crate::guest::control::AUTH_FAILED
            )),
            Err(HandshakeError::Other(why)) => Err(format!("{why} (from {peer})")),
        }
    };
    let mut strangers = 0;
    while let Some(event) = gate.next(deadline, &handshake) {
        match event {
            Event::Done(Ok(c), peer) => {
                log.say(&format!("control: the peer connected from {peer}"));
                return Ok(c);
            }
            Event::Done(Err(why), _) => {
                strangers += 1;
                log.say(&why);
            }
            Event::NotAllowed(peer) => log.say(&format!(
                "control: refused a connection from {peer}: not an --allow address"
            )),
            Event::Full(ip) => log.say(&format!(
                "control: {ip} has {} handshakes under way: its next connections are closed \
                 until one ends",
                crate::guest::gate::PER_SOURCE
            )),
        }
    }
    Err(if strangers == 0 {
        format!(
            "control: no peer came to {addr} within {} s: start the lab with --peer {} on \
             the other host, and check that TCP port {} is open to it",
            cfg.wait_secs, cfg.ip, cfg.port
        )
    } else {
        format!(
            "control: no peer with this host's secret came to {addr} within {} s",
            cfg.wait_secs
        )
    }
    .into())
}

/// Connects to the serving host and proves the secret, with a fresh
/// connection after each failed attempt until `--wait` ends: a stranger
/// who holds a connection or answers falsely delays the peer, never
/// denies it.
pub(super) fn control_client(
    cfg: &AgentConfig,
    secret: &Secret,
    log: &mut Log,
) -> Result<Control, String> {
    let addr: SocketAddr = format!("{}:{}", cfg.params.server_ip, cfg.port)
        .parse()
        .map_err(|e| format!("control: {}: {e}", cfg.params.server_ip))?;
    let deadline = Instant::now() + Duration::from_secs(cfg.wait_secs);
    let mut last: Option<String> = None;
    let mut failed = 0;
    while Instant::now() < deadline {
        let Ok(stream) = TcpStream::connect_timeout(&addr, Duration::from_secs(2)) else {
            std::thread::sleep(Duration::from_millis(100));
            continue;
        };
        let left = deadline.saturating_duration_since(Instant::now());
        match Control::new(stream).and_then(|mut c| {
            c.authenticate_client(secret, left.clamp(Duration::from_secs(1), ATTEMPT))
                .map(|()| c)
        }) {
            Ok(c) => {
                log.say(&format!("control: connected to the peer at {addr}"));
                return Ok(c);
            }
            Err(e) => {
                // Each new reason once: a wrong secret is said once, not
                // at every attempt until --wait ends.
                let e = e.to_string();
                if last.as_ref() != Some(&e) {
                    log.say(&format!("{e} (at {addr}; trying again until --wait ends)"));
                }
                last = Some(e);
                failed += 1;
                std::thread::sleep(backoff(failed));
            }
        }
    }
    Err(match last {
        None => format!(
            "control: nothing answered at {addr} within {} s: start the lab with --serve on \
             that host first, and check that TCP port {} is open to this one",
            cfg.wait_secs, cfg.port
        ),
        Some(e) => format!(
            "control: no session with the serving host at {addr} within {} s; the last attempt: \
             {e}",
            cfg.wait_secs
        ),
    })
}

/// How long to wait before the next attempt after `failed` failed
/// handshakes: a quarter of a second, doubling up to 8 s, so a peer with
/// the wrong secret does not hammer the serving host.
pub fn backoff(failed: u32) -> Duration {
    Duration::from_millis(250u64 << failed.saturating_sub(1).min(5))
}

/// Why an agent's session failed, as its callers decide on it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// Another process holds the serving host's control port: neither
    /// host's nor the link's fault, and told as such.
    #[error(
        "control: port {port} on this host is in use by another process ({addr}): stop it, \
         or choose another --port"
    )]
    PortInUse {
        /// The port asked for.
        port: u16,
        /// The address it was to listen on.
        addr: SocketAddr,
    },
    /// Anything else, in one line.
    #[error("{0}")]
    Failed(String),
}

impl From<String> for AgentError {
    fn from(line: String) -> Self {
        AgentError::Failed(line)
    }
}

/// How long one attempt at the handshake may take the peer: the serving
/// host answers at once and bounds its side to
/// [`crate::guest::control::HANDSHAKE_SECS`], so a connection held longer
/// is a stranger's, and the peer tries a fresh one.
pub const ATTEMPT: Duration = Duration::from_secs(crate::guest::control::HANDSHAKE_SECS + 5);

/// How long a session's set-up steps may take the peer: its doctor runs
/// a few small tools.
pub(super) const SETUP_STEP: Duration = Duration::from_secs(60);
