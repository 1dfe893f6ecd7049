//! The passive (server) side of Bedeir's "Building an RDMA-Capable Application
//! with IB Verbs", section 2: listen with rdma_cm, accept each connection,
//! exchange one message, and keep serving until SIGINT/SIGTERM.
//!
//! Usage: `rdmacm_server [bind-address [port]]`; with no address it listens on
//! every RDMA device, and with no port rdma_cm picks one (as in the paper).

use std::net::{Ipv4Addr, SocketAddr, ToSocketAddrs};
use std::process::ExitCode;

use common::cm::{CmEventType, ConnParam, EventChannel, PortSpace};
use common::exit_code;
// stdout that cannot be written ends the program in one line, not a panic.
use common::println;
use common::signals::{install_stop_handler, stop_requested};
use common::{Error, Result};
use rdmacm_client_server::{on_connection, unknown_event, Side, State};

/// Parse `[bind-address [port]]`.
fn parse_args(args: &[impl AsRef<str>]) -> std::result::Result<SocketAddr, String> {
    let args: Vec<&str> = args.iter().map(AsRef::as_ref).collect();
    let port = match args.get(1) {
        None => 0,
        Some(p) => p
            .parse::<u16>()
            .map_err(|_| format!("invalid port '{p}' (expected 0..65535)"))?,
    };
    if args.len() > 2 {
        return Err(format!("unexpected argument '{}'", args[2]));
    }
    match args.first() {
        None => Ok(SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0))),
        // getaddrinfo would take "12345" for the address 0.0.48.57.
        Some(host)
            if args.len() == 1 && !host.is_empty() && host.bytes().all(|b| b.is_ascii_digit()) =>
        {
            Err(format!(
                "'{host}' is a port, not an address: give the address first (e.g. 0.0.0.0 {host})"
            ))
        }
        Some(host) => (*host, port)
            .to_socket_addrs()
            .ok()
            .and_then(|mut a| a.find(SocketAddr::is_ipv4))
            .ok_or_else(|| {
                format!("getaddrinfo failed for '{host}': not a resolvable IPv4 address")
            }),
    }
    .map(|mut a| {
        a.set_port(port);
        a
    })
}

/// on_connect_request: build the verbs context (first time only), the QP and
/// buffers, pre-post the receive, and accept.
fn on_connect_request(state: &mut State, ev: &mut common::cm::CmEvent) -> Result<()> {
    println!("received connection request.");
    let id = ev
        .take_new_id()
        .ok_or_else(|| Error::msg("connect request without a new id"))?;
    // On failure the id is destroyed, which rejects the request.
    let conn = state.build_connection(id)?;
    conn.id.accept(&ConnParam::default())
}

/// on_disconnect: release the connection (QP, buffers, id) and keep serving.
fn on_disconnect(state: &mut State, id_key: usize) -> Result<bool> {
    println!("peer disconnected.");
    if let Some(failure) = state.release_connection(id_key)? {
        eprintln!("{failure}");
    }
    Ok(false)
}

/// What failed for one client ends that client's connection, not the server:
/// report it in one line and keep serving the others. (The paper's die()
/// let one client that vanished mid-connect take the server down.)
fn drop_on_error(state: &State, id_key: usize, result: Result<()>) -> Result<bool> {
    if let Err(e) = result {
        eprintln!("{e}; connection dropped");
        state.drop_connection(id_key)?;
    }
    Ok(false)
}

/// on_event: dispatch the events the passive side expects.
fn on_event(state: &mut State, mut ev: common::cm::CmEvent) -> Result<bool> {
    match ev.event {
        CmEventType::ConnectRequest => {
            let result = on_connect_request(state, &mut ev);
            drop_on_error(state, ev.id, result)
        }
        CmEventType::Established => {
            let result = on_connection(&*state.connection(ev.id)?, Side::Passive);
            drop_on_error(state, ev.id, result)
        }
        CmEventType::Disconnected => on_disconnect(state, ev.id),
        // A connection that the server already released may still report its
        // time-wait end; nothing is left to do for it.
        CmEventType::TimewaitExit => Ok(false),
        // A client that went away between its request and the established
        // connection.
        CmEventType::Rejected | CmEventType::Unreachable | CmEventType::ConnectError
            if state.connection(ev.id).is_ok() =>
        {
            let e = Error::msg(format!(
                "on_event: {} (status {}) before the connection was established",
                ev.name(),
                ev.status
            ));
            drop_on_error(state, ev.id, Err(e))
        }
        // Any other event about one connection (ADDR_CHANGE, ...) ends that
        // connection, not the server.
        _ if state.connection(ev.id).is_ok() => {
            drop_on_error(state, ev.id, Err(unknown_event(&ev)))
        }
        _ => Err(unknown_event(&ev)),
    }
}

fn run(addr: SocketAddr) -> Result<()> {
    install_stop_handler()?;
    let ec = EventChannel::new()?;
    let listener = ec.create_id(PortSpace::Tcp)?;
    listener.bind_addr(&addr)?;
    // An address given must be an RDMA device's: rdma_cm would listen on
    // any (127.0.0.1, say), where no client could ever connect.
    if !addr.ip().is_unspecified() && listener.verbs().is_none() {
        return Err(Error::msg(format!(
            "rdma_bind_addr to {addr} found no RDMA device: give the address of an RDMA \
             device's interface, or none to listen on all"
        )));
    }
    listener.listen(10)?; // backlog=10 is arbitrary
    println!("listening on port {}.", listener.src_port());

    let mut state = State::new(Side::Passive, ec.clone());
    let result = state.event_loop(|| Ok(stop_requested()), on_event);
    // Connections, then the shared context, then the listener, then the
    // channel; a failed run is the error to report, teardown's comes second.
    let torn = state.shutdown();
    drop(state);
    result.and(torn).and(listener.destroy()).and(ec.destroy())
}

fn main() -> ExitCode {
    let usage = "usage: $0 [bind-address [port]]
  bind-address  the address to listen on (default: any)
  port          the port to listen on (default: one the kernel picks, printed)";
    common::cli::main_operands("rdmacm_server", usage, 2, parse_args, |addr| {
        exit_code(run(addr))
    })
}

#[cfg(test)]
#[path = "rdmacm_server/tests.rs"]
mod tests;
