//! The active (client) side of Bedeir's "Building an RDMA-Capable Application
//! with IB Verbs", section 3: resolve the server's address and route with
//! rdma_cm, connect, exchange one message, and disconnect.
//!
//! Usage: `rdmacm_client <server-address> <server-port>`.
//!
//! Unlike the paper's client, which waits forever, this one gives up after
//! `CLIENT_TIMEOUT` and says which event it was still waiting for: a server
//! host that is down makes rdma_cm retry its connect request for minutes.

use std::cell::Cell;
use std::net::{SocketAddr, ToSocketAddrs};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use common::cm::{CmEvent, CmEventType, CmId, ConnParam, EventChannel, PortSpace};
// stdout that cannot be written ends the program in one line, not a panic.
use common::println;
use common::verbs::Destroy;
use common::{Error, Result};

/// How long the whole exchange may take (it takes milliseconds when the server is there).
const CLIENT_TIMEOUT: Duration = Duration::from_secs(15);
use common::exit_code;
use rdmacm_client_server::{on_connection, unknown_event, Side, State, TIMEOUT_IN_MS};

/// Parse `<server-address> <server-port>` and resolve them (the paper's getaddrinfo).
fn parse_args(args: &[impl AsRef<str>]) -> std::result::Result<SocketAddr, String> {
    let [host, port] = args else {
        return Err("expected exactly two arguments".to_string());
    };
    let (host, port) = (host.as_ref(), port.as_ref());
    let port = port
        .parse::<u16>()
        .ok()
        .filter(|p| *p != 0)
        .ok_or_else(|| format!("invalid port '{port}' (expected 1..65535)"))?;
    (host, port)
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.find(SocketAddr::is_ipv4))
        .ok_or_else(|| format!("getaddrinfo failed for '{host}': not a resolvable IPv4 address"))
}

/// on_addr_resolved: build the verbs context, QP and buffers on the id,
/// which the connection owns from now on, pre-post the receive, and resolve
/// the route.
fn on_addr_resolved(state: &mut State, conn_id: &mut Option<CmId>) -> Result<()> {
    println!("address resolved.");
    let id = conn_id
        .take()
        .ok_or_else(|| Error::msg("on_addr_resolved: the address was resolved twice"))?;
    let conn = state.build_connection(id)?;
    conn.id.resolve_route(TIMEOUT_IN_MS)
}

/// on_route_resolved: connect.
fn on_route_resolved(state: &State, id_key: usize) -> Result<()> {
    println!("route resolved.");
    state.connection(id_key)?.id.connect(&ConnParam::default())
}

/// on_disconnect: release the connection and end the event loop. The client
/// disconnects after its two completions; a disconnect before them is the
/// server's, and the exchange failed: with the failed completion, if the
/// server's leaving made one fail (one line either way).
fn on_disconnect(state: &mut State, id_key: usize) -> Result<bool> {
    println!("disconnected.");
    let done = state
        .connection(id_key)?
        .num_completions
        .load(Ordering::SeqCst);
    let failure = state.release_connection(id_key)?;
    match failure {
        Some(failure) => Err(Error::msg(failure)),
        None if done < 2 => Err(Error::msg(
            "on_disconnect: the server disconnected before the exchange completed",
        )),
        None => Ok(true),
    }
}

/// on_event: dispatch the events the active side expects.
fn on_event(state: &mut State, conn_id: &mut Option<CmId>, ev: CmEvent) -> Result<bool> {
    match ev.event {
        CmEventType::AddrResolved => on_addr_resolved(state, conn_id).map(|_| false),
        CmEventType::RouteResolved => on_route_resolved(state, ev.id).map(|_| false),
        CmEventType::Established => {
            on_connection(&*state.connection(ev.id)?, Side::Active).map(|_| false)
        }
        CmEventType::Disconnected => on_disconnect(state, ev.id),
        _ => Err(unknown_event(&ev)),
    }
}

fn run(addr: SocketAddr) -> Result<()> {
    let ec = EventChannel::new()?;
    let conn_id = ec.create_id(PortSpace::Tcp)?;
    conn_id.resolve_addr(None, &addr, TIMEOUT_IN_MS)?;
    // The connection takes the id once the address is resolved.
    let mut conn_id = Some(conn_id);

    let mut state = State::new(Side::Active, ec.clone());
    let start = Instant::now();
    let waiting_for = Cell::new("RDMA_CM_EVENT_ADDR_RESOLVED");
    let result = state.event_loop(
        || {
            if start.elapsed() > CLIENT_TIMEOUT {
                return Err(Error::msg(format!(
                    "no answer from {addr} within {} s (waiting for {})",
                    CLIENT_TIMEOUT.as_secs(),
                    waiting_for.get()
                )));
            }
            Ok(false)
        },
        |state, ev| {
            waiting_for.set(match ev.event {
                CmEventType::AddrResolved => "RDMA_CM_EVENT_ROUTE_RESOLVED",
                CmEventType::RouteResolved => "RDMA_CM_EVENT_ESTABLISHED",
                _ => "the message exchange and RDMA_CM_EVENT_DISCONNECTED",
            });
            on_event(state, &mut conn_id, ev)
        },
    );
    // The connection (and its id), the shared context, an id that never got
    // a connection, then the channel; a failed run is the error to report,
    // teardown's comes second.
    let torn = state.shutdown();
    drop(state);
    result.and(torn).and(conn_id.destroy()).and(ec.destroy())
}

fn main() -> ExitCode {
    let usage = "usage: $0 <server-address> <server-port>
  server-address  the server's address (required)
  server-port     the port the server printed (required)";
    common::cli::main_operands("rdmacm_client", usage, 2, parse_args, |addr| {
        exit_code(run(addr))
    })
}

#[cfg(test)]
#[path = "rdmacm_client/tests.rs"]
mod tests;
