//! Protection domains and the memory regions registered in them
//! (`ibv_alloc_pd`, `ibv_reg_mr`), with the scatter/gather entries that
//! name registered memory in work requests.

use std::any::Any;
use std::os::raw::c_int;
use std::ptr;
use std::sync::{Arc, Mutex, Weak};

use rdma_core_sys as sys;

use super::{keep_alive, Ah, AhAttr, Context, KeepList, Qp, QpInitAttr, Srq};
use crate::error::{Error, Result};
use crate::handle::{destroy_last, Release};

struct PdInner {
    pd: *mut sys::ibv_pd,
    /// False when librdmacm allocated it (its default PD of a device).
    owned: bool,
    _ctx: Option<Context>,
    /// Whatever must outlive a borrowed PD (e.g. the cm_id that holds it).
    _keep: Option<Arc<dyn Any + Send + Sync>>,
}

// SAFETY: see ContextInner.
unsafe impl Send for PdInner {}
// SAFETY: see ContextInner.
unsafe impl Sync for PdInner {}

impl Release for PdInner {
    fn release(&mut self) -> Result<()> {
        let pd = std::mem::replace(&mut self.pd, ptr::null_mut());
        let rc = if self.owned && !pd.is_null() {
            // SAFETY: every MR/QP/AH/SRQ holds us, so none is left; once.
            unsafe { sys::ibv_dealloc_pd(pd) }
        } else {
            0
        };
        if rc != 0 {
            return Err(Error::from_ret("ibv_dealloc_pd", rc));
        }
        Ok(())
    }
}

impl Drop for PdInner {
    fn drop(&mut self) {
        // The backstop of error paths; `destroy` reports failures.
        let _ = self.release();
    }
}

bitflags::bitflags! {
    /// What a memory region, or a QP's peer, may do (`enum ibv_access_flags`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
    pub struct AccessFlags: u32 {
        /// `IBV_ACCESS_LOCAL_WRITE`: the adapter may write (receives, reads).
        const LOCAL_WRITE = sys::ibv_access_flags::IBV_ACCESS_LOCAL_WRITE.0;
        /// `IBV_ACCESS_REMOTE_WRITE`.
        const REMOTE_WRITE = sys::ibv_access_flags::IBV_ACCESS_REMOTE_WRITE.0;
        /// `IBV_ACCESS_REMOTE_READ`.
        const REMOTE_READ = sys::ibv_access_flags::IBV_ACCESS_REMOTE_READ.0;
        /// `IBV_ACCESS_REMOTE_ATOMIC`.
        const REMOTE_ATOMIC = sys::ibv_access_flags::IBV_ACCESS_REMOTE_ATOMIC.0;
    }
}

/// A protection domain.
#[derive(Clone)]
pub struct Pd {
    inner: Arc<PdInner>,
}

/// A reference to a [`Pd`] that does not keep it allocated.
#[derive(Clone)]
pub(crate) struct WeakPd(Weak<PdInner>);

impl WeakPd {
    /// The PD, unless it was deallocated.
    pub(crate) fn upgrade(&self) -> Option<Pd> {
        self.0.upgrade().map(|inner| Pd { inner })
    }
}

impl Pd {
    /// `ibv_alloc_pd` on `ctx`.
    pub(crate) fn alloc(ctx: &Context) -> Result<Pd> {
        // SAFETY: ctx is live.
        let pd = unsafe { sys::ibv_alloc_pd(ctx.as_ptr()) };
        if pd.is_null() {
            return Err(Error::last_os("ibv_alloc_pd"));
        }
        Ok(Pd {
            inner: Arc::new(PdInner {
                pd,
                owned: true,
                _ctx: Some(ctx.clone()),
                _keep: None,
            }),
        })
    }

    /// A PD that librdmacm allocated; `keep` is held until the last user is gone.
    ///
    /// # Safety
    /// `pd` must stay valid as long as `keep` is alive.
    pub(crate) unsafe fn from_borrowed(
        pd: *mut sys::ibv_pd,
        keep: Arc<dyn Any + Send + Sync>,
    ) -> Pd {
        Pd {
            inner: Arc::new(PdInner {
                pd,
                owned: false,
                _ctx: None,
                _keep: Some(keep),
            }),
        }
    }

    /// `ibv_dealloc_pd` now (for a PD this program allocated), reporting a
    /// failure; an error while an MR, QP, AH or SRQ on it, or a clone, still
    /// holds it.
    pub fn destroy(self) -> Result<()> {
        destroy_last(self.inner, "ibv_dealloc_pd", "PD")
    }

