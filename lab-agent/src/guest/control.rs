//! The control channel of a two-host session: lines over TCP, opened by a
//! challenge and response on a shared secret, every later line carrying a
//! MAC, every line bounded in size and in time.
//!
//! The handshake (the secret never crosses the wire):
//!
//! 1. peer: `hello rdma-examples lab 3 NC` (NC: 32 fresh random bytes, hex);
//! 2. serving host: `challenge NS PROOF_S`, with NS its own fresh nonce and
//!    `PROOF_S = HMAC(secret, "rdma-examples lab server" | NC | NS)`;
//! 3. peer: checks `PROOF_S`, then `proof PROOF_C`, with the label `client`;
//! 4. serving host: checks `PROOF_C`; `authentication failed` if wrong.
//!
//! From then on every line is `MAC BODY`, where MAC is the HMAC-SHA256 of
//! the sender's direction, the line's sequence number and BODY under the
//! session key `HMAC(secret, "rdma-examples lab session" | NC | NS)`. A
//! stranger on the path can neither inject a line nor replay one, from this
//! session or an older one. The channel is authenticated, not encrypted:
//! scenario names, findings and transcripts cross in the clear.

mod error;
mod keys;
pub use error::{ControlError, HandshakeError};

use crate::base::text::shown;
pub use crate::model::session::LINE_MAX;
use crate::model::session::{split_mac, MAC_HEX};
use hmac::{Hmac, Mac};
pub use keys::{in_lab_vm, VM_MARK, VM_TEST_KEY};
use sha2::Sha256;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

type HmacSha256 = Hmac<Sha256>;

/// The environment variable that can hold the shared secret (how a
/// launcher such as ssh or Slurm hands it over).
pub const SECRET_ENV: &str = "RDMA_LAB_SECRET";

/// A key's length in hex digits: 32 random bytes, 256 bits. The serving
/// host proves the secret over a nonce a stranger chose before the stranger
/// proves anything, so a secret a person could remember could be guessed
/// offline from one connection; a key of this many random bits cannot.
pub const KEY_HEX: usize = 64;

/// The longest line of the handshake.
pub const HANDSHAKE_MAX: usize = 256;

/// The largest result file (a side's stdout or stderr) that crosses: a
/// larger one is cut to this size by its sender.
pub const RESULT_MAX: usize = 4 << 20;

/// How long a connection may take to prove itself, the whole handshake.
pub const HANDSHAKE_SECS: u64 = 10;

/// How long one write may block on a peer that does not read.
pub const WRITE_SECS: u64 = 60;

/// The first words of a session: two different versions of the lab must
/// not walk two different lists.
pub const HELLO: &str = "hello rdma-examples lab 3";

/// The line a serving host answers a failed proof with.
pub const AUTH_FAILED: &str = "authentication failed";

/// The shared secret of a session. Its bytes are the text the user gave
/// (or [`Secret::generate`] made), so that it can be typed or pasted.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// Why a session has no usable secret: each its own variant, so that a
/// caller decides on what happened; the message (one line) says what to
/// do.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    /// Neither `--secret-file` nor [`SECRET_ENV`] was given.
    #[error(
        "no secret for the session: make a key with `rdma-lab keygen FILE` and give both \
         hosts that file with --secret-file FILE (mode 600) or its text in {SECRET_ENV}"
    )]
    Missing,
    /// The text is not a key of [`KEY_HEX`] hex digits (a pass phrase).
    #[error(
        "the secret in {from} is not a key of {KEY_HEX} hex digits (a pass phrase could \
         be guessed offline): make one with `rdma-lab keygen FILE` and give both hosts \
         that file"
    )]
    NotAKey {
        /// Where the text came from.
        from: String,
    },
    /// A key of the right form that is not random (why).
    #[error(
        "the secret in {from} is not a random key ({why}): make one with `rdma-lab \
         keygen FILE` and give both hosts that file"
    )]
    NotRandom {
        /// Where the text came from.
        from: String,
        /// What gives it away.
        why: String,
    },
    /// [`SECRET_ENV`] is not UTF-8.
    #[error("{SECRET_ENV} is not UTF-8")]
    EnvNotUtf8,
    /// The secret file could not be read.
    #[error("--secret-file {}: {source}", path.display())]
    Unreadable {
        /// The file.
        path: std::path::PathBuf,
        /// What the kernel said.
        source: io::Error,
    },
    /// The secret file is not a private file of this user's or root's.
    #[error("--secret-file {}: {source}", path.display())]
    NotPrivate {
        /// The file.
        path: std::path::PathBuf,
        /// Why not.
        source: crate::base::fsafe::NotPrivateFile,
    },
    /// A new secret file could not be written.
    #[error("{}: {source}", path.display())]
    Write {
        /// The file.
        path: std::path::PathBuf,
        /// What the kernel said.
        source: io::Error,
    },
    /// The OS gave no randomness.
    #[error("no randomness from the OS: {0}")]
    NoRandomness(getrandom::Error),
}

