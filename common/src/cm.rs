//! The RDMA connection manager (librdmacm): event channels, cm_ids and events.
//!
//! Ownership mirrors the verbs side: a [`CmId`] keeps its [`EventChannel`]
//! alive, and a QP created on an id keeps the id alive until the QP is gone, so
//! `rdma_destroy_qp` always runs before `rdma_destroy_id`, and every id is
//! destroyed before its channel.
//!
//! Events are copied and acked as soon as they are read, as the Bedeir paper's
//! event loop does (`memcpy(&event_copy, ...); rdma_ack_cm_event(event);`):
//! each event is acked exactly once, and no handler can destroy an id while
//! one of its events is still unacked (which would block `rdma_destroy_id`).

use std::ffi::CStr;
use std::net::SocketAddr;
use std::os::raw::c_int;
use std::ptr;
use std::sync::Arc;
use std::time::Duration;

use rdma_sys as sys;
use socket2::SockAddr;

use crate::error::{Error, Result};
use crate::verbs::{wait_readable, Context, Pd, Qp, QpInitAttr};

pub use sys::rdma_cm_event_type as event_type;
pub use sys::rdma_port_space as port_space;

struct ChannelInner {
    ch: *mut sys::rdma_event_channel,
}

// SAFETY: librdmacm channels and ids may be used from any thread; the raw
// pointers are only handed to the library.
unsafe impl Send for ChannelInner {}
// SAFETY: as above.
unsafe impl Sync for ChannelInner {}

impl Drop for ChannelInner {
    fn drop(&mut self) {
        // SAFETY: every id on this channel holds an Arc to us, so none is left.
        unsafe { sys::rdma_destroy_event_channel(self.ch) };
    }
}

/// An rdma_cm event channel (`rdma_create_event_channel`).
#[derive(Clone)]
pub struct EventChannel {
    inner: Arc<ChannelInner>,
}

impl EventChannel {
    /// `rdma_create_event_channel`.
    pub fn new() -> Result<EventChannel> {
        // SAFETY: no arguments; NULL on failure with errno set.
        let ch = unsafe { sys::rdma_create_event_channel() };
        if ch.is_null() {
            return Err(Error::last_os("rdma_create_event_channel"));
        }
        let channel = EventChannel {
            inner: Arc::new(ChannelInner { ch }),
        };
        // Non-blocking: librdmacm may swallow an event internally and read
        // again, which on a blocking fd would outlast the caller's timeout.
        let fd = channel.fd();
        // SAFETY: fd is the channel's open descriptor.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        // SAFETY: as above.
        if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
            return Err(Error::last_os("fcntl(rdma event channel, O_NONBLOCK)"));
        }
        Ok(channel)
    }

    /// The channel's file descriptor (for poll/select).
    pub fn fd(&self) -> c_int {
        // SAFETY: ch is live.
        unsafe { (*self.inner.ch).fd }
    }

    /// The raw channel, for ids moved onto it with `rdma_migrate_id`.
    pub(crate) fn as_raw(&self) -> *mut sys::rdma_event_channel {
        self.inner.ch
    }

    /// `rdma_create_id` on this channel.
    pub fn create_id(&self, ps: sys::rdma_port_space::Type) -> Result<CmId> {
        let mut id: *mut sys::rdma_cm_id = ptr::null_mut();
        // SAFETY: ch is live; id is a valid out-pointer.
        let rc = unsafe { sys::rdma_create_id(self.inner.ch, &mut id, ptr::null_mut(), ps) };
        if rc != 0 {
            return Err(Error::last_os("rdma_create_id"));
        }
        Ok(CmId::own(id, Some(self.clone())))
    }

    /// `rdma_get_cm_event`, waiting at most `timeout` (forever if `None`);
    /// `Ok(None)` on timeout. The event is copied, then acked.
    pub fn get_event(&self, timeout: Option<Duration>) -> Result<Option<CmEvent>> {
        if !wait_readable(self.fd(), timeout, "poll(rdma event channel)")? {
            return Ok(None);
        }
        let mut ev: *mut sys::rdma_cm_event = ptr::null_mut();
        // SAFETY: ch is live; ev is a valid out-pointer; fd is readable.
        let rc = unsafe { sys::rdma_get_cm_event(self.inner.ch, &mut ev) };
        if rc != 0 {
            let e = Error::last_os("rdma_get_cm_event");
            if e.errno() == Some(libc::EAGAIN) {
                // The readable fd held an event librdmacm handled itself.
                return Ok(None);
            }
            return Err(e);
        }
        // SAFETY: ev is a valid event until acked below.
        let copy = unsafe { CmEvent::copy_of(ev, self) };
        // SAFETY: acked exactly once, after everything needed was copied.
        unsafe { sys::rdma_ack_cm_event(ev) };
        Ok(Some(copy))
    }
}

