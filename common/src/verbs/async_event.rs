//! Asynchronous events (`ibv_get_async_event`, `ibv_ack_async_event`).

use std::ffi::CStr;
use std::time::Duration;

use rdma_core_sys as sys;

use super::Context;
use crate::error::{Error, Result};
use crate::handle::{c_enum, wait_readable};

c_enum! {
    /// What an asynchronous event reports (`enum ibv_event_type`).
    AsyncEventType: ibv_event_type {
        /// `IBV_EVENT_CQ_ERR`: a CQ overran.
        CqErr = IBV_EVENT_CQ_ERR,
        /// `IBV_EVENT_QP_FATAL`: a QP hit an error it cannot report in a completion.
        QpFatal = IBV_EVENT_QP_FATAL,
        /// `IBV_EVENT_QP_REQ_ERR`: a QP's peer sent an invalid request.
        QpReqErr = IBV_EVENT_QP_REQ_ERR,
        /// `IBV_EVENT_QP_ACCESS_ERR`: a QP's peer broke an access rule.
        QpAccessErr = IBV_EVENT_QP_ACCESS_ERR,
        /// `IBV_EVENT_COMM_EST`: a QP in RTR received its first packet.
        CommEst = IBV_EVENT_COMM_EST,
        /// `IBV_EVENT_SQ_DRAINED`: a send queue drained.
        SqDrained = IBV_EVENT_SQ_DRAINED,
        /// `IBV_EVENT_PATH_MIG`: a QP migrated to its alternate path.
        PathMig = IBV_EVENT_PATH_MIG,
        /// `IBV_EVENT_PATH_MIG_ERR`: a QP could not migrate.
        PathMigErr = IBV_EVENT_PATH_MIG_ERR,
        /// `IBV_EVENT_DEVICE_FATAL`: the device failed.
        DeviceFatal = IBV_EVENT_DEVICE_FATAL,
        /// `IBV_EVENT_PORT_ACTIVE`: a port became active.
        PortActive = IBV_EVENT_PORT_ACTIVE,
        /// `IBV_EVENT_PORT_ERR`: a port went down.
        PortErr = IBV_EVENT_PORT_ERR,
        /// `IBV_EVENT_LID_CHANGE`: a port's LID changed.
        LidChange = IBV_EVENT_LID_CHANGE,
        /// `IBV_EVENT_PKEY_CHANGE`: a port's P_Key table changed.
        PkeyChange = IBV_EVENT_PKEY_CHANGE,
        /// `IBV_EVENT_SM_CHANGE`: a port's subnet manager changed.
        SmChange = IBV_EVENT_SM_CHANGE,
        /// `IBV_EVENT_SRQ_ERR`: an SRQ failed.
        SrqErr = IBV_EVENT_SRQ_ERR,
        /// `IBV_EVENT_SRQ_LIMIT_REACHED`: an SRQ fell below its limit.
        SrqLimitReached = IBV_EVENT_SRQ_LIMIT_REACHED,
        /// `IBV_EVENT_QP_LAST_WQE_REACHED`: a QP on an SRQ will take no more receives.
        QpLastWqeReached = IBV_EVENT_QP_LAST_WQE_REACHED,
        /// `IBV_EVENT_CLIENT_REREGISTER`: the subnet manager asks for re-registration.
        ClientReregister = IBV_EVENT_CLIENT_REREGISTER,
        /// `IBV_EVENT_GID_CHANGE`: a port's GID table changed.
        GidChange = IBV_EVENT_GID_CHANGE,
    }
}

/// An affiliated or unaffiliated asynchronous event, copied out of
/// `struct ibv_async_event` and acked (`ibv_ack_async_event`) as it is read.
///
/// Destroying a QP, CQ or SRQ waits until every event about it is acked; an
/// event held by the program could make that wait last for ever, so none is
/// ever held: the copy names the event, not the object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsyncEvent {
    event_type: sys::ibv_event_type::Type,
}

impl AsyncEvent {
    /// `ibv_get_async_event` on `ctx`, waiting at most `timeout`; the event
    /// is acked before this returns.
    pub(crate) fn get(ctx: &Context, timeout: Option<Duration>) -> Result<Option<AsyncEvent>> {
        // SAFETY: ctx is live; async_fd is set by the library at open.
        let fd = unsafe { (*ctx.as_ptr()).async_fd };
        if !wait_readable(fd, timeout, "poll(async_fd)")? {
            return Ok(None);
        }
        let mut ev = sys::ibv_async_event::default();
        // SAFETY: ctx is live and ev is a valid out-pointer; fd is readable so
        // this does not block for long.
        let rc = unsafe { sys::ibv_get_async_event(ctx.as_ptr(), &mut ev) };
        if rc != 0 {
            return Err(Error::last_os("ibv_get_async_event"));
        }
        let copy = AsyncEvent {
            event_type: ev.event_type,
        };
        // SAFETY: ev came from ibv_get_async_event and is acked exactly once,
        // after everything needed was copied.
        unsafe { sys::ibv_ack_async_event(&mut ev) };
        Ok(Some(copy))
    }

    /// The event type.
    pub fn event_type(&self) -> AsyncEventType {
        AsyncEventType::from_raw(self.event_type)
    }

    /// `ibv_event_type_str`.
    pub fn name(&self) -> String {
        // SAFETY: returns a static NUL-terminated string for any value.
        let p = unsafe { sys::ibv_event_type_str(self.event_type) };
        if p.is_null() {
            return format!("{:?}", self.event_type);
        }
        // SAFETY: non-null static C string.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    /// The event type as its numeric value, as the manual's programs print it.
    pub fn number(&self) -> u32 {
        self.event_type
    }
}