    /// A reference that lets the PD be deallocated.
    pub(crate) fn downgrade(&self) -> WeakPd {
        WeakPd(Arc::downgrade(&self.inner))
    }

    /// The raw pointer, for the objects made on it.
    pub(crate) fn as_ptr(&self) -> *mut sys::ibv_pd {
        self.inner.pd
    }

    /// Allocate `len` zeroed bytes (page aligned) and register them with `access`
    /// (`ibv_reg_mr`).
    pub fn reg_mr(&self, len: usize, access: AccessFlags) -> Result<Mr> {
        // Without LOCAL_WRITE the pinning would not fault in private pages
        // (it could pin the shared zero page): fault them in at once.
        let buf = Buffer::new(len, !access.contains(AccessFlags::LOCAL_WRITE))?;
        let bits = access.bits() as c_int;
        // SAFETY: pd is live; buf is `len` valid bytes that MrInner frees only
        // after deregistering.
        let mr = unsafe { sys::ibv_reg_mr(self.inner.pd, buf.ptr.cast(), len, bits) };
        if mr.is_null() {
            return Err(Error::last_os("ibv_reg_mr").context(format!(
                "registering {len} bytes with access flags 0x{:x}",
                access.bits()
            )));
        }
        Ok(Mr {
            inner: Arc::new(MrInner {
                mr,
                copy: Mutex::new(()),
                buf,
                _pd: self.clone(),
            }),
        })
    }

    /// `ibv_create_qp`.
    pub fn create_qp(&self, init: &QpInitAttr<'_>) -> Result<Qp> {
        Qp::create(self, init)
    }

    /// `ibv_create_ah`.
    pub fn create_ah(&self, attr: &AhAttr) -> Result<Ah> {
        Ah::create(self, &attr.to_raw())
    }

    /// `ibv_create_srq` with room for `max_wr` receives of `max_sge` entries.
    pub fn create_srq(&self, max_wr: u32, max_sge: u32) -> Result<Srq> {
        Srq::create(self, max_wr, max_sge)
    }
}

/// Page-aligned zeroed memory that this crate owns: an anonymous mapping,
/// so that the kernel supplies zero pages as they are first touched (by
/// the registration that pins them) instead of the program writing zeros
/// over the whole length first.
struct Buffer {
    ptr: *mut u8,
    len: usize,
}

impl Buffer {
    /// `populate`: fault every page in now (`MAP_POPULATE`).
    fn new(len: usize, populate: bool) -> Result<Buffer> {
        let map_len = len.max(1);
        let populate = if populate { libc::MAP_POPULATE } else { 0 };
        // SAFETY: a fresh private anonymous mapping; no existing memory is named.
        let ptr = unsafe {
            libc::mmap(
                ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | populate,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(Error::last_os("mmap").context(format!("allocating {len} bytes")));
        }
        Ok(Buffer {
            ptr: ptr.cast(),
            len,
        })
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: mapped in Buffer::new with this length, and unmapped once.
        unsafe { libc::munmap(self.ptr.cast(), self.len.max(1)) };
    }
}

struct MrInner {
    mr: *mut sys::ibv_mr,
    /// Serialises `read`/`write`/`clear`: clones of one `Mr` may be used
    /// from several threads.
    copy: Mutex<()>,
    // Field order matters: `buf` is freed after Drop deregisters the MR.
    buf: Buffer,
    _pd: Pd,
}

// SAFETY: see ContextInner; buffer access goes through copies, never references
// held across calls.
unsafe impl Send for MrInner {}
// SAFETY: as above.
unsafe impl Sync for MrInner {}

impl Release for MrInner {
    fn release(&mut self) -> Result<()> {
        let mr = std::mem::replace(&mut self.mr, ptr::null_mut());
        let rc = if mr.is_null() {
            0
        } else {
            // SAFETY: no QP holds us any more (they keep us), so no request names
            // this memory; deregistered once, before `buf` is freed.
            unsafe { sys::ibv_dereg_mr(mr) }
        };
        if rc != 0 {
            return Err(Error::from_ret("ibv_dereg_mr", rc));
        }
        Ok(())
    }
}

impl Drop for MrInner {
    fn drop(&mut self) {
        // The backstop of error paths; `destroy` reports failures.
        let _ = self.release();
    }
}

/// A registered memory region over a buffer it owns.
///
/// The buffer is read and written by copying (`read`, `write`) so that no Rust
/// reference to it is alive while the adapter may be writing to it.
#[derive(Clone)]
pub struct Mr {
    inner: Arc<MrInner>,
}

impl Mr {
    /// `ibv_dereg_mr` now, then the buffer is freed, reporting a failure; an
    /// error while a QP that was given this memory, or a clone, still holds
    /// it.
    pub fn destroy(self) -> Result<()> {
        destroy_last(self.inner, "ibv_dereg_mr", "memory region")
    }

