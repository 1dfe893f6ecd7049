//! Completion channels, completion queues and the completions polled from
//! them (`ibv_create_cq`, `ibv_poll_cq`, `ibv_req_notify_cq`,
//! `ibv_get_cq_event`).

use std::ffi::CStr;
use std::os::raw::c_int;
use std::ptr;
use std::sync::Arc;
use std::time::Duration;

use rdma_core_sys as sys;

use super::Context;
use crate::error::{Error, Result};
use crate::handle::{c_enum, destroy_last, wait_readable, Release};

struct ChannelInner {
    ch: *mut sys::ibv_comp_channel,
    _ctx: Context,
}

// SAFETY: see ContextInner.
unsafe impl Send for ChannelInner {}
// SAFETY: see ContextInner.
unsafe impl Sync for ChannelInner {}

impl Release for ChannelInner {
    fn release(&mut self) -> Result<()> {
        let ch = std::mem::replace(&mut self.ch, ptr::null_mut());
        // SAFETY: every CQ on this channel holds it, so none is left; once.
        if !ch.is_null() && unsafe { sys::ibv_destroy_comp_channel(ch) } != 0 {
            return Err(Error::last_os("ibv_destroy_comp_channel"));
        }
        Ok(())
    }
}

impl Drop for ChannelInner {
    fn drop(&mut self) {
        // The backstop of error paths; `destroy` reports failures.
        let _ = self.release();
    }
}

/// A completion event channel.
#[derive(Clone)]
pub struct CompChannel {
    inner: Arc<ChannelInner>,
}

impl CompChannel {
    /// `ibv_create_comp_channel` on `ctx`.
    pub(crate) fn create(ctx: &Context) -> Result<CompChannel> {
        // SAFETY: ctx is live.
        let ch = unsafe { sys::ibv_create_comp_channel(ctx.as_ptr()) };
        if ch.is_null() {
            return Err(Error::last_os("ibv_create_comp_channel"));
        }
        Ok(CompChannel {
            inner: Arc::new(ChannelInner {
                ch,
                _ctx: ctx.clone(),
            }),
        })
    }

    /// `ibv_destroy_comp_channel` now, reporting a failure; an error while
    /// a CQ on it, or a clone, still holds it.
    pub fn destroy(self) -> Result<()> {
        destroy_last(self.inner, "ibv_destroy_comp_channel", "completion channel")
    }

    /// The channel's file descriptor (for poll/select).
    pub fn fd(&self) -> c_int {
        // SAFETY: ch is live.
        unsafe { (*self.inner.ch).fd }
    }
}

struct CqInner {
    cq: *mut sys::ibv_cq,
    channel: Option<CompChannel>,
    _ctx: Context,
}

// SAFETY: see ContextInner.
unsafe impl Send for CqInner {}
// SAFETY: see ContextInner.
unsafe impl Sync for CqInner {}

impl Release for CqInner {
    fn release(&mut self) -> Result<()> {
        let cq = std::mem::replace(&mut self.cq, ptr::null_mut());
        let rc = if cq.is_null() {
            0
        } else {
            // SAFETY: every QP using this CQ holds it, and CQ events are acked as
            // they are read (Cq::wait_event), so destroy cannot block; once.
            unsafe { sys::ibv_destroy_cq(cq) }
        };
        if rc != 0 {
            return Err(Error::from_ret("ibv_destroy_cq", rc));
        }
        Ok(())
    }
}

impl Drop for CqInner {
    fn drop(&mut self) {
        // The backstop of error paths; `destroy` reports failures.
        let _ = self.release();
    }
}

/// A completion queue.
#[derive(Clone)]
pub struct Cq {
    inner: Arc<CqInner>,
}

