//! The RDMA connection manager (librdmacm): event channels, one cm_id type
//! for both of the manual's styles, events, and `rdma_getaddrinfo`.
//!
//! A [`CmId`] is either *event-driven*, made on an [`EventChannel`] whose
//! events the program reads (mckey, the Bedeir client and server), or
//! *synchronous*, made without a channel (`rdma_create_ep`,
//! `rdma_get_request`, the manual's chapter 8 programs): librdmacm then gives
//! it a private channel and each call waits for its own event. Those waits
//! have no time limit (`rdma_connect` to a host that stopped answering
//! retries for minutes, `rdma_get_send_comp` waits for ever on a peer that
//! died), so the calls that wait for the peer are bounded here:
//! - [`CmId::get_request`] polls the listener's private channel before it
//!   calls `rdma_get_request`;
//! - [`CmId::connect_sync`] and [`CmId::accept_sync`] first move the id to a
//!   channel of its own (`rdma_migrate_id`), which makes it event-driven,
//!   then wait for the outcome there; the same channel later reports a peer
//!   that went away;
//! - `Qp::get_send_comp` / `Qp::get_recv_comp` do what the inline helpers
//!   do, waiting on the CQ's channel in ticks, and give up when the peer
//!   disconnects or the timeout passes. They are methods of the QP, whose
//!   life bounds that of the CQs they poll.
//!
//! Ownership mirrors the verbs side: an id keeps its channel alive, a QP,
//! SRQ, PD or context taken from an id keeps the id alive, so
//! `rdma_destroy_qp` always runs before `rdma_destroy_id`, and every id is
//! destroyed before its channel. Events are copied and acked as soon as they
//! are read, as the Bedeir paper's event loop does (`memcpy(&event_copy,
//! ...); rdma_ack_cm_event(event);`): no handler can destroy an id while one
//! of its events is still unacked (which would block `rdma_destroy_id`).

use std::ffi::CStr;

use rdma_core_sys as sys;

use crate::error::{Error, Result};

mod addrinfo;
mod channel;
mod id;

pub use addrinfo::AddrInfo;
pub use channel::{CmEvent, EventChannel, UdParam};
pub(crate) use id::CompQueue;
pub use id::{CmId, ConnParam, ConnRequest};
pub use sys::rdma_cm_event_type as event_type;
pub use sys::rdma_port_space as port_space;

/// `rdma_event_str`.
pub fn event_name(event: sys::rdma_cm_event_type::Type) -> String {
    // SAFETY: returns a static NUL-terminated string for any value.
    let p = unsafe { sys::rdma_event_str(event) };
    if p.is_null() {
        return format!("RDMA_CM_EVENT_{event}");
    }
    // SAFETY: non-null static C string.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// The error of a connect or accept whose outcome was event `ev`, as
/// librdmacm's synchronous calls report it (they turn events into errnos).
fn expect_established(what: &str, ev: u32, status: i32) -> Result<()> {
    if ev == event_type::RDMA_CM_EVENT_ESTABLISHED && status == 0 {
        return Ok(());
    }
    let errno = match ev {
        event_type::RDMA_CM_EVENT_REJECTED => libc::ECONNREFUSED,
        _ if status < 0 => -status,
        event_type::RDMA_CM_EVENT_UNREACHABLE | event_type::RDMA_CM_EVENT_CONNECT_ERROR => {
            libc::ETIMEDOUT
        }
        _ => 0,
    };
    let e = Error::with_errno(what, errno);
    Err(Error::msg(format!(
        "{e} ({}, status {status})",
        event_name(ev)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_names_come_from_librdmacm() {
        assert_eq!(
            event_name(event_type::RDMA_CM_EVENT_REJECTED),
            "RDMA_CM_EVENT_REJECTED"
        );
        assert_eq!(
            event_name(event_type::RDMA_CM_EVENT_ADDR_ERROR),
            "RDMA_CM_EVENT_ADDR_ERROR"
        );
    }

    #[test]
    fn rejected_connect_reads_as_connection_refused() {
        let e = expect_established("rdma_connect", event_type::RDMA_CM_EVENT_REJECTED, 8)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("rdma_connect failed: Connection refused (ECONNREFUSED)"),
            "{e}"
        );
        assert!(e.ends_with("(RDMA_CM_EVENT_REJECTED, status 8)"), "{e}");
        assert!(expect_established("x", event_type::RDMA_CM_EVENT_ESTABLISHED, 0).is_ok());
    }
}