rdma_lab_core::message_of!(SecretError);

impl Secret {
    /// A fresh random secret: 32 bytes from the OS, as 64 hex digits (one
    /// that [`Secret::from_text`] would refuse, about once in 10^11, is
    /// drawn again).
    pub fn generate() -> Result<Secret, SecretError> {
        loop {
            let key = hex(&random32()?);
            if keys::not_random(&key).is_none() {
                return Ok(Secret(key));
            }
        }
    }

    /// A secret from text (a file's content, the environment), trimmed of
    /// surrounding white space: a key of [`KEY_HEX`] hex digits, as
    /// `rdma-lab keygen` writes one, and nothing a person chose.
    pub fn from_text(text: &str, from: &str) -> Result<Secret, SecretError> {
        let t = text.trim();
        let from = from.to_string();
        if t.len() != KEY_HEX || !t.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(SecretError::NotAKey { from });
        }
        let key = t.to_ascii_lowercase();
        if let Some(why) = keys::not_random(&key) {
            return Err(SecretError::NotRandom { from, why });
        }
        Ok(Secret(key))
    }

    /// The secret in `path`: a regular file (not a link, a FIFO or a
    /// device, opened without following a link or waiting on a writer),
    /// owned by this user or root, that no one else may read or write.
    pub fn from_file(path: &Path) -> Result<Secret, SecretError> {
        let failed = |source| SecretError::Unreadable {
            path: path.to_path_buf(),
            source,
        };
        let mut f = crate::base::fsafe::open_nofollow(path).map_err(failed)?;
        // The file opened, not the path again: nothing can swap it between.
        let meta = f.metadata().map_err(failed)?;
        crate::base::fsafe::own_private_file(&meta).map_err(|source| SecretError::NotPrivate {
            path: path.to_path_buf(),
            source,
        })?;
        let mut text = String::new();
        (&mut f)
            .take(4096)
            .read_to_string(&mut text)
            .map_err(failed)?;
        Secret::from_text(&text, &format!("--secret-file {}", path.display()))
    }

    /// The secret in [`SECRET_ENV`], if it is set.
    pub fn from_env() -> Option<Result<Secret, SecretError>> {
        let v = std::env::var_os(SECRET_ENV)?;
        Some(match v.to_str() {
            Some(t) => Secret::from_text(t, SECRET_ENV),
            None => Err(SecretError::EnvNotUtf8),
        })
    }

    /// The secret of `--secret-file` when given, else the environment's;
    /// `None` when there is neither.
    pub fn load(file: Option<&Path>) -> Option<Result<Secret, SecretError>> {
        match file {
            Some(f) => Some(Secret::from_file(f)),
            None => Secret::from_env(),
        }
    }

    /// [`Secret::load`], a missing secret an error too.
    pub fn required(file: Option<&Path>) -> Result<Secret, SecretError> {
        Secret::load(file).unwrap_or(Err(SecretError::Missing))
    }

    /// The text to hand to the peer host.
    pub fn text(&self) -> &str {
        &self.0
    }

    fn mac(&self, label: &str, nc: &[u8], ns: &[u8]) -> [u8; 32] {
        hmac(self.0.as_bytes(), &[label.as_bytes(), nc, ns])
    }

    /// A secret of its own for one `label` (a mesh's pair session, named
    /// by a fresh nonce): HMAC-SHA256 of the label under this secret. Two
    /// hosts that hold this secret derive the same one, so a label can
    /// travel in the clear while the derived secret never does.
    pub fn derive(&self, label: &str) -> Secret {
        Secret(hex(&hmac(
            self.0.as_bytes(),
            &[b"rdma-examples lab derive ", label.as_bytes()],
        )))
    }
}

/// 32 fresh random bytes from the OS as 64 hex digits: a nonce that names
/// something once.
pub fn nonce() -> Result<String, SecretError> {
    Ok(hex(&random32()?))
}

/// `rdma-lab keygen FILE`: a fresh key in a new file that only its owner
/// may read (as `mungekey` makes Munge's), to copy to every host.
pub fn keygen(path: &Path) -> Result<(), SecretError> {
    write_secret(path, &Secret::generate()?)
}

