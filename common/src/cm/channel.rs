//! rdma_cm event channels and the events read from them.

use std::os::raw::c_int;
use std::ptr;
use std::sync::Arc;
use std::time::Duration;

use rdma_core_sys as sys;

use super::id::event_private_data;
use super::{event_name, CmEventType, CmId, PortSpace};
use crate::error::{Error, Result};
use crate::handle::{destroy_last, wait_readable, Release};
use crate::verbs::AhAttr;

struct ChannelInner {
    ch: *mut sys::rdma_event_channel,
}

// SAFETY: librdmacm channels and ids may be used from any thread; the raw
// pointers are only handed to the library.
unsafe impl Send for ChannelInner {}
// SAFETY: as above.
unsafe impl Sync for ChannelInner {}

impl Release for ChannelInner {
    fn release(&mut self) -> Result<()> {
        let ch = std::mem::replace(&mut self.ch, ptr::null_mut());
        if !ch.is_null() {
            // SAFETY: every id on this channel holds us, so none is left;
            // once. It returns nothing to report.
            unsafe { sys::rdma_destroy_event_channel(ch) };
        }
        Ok(())
    }
}

impl Drop for ChannelInner {
    fn drop(&mut self) {
        let _ = self.release();
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

    /// `rdma_destroy_event_channel` now; an error while an id on it, or a
    /// clone, still holds it.
    pub fn destroy(self) -> Result<()> {
        destroy_last(self.inner, "rdma_destroy_event_channel", "event channel")
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

    /// `rdma_create_id` on this channel: an event-driven id.
    pub fn create_id(&self, ps: PortSpace) -> Result<CmId> {
        CmId::create(Some(self), ps)
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

/// The UD parameters of an event (`struct rdma_ud_param`): where to send.
#[derive(Clone, Copy)]
pub struct UdParam {
    /// Address vector of the remote end (the multicast group for a join).
    pub ah_attr: AhAttr,
    /// Remote QP number (0xFFFFFF for multicast).
    pub qp_num: u32,
    /// Remote Q_Key.
    pub qkey: u32,
}

/// A copy of an rdma_cm event (`struct rdma_cm_event`), already acked.
pub struct CmEvent {
    /// What happened.
    pub event: CmEventType,
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
        let event = CmEventType::from_raw(e.event);
        let is_conn = matches!(
            event,
            CmEventType::ConnectRequest
                | CmEventType::ConnectResponse
                | CmEventType::Established
                | CmEventType::Rejected
                | CmEventType::Disconnected
        );
        let private_data = if is_conn {
            // SAFETY: ev is valid and, for connection events, carries `conn`.
            unsafe { event_private_data(ev) }
        } else {
            Vec::new()
        };
        let ud_event = matches!(event, CmEventType::MulticastJoin | CmEventType::Established);
        // SAFETY: the event's id is valid while the event is.
        let ud_id = !e.id.is_null() && unsafe { (*e.id).qp_type } == sys::ibv_qp_type::IBV_QPT_UD;
        let ud = if ud_event && ud_id {
            // SAFETY: for UD events the union holds `ud`.
            let u = unsafe { &e.param.ud };
            Some(UdParam {
                ah_attr: AhAttr::from_raw(&u.ah_attr),
                qp_num: u.qp_num,
                qkey: u.qkey,
            })
        } else {
            None
        };
        // A connect request creates a new id that the application owns from
        // now on (the listener's channel delivers its events too).
        let new_id = (event == CmEventType::ConnectRequest && !e.id.is_null())
            // SAFETY: the request's new id is valid and nobody owns it yet.
            .then(|| unsafe { CmId::from_request(e.id, channel) });
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

#[cfg(test)]
mod tests;
