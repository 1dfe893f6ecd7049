//! Why the control channel failed: a variant each, its message as the
//! lab prints it. The texts a peer sent are shown escaped
//! ([`crate::base::text::shown`]) before they are kept here.

use super::{AUTH_FAILED, HELLO, SECRET_ENV};
use std::io;

/// A failure of the control channel between two hosts.
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    /// The connection could not be set up for the channel.
    #[error("control: {0}")]
    Setup(#[source] io::Error),
    /// The peer did not take a whole line within the write bound.
    #[error("control: sending `{line}`: not taken by the peer within {secs} s")]
    SendTimedOut {
        /// The line, shown.
        line: String,
        /// The bound.
        secs: u64,
    },
    /// The connection closed while a line was sent.
    #[error("control: sending `{line}`: the connection is closed")]
    SendClosed {
        /// The line, shown.
        line: String,
    },
    /// The socket failed while a line was sent.
    #[error("control: sending `{line}`: {source}")]
    Send {
        /// The line, shown.
        line: String,
        /// The socket's error.
        source: io::Error,
    },
    /// The peer closed the connection while a line was awaited.
    #[error("control: the peer closed while we waited for `{want}`")]
    Closed {
        /// What was awaited.
        want: String,
    },
    /// No whole line came within its bound.
    #[error("control: no `{want}` from the peer within {secs} s")]
    TimedOut {
        /// What was awaited.
        want: String,
        /// The bound.
        secs: u64,
    },
    /// The peer's line ran past its size.
    #[error(
        "control: the peer sent a line longer than {bytes} bytes while we waited for `{want}`"
    )]
    TooLong {
        /// What was awaited.
        want: String,
        /// The line's bound.
        bytes: usize,
    },
    /// The socket failed while a line was awaited.
    #[error("control: waiting for `{want}`: {source}")]
    Recv {
        /// What was awaited.
        want: String,
        /// The socket's error.
        source: io::Error,
    },
    /// A line came, not the one awaited.
    #[error("control: got `{got}`, wanted `{want}`")]
    Unexpected {
        /// The line, shown.
        got: String,
        /// What was awaited.
        want: String,
    },
    /// A session line came without its MAC.
    #[error("control: a line without a MAC: `{0}`")]
    NoMac(String),
    /// A session line's MAC did not hold.
    #[error("control: a line with a bad MAC (forged, replayed or out of order): `{0}`")]
    BadMac(String),
    /// Hex of an odd length.
    #[error("control: odd hex")]
    OddHex,
    /// Hex with a character that is not a hex digit.
    #[error("control: bad hex")]
    BadHex,
    /// The serving host refused this host's proof, or failed its own.
    #[error(
        "control: {AUTH_FAILED}: the serving host does not hold the same secret \
         (--secret-file or {SECRET_ENV})"
    )]
    NotSameSecret,
    /// The peer did not prove that it holds this host's secret.
    #[error("it does not hold this host's secret")]
    PeerLacksSecret,
    /// The serving host's first answer was not a challenge.
    #[error(
        "control: the serving host said `{0}`, not a challenge: run the same version of \
         the lab on both hosts"
    )]
    NotAChallenge(String),
    /// The peer's first line was not a hello.
    #[error(
        "control: the peer said `{0}`, not `{HELLO} NONCE`: run the same version of \
         the lab on both hosts"
    )]
    NotAHello(String),
    /// No nonce could be made.
    #[error(transparent)]
    Secret(#[from] super::SecretError),
}

rdma_lab_core::message_of!(ControlError);

/// A handshake that did not end in a session.
#[derive(Debug)]
pub enum HandshakeError {
    /// The peer does not hold the secret, or did not prove it in time.
    Auth(ControlError),
    /// The connection or the protocol failed.
    Other(ControlError),
}