/// Writes `secret` to a new file that only its owner may read (it must not
/// exist: nothing planted there is followed).
pub fn write_secret(path: &Path, secret: &Secret) -> Result<(), SecretError> {
    use std::os::unix::fs::OpenOptionsExt;
    let failed = |source| SecretError::Write {
        path: path.to_path_buf(),
        source,
    };
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(failed)?;
    writeln!(f, "{}", secret.text()).map_err(failed)
}

fn hmac(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut m = HmacSha256::new_from_slice(key).expect("HMAC takes a key of any length");
    for p in parts {
        m.update(p);
    }
    m.finalize().into_bytes().into()
}

/// Whether `tag` is the HMAC of `parts` under `key`, compared in
/// constant time.
fn hmac_ok(key: &[u8], parts: &[&[u8]], tag: &[u8]) -> bool {
    let mut m = HmacSha256::new_from_slice(key).expect("HMAC takes a key of any length");
    for p in parts {
        m.update(p);
    }
    m.verify_slice(tag).is_ok()
}

fn random32() -> Result<[u8; 32], SecretError> {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).map_err(SecretError::NoRandomness)?;
    Ok(b)
}

/// Bytes as lowercase hex: any text, on one line of the control protocol.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes of [`hex`]'s text.
pub fn unhex(s: &str) -> Result<Vec<u8>, ControlError> {
    if s.len() % 2 != 0 {
        return Err(ControlError::OddHex);
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            s.get(i..i + 2)
                .and_then(|d| u8::from_str_radix(d, 16).ok())
                .ok_or(ControlError::BadHex)
        })
        .collect()
}

/// Why a bounded line could not be read.
#[derive(Debug)]
pub enum RecvError {
    /// The peer closed the connection.
    Closed,
    /// The deadline passed before the line was whole.
    TimedOut,
    /// The line ran past its bound (the bound).
    TooLong(usize),
    /// The socket failed.
    Io(io::Error),
}

/// Reads one line (without its newline) of at most `max` bytes from `r`,
/// calling `arm` before each read (to set the socket's timeout to what is
/// left of the deadline). Never holds more than `max` bytes of the line.
pub fn read_line_bounded<R: BufRead>(
    r: &mut R,
    max: usize,
    mut arm: impl FnMut() -> Result<(), RecvError>,
) -> Result<Vec<u8>, RecvError> {
    let mut line = Vec::new();
    loop {
        arm()?;
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Err(RecvError::TimedOut)
            }
            Err(e) => return Err(RecvError::Io(e)),
        };
        if buf.is_empty() {
            return Err(RecvError::Closed);
        }
        let (take, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (buf.len(), false),
        };
        if line.len() + take > max {
            return Err(RecvError::TooLong(max));
        }
        line.try_reserve_exact(take)
            .map_err(|_| RecvError::TooLong(max))?;
        line.extend_from_slice(&buf[..take]);
        r.consume(take + usize::from(done));
        if done {
            return Ok(line);
        }
    }
}

/// The session key and the two directions' sequence numbers.
struct Keys {
    key: [u8; 32],
    /// `b's'` on the serving host, `b'c'` on the peer.
    me: u8,
    sent: u64,
    received: u64,
}

impl Keys {
    fn tag(&self, from: u8, seq: u64, body: &str) -> [u8; 32] {
        hmac(&self.key, &[&[from], &seq.to_be_bytes(), body.as_bytes()])
    }
}

/// Opens a session line that `keys` expect next: its body, or why not.
fn open_line(keys: &mut Keys, line: &str) -> Result<String, ControlError> {
    let from = if keys.me == b's' { b'c' } else { b's' };
    let (mac, body) = split_mac(line).ok_or_else(|| ControlError::NoMac(shown(line)))?;
    let tag = unhex(mac)?;
    let seq = keys.received.to_be_bytes();
    if !hmac_ok(&keys.key, &[&[from], &seq, body.as_bytes()], &tag) {
        return Err(ControlError::BadMac(shown(body)));
    }
    keys.received += 1;
    Ok(body.to_string())
}

/// What one line may take: a deadline for the whole line, and a size.
struct Bound {
    deadline: Instant,
    /// The deadline as the stated bound, for the error.
    secs: u64,
    bytes: usize,
}

/// One end of the control channel; one reader for its whole life so that
/// no buffered line is ever dropped.
pub struct Control {
    writer: TcpStream,
    reader: BufReader<TcpStream>,
    keys: Option<Keys>,
    /// How long one whole line may take to be written.
    write_within: Duration,
}