c_enum! {
    /// A completion's status (`enum ibv_wc_status`).
    #[derive(Default)]
    WcStatus: ibv_wc_status {
        /// `IBV_WC_SUCCESS`.
        #[default]
        Success = IBV_WC_SUCCESS,
        /// `IBV_WC_LOC_LEN_ERR`: the message was longer than the receive.
        LocLenErr = IBV_WC_LOC_LEN_ERR,
        /// `IBV_WC_LOC_QP_OP_ERR`.
        LocQpOpErr = IBV_WC_LOC_QP_OP_ERR,
        /// `IBV_WC_LOC_PROT_ERR`.
        LocProtErr = IBV_WC_LOC_PROT_ERR,
        /// `IBV_WC_WR_FLUSH_ERR`: flushed when the QP went to the error state.
        WrFlushErr = IBV_WC_WR_FLUSH_ERR,
        /// `IBV_WC_MW_BIND_ERR`.
        MwBindErr = IBV_WC_MW_BIND_ERR,
        /// `IBV_WC_BAD_RESP_ERR`.
        BadRespErr = IBV_WC_BAD_RESP_ERR,
        /// `IBV_WC_LOC_ACCESS_ERR`.
        LocAccessErr = IBV_WC_LOC_ACCESS_ERR,
        /// `IBV_WC_REM_INV_REQ_ERR`.
        RemInvReqErr = IBV_WC_REM_INV_REQ_ERR,
        /// `IBV_WC_REM_ACCESS_ERR`.
        RemAccessErr = IBV_WC_REM_ACCESS_ERR,
        /// `IBV_WC_REM_OP_ERR`.
        RemOpErr = IBV_WC_REM_OP_ERR,
        /// `IBV_WC_RETRY_EXC_ERR`: the peer did not answer.
        RetryExcErr = IBV_WC_RETRY_EXC_ERR,
        /// `IBV_WC_RNR_RETRY_EXC_ERR`: the peer had no receive posted.
        RnrRetryExcErr = IBV_WC_RNR_RETRY_EXC_ERR,
        /// `IBV_WC_REM_ABORT_ERR`.
        RemAbortErr = IBV_WC_REM_ABORT_ERR,
        /// `IBV_WC_FATAL_ERR`.
        FatalErr = IBV_WC_FATAL_ERR,
        /// `IBV_WC_RESP_TIMEOUT_ERR`.
        RespTimeoutErr = IBV_WC_RESP_TIMEOUT_ERR,
        /// `IBV_WC_GENERAL_ERR`.
        GeneralErr = IBV_WC_GENERAL_ERR,
    }
}

c_enum! {
    /// What a completion is for (`enum ibv_wc_opcode`).
    #[derive(Default)]
    WcOpcode: ibv_wc_opcode {
        /// `IBV_WC_SEND`.
        #[default]
        Send = IBV_WC_SEND,
        /// `IBV_WC_RDMA_WRITE`.
        RdmaWrite = IBV_WC_RDMA_WRITE,
        /// `IBV_WC_RDMA_READ`.
        RdmaRead = IBV_WC_RDMA_READ,
        /// `IBV_WC_COMP_SWAP`.
        CompSwap = IBV_WC_COMP_SWAP,
        /// `IBV_WC_FETCH_ADD`.
        FetchAdd = IBV_WC_FETCH_ADD,
        /// `IBV_WC_BIND_MW`.
        BindMw = IBV_WC_BIND_MW,
        /// `IBV_WC_LOCAL_INV`.
        LocalInv = IBV_WC_LOCAL_INV,
        /// `IBV_WC_RECV`.
        Recv = IBV_WC_RECV,
        /// `IBV_WC_RECV_RDMA_WITH_IMM`.
        RecvRdmaWithImm = IBV_WC_RECV_RDMA_WITH_IMM,
    }
}

impl WcOpcode {
    /// A receive completion (the `IBV_WC_RECV` bit of the opcode, as the
    /// Bedeir paper tests it).
    pub fn is_recv(self) -> bool {
        self.code() & sys::ibv_wc_opcode::IBV_WC_RECV != 0
    }
}

