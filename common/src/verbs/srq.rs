//! Shared receive queues (`ibv_create_srq`, `rdma_create_srq`,
//! `ibv_post_srq_recv`).

use std::any::Any;
use std::ptr;
use std::sync::{Arc, Mutex};

use rdma_core_sys as sys;

use super::{recv_wr, KeepList, Pd, Sge};
use crate::error::{Error, Result};
use crate::handle::{destroy_last, Release};

struct SrqInner {
    srq: *mut sys::ibv_srq,
    /// Set when librdmacm created the SRQ on a cm_id (`rdma_create_srq`): it
    /// is then released with `rdma_destroy_srq` on that id, which the second
    /// member keeps alive until then.
    cm: Option<(*mut sys::rdma_cm_id, Arc<dyn Any + Send + Sync>)>,
    _pd: Pd,
    keep: KeepList,
}

// SAFETY: see ContextInner.
unsafe impl Send for SrqInner {}
// SAFETY: see ContextInner.
unsafe impl Sync for SrqInner {}

impl Release for SrqInner {
    fn release(&mut self) -> Result<()> {
        let srq = std::mem::replace(&mut self.srq, ptr::null_mut());
        if srq.is_null() {
            return Ok(());
        }
        match &self.cm {
            // SAFETY: QPs attached to the SRQ hold it, so none is left; the
            // id is held by `cm` and `id->srq` is this SRQ. Nothing returned.
            Some((id, _)) => unsafe { sys::rdma_destroy_srq(*id) },
            None => {
                // SAFETY: QPs attached to the SRQ hold it, so none is left.
                let rc = unsafe { sys::ibv_destroy_srq(srq) };
                if rc != 0 {
                    return Err(Error::from_ret("ibv_destroy_srq", rc));
                }
            }
        }
        Ok(())
    }
}

impl Drop for SrqInner {
    fn drop(&mut self) {
        // The backstop of error paths; `destroy` reports failures.
        let _ = self.release();
    }
}

/// A shared receive queue.
#[derive(Clone)]
pub struct Srq {
    inner: Arc<SrqInner>,
}

impl Srq {
    /// `ibv_create_srq` on `pd` with room for `max_wr` receives of `max_sge`
    /// entries.
    pub(crate) fn create(pd: &Pd, max_wr: u32, max_sge: u32) -> Result<Srq> {
        let mut attr = sys::ibv_srq_init_attr::default();
        attr.attr.max_wr = max_wr;
        attr.attr.max_sge = max_sge;
        // SAFETY: pd is live; attr is valid.
        let srq = unsafe { sys::ibv_create_srq(pd.as_ptr(), &mut attr) };
        if srq.is_null() {
            return Err(Error::last_os("ibv_create_srq").context(format!("max_wr {max_wr}")));
        }
        Ok(Srq {
            inner: Arc::new(SrqInner {
                srq,
                cm: None,
                _pd: pd.clone(),
                keep: Mutex::new(Vec::new()),
            }),
        })
    }

    /// `ibv_destroy_srq` (or `rdma_destroy_srq` for librdmacm's) now,
    /// reporting a failure; an error while a QP on it, or a clone, still
    /// holds it.
    pub fn destroy(self) -> Result<()> {
        destroy_last(self.inner, "ibv_destroy_srq", "SRQ")
    }

    /// The raw pointer, for the QPs made on it.
    pub(crate) fn as_ptr(&self) -> *mut sys::ibv_srq {
        self.inner.srq
    }

    /// `ibv_post_srq_recv` of one work request.
    pub fn post_recv(&self, wr_id: u64, sges: &[Sge<'_>]) -> Result<()> {
        for s in sges {
            s.keep_mr(&self.inner.keep);
        }
        let mut sg: Vec<_> = sges.iter().map(|s| s.to_raw()).collect();
        let mut wr = recv_wr(wr_id, &mut sg);
        let mut bad: *mut sys::ibv_recv_wr = ptr::null_mut();
        // SAFETY: srq is live; wr valid for the call; memory kept alive by `keep`.
        let rc = unsafe { sys::ibv_post_srq_recv(self.inner.srq, &mut wr, &mut bad) };
        if rc != 0 {
            return Err(Error::from_ret("ibv_post_srq_recv", rc));
        }
        Ok(())
    }

    /// Wrap the SRQ librdmacm created on `id` (`rdma_create_srq`); it is
    /// destroyed with `rdma_destroy_srq(id)`, and `keep` (the id's owner) is
    /// held until then.
    ///
    /// # Safety
    /// `id` must be valid while `keep` is alive, `id->srq` a live SRQ that
    /// nothing else destroys, and `pd` the PD it was created on.
    pub(crate) unsafe fn from_cm(
        id: *mut sys::rdma_cm_id,
        pd: Pd,
        keep: Arc<dyn Any + Send + Sync>,
    ) -> Srq {
        Srq {
            inner: Arc::new(SrqInner {
                // SAFETY: the caller guarantees id is valid.
                srq: unsafe { (*id).srq },
                cm: Some((id, keep)),
                _pd: pd,
                keep: Mutex::new(Vec::new()),
            }),
        }
    }
}