struct IdInner {
    id: *mut sys::rdma_cm_id,
    /// The PD given to `create_qp` when it is not librdmacm's own:
    /// rdma_create_qp makes it `id->pd`, so [`CmId::pd`] must keep it alive.
    qp_pd: std::sync::Mutex<Option<Pd>>,
    /// Keeps the channel alive while the id is.
    _channel: Option<EventChannel>,
}

// SAFETY: see ChannelInner.
unsafe impl Send for IdInner {}
// SAFETY: see ChannelInner.
unsafe impl Sync for IdInner {}

impl Drop for IdInner {
    fn drop(&mut self) {
        // The PD goes before the id, as in the C teardown (... MR, PD, id):
        // a QP on this id holds an Arc to us, so it is gone already, and
        // rdma_destroy_id never touches id->pd.
        drop(
            self.qp_pd
                .get_mut()
                .unwrap_or_else(|e| e.into_inner())
                .take(),
        );
        // SAFETY: a QP on this id holds an Arc to us, so it was destroyed
        // first; events are acked as soon as they are read.
        unsafe { sys::rdma_destroy_id(self.id) };
    }
}

/// An rdma_cm identifier (`struct rdma_cm_id`), destroyed on drop.
#[derive(Clone)]
pub struct CmId {
    inner: Arc<IdInner>,
}

/// Parameters of `rdma_connect` / `rdma_accept` (`struct rdma_conn_param`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConnParam {
    /// Private data sent with the request or reply (at most 56 bytes for RC).
    pub private_data: Vec<u8>,
    /// Incoming RDMA reads in flight.
    pub responder_resources: u8,
    /// Outgoing RDMA reads in flight.
    pub initiator_depth: u8,
    /// Flow control.
    pub flow_control: u8,
    /// Transport retries.
    pub retry_count: u8,
    /// RNR retries (7 = infinite).
    pub rnr_retry_count: u8,
}

impl ConnParam {
    /// The raw struct; it points into `self`, which must outlive its use.
    pub(crate) fn to_raw(&self) -> Result<sys::rdma_conn_param> {
        let len = u8::try_from(self.private_data.len())
            .map_err(|_| Error::msg("private data is longer than 255 bytes"))?;
        Ok(sys::rdma_conn_param {
            private_data: if self.private_data.is_empty() {
                ptr::null()
            } else {
                self.private_data.as_ptr().cast()
            },
            private_data_len: len,
            responder_resources: self.responder_resources,
            initiator_depth: self.initiator_depth,
            flow_control: self.flow_control,
            retry_count: self.retry_count,
            rnr_retry_count: self.rnr_retry_count,
            srq: 0,
            qp_num: 0,
        })
    }
}

impl CmId {
    fn own(id: *mut sys::rdma_cm_id, channel: Option<EventChannel>) -> CmId {
        CmId {
            inner: Arc::new(IdInner {
                id,
                qp_pd: std::sync::Mutex::new(None),
                _channel: channel,
            }),
        }
    }

    /// The raw pointer, for calls this crate does not wrap yet.
    pub fn as_ptr(&self) -> *mut sys::rdma_cm_id {
        self.inner.id
    }

    /// A key that identifies this id in events ([`CmEvent::id`]).
    pub fn key(&self) -> usize {
        self.inner.id as usize
    }

    /// The device the id is bound to (`id->verbs`), once address resolution,
    /// binding to a device address or a connect request gave it one.
    pub fn verbs(&self) -> Option<Context> {
        // SAFETY: id is live.
        let ctx = unsafe { (*self.inner.id).verbs };
        if ctx.is_null() {
            return None;
        }
        // SAFETY: librdmacm keeps a device context open until the library is
        // unloaded (only its default PD goes with the last id), so it outlives
        // every user of this wrapper.
        Some(unsafe { Context::from_borrowed(ctx) })
    }

