//! The TCP side channel of the verbs-only examples (manual 7.1.5, 7.1.9).
//!
//! The examples exchange their QP numbers, LIDs, GIDs and buffer keys over an
//! ordinary TCP connection before the RDMA traffic starts.

use std::io::{ErrorKind, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use socket2::{Domain, Socket, Type};

use crate::error::{Error, Result};

/// How long a client tries to reach the server before giving up.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);

/// How long `sock_sync_data` waits for the peer's data before giving up, so a
/// peer that hangs cannot hang us (a peer that dies closes the socket and is
/// reported at once).
pub const SYNC_TIMEOUT: Duration = Duration::from_secs(60);

/// Connect the side channel (manual 7.1.5 `sock_connect`).
///
/// With `server_name`, connect to it (IPv4, as the original's `AF_INET` hints);
/// without, listen on every local address at `port` and accept one client.
pub fn sock_connect(server_name: Option<&str>, port: u16) -> Result<TcpStream> {
    match server_name {
        Some(host) => connect(host, port),
        None => accept_one(port),
    }
}

/// The side channel's timeouts on `stream`, so that a peer that stops
/// answering is an error after [`SYNC_TIMEOUT`] rather than a hang.
pub fn with_timeouts(stream: TcpStream) -> Result<TcpStream> {
    stream
        .set_read_timeout(Some(SYNC_TIMEOUT))
        .map_err(|e| Error::io("setsockopt(SO_RCVTIMEO)", &e))?;
    stream
        .set_write_timeout(Some(SYNC_TIMEOUT))
        .map_err(|e| Error::io("setsockopt(SO_SNDTIMEO)", &e))?;
    Ok(stream)
}

/// The IPv4 addresses of `host` (the originals' `AF_INET` hints), or why
/// there are none.
pub fn resolve_ipv4(host: &str, port: u16) -> Result<Vec<SocketAddr>> {
    let addrs: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|e| Error::msg(format!("getaddrinfo failed for {host}:{port}: {e}")))?
        .filter(SocketAddr::is_ipv4)
        .collect();
    if addrs.is_empty() {
        return Err(Error::msg(format!(
            "getaddrinfo failed for {host}:{port}: no IPv4 address"
        )));
    }
    Ok(addrs)
}

/// A new IPv4 TCP socket.
pub fn tcp_socket() -> Result<Socket> {
    Socket::new(Domain::IPV4, Type::STREAM, None).map_err(|e| Error::io("socket", &e))
}

/// Connect `sock` to `addr` within [`CONNECT_TIMEOUT`], with the side
/// channel's timeouts.
pub fn connect_within(sock: Socket, addr: SocketAddr) -> Result<TcpStream> {
    sock.connect_timeout(&addr.into(), CONNECT_TIMEOUT)
        .map_err(|e| Error::io(&format!("connect to {addr}"), &e))?;
    with_timeouts(sock.into())
}

/// Bind `sock` to every local IPv4 address at `port`.
pub fn bind_any(sock: &Socket, port: u16) -> Result<()> {
    // A server restarted right after a run must not fail on the old connection's TIME_WAIT.
    sock.set_reuse_address(true)
        .map_err(|e| Error::io("setsockopt(SO_REUSEADDR)", &e))?;
    let addr = SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, port);
    sock.bind(&addr.into())
        .map_err(|e| Error::io(&format!("bind to port {port}"), &e))
}

/// Accept one client on `listener`, with the side channel's timeouts.
pub fn accept_with_timeouts(listener: &Socket) -> Result<(TcpStream, Option<SocketAddr>)> {
    let (conn, peer) = listener.accept().map_err(|e| Error::io("accept", &e))?;
    Ok((with_timeouts(conn.into())?, peer.as_socket()))
}

fn connect(host: &str, port: u16) -> Result<TcpStream> {
    let mut last = None;
    for addr in resolve_ipv4(host, port)? {
        match connect_within(tcp_socket()?, addr) {
            Ok(s) => return Ok(s),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| Error::msg("connect failed")))
}

fn accept_one(port: u16) -> Result<TcpStream> {
    let sock = tcp_socket()?;
    bind_any(&sock, port)?;
    sock.listen(1).map_err(|e| Error::io("listen", &e))?;
    Ok(accept_with_timeouts(&sock)?.0)
}

/// Send all of `local`, then read exactly `remote.len()` bytes from the peer
/// (manual 7.1.9 `sock_sync_data`).
///
/// Both sides call it in the same order, so each write is matched by the
/// peer's read. A peer that closes early, or sends less, is an error, and
/// so is one that has not sent the whole message within [`SYNC_TIMEOUT`]:
/// the bound is for the message, so a peer that trickles a byte at a time
/// cannot stretch it.
pub fn sock_sync_data(sock: &mut TcpStream, local: &[u8], remote: &mut [u8]) -> Result<()> {
    sync_within(sock, local, remote, SYNC_TIMEOUT)
}

/// [`sock_sync_data`] with the bound `limit` for the whole exchange.
fn sync_within(
    sock: &mut TcpStream,
    local: &[u8],
    remote: &mut [u8],
    limit: Duration,
) -> Result<()> {
    let deadline = Instant::now() + limit;
    let want = remote.len();
    let timeout = |what: &str, got: usize| sync_timeout(what, got, want, limit);
    // The socket's own timeouts bound each call; the deadline bounds them all.
    let time_left = |what: &str, got: usize| {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            Err(timeout(what, got))
        } else {
            Ok(Some(left))
        }
    };
    let timed_out =
        |e: &std::io::Error| matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut);
    let set = |r: std::io::Result<()>| {
        r.map_err(|e| Error::io("setsockopt(SO_SNDTIMEO/SO_RCVTIMEO)", &e))
    };

    set(sock.set_write_timeout(time_left("write", 0)?))?;
    sock.write_all(local)
        .and_then(|()| sock.flush())
        .map_err(|e| {
            if timed_out(&e) {
                timeout("write", 0)
            } else {
                Error::io("write", &e)
            }
        })?;
    let mut got = 0;
    while got < want {
        set(sock.set_read_timeout(time_left("read", got)?))?;
        match sock.read(&mut remote[got..]) {
            Ok(0) => {
                return Err(Error::msg(format!(
                    "read failed: the peer closed the connection after {got} of {want} bytes"
                )))
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) if timed_out(&e) => return Err(timeout("read", got)),
            Err(e) => return Err(Error::io("read", &e)),
        }
    }
    Ok(())
}

fn sync_timeout(what: &str, got: usize, want: usize, limit: Duration) -> Error {
    let secs = limit.as_secs_f64();
    Error::timed_out(match (what, got) {
        ("read", 1..) => {
            format!("read failed: the peer sent {got} of {want} bytes and no more within {secs} s")
        }
        _ => format!("{what} failed: no answer from the peer within {secs} s"),
    })
}

#[cfg(test)]
mod tests;