    /// The buffer's address, as the peer needs it for RDMA.
    pub fn addr(&self) -> u64 {
        self.inner.buf.ptr as u64
    }

    /// The buffer's length in bytes.
    pub fn len(&self) -> usize {
        self.inner.buf.len
    }

    /// True for a zero-length region.
    pub fn is_empty(&self) -> bool {
        self.inner.buf.len == 0
    }

    /// Local key.
    pub fn lkey(&self) -> u32 {
        // SAFETY: mr is live while self is.
        unsafe { (*self.inner.mr).lkey }
    }

    /// Remote key.
    pub fn rkey(&self) -> u32 {
        // SAFETY: mr is live while self is.
        unsafe { (*self.inner.mr).rkey }
    }

    fn check(&self, offset: usize, len: usize) -> Result<()> {
        match offset.checked_add(len) {
            Some(end) if end <= self.len() => Ok(()),
            _ => Err(Error::msg(format!(
                "range {offset}+{len} is outside the {}-byte memory region",
                self.len()
            ))),
        }
    }

    /// Copy `data` into the buffer at `offset`.
    pub fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        self.check(offset, data.len())?;
        let _copy = self.inner.copy.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the range is inside the buffer (checked); copying raw avoids
        // holding a reference the adapter could write under.
        unsafe {
            ptr::copy_nonoverlapping(data.as_ptr(), self.inner.buf.ptr.add(offset), data.len())
        };
        Ok(())
    }

    /// Copy `len` bytes at `offset` out of the buffer.
    pub fn read(&self, offset: usize, len: usize) -> Result<Vec<u8>> {
        self.check(offset, len)?;
        let mut out = vec![0u8; len];
        let _copy = self.inner.copy.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the range is inside the buffer (checked).
        unsafe { ptr::copy_nonoverlapping(self.inner.buf.ptr.add(offset), out.as_mut_ptr(), len) };
        Ok(out)
    }

    /// The whole buffer, copied.
    pub fn to_vec(&self) -> Vec<u8> {
        self.read(0, self.len()).unwrap_or_default()
    }

    /// Set the whole buffer to zero.
    pub fn clear(&self) {
        self.fill(0);
    }

    /// Set every byte of the buffer to `byte` (the C programs' `memset`),
    /// without a second buffer of the region's size.
    pub fn fill(&self, byte: u8) {
        let _copy = self.inner.copy.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the whole buffer is ours.
        unsafe { ptr::write_bytes(self.inner.buf.ptr, byte, self.len()) };
    }

    /// A scatter/gather entry over `len` bytes at `offset`.
    pub fn sge(&self, offset: usize, len: usize) -> Result<Sge<'_>> {
        self.check(offset, len)?;
        let length = u32::try_from(len)
            .map_err(|_| Error::msg(format!("a {len}-byte scatter/gather entry is too long")))?;
        Ok(Sge {
            mr: self,
            offset,
            length,
        })
    }

    /// The whole region as one scatter/gather entry.
    pub fn sge_all(&self) -> Result<Sge<'_>> {
        self.sge(0, self.len())
    }
}

/// A scatter/gather entry over part of a [`Mr`].
#[derive(Clone, Copy)]
pub struct Sge<'a> {
    mr: &'a Mr,
    offset: usize,
    length: u32,
}

impl Sge<'_> {
    /// Makes `keep` (a QP's or SRQ's) hold this entry's MR.
    pub(super) fn keep_mr(&self, keep: &KeepList) {
        keep_alive(keep, &self.mr.inner);
    }

    pub(super) fn to_raw(self) -> sys::ibv_sge {
        sys::ibv_sge {
            addr: self.mr.addr() + self.offset as u64,
            length: self.length,
            lkey: self.mr.lkey(),
        }
    }
}

#[cfg(test)]
mod tests;