    /// The PD librdmacm allocated for the id's device (`id->pd`), if any.
    /// It is held through this id, so it stays valid while the `Pd` lives.
    pub fn pd(&self) -> Option<Pd> {
        if let Some(pd) = self
            .inner
            .qp_pd
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
        {
            return Some(pd);
        }
        // SAFETY: id is live.
        let pd = unsafe { (*self.inner.id).pd };
        if pd.is_null() {
            return None;
        }
        // SAFETY: librdmacm frees its default PD only when the last id on the
        // device is destroyed; the Pd holds this id.
        Some(unsafe { Pd::from_borrowed(pd, self.inner.clone()) })
    }

    /// The physical port the id is bound to.
    pub fn port_num(&self) -> u8 {
        // SAFETY: id is live.
        unsafe { (*self.inner.id).port_num }
    }

    /// `rdma_bind_addr`.
    pub fn bind_addr(&self, addr: &SocketAddr) -> Result<()> {
        let sa = SockAddr::from(*addr);
        // SAFETY: id is live; sa is a valid sockaddr of its stated family.
        let rc = unsafe { sys::rdma_bind_addr(self.inner.id, sa.as_ptr() as *mut _) };
        if rc != 0 {
            return Err(Error::last_os(&format!("rdma_bind_addr to {addr}")));
        }
        Ok(())
    }

    /// `rdma_listen`.
    pub fn listen(&self, backlog: i32) -> Result<()> {
        // SAFETY: id is live.
        let rc = unsafe { sys::rdma_listen(self.inner.id, backlog) };
        if rc != 0 {
            return Err(Error::last_os("rdma_listen"));
        }
        Ok(())
    }

    /// `rdma_get_src_port`, in host order.
    pub fn src_port(&self) -> u16 {
        // SAFETY: id is live.
        u16::from_be(unsafe { sys::rdma_get_src_port(self.inner.id) })
    }

    /// `rdma_resolve_addr` from `src` (any local address if `None`) to `dst`.
    pub fn resolve_addr(
        &self,
        src: Option<&SocketAddr>,
        dst: &SocketAddr,
        timeout_ms: i32,
    ) -> Result<()> {
        let src = src.map(|a| SockAddr::from(*a));
        let dst_sa = SockAddr::from(*dst);
        let src_ptr = src
            .as_ref()
            .map_or(ptr::null_mut(), |s| s.as_ptr() as *mut _);
        // SAFETY: id is live; both sockaddrs are valid for the call.
        let rc = unsafe {
            sys::rdma_resolve_addr(
                self.inner.id,
                src_ptr,
                dst_sa.as_ptr() as *mut _,
                timeout_ms,
            )
        };
        if rc != 0 {
            return Err(Error::last_os(&format!("rdma_resolve_addr to {dst}")));
        }
        Ok(())
    }

    /// `rdma_resolve_route`.
    pub fn resolve_route(&self, timeout_ms: i32) -> Result<()> {
        // SAFETY: id is live.
        let rc = unsafe { sys::rdma_resolve_route(self.inner.id, timeout_ms) };
        if rc != 0 {
            return Err(Error::last_os("rdma_resolve_route"));
        }
        Ok(())
    }

    /// `rdma_create_qp` on this id with `pd` and `init`'s CQs.
    pub fn create_qp(&self, pd: &Pd, init: &QpInitAttr<'_>) -> Result<Qp> {
        // SAFETY: plain data.
        let mut attr: sys::ibv_qp_init_attr = unsafe { std::mem::zeroed() };
        attr.qp_type = init.qp_type;
        attr.sq_sig_all = init.sq_sig_all as c_int;
        attr.send_cq = init.send_cq.as_ptr();
        attr.recv_cq = init.recv_cq.as_ptr();
        attr.srq = init.srq.map_or(ptr::null_mut(), |s| s.as_ptr());
        attr.cap.max_send_wr = init.max_send_wr;
        attr.cap.max_recv_wr = init.max_recv_wr;
        attr.cap.max_send_sge = init.max_send_sge;
        attr.cap.max_recv_sge = init.max_recv_sge;
        attr.cap.max_inline_data = init.max_inline_data;
        // SAFETY: id is live.
        let own_pd = unsafe { (*self.inner.id).pd };
        // SAFETY: id, pd and the CQs are live; the Qp wrapper keeps them so.
        let rc = unsafe { sys::rdma_create_qp(self.inner.id, pd.as_ptr(), &mut attr) };
        if rc != 0 {
            return Err(Error::last_os("rdma_create_qp"));
        }
        if pd.as_ptr() != own_pd {
            // Not librdmacm's PD (which the id itself keeps): hold it, since
            // id->pd now names it. Holding librdmacm's own would be a cycle.
            *self.inner.qp_pd.lock().unwrap_or_else(|e| e.into_inner()) = Some(pd.clone());
        }
        let cqs = vec![init.send_cq.clone(), init.recv_cq.clone()];
        // SAFETY: rdma_create_qp set id->qp; only the Qp wrapper destroys it.
        Ok(unsafe {
            Qp::from_cm(
                self.inner.id,
                Some(pd.clone()),
                cqs,
                init.srq.cloned(),
                self.inner.clone(),
            )
        })
    }