impl Control {
    /// The channel over a connected stream.
    pub fn new(stream: TcpStream) -> Result<Control, ControlError> {
        // One segment per message, sent at once: the capture is cut at the
        // "begin" and "end" segments, which Nagle would hold back and merge.
        stream.set_nodelay(true).map_err(ControlError::Setup)?;
        let reader = BufReader::new(stream.try_clone().map_err(ControlError::Setup)?);
        Ok(Control {
            writer: stream,
            reader,
            keys: None,
            write_within: Duration::from_secs(WRITE_SECS),
        })
    }

    /// The connection itself: what a test's hostile stand-in writes past
    /// the protocol.
    pub fn stream(&self) -> &TcpStream {
        &self.writer
    }

    /// The peer's address.
    pub fn peer_addr(&self) -> Option<std::net::SocketAddr> {
        self.writer.peer_addr().ok()
    }

    fn send_raw(&mut self, line: &str) -> Result<(), ControlError> {
        let bytes = format!("{line}\n").into_bytes();
        // The whole line within its deadline, not each write: a peer that
        // reads a byte now and then cannot hold it longer.
        let deadline = Instant::now() + self.write_within;
        let failed = |source| ControlError::Send {
            line: shown(line),
            source,
        };
        let mut sent = 0;
        while sent < bytes.len() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(ControlError::SendTimedOut {
                    line: shown(line),
                    secs: self.write_within.as_secs(),
                });
            }
            self.writer.set_write_timeout(Some(left)).map_err(failed)?;
            // One write, so one segment, for a short line.
            match self.writer.write(&bytes[sent..]) {
                Ok(0) => return Err(ControlError::SendClosed { line: shown(line) }),
                Ok(n) => sent += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(failed(e)),
            }
        }
        Ok(())
    }

    /// Sends one line (with its MAC, once the session is open).
    pub fn send(&mut self, msg: &str) -> Result<(), ControlError> {
        match &mut self.keys {
            None => self.send_raw(msg),
            Some(k) => {
                let tag = k.tag(k.me, k.sent, msg);
                k.sent += 1;
                self.send_raw(&format!("{} {msg}", hex(&tag)))
            }
        }
    }

    /// Sends `tag HEX`: text of any kind as one line.
    pub fn send_blob(&mut self, tag: &str, bytes: &[u8]) -> Result<(), ControlError> {
        self.send(&format!("{tag} {}", hex(bytes)))
    }

    /// The next line, whole within `within` and at most `max` bytes.
    fn recv_raw(
        &mut self,
        want: &str,
        within: Duration,
        max: usize,
    ) -> Result<String, ControlError> {
        let bound = Bound {
            deadline: Instant::now() + within,
            secs: within.as_secs(),
            bytes: max,
        };
        self.recv_bounded(want, &bound, 0)
    }

    /// The next line by `bound`; `extra` bytes on top of its size for
    /// the MAC, which the error does not count.
    fn recv_bounded(
        &mut self,
        want: &str,
        bound: &Bound,
        extra: usize,
    ) -> Result<String, ControlError> {
        let deadline = bound.deadline;
        let stream = &self.writer;
        let arm = || {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(RecvError::TimedOut);
            }
            stream.set_read_timeout(Some(left)).map_err(RecvError::Io)
        };
        let want = want.to_string();
        match read_line_bounded(&mut self.reader, bound.bytes + extra, arm) {
            Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
            Err(RecvError::Closed) => Err(ControlError::Closed { want }),
            Err(RecvError::TimedOut) => Err(ControlError::TimedOut {
                want,
                secs: bound.secs,
            }),
            Err(RecvError::TooLong(_)) => Err(ControlError::TooLong {
                want,
                bytes: bound.bytes,
            }),
            Err(RecvError::Io(source)) => Err(ControlError::Recv { want, source }),
        }
    }

    /// The next line's body, within `within`, of at most `max` bytes.
    pub fn recv_max(
        &mut self,
        want: &str,
        within: Duration,
        max: usize,
    ) -> Result<String, ControlError> {
        let bound = Bound {
            deadline: Instant::now() + within,
            secs: within.as_secs(),
            bytes: max,
        };
        let line = self.recv_bounded(want, &bound, MAC_HEX + 1)?;
        match &mut self.keys {
            None => Ok(line),
            Some(k) => open_line(k, &line),
        }
    }

    /// The next line's body, within `within`: at most [`LINE_MAX`] bytes.
    pub fn recv(&mut self, want: &str, within: Duration) -> Result<String, ControlError> {
        self.recv_max(want, within, LINE_MAX)
    }

    /// The next line, which must be `want`.
    pub fn expect(&mut self, want: &str, within: Duration) -> Result<(), ControlError> {
        let line = self.recv(want, within)?;
        if line == want {
            Ok(())
        } else {
            Err(ControlError::Unexpected {
                got: shown(&line),
                want: want.to_string(),
            })
        }
    }

    /// The payload of the next line, which must be `tag HEX`.
    pub fn expect_blob(&mut self, tag: &str, within: Duration) -> Result<Vec<u8>, ControlError> {
        let line = self.recv(tag, within)?;
        match line.split_once(' ') {
            Some((t, h)) if t == tag => unhex(h),
            _ if line == tag => Ok(Vec::new()),
            _ => Err(ControlError::Unexpected {
                got: shown(&line),
                want: format!("{tag} ..."),
            }),
        }
    }

    /// The serving host's half of the handshake, all of it within
    /// [`HANDSHAKE_SECS`].
    pub fn authenticate_server(&mut self, secret: &Secret) -> Result<(), HandshakeError> {
        let other = HandshakeError::Other;
        // One deadline for the whole handshake, not one per line.
        let bound = Bound {
            deadline: Instant::now() + Duration::from_secs(HANDSHAKE_SECS),
            secs: HANDSHAKE_SECS,
            bytes: HANDSHAKE_MAX,
        };
        let hello = self
            .recv_bounded(HELLO, &bound, 0)
            .map_err(HandshakeError::Auth)?;
        let nc = hello
            .strip_prefix(HELLO)
            .and_then(|r| r.strip_prefix(' '))
            .and_then(|h| unhex(h).ok())
            .filter(|n| n.len() == 32)
            .ok_or_else(|| other(ControlError::NotAHello(shown(&hello))))?;
        let ns = random32().map_err(|e| other(e.into()))?;
        let proof = secret.mac("rdma-examples lab server", &nc, &ns);
        self.send_raw(&format!("challenge {} {}", hex(&ns), hex(&proof)))
            .map_err(other)?;
        let answer = self
            .recv_bounded("proof", &bound, 0)
            .map_err(HandshakeError::Auth)?;
        let theirs = answer
            .strip_prefix("proof ")
            .and_then(|h| unhex(h).ok())
            .unwrap_or_default();
        let key = secret.0.as_bytes();
        if !hmac_ok(key, &[b"rdma-examples lab client", &nc, &ns], &theirs) {
            let _ = self.send_raw(AUTH_FAILED);
            return Err(HandshakeError::Auth(ControlError::PeerLacksSecret));
        }
        self.open(secret, &nc, &ns, b's');
        self.send("authenticated").map_err(other)
    }

    /// The peer's half of the handshake.
    pub fn authenticate_client(
        &mut self,
        secret: &Secret,
        within: Duration,
    ) -> Result<(), ControlError> {
        let nc = random32()?;
        self.send_raw(&format!("{HELLO} {}", hex(&nc)))?;
        let failed = || ControlError::NotSameSecret;
        let line = self.recv_raw("challenge", within, HANDSHAKE_MAX)?;
        if line == AUTH_FAILED {
            return Err(failed());
        }
        let mut words = line.split(' ');
        let (Some("challenge"), Some(ns), Some(proof), None) =
            (words.next(), words.next(), words.next(), words.next())
        else {
            return Err(ControlError::NotAChallenge(shown(&line)));
        };
        let (ns, proof) = (unhex(ns)?, unhex(proof)?);
        let key = secret.0.as_bytes();
        if !hmac_ok(key, &[b"rdma-examples lab server", &nc, &ns], &proof) {
            let _ = self.send_raw(AUTH_FAILED);
            return Err(failed());
        }
        let mine = secret.mac("rdma-examples lab client", &nc, &ns);
        self.send_raw(&format!("proof {}", hex(&mine)))?;
        self.open(secret, &nc, &ns, b'c');
        match self.recv_raw("authenticated", within, HANDSHAKE_MAX)? {
            l if l == AUTH_FAILED => Err(failed()),
            l => {
                let keys = self.keys.as_mut().expect("opened above");
                match open_line(keys, &l)? {
                    b if b == "authenticated" => Ok(()),
                    b => Err(ControlError::Unexpected {
                        got: shown(&b),
                        want: "authenticated".into(),
                    }),
                }
            }
        }
    }

    fn open(&mut self, secret: &Secret, nc: &[u8], ns: &[u8], me: u8) {
        self.keys = Some(Keys {
            key: secret.mac("rdma-examples lab session", nc, ns),
            me,
            sent: 0,
            received: 0,
        });
    }
}

#[cfg(test)]
mod tests;