/// A completion, copied out of `struct ibv_wc`. The default is all zero,
/// so callers can keep a reusable array for [`Cq::poll_into`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkCompletion {
    /// The request's id.
    pub wr_id: u64,
    /// Success, or what went wrong.
    pub status: WcStatus,
    /// What completed.
    pub opcode: WcOpcode,
    /// Vendor syndrome of a failed completion.
    pub vendor_err: u32,
    /// Bytes received.
    pub byte_len: u32,
    /// Immediate data in host order, when the sender attached some.
    pub imm_data: Option<u32>,
    /// Local QP number.
    pub qp_num: u32,
    /// Remote QP number (UD).
    pub src_qp: u32,
    /// Source LID.
    pub slid: u16,
    /// Service level.
    pub sl: u8,
}

impl WorkCompletion {
    /// A completion copied out of the raw struct (also for the CQs that
    /// librdmacm owns, which `cm_sync` polls).
    pub(crate) fn from_raw(wc: &sys::ibv_wc) -> WorkCompletion {
        let with_imm = wc.wc_flags & sys::ibv_wc_flags::IBV_WC_WITH_IMM.0 != 0;
        WorkCompletion {
            wr_id: wc.wr_id,
            status: WcStatus::from_raw(wc.status),
            opcode: WcOpcode::from_raw(wc.opcode),
            vendor_err: wc.vendor_err,
            byte_len: wc.byte_len,
            // SAFETY: the union is plain u32 data either way.
            imm_data: with_imm.then(|| u32::from_be(unsafe { wc.__bindgen_anon_1.imm_data })),
            qp_num: wc.qp_num,
            src_qp: wc.src_qp,
            slid: wc.slid,
            sl: wc.sl,
        }
    }

    /// True for `IBV_WC_SUCCESS`.
    pub fn is_success(&self) -> bool {
        self.status == WcStatus::Success
    }

    /// `ibv_wc_status_str` of the status.
    pub fn status_str(&self) -> String {
        wc_status_str(self.status)
    }
}