    /// `rdma_connect`.
    pub fn connect(&self, param: &ConnParam) -> Result<()> {
        let mut raw = param.to_raw()?;
        // SAFETY: id is live; raw and its private data are valid for the call.
        let rc = unsafe { sys::rdma_connect(self.inner.id, &mut raw) };
        if rc != 0 {
            return Err(Error::last_os("rdma_connect"));
        }
        Ok(())
    }

    /// `rdma_accept`.
    pub fn accept(&self, param: &ConnParam) -> Result<()> {
        let mut raw = param.to_raw()?;
        // SAFETY: id is live; raw and its private data are valid for the call.
        let rc = unsafe { sys::rdma_accept(self.inner.id, &mut raw) };
        if rc != 0 {
            return Err(Error::last_os("rdma_accept"));
        }
        Ok(())
    }

    /// `rdma_reject` without private data.
    pub fn reject(&self) -> Result<()> {
        // SAFETY: id is live.
        let rc = unsafe { sys::rdma_reject(self.inner.id, ptr::null(), 0) };
        if rc != 0 {
            return Err(Error::last_os("rdma_reject"));
        }
        Ok(())
    }

    /// `rdma_join_multicast` of `addr` (the MGID comes from the address); the
    /// result arrives as RDMA_CM_EVENT_MULTICAST_JOIN with [`CmEvent::ud`].
    pub fn join_multicast(&self, addr: &SocketAddr) -> Result<()> {
        let sa = SockAddr::from(*addr);
        // SAFETY: id is live; sa is valid for the call (librdmacm copies it).
        let rc = unsafe {
            sys::rdma_join_multicast(self.inner.id, sa.as_ptr() as *mut _, ptr::null_mut())
        };
        if rc != 0 {
            return Err(Error::last_os(&format!("rdma_join_multicast of {addr}")));
        }
        Ok(())
    }

    /// `rdma_leave_multicast`.
    pub fn leave_multicast(&self, addr: &SocketAddr) -> Result<()> {
        let sa = SockAddr::from(*addr);
        // SAFETY: id is live; sa is valid for the call.
        let rc = unsafe { sys::rdma_leave_multicast(self.inner.id, sa.as_ptr() as *mut _) };
        if rc != 0 {
            return Err(Error::last_os(&format!("rdma_leave_multicast of {addr}")));
        }
        Ok(())
    }

    /// `rdma_get_request` on a listening id without an event channel
    /// (synchronous mode): the next connection request's new id.
    pub fn get_request(&self) -> Result<CmId> {
        let mut id: *mut sys::rdma_cm_id = ptr::null_mut();
        // SAFETY: self is a live listening id; id is a valid out-pointer.
        let rc = unsafe { sys::rdma_get_request(self.inner.id, &mut id) };
        if rc != 0 {
            return Err(Error::last_os("rdma_get_request"));
        }
        // SAFETY: the request event is acked once, here, and cleared so that
        // librdmacm does not ack it again; left unacked it would make
        // destroying the listener wait for this child.
        unsafe {
            if !(*id).event.is_null() {
                sys::rdma_ack_cm_event((*id).event);
                (*id).event = ptr::null_mut();
            }
        }
        Ok(CmId::own(id, None))
    }

    /// `rdma_disconnect`.
    pub fn disconnect(&self) -> Result<()> {
        // SAFETY: id is live.
        let rc = unsafe { sys::rdma_disconnect(self.inner.id) };
        if rc != 0 {
            return Err(Error::last_os("rdma_disconnect"));
        }
        Ok(())
    }
}

/// The UD parameters of an event (`struct rdma_ud_param`): where to send.
#[derive(Clone, Copy)]
pub struct UdParam {
    /// Address vector of the remote end (the multicast group for a join).
    pub ah_attr: sys::ibv_ah_attr,
    /// Remote QP number (0xFFFFFF for multicast).
    pub qp_num: u32,
    /// Remote Q_Key.
    pub qkey: u32,
}

