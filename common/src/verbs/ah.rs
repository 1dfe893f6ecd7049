//! Address vectors and address handles (`struct ibv_ah_attr`,
//! `ibv_create_ah`).

use std::ptr;
use std::sync::Arc;

use rdma_core_sys as sys;

use super::{keep_alive, Gid, KeepList, Pd};
use crate::error::{Error, Result};
use crate::handle::{destroy_last, Release};

/// The global routing header part of an address vector.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Grh {
    /// Destination GID.
    pub dgid: Gid,
    /// Flow label.
    pub flow_label: u32,
    /// Index of the local (source) GID.
    pub sgid_index: u8,
    /// Hop limit.
    pub hop_limit: u8,
    /// Traffic class.
    pub traffic_class: u8,
}

/// An address vector (`struct ibv_ah_attr`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AhAttr {
    /// Destination LID (0 on RoCE).
    pub dlid: u16,
    /// Service level.
    pub sl: u8,
    /// Source path bits.
    pub src_path_bits: u8,
    /// Static rate.
    pub static_rate: u8,
    /// Local port.
    pub port_num: u8,
    /// The GRH; required on RoCE.
    pub grh: Option<Grh>,
}

impl AhAttr {
    /// The raw struct the verbs take.
    pub(crate) fn to_raw(self) -> sys::ibv_ah_attr {
        let grh = self.grh.unwrap_or_default();
        sys::ibv_ah_attr {
            grh: sys::ibv_global_route {
                dgid: grh.dgid.to_raw(),
                flow_label: grh.flow_label,
                sgid_index: grh.sgid_index,
                hop_limit: grh.hop_limit,
                traffic_class: grh.traffic_class,
            },
            dlid: self.dlid,
            sl: self.sl,
            src_path_bits: self.src_path_bits,
            static_rate: self.static_rate,
            is_global: self.grh.is_some() as u8,
            port_num: self.port_num,
        }
    }

    /// From the raw struct.
    pub(crate) fn from_raw(raw: &sys::ibv_ah_attr) -> AhAttr {
        AhAttr {
            dlid: raw.dlid,
            sl: raw.sl,
            src_path_bits: raw.src_path_bits,
            static_rate: raw.static_rate,
            port_num: raw.port_num,
            grh: (raw.is_global != 0).then(|| Grh {
                dgid: Gid::from_raw(&raw.grh.dgid),
                flow_label: raw.grh.flow_label,
                sgid_index: raw.grh.sgid_index,
                hop_limit: raw.grh.hop_limit,
                traffic_class: raw.grh.traffic_class,
            }),
        }
    }
}

struct AhInner {
    ah: *mut sys::ibv_ah,
    _pd: Pd,
}

// SAFETY: see ContextInner.
unsafe impl Send for AhInner {}
// SAFETY: see ContextInner.
unsafe impl Sync for AhInner {}

impl Release for AhInner {
    fn release(&mut self) -> Result<()> {
        let ah = std::mem::replace(&mut self.ah, ptr::null_mut());
        // SAFETY: QPs that sent with this AH hold it, so none is left; once.
        if !ah.is_null() && unsafe { sys::ibv_destroy_ah(ah) } != 0 {
            return Err(Error::last_os("ibv_destroy_ah"));
        }
        Ok(())
    }
}

impl Drop for AhInner {
    fn drop(&mut self) {
        // The backstop of error paths; `destroy` reports failures.
        let _ = self.release();
    }
}

/// An address handle.
#[derive(Clone)]
pub struct Ah {
    inner: Arc<AhInner>,
}

impl Ah {
    /// `ibv_create_ah` on `pd`.
    pub(crate) fn create(pd: &Pd, attr: &sys::ibv_ah_attr) -> Result<Ah> {
        let mut a = *attr;
        // SAFETY: pd is live; a is a valid attribute struct.
        let ah = unsafe { sys::ibv_create_ah(pd.as_ptr(), &mut a) };
        if ah.is_null() {
            return Err(Error::last_os("ibv_create_ah"));
        }
        Ok(Ah {
            inner: Arc::new(AhInner {
                ah,
                _pd: pd.clone(),
            }),
        })
    }

    /// `ibv_destroy_ah` now, reporting a failure; an error while a QP that
    /// sent with it, or a clone, still holds it.
    pub fn destroy(self) -> Result<()> {
        destroy_last(self.inner, "ibv_destroy_ah", "address handle")
    }

    /// The raw pointer, for the UD work requests that name it.
    pub(super) fn as_ptr(&self) -> *mut sys::ibv_ah {
        self.inner.ah
    }

    /// Makes `keep` (a QP's) hold this AH.
    pub(super) fn keep_in(&self, keep: &KeepList) {
        keep_alive(keep, &self.inner);
    }
}

#[cfg(test)]
mod tests;