/// `ibv_wc_status_str`.
pub fn wc_status_str(status: WcStatus) -> String {
    let status = status.code();
    // SAFETY: returns a static NUL-terminated string for any value.
    let p = unsafe { sys::ibv_wc_status_str(status) };
    if p.is_null() {
        return format!("status {status}");
    }
    // SAFETY: non-null static C string.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

impl Cq {
    /// `ibv_create_cq` on `ctx` with `cqe` entries, optionally bound to a
    /// completion channel.
    pub(crate) fn create(ctx: &Context, cqe: i32, channel: Option<&CompChannel>) -> Result<Cq> {
        let ch = channel.map_or(ptr::null_mut(), |c| c.inner.ch);
        // SAFETY: ctx and channel (if any) are live.
        let cq = unsafe { sys::ibv_create_cq(ctx.as_ptr(), cqe, ptr::null_mut(), ch, 0) };
        if cq.is_null() {
            return Err(Error::last_os(&format!("ibv_create_cq of {cqe} entries")));
        }
        Ok(Cq {
            inner: Arc::new(CqInner {
                cq,
                channel: channel.cloned(),
                _ctx: ctx.clone(),
            }),
        })
    }

    /// `ibv_destroy_cq` now, reporting a failure; an error while a QP on
    /// it, or a clone, still holds it.
    pub fn destroy(self) -> Result<()> {
        destroy_last(self.inner, "ibv_destroy_cq", "CQ")
    }

    /// The raw pointer, for the QPs made on it.
    pub(crate) fn as_ptr(&self) -> *mut sys::ibv_cq {
        self.inner.cq
    }

    /// `ibv_poll_cq` for at most `max` completions.
    pub fn poll(&self, max: usize) -> Result<Vec<WorkCompletion>> {
        let max = max.clamp(1, 256);
        let mut wcs = vec![sys::ibv_wc::default(); max];
        // SAFETY: cq is live; wcs has room for `max` entries.
        let n = unsafe { sys::ibv_poll_cq(self.inner.cq, max as c_int, wcs.as_mut_ptr()) };
        if n < 0 {
            return Err(poll_cq_error(n));
        }
        Ok(wcs[..n as usize]
            .iter()
            .map(WorkCompletion::from_raw)
            .collect())
    }

    /// `ibv_poll_cq` for at most `out.len()` (up to [`POLL_INTO_MAX`])
    /// completions into the caller's array; returns how many were filled.
    ///
    /// Unlike [`Cq::poll`] it does not allocate, so a busy-polling loop that
    /// measures latency costs what the C loop costs.
    pub fn poll_into(&self, out: &mut [WorkCompletion]) -> Result<usize> {
        let max = out.len().min(POLL_INTO_MAX);
        if max == 0 {
            return Ok(0);
        }
        // Left uninitialised: zeroing it on every empty poll would cost more
        // than the poll.
        let mut raw = std::mem::MaybeUninit::<[sys::ibv_wc; POLL_INTO_MAX]>::uninit();
        let base = raw.as_mut_ptr().cast::<sys::ibv_wc>();
        // SAFETY: cq is live; raw has room for `max` entries, which the
        // provider writes before returning their count.
        let n = unsafe { sys::ibv_poll_cq(self.inner.cq, max as c_int, base) };
        if n < 0 {
            return Err(poll_cq_error(n));
        }
        let n = (n as usize).min(max);
        for (i, dst) in out.iter_mut().take(n).enumerate() {
            // SAFETY: the first n entries were written by ibv_poll_cq.
            *dst = WorkCompletion::from_raw(unsafe { &*base.add(i) });
        }
        Ok(n)
    }

    /// `ibv_poll_cq` for one completion.
    pub fn poll_one(&self) -> Result<Option<WorkCompletion>> {
        Ok(self.poll(1)?.into_iter().next())
    }

    /// `ibv_req_notify_cq`.
    pub fn req_notify(&self, solicited_only: bool) -> Result<()> {
        // SAFETY: cq is live.
        let rc = unsafe { sys::ibv_req_notify_cq(self.inner.cq, solicited_only as c_int) };
        if rc != 0 {
            return Err(Error::from_ret("ibv_req_notify_cq", rc));
        }
        Ok(())
    }

    /// Wait on the CQ's channel for a completion event (`ibv_get_cq_event`) and
    /// ack it (`ibv_ack_cq_events`). `Ok(false)` if `timeout` passed first.
    pub fn wait_event(&self, timeout: Option<Duration>) -> Result<bool> {
        let Some(channel) = &self.inner.channel else {
            return Err(Error::msg(
                "ibv_get_cq_event: this CQ has no completion channel",
            ));
        };
        if !wait_readable(channel.fd(), timeout, "poll(comp_channel)")? {
            return Ok(false);
        }
        let mut ev_cq: *mut sys::ibv_cq = ptr::null_mut();
        let mut ev_ctx: *mut libc::c_void = ptr::null_mut();
        // SAFETY: channel is live; out-pointers are valid.
        let rc = unsafe { sys::ibv_get_cq_event(channel.inner.ch, &mut ev_cq, &mut ev_ctx) };
        if rc != 0 {
            return Err(Error::last_os("ibv_get_cq_event"));
        }
        // SAFETY: ev_cq is the CQ the event is for, live (we or a sibling hold it).
        unsafe { sys::ibv_ack_cq_events(ev_cq, 1) };
        if ev_cq != self.inner.cq {
            return Err(Error::msg("ibv_get_cq_event: got an event for another CQ"));
        }
        Ok(true)
    }
}

/// `ibv_poll_cq` failed: it returns a negative value and sets no errno.
pub(crate) fn poll_cq_error(n: c_int) -> Error {
    Error::msg(format!("ibv_poll_cq failed (returned {n})"))
}

/// Most completions [`Cq::poll_into`] reads in one call (its stack buffer).
pub const POLL_INTO_MAX: usize = 16;