/// A copy of an rdma_cm event (`struct rdma_cm_event`), already acked.
pub struct CmEvent {
    /// `RDMA_CM_EVENT_*` (see [`event_type`]).
    pub event: sys::rdma_cm_event_type::Type,
    /// The event's status (0, a negative errno, or a transport reject reason).
    pub status: i32,
    /// Key of the id the event is for (compare with [`CmId::key`]).
    pub id: usize,
    /// Key of the listening id, for connect requests.
    pub listen_id: usize,
    /// Private data the peer sent, for connection events.
    pub private_data: Vec<u8>,
    /// The remote end of a UD "connection" (multicast join, UD establish).
    pub ud: Option<UdParam>,
    /// The new id a connect request created; the receiver owns it.
    new_id: Option<CmId>,
}

impl CmEvent {
    /// # Safety
    /// `ev` must be a valid, not yet acked event read from `channel`.
    unsafe fn copy_of(ev: *const sys::rdma_cm_event, channel: &EventChannel) -> CmEvent {
        // SAFETY: the caller guarantees ev is valid.
        let e = unsafe { &*ev };
        let event = e.event;
        let is_conn = matches!(
            event,
            event_type::RDMA_CM_EVENT_CONNECT_REQUEST
                | event_type::RDMA_CM_EVENT_CONNECT_RESPONSE
                | event_type::RDMA_CM_EVENT_ESTABLISHED
                | event_type::RDMA_CM_EVENT_REJECTED
                | event_type::RDMA_CM_EVENT_DISCONNECTED
        );
        let mut private_data = Vec::new();
        if is_conn {
            // SAFETY: for connection events the union holds `conn`.
            let conn = unsafe { &e.param.conn };
            if !conn.private_data.is_null() && conn.private_data_len > 0 {
                // SAFETY: the library provides private_data_len bytes there.
                private_data = unsafe {
                    std::slice::from_raw_parts(
                        conn.private_data as *const u8,
                        conn.private_data_len as usize,
                    )
                }
                .to_vec();
            }
        }
        let ud_event = matches!(
            event,
            event_type::RDMA_CM_EVENT_MULTICAST_JOIN | event_type::RDMA_CM_EVENT_ESTABLISHED
        );
        // SAFETY: the event's id is valid while the event is.
        let ud_id = !e.id.is_null() && unsafe { (*e.id).qp_type } == sys::ibv_qp_type::IBV_QPT_UD;
        let ud = if ud_event && ud_id {
            // SAFETY: for UD events the union holds `ud`.
            let u = unsafe { &e.param.ud };
            Some(UdParam {
                ah_attr: u.ah_attr,
                qp_num: u.qp_num,
                qkey: u.qkey,
            })
        } else {
            None
        };
        // A connect request creates a new id that the application owns from
        // now on (the listener's channel delivers its events too).
        let new_id = (event == event_type::RDMA_CM_EVENT_CONNECT_REQUEST && !e.id.is_null())
            .then(|| CmId::own(e.id, Some(channel.clone())));
        CmEvent {
            event,
            status: e.status,
            id: e.id as usize,
            listen_id: e.listen_id as usize,
            private_data,
            ud,
            new_id,
        }
    }

    /// The event's name (`rdma_event_str`), e.g. `RDMA_CM_EVENT_REJECTED`.
    pub fn name(&self) -> String {
        event_name(self.event)
    }

    /// For a connect request: the new connection's id, which the caller now
    /// owns (dropping it destroys it, as an unaccepted request should be).
    pub fn take_new_id(&mut self) -> Option<CmId> {
        self.new_id.take()
    }
}

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
    fn conn_param_private_data_limits() {
        let p = ConnParam {
            private_data: vec![1, 2],
            ..ConnParam::default()
        };
        let raw = p.to_raw().unwrap();
        assert_eq!(raw.private_data_len, 2);
        assert!(!raw.private_data.is_null());
        assert!(ConnParam::default()
            .to_raw()
            .unwrap()
            .private_data
            .is_null());
        let big = ConnParam {
            private_data: vec![0; 256],
            ..ConnParam::default()
        };
        assert!(big.to_raw().is_err());
    }

    #[test]
    fn event_channel_on_a_host_without_rdma_fails_clearly_or_works() {
        // rdma_create_event_channel needs /dev/infiniband/rdma_cm.
        match EventChannel::new() {
            Ok(ch) => assert!(ch.fd() >= 0),
            Err(e) => assert!(
                e.to_string()
                    .starts_with("rdma_create_event_channel failed: "),
                "{e}"
            ),
        }
    }
}
