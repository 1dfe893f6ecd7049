//! Small RAII wrappers over the libibverbs objects the examples use, one
//! module per verbs object: [`device`] (device list, context, GIDs), [`pd`]
//! (protection domain and memory regions), [`cq`] (completion channel, CQ,
//! completions), [`qp`], [`srq`], [`ah`] and [`async_event`].
//!
//! Every object keeps an `Arc` to the objects it was made from (a QP to its PD,
//! CQs and SRQ; an MR to its PD; a PD to its device context), so whatever order
//! a program drops its handles in, the verbs are released children first:
//! QP before CQ/MR/SRQ, MR before PD, PD before the context.
//!
//! Posting a work request hands memory to the adapter until the request
//! completes or the QP is destroyed. The safe `post_*` methods therefore only
//! take [`Sge`]s over a [`Mr`] that this crate allocated and registered, and the
//! QP (or SRQ) keeps a reference to every MR (and AH) it was given, so that
//! memory provably outlives every request that names it.

use std::any::Any;
use std::ffi::CString;
use std::os::raw::c_int;
use std::ptr;
use std::sync::{Arc, Mutex};

use rdma_core_sys as sys;

use crate::error::{Error, Result};
use crate::handle::impl_destroy;

pub mod ah;
pub mod async_event;
pub mod cq;
pub mod device;
pub mod pd;
pub mod qp;
pub mod srq;

pub use ah::{Ah, AhAttr, Grh};
pub use async_event::{AsyncEvent, AsyncEventType};
pub(crate) use cq::poll_cq_error;
pub use cq::{wc_status_str, CompChannel, Cq, WcOpcode, WcStatus, WorkCompletion, POLL_INTO_MAX};
pub use device::{
    Context, Device, DeviceAttr, DeviceCapFlags, DeviceList, Gid, LinkLayer, Mtu, PortAttr,
    PortState,
};
pub(crate) use pd::WeakPd;
pub use pd::{AccessFlags, Mr, Pd, Sge};

pub(crate) use qp::{CmQpOwner, CompQueue};
pub use qp::{
    InitAttr, Qp, QpCap, QpInitAttr, QpPath, QpType, RtrAttr, RtsAttr, SendFlags, SendOp,
};
pub use srq::Srq;

// Where the examples have always found them.
pub use crate::handle::{first_failure, Destroy};

/// Bytes of the GRH that the adapter puts in front of every UD receive.
pub const GRH_SIZE: usize = 40;

/// Turn a possibly NUL-terminated C string buffer into text, stopping at the first NUL,
/// as `printf("%s")` would.
pub fn c_str_lossy(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// A NUL-terminated copy of `s` for C, or an error naming `what` if `s` has a NUL inside.
pub fn c_string(what: &str, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::msg(format!("{what} must not contain a NUL byte")))
}

impl_destroy!(Ah, CompChannel, Context, Cq, Mr, Pd, Qp, Srq);

/// What a QP or SRQ holds on to for as long as it lives.
type KeepList = Mutex<Vec<Arc<dyn Any + Send + Sync>>>;

/// Keep `obj` alive for as long as the QP (or SRQ) lives. Takes the lock but
/// does not touch the reference count when `obj` is already kept (the common
/// case in a loop that reuses one buffer).
fn keep_alive<T: Any + Send + Sync>(keep: &KeepList, obj: &Arc<T>) {
    let mut k = keep.lock().unwrap_or_else(|e| e.into_inner());
    let target = Arc::as_ptr(obj) as *const u8;
    if !k.iter().any(|o| Arc::as_ptr(o) as *const u8 == target) {
        k.push(obj.clone());
    }
}

/// One receive request over `sg` (shared by QP and SRQ receives).
fn recv_wr(wr_id: u64, sg: &mut [sys::ibv_sge]) -> sys::ibv_recv_wr {
    sys::ibv_recv_wr {
        wr_id,
        next: ptr::null_mut(),
        sg_list: if sg.is_empty() {
            ptr::null_mut()
        } else {
            sg.as_mut_ptr()
        },
        num_sge: sg.len() as c_int,
    }
}

#[cfg(test)]
mod tests;
