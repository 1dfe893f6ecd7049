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
use std::net::SocketAddr;

use rdma_core_sys as sys;

use crate::error::{Error, Result};
use crate::handle::{c_enum, impl_destroy};

mod addrinfo;
mod channel;
mod id;

pub use addrinfo::AddrInfo;
pub use channel::{CmEvent, EventChannel, UdParam};
pub use id::{CmId, ConnParam, ConnRequest};

impl_destroy!(CmId, EventChannel);

c_enum! {
    /// What an rdma_cm event reports (`enum rdma_cm_event_type`).
    CmEventType: rdma_cm_event_type {
        /// `RDMA_CM_EVENT_ADDR_RESOLVED`.
        AddrResolved = RDMA_CM_EVENT_ADDR_RESOLVED,
        /// `RDMA_CM_EVENT_ADDR_ERROR`.
        AddrError = RDMA_CM_EVENT_ADDR_ERROR,
        /// `RDMA_CM_EVENT_ROUTE_RESOLVED`.
        RouteResolved = RDMA_CM_EVENT_ROUTE_RESOLVED,
        /// `RDMA_CM_EVENT_ROUTE_ERROR`.
        RouteError = RDMA_CM_EVENT_ROUTE_ERROR,
        /// `RDMA_CM_EVENT_CONNECT_REQUEST`.
        ConnectRequest = RDMA_CM_EVENT_CONNECT_REQUEST,
        /// `RDMA_CM_EVENT_CONNECT_RESPONSE`.
        ConnectResponse = RDMA_CM_EVENT_CONNECT_RESPONSE,
        /// `RDMA_CM_EVENT_CONNECT_ERROR`.
        ConnectError = RDMA_CM_EVENT_CONNECT_ERROR,
        /// `RDMA_CM_EVENT_UNREACHABLE`.
        Unreachable = RDMA_CM_EVENT_UNREACHABLE,
        /// `RDMA_CM_EVENT_REJECTED`.
        Rejected = RDMA_CM_EVENT_REJECTED,
        /// `RDMA_CM_EVENT_ESTABLISHED`.
        Established = RDMA_CM_EVENT_ESTABLISHED,
        /// `RDMA_CM_EVENT_DISCONNECTED`.
        Disconnected = RDMA_CM_EVENT_DISCONNECTED,
        /// `RDMA_CM_EVENT_DEVICE_REMOVAL`.
        DeviceRemoval = RDMA_CM_EVENT_DEVICE_REMOVAL,
        /// `RDMA_CM_EVENT_MULTICAST_JOIN`.
        MulticastJoin = RDMA_CM_EVENT_MULTICAST_JOIN,
        /// `RDMA_CM_EVENT_MULTICAST_ERROR`.
        MulticastError = RDMA_CM_EVENT_MULTICAST_ERROR,
        /// `RDMA_CM_EVENT_ADDR_CHANGE`.
        AddrChange = RDMA_CM_EVENT_ADDR_CHANGE,
        /// `RDMA_CM_EVENT_TIMEWAIT_EXIT`.
        TimewaitExit = RDMA_CM_EVENT_TIMEWAIT_EXIT,
    }
}

c_enum! {
    /// An id's port space (`enum rdma_port_space`): its transport's ports.
    PortSpace: rdma_port_space {
        /// `RDMA_PS_TCP`.
        Tcp = RDMA_PS_TCP,
        /// `RDMA_PS_UDP`.
        Udp = RDMA_PS_UDP,
        /// `RDMA_PS_IPOIB`.
        Ipoib = RDMA_PS_IPOIB,
        /// `RDMA_PS_IB`.
        Ib = RDMA_PS_IB,
    }
}

/// `rdma_event_str`.
pub fn event_name(event: CmEventType) -> String {
    // SAFETY: returns a static NUL-terminated string for any value.
    let p = unsafe { sys::rdma_event_str(event.code()) };
    if p.is_null() {
        return format!("RDMA_CM_EVENT_{}", event.code());
    }
    // SAFETY: non-null static C string.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// The hint for a failed address resolution of `dst` without a bind
/// address, when `errno` (positive) says that the route is what is wrong:
/// ENETUNREACH (no route to the group) or ENODEV (the route's netdev has no
/// RDMA device). Only an IPv4 multicast group has it: a unicast
/// destination and an IPv6 group fail in other ways, and the fix is
/// IPv4's.
pub fn mcast_route_hint(dst: &SocketAddr, errno: i32) -> Option<String> {
    let SocketAddr::V4(v4) = dst else {
        return None;
    };
    (v4.ip().is_multicast() && matches!(errno, libc::ENETUNREACH | libc::ENODEV))
        .then(|| crate::hints::mcast_no_rdma_route(&v4.ip().to_string()))
}

/// The error of a connect or accept whose outcome was event `ev`, as
/// librdmacm's synchronous calls report it (they turn events into errnos).
fn expect_established(what: &str, ev: CmEventType, status: i32) -> Result<()> {
    if ev == CmEventType::Established && status == 0 {
        return Ok(());
    }
    let errno = match ev {
        CmEventType::Rejected => libc::ECONNREFUSED,
        _ if status < 0 => -status,
        CmEventType::Unreachable | CmEventType::ConnectError => libc::ETIMEDOUT,
        _ => 0,
    };
    let e = Error::with_errno(what, errno);
    Err(Error::msg(format!(
        "{e} ({}, status {status})",
        event_name(ev)
    )))
}

#[cfg(test)]
mod tests;
