//! Queue pairs: creation, the state transitions the examples make, and
//! posting (`ibv_create_qp`, `ibv_modify_qp`, `ibv_post_send`, ...).

use std::os::raw::c_int;
use std::ptr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rdma_core_sys as sys;

use super::{recv_wr, AccessFlags, Ah, AhAttr, Cq, KeepList, Mtu, Pd, Sge, Srq, WorkCompletion};
use crate::error::{Error, Result};
use crate::handle::{c_enum, destroy_last, Release};

c_enum! {
    /// A QP's transport (`enum ibv_qp_type`).
    QpType: ibv_qp_type {
        /// `IBV_QPT_RC`: reliable connected.
        Rc = IBV_QPT_RC,
        /// `IBV_QPT_UC`: unreliable connected.
        Uc = IBV_QPT_UC,
        /// `IBV_QPT_UD`: unreliable datagram.
        Ud = IBV_QPT_UD,
    }
}

bitflags::bitflags! {
    /// How a send is posted (`enum ibv_send_flags`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct SendFlags: u32 {
        /// `IBV_SEND_FENCE`: wait for earlier RDMA reads first.
        const FENCE = sys::ibv_send_flags::IBV_SEND_FENCE.0;
        /// `IBV_SEND_SIGNALED`: make a completion even without `sq_sig_all`.
        const SIGNALED = sys::ibv_send_flags::IBV_SEND_SIGNALED.0;
        /// `IBV_SEND_SOLICITED`: wake a peer that waits for solicited events.
        const SOLICITED = sys::ibv_send_flags::IBV_SEND_SOLICITED.0;
        /// `IBV_SEND_INLINE`: copy the data into the request.
        const INLINE = sys::ibv_send_flags::IBV_SEND_INLINE.0;
    }
}

/// A QP's sizes as the adapter granted them (`struct ibv_qp_cap`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QpCap {
    /// Send queue depth.
    pub max_send_wr: u32,
    /// Receive queue depth.
    pub max_recv_wr: u32,
    /// Scatter/gather entries per send.
    pub max_send_sge: u32,
    /// Scatter/gather entries per receive.
    pub max_recv_sge: u32,
    /// Most bytes a send can carry inline.
    pub max_inline_data: u32,
}

/// A QP's primary path, as `ibv_query_qp` reports it: what an alternate
/// path starts from (manual 8.1, load_alt_path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QpPath {
    /// The local port the path leaves from.
    pub port_num: u8,
    /// P_Key index.
    pub pkey_index: u16,
    /// Local ACK timeout (4.096 us * 2^timeout).
    pub timeout: u8,
    /// The address vector to the peer.
    pub ah_attr: AhAttr,
}

/// What `ibv_create_qp` (and librdmacm's `rdma_create_qp`/`rdma_create_ep`)
/// needs.
pub struct QpInitAttr<'a> {
    /// The transport.
    pub qp_type: QpType,
    /// CQ for send completions; librdmacm creates one (with its own
    /// completion channel) for a QP it makes without.
    pub send_cq: Option<&'a Cq>,
    /// CQ for receive completions; as `send_cq`.
    pub recv_cq: Option<&'a Cq>,
    /// Shared receive queue, if receives come from one.
    pub srq: Option<&'a Srq>,
    /// Send queue depth.
    pub max_send_wr: u32,
    /// Receive queue depth.
    pub max_recv_wr: u32,
    /// Scatter/gather entries per send.
    pub max_send_sge: u32,
    /// Scatter/gather entries per receive.
    pub max_recv_sge: u32,
    /// Inline data bytes.
    pub max_inline_data: u32,
    /// Signal every send (`sq_sig_all`).
    pub sq_sig_all: bool,
}

impl<'a> QpInitAttr<'a> {
    /// `max_wr` sends and as many receives, of one scatter/gather entry
    /// each; no inline data, no SRQ, a completion only for the sends that
    /// ask for one, and CQs that librdmacm creates (see [`Self::on_cq`]).
    /// Struct update changes the rest: `QpInitAttr { sq_sig_all: true, ..QpInitAttr::new(..) }`.
    pub const fn new(qp_type: QpType, max_wr: u32) -> Self {
        QpInitAttr {
            qp_type,
            send_cq: None,
            recv_cq: None,
            srq: None,
            max_send_wr: max_wr,
            max_recv_wr: max_wr,
            max_send_sge: 1,
            max_recv_sge: 1,
            max_inline_data: 0,
            sq_sig_all: false,
        }
    }

    /// Both queues complete on `cq`.
    pub fn on_cq(self, cq: &'a Cq) -> Self {
        QpInitAttr {
            send_cq: Some(cq),
            recv_cq: Some(cq),
            ..self
        }
    }

    /// The raw struct `ibv_create_qp` and `rdma_create_qp` take.
    pub(crate) fn to_raw(&self) -> sys::ibv_qp_init_attr {
        let mut attr = sys::ibv_qp_init_attr {
            qp_type: self.qp_type.code(),
            sq_sig_all: self.sq_sig_all as c_int,
            send_cq: self.send_cq.map_or(ptr::null_mut(), Cq::as_ptr),
            recv_cq: self.recv_cq.map_or(ptr::null_mut(), Cq::as_ptr),
            srq: self.srq.map_or(ptr::null_mut(), |s| s.as_ptr()),
            ..Default::default()
        };
        attr.cap.max_send_wr = self.max_send_wr;
        attr.cap.max_recv_wr = self.max_recv_wr;
        attr.cap.max_send_sge = self.max_send_sge;
        attr.cap.max_recv_sge = self.max_recv_sge;
        attr.cap.max_inline_data = self.max_inline_data;
        attr
    }

    /// What a QP made from these attributes must keep alive.
    pub(crate) fn deps(&self) -> (Vec<Cq>, Option<Srq>) {
        let cqs = self.send_cq.iter().chain(self.recv_cq.iter());
        (cqs.map(|c| (*c).clone()).collect(), self.srq.cloned())
    }
}

/// Which of librdmacm's CQs a completion is read from.
#[derive(Clone, Copy)]
pub(crate) enum CompQueue {
    /// `id->send_cq`, as `rdma_get_send_comp` polls it.
    Send,
    /// `id->recv_cq`, as `rdma_get_recv_comp` polls it.
    Recv,
}

/// The rdma_cm id a QP was made on, as the QP needs it: to be destroyed
/// (`rdma_destroy_qp`) and to read librdmacm's CQs. `cm` implements it, so
/// that this module, which `cm` builds on, need not know rdma_cm's types.
pub(crate) trait CmQpOwner: Send + Sync {
    /// `rdma_destroy_qp` on the id, once, before the id can go.
    fn destroy_qp(&self);

    /// `rdma_get_send_comp` / `rdma_get_recv_comp` for `qp`, the id's QP:
    /// the next completion of librdmacm's CQ `which`, waiting at most
    /// `timeout`, and failing early if the peer disconnects.
    fn get_comp(&self, qp: &Qp, which: CompQueue, timeout: Duration) -> Result<WorkCompletion>;
}

enum QpOwner {
    /// Created with ibv_create_qp: destroyed with ibv_destroy_qp.
    Verbs,
    /// Created by librdmacm on a cm_id: destroyed with rdma_destroy_qp,
    /// before the id, which the QP holds, can go.
    Cm(Box<dyn CmQpOwner>),
}

struct QpInner {
    qp: *mut sys::ibv_qp,
    owner: QpOwner,
    _pd: Option<Pd>,
    _cqs: Vec<Cq>,
    _srq: Option<Srq>,
    /// MRs and AHs named by posted requests: they must outlive the QP.
    keep: KeepList,
}

// SAFETY: see ContextInner.
unsafe impl Send for QpInner {}
// SAFETY: see ContextInner.
unsafe impl Sync for QpInner {}

impl Release for QpInner {
    fn release(&mut self) -> Result<()> {
        let qp = std::mem::replace(&mut self.qp, ptr::null_mut());
        if qp.is_null() {
            return Ok(());
        }
        match &self.owner {
            QpOwner::Verbs => {
                // SAFETY: last reference; the QP is destroyed before the PD,
                // CQs, SRQ and kept MRs/AHs, which the owner drops after.
                let rc = unsafe { sys::ibv_destroy_qp(qp) };
                if rc != 0 {
                    return Err(Error::from_ret("ibv_destroy_qp", rc));
                }
            }
            // The id is held by the owner, so it is valid.
            QpOwner::Cm(id) => id.destroy_qp(),
        }
        Ok(())
    }
}

impl Drop for QpInner {
    fn drop(&mut self) {
        // The backstop of error paths; `destroy` reports failures.
        let _ = self.release();
    }
}

/// Attributes of the RESET->INIT transition of an RC/UC QP.
#[derive(Clone, Copy, Debug)]
pub struct InitAttr {
    /// Physical port.
    pub port_num: u8,
    /// P_Key index.
    pub pkey_index: u16,
    /// What the peer may do to this QP's memory.
    pub access: AccessFlags,
}

/// Attributes of the INIT->RTR transition of an RC QP.
#[derive(Clone, Copy, Debug)]
pub struct RtrAttr {
    /// Path MTU.
    pub path_mtu: Mtu,
    /// Remote QP number.
    pub dest_qp_num: u32,
    /// Receive PSN.
    pub rq_psn: u32,
    /// Incoming RDMA reads/atomics in flight.
    pub max_dest_rd_atomic: u8,
    /// RNR NAK timer.
    pub min_rnr_timer: u8,
    /// The path to the peer.
    pub ah_attr: AhAttr,
}

/// Attributes of the RTR->RTS transition of an RC QP.
#[derive(Clone, Copy, Debug)]
pub struct RtsAttr {
    /// Local ACK timeout (4.096 us * 2^timeout).
    pub timeout: u8,
    /// Transport retries.
    pub retry_cnt: u8,
    /// RNR retries (7 = infinite).
    pub rnr_retry: u8,
    /// Send PSN.
    pub sq_psn: u32,
    /// Outgoing RDMA reads/atomics in flight.
    pub max_rd_atomic: u8,
}

/// The send operations the examples use.
#[derive(Clone, Copy)]
pub enum SendOp<'a> {
    /// `IBV_WR_SEND`.
    Send,
    /// `IBV_WR_SEND_WITH_IMM`; the value is given in host order.
    SendWithImm(u32),
    /// `IBV_WR_RDMA_WRITE` to the peer's buffer.
    RdmaWrite {
        /// Peer's virtual address.
        remote_addr: u64,
        /// Peer's rkey.
        rkey: u32,
    },
    /// `IBV_WR_RDMA_READ` from the peer's buffer.
    RdmaRead {
        /// Peer's virtual address.
        remote_addr: u64,
        /// Peer's rkey.
        rkey: u32,
    },
    /// A UD send to `ah`/`remote_qpn`/`remote_qkey`, with optional immediate data (host order).
    Ud {
        /// Address handle of the destination.
        ah: &'a Ah,
        /// Destination QP number (0xFFFFFF for multicast).
        remote_qpn: u32,
        /// Destination Q_Key.
        remote_qkey: u32,
        /// Immediate data, host order.
        imm: Option<u32>,
    },
}

/// A queue pair.
#[derive(Clone)]
pub struct Qp {
    inner: Arc<QpInner>,
}

impl Qp {
    /// `ibv_create_qp` on `pd`.
    pub(crate) fn create(pd: &Pd, init: &QpInitAttr<'_>) -> Result<Qp> {
        if init.send_cq.is_none() || init.recv_cq.is_none() {
            return Err(Error::msg(
                "ibv_create_qp: a send and a receive CQ are needed (only librdmacm makes its own)",
            ));
        }
        let mut attr = init.to_raw();
        // SAFETY: pd, CQs and SRQ are live; the QP keeps them alive (QpInner).
        let qp = unsafe { sys::ibv_create_qp(pd.as_ptr(), &mut attr) };
        if qp.is_null() {
            return Err(Error::last_os("ibv_create_qp"));
        }
        Ok(Qp {
            inner: Arc::new(QpInner {
                qp,
                owner: QpOwner::Verbs,
                _pd: Some(pd.clone()),
                _cqs: init.deps().0,
                _srq: init.srq.cloned(),
                keep: Mutex::new(Vec::new()),
            }),
        })
    }

    /// Wrap `qp`, the QP librdmacm created on the id `owner` stands for
    /// (`rdma_create_qp`, `rdma_create_ep`). It is destroyed with
    /// `rdma_destroy_qp`; the id is held until then, and `cqs`/`srq`/`pd`
    /// until after.
    ///
    /// # Safety
    /// `qp` must be the id's live QP, which nothing else destroys.
    pub(crate) unsafe fn from_cm(
        qp: *mut sys::ibv_qp,
        owner: Box<dyn CmQpOwner>,
        pd: Option<Pd>,
        cqs: Vec<Cq>,
        srq: Option<Srq>,
    ) -> Qp {
        Qp {
            inner: Arc::new(QpInner {
                qp,
                owner: QpOwner::Cm(owner),
                _pd: pd,
                _cqs: cqs,
                _srq: srq,
                keep: Mutex::new(Vec::new()),
            }),
        }
    }

    /// `ibv_destroy_qp` (or `rdma_destroy_qp` for librdmacm's) now,
    /// reporting a failure; an error while a clone still holds it. The
    /// memory it was given, its CQs, SRQ and PD are let go after.
    pub fn destroy(self) -> Result<()> {
        destroy_last(self.inner, "ibv_destroy_qp", "QP")
    }

    /// `rdma_get_send_comp(id, &wc)` for a QP librdmacm made with its own
    /// send CQ: the next send completion, waiting at most `timeout` and
    /// failing early if the peer disconnects. The status is the caller's to
    /// check, as in C.
    ///
    /// The CQs it polls are the QP's, which `rdma_destroy_qp` frees: a
    /// completion can be asked for only while the QP is there (issue 12,
    /// item 6). `destroy` takes the QP, so asking after it does not
    /// compile (E0382, use of a moved value):
    ///
    /// ```compile_fail,E0382
    /// fn after_destroy(qp: common::verbs::Qp) {
    ///     qp.destroy().unwrap();
    ///     let _ = qp.get_send_comp(std::time::Duration::ZERO);
    /// }
    /// ```
    ///
    /// while the same two calls in the valid order do, so the order is
    /// all that the error above is about:
    ///
    /// ```no_run
    /// fn before_destroy(qp: common::verbs::Qp) {
    ///     let _ = qp.get_send_comp(std::time::Duration::ZERO);
    ///     qp.destroy().unwrap();
    /// }
    /// ```
    pub fn get_send_comp(&self, timeout: Duration) -> Result<WorkCompletion> {
        self.cm_id("rdma_get_send_comp")?
            .get_comp(self, CompQueue::Send, timeout)
    }

    /// `rdma_get_recv_comp(id, &wc)`: as [`Qp::get_send_comp`], on the
    /// receive CQ.
    pub fn get_recv_comp(&self, timeout: Duration) -> Result<WorkCompletion> {
        self.cm_id("rdma_get_recv_comp")?
            .get_comp(self, CompQueue::Recv, timeout)
    }

    fn cm_id(&self, what: &str) -> Result<&dyn CmQpOwner> {
        match &self.inner.owner {
            QpOwner::Cm(id) => Ok(id.as_ref()),
            QpOwner::Verbs => Err(Error::msg(format!(
                "{what}: the QP was not made by librdmacm"
            ))),
        }
    }

    /// The raw pointer, for this crate's own calls.
    pub(crate) fn as_ptr(&self) -> *mut sys::ibv_qp {
        self.inner.qp
    }

    /// The QP number.
    pub fn qp_num(&self) -> u32 {
        // SAFETY: qp is live while self is.
        unsafe { (*self.inner.qp).qp_num }
    }

    /// `ibv_modify_qp` with a full attribute struct and mask; `what` names the
    /// transition in the error.
    pub(crate) fn modify(&self, mut a: sys::ibv_qp_attr, mask: u32, what: &str) -> Result<()> {
        // SAFETY: qp is live; a is a valid attribute struct.
        let rc = unsafe { sys::ibv_modify_qp(self.inner.qp, &mut a, mask as c_int) };
        if rc != 0 {
            return Err(Error::from_ret(&format!("ibv_modify_qp ({what})"), rc));
        }
        Ok(())
    }

    /// Any state -> ERR: every posted work request then completes, flushed.
    pub fn modify_to_err(&self) -> Result<()> {
        let a = sys::ibv_qp_attr {
            qp_state: sys::ibv_qp_state::IBV_QPS_ERR,
            ..Default::default()
        };
        self.modify(a, sys::ibv_qp_attr_mask::IBV_QP_STATE.0, "->ERR")
    }

    /// RESET->INIT for an RC/UC QP.
    pub fn modify_to_init(&self, init: &InitAttr) -> Result<()> {
        use sys::ibv_qp_attr_mask as m;
        let a = sys::ibv_qp_attr {
            qp_state: sys::ibv_qp_state::IBV_QPS_INIT,
            port_num: init.port_num,
            pkey_index: init.pkey_index,
            qp_access_flags: init.access.bits(),
            ..Default::default()
        };
        let mask = m::IBV_QP_STATE.0
            | m::IBV_QP_PKEY_INDEX.0
            | m::IBV_QP_PORT.0
            | m::IBV_QP_ACCESS_FLAGS.0;
        self.modify(a, mask, "RESET->INIT")
    }

    /// RESET->INIT for a UD QP.
    pub fn modify_to_init_ud(&self, port_num: u8, pkey_index: u16, qkey: u32) -> Result<()> {
        use sys::ibv_qp_attr_mask as m;
        let a = sys::ibv_qp_attr {
            qp_state: sys::ibv_qp_state::IBV_QPS_INIT,
            port_num,
            pkey_index,
            qkey,
            ..Default::default()
        };
        let mask = m::IBV_QP_STATE.0 | m::IBV_QP_PKEY_INDEX.0 | m::IBV_QP_PORT.0 | m::IBV_QP_QKEY.0;
        self.modify(a, mask, "RESET->INIT")
    }

    /// INIT->RTR for an RC QP.
    pub fn modify_to_rtr(&self, rtr: &RtrAttr) -> Result<()> {
        use sys::ibv_qp_attr_mask as m;
        let a = sys::ibv_qp_attr {
            qp_state: sys::ibv_qp_state::IBV_QPS_RTR,
            path_mtu: rtr.path_mtu.0,
            dest_qp_num: rtr.dest_qp_num,
            rq_psn: rtr.rq_psn,
            max_dest_rd_atomic: rtr.max_dest_rd_atomic,
            min_rnr_timer: rtr.min_rnr_timer,
            ah_attr: rtr.ah_attr.to_raw(),
            ..Default::default()
        };
        let mask = m::IBV_QP_STATE.0
            | m::IBV_QP_AV.0
            | m::IBV_QP_PATH_MTU.0
            | m::IBV_QP_DEST_QPN.0
            | m::IBV_QP_RQ_PSN.0
            | m::IBV_QP_MAX_DEST_RD_ATOMIC.0
            | m::IBV_QP_MIN_RNR_TIMER.0;
        self.modify(a, mask, "INIT->RTR")
    }

    /// INIT->RTR for a UD QP.
    pub fn modify_to_rtr_ud(&self) -> Result<()> {
        let a = sys::ibv_qp_attr {
            qp_state: sys::ibv_qp_state::IBV_QPS_RTR,
            ..Default::default()
        };
        self.modify(a, sys::ibv_qp_attr_mask::IBV_QP_STATE.0, "INIT->RTR")
    }

    /// RTR->RTS for an RC QP.
    pub fn modify_to_rts(&self, rts: &RtsAttr) -> Result<()> {
        use sys::ibv_qp_attr_mask as m;
        let a = sys::ibv_qp_attr {
            qp_state: sys::ibv_qp_state::IBV_QPS_RTS,
            timeout: rts.timeout,
            retry_cnt: rts.retry_cnt,
            rnr_retry: rts.rnr_retry,
            sq_psn: rts.sq_psn,
            max_rd_atomic: rts.max_rd_atomic,
            ..Default::default()
        };
        let mask = m::IBV_QP_STATE.0
            | m::IBV_QP_TIMEOUT.0
            | m::IBV_QP_RETRY_CNT.0
            | m::IBV_QP_RNR_RETRY.0
            | m::IBV_QP_SQ_PSN.0
            | m::IBV_QP_MAX_QP_RD_ATOMIC.0;
        self.modify(a, mask, "RTR->RTS")
    }

    /// RTR->RTS for a UD QP.
    pub fn modify_to_rts_ud(&self, sq_psn: u32) -> Result<()> {
        use sys::ibv_qp_attr_mask as m;
        let a = sys::ibv_qp_attr {
            qp_state: sys::ibv_qp_state::IBV_QPS_RTS,
            sq_psn,
            ..Default::default()
        };
        self.modify(a, m::IBV_QP_STATE.0 | m::IBV_QP_SQ_PSN.0, "RTR->RTS")
    }

    /// `ibv_query_qp` for the attributes in `mask`.
    pub(crate) fn query(&self, mask: u32) -> Result<(sys::ibv_qp_attr, sys::ibv_qp_init_attr)> {
        let mut a = sys::ibv_qp_attr::default();
        let mut init = sys::ibv_qp_init_attr::default();
        // SAFETY: qp is live; out-pointers valid.
        let rc = unsafe { sys::ibv_query_qp(self.inner.qp, &mut a, mask as c_int, &mut init) };
        if rc != 0 {
            return Err(Error::from_ret("ibv_query_qp", rc));
        }
        Ok((a, init))
    }

    /// `ibv_query_qp(IBV_QP_CAP)`: the sizes the adapter granted.
    pub fn query_cap(&self) -> Result<QpCap> {
        let (_, init) = self.query(sys::ibv_qp_attr_mask::IBV_QP_CAP.0)?;
        let c = init.cap;
        Ok(QpCap {
            max_send_wr: c.max_send_wr,
            max_recv_wr: c.max_recv_wr,
            max_send_sge: c.max_send_sge,
            max_recv_sge: c.max_recv_sge,
            max_inline_data: c.max_inline_data,
        })
    }

    /// `ibv_query_qp` of the primary path: port, P_Key index, timeout and
    /// address vector.
    pub fn query_path(&self) -> Result<QpPath> {
        use sys::ibv_qp_attr_mask as m;
        let mask = m::IBV_QP_STATE.0
            | m::IBV_QP_AV.0
            | m::IBV_QP_PORT.0
            | m::IBV_QP_PKEY_INDEX.0
            | m::IBV_QP_TIMEOUT.0;
        let (a, _) = self.query(mask)?;
        Ok(QpPath {
            port_num: a.port_num,
            pkey_index: a.pkey_index,
            timeout: a.timeout,
            ah_attr: AhAttr::from_raw(&a.ah_attr),
        })
    }

    /// `ibv_modify_qp(IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE)`: load `alt`
    /// as the alternate path (it leaves from `alt.port_num`) and arm
    /// migration (`IBV_MIG_REARM`).
    pub fn load_alt_path(&self, alt: &QpPath) -> Result<()> {
        use sys::ibv_qp_attr_mask as m;
        let a = sys::ibv_qp_attr {
            alt_ah_attr: alt.ah_attr.to_raw(),
            alt_pkey_index: alt.pkey_index,
            alt_timeout: alt.timeout,
            alt_port_num: alt.port_num,
            path_mig_state: sys::ibv_mig_state::IBV_MIG_REARM,
            ..Default::default()
        };
        self.modify(
            a,
            m::IBV_QP_ALT_PATH.0 | m::IBV_QP_PATH_MIG_STATE.0,
            "IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE",
        )
    }

    /// `ibv_modify_qp(IBV_QP_PATH_MIG_STATE)` to `IBV_MIG_MIGRATED`: move
    /// to the alternate path now.
    pub fn migrate(&self) -> Result<()> {
        let a = sys::ibv_qp_attr {
            path_mig_state: sys::ibv_mig_state::IBV_MIG_MIGRATED,
            ..Default::default()
        };
        self.modify(
            a,
            sys::ibv_qp_attr_mask::IBV_QP_PATH_MIG_STATE.0,
            "IBV_QP_PATH_MIG_STATE",
        )
    }

    /// `ibv_post_send` of one work request.
    pub fn post_send(
        &self,
        wr_id: u64,
        op: SendOp<'_>,
        sges: &[Sge<'_>],
        flags: SendFlags,
    ) -> Result<()> {
        for s in sges {
            s.keep_mr(&self.inner.keep);
        }
        let mut sg: Vec<_> = sges.iter().map(|s| s.to_raw()).collect();
        self.post_send_raw(wr_id, op, &mut sg, flags)
    }

    /// Fill an `ibv_send_wr` for `op` over `sg` and post it; the caller has
    /// already made the QP keep the MRs that `sg` names.
    fn post_send_raw(
        &self,
        wr_id: u64,
        op: SendOp<'_>,
        sg: &mut [sys::ibv_sge],
        flags: SendFlags,
    ) -> Result<()> {
        // The rest zero: no next request, no immediate data.
        let mut wr = sys::ibv_send_wr {
            wr_id,
            sg_list: if sg.is_empty() {
                ptr::null_mut()
            } else {
                sg.as_mut_ptr()
            },
            num_sge: sg.len() as c_int,
            send_flags: flags.bits(),
            ..Default::default()
        };
        use sys::ibv_wr_opcode as o;
        match op {
            SendOp::Send => wr.opcode = o::IBV_WR_SEND,
            SendOp::SendWithImm(imm) => {
                wr.opcode = o::IBV_WR_SEND_WITH_IMM;
                wr.__bindgen_anon_1.imm_data = imm.to_be();
            }
            SendOp::RdmaWrite { remote_addr, rkey } => {
                wr.opcode = o::IBV_WR_RDMA_WRITE;
                wr.wr.rdma.remote_addr = remote_addr;
                wr.wr.rdma.rkey = rkey;
            }
            SendOp::RdmaRead { remote_addr, rkey } => {
                wr.opcode = o::IBV_WR_RDMA_READ;
                wr.wr.rdma.remote_addr = remote_addr;
                wr.wr.rdma.rkey = rkey;
            }
            SendOp::Ud {
                ah,
                remote_qpn,
                remote_qkey,
                imm,
            } => {
                ah.keep_in(&self.inner.keep);
                wr.opcode = match imm {
                    Some(v) => {
                        wr.__bindgen_anon_1.imm_data = v.to_be();
                        o::IBV_WR_SEND_WITH_IMM
                    }
                    None => o::IBV_WR_SEND,
                };
                wr.wr.ud.ah = ah.as_ptr();
                wr.wr.ud.remote_qpn = remote_qpn;
                wr.wr.ud.remote_qkey = remote_qkey;
            }
        }
        let mut bad: *mut sys::ibv_send_wr = ptr::null_mut();
        // SAFETY: qp is live; wr and its sg list are valid for the call; the
        // memory they name is kept alive by `keep` until the QP is destroyed.
        let rc = unsafe { sys::ibv_post_send(self.inner.qp, &mut wr, &mut bad) };
        if rc != 0 {
            return Err(Error::from_ret("ibv_post_send", rc));
        }
        Ok(())
    }

    /// `ibv_post_recv` of one work request.
    pub fn post_recv(&self, wr_id: u64, sges: &[Sge<'_>]) -> Result<()> {
        for s in sges {
            s.keep_mr(&self.inner.keep);
        }
        let mut sg: Vec<_> = sges.iter().map(|s| s.to_raw()).collect();
        self.post_recv_raw(wr_id, &mut sg)
    }

    /// `ibv_post_recv` of one request with one scatter/gather entry, without
    /// allocating: [`Qp::post_recv`] for loops that measure latency.
    pub fn post_recv_one(&self, wr_id: u64, sge: Sge<'_>) -> Result<()> {
        sge.keep_mr(&self.inner.keep);
        self.post_recv_raw(wr_id, &mut [sge.to_raw()])
    }

    /// Posts one receive over `sg`; the caller has already made the QP keep
    /// the MRs that `sg` names.
    fn post_recv_raw(&self, wr_id: u64, sg: &mut [sys::ibv_sge]) -> Result<()> {
        let mut wr = recv_wr(wr_id, sg);
        let mut bad: *mut sys::ibv_recv_wr = ptr::null_mut();
        // SAFETY: qp is live; wr and sg are valid for the call; the memory is
        // kept alive by `keep` until the QP is destroyed.
        let rc = unsafe { sys::ibv_post_recv(self.inner.qp, &mut wr, &mut bad) };
        if rc != 0 {
            return Err(Error::from_ret("ibv_post_recv", rc));
        }
        Ok(())
    }

    /// `ibv_post_send` of one request with one scatter/gather entry, without
    /// allocating: [`Qp::post_send`] for loops that measure latency.
    pub fn post_send_one(
        &self,
        wr_id: u64,
        op: SendOp<'_>,
        sge: Sge<'_>,
        flags: SendFlags,
    ) -> Result<()> {
        sge.keep_mr(&self.inner.keep);
        self.post_send_raw(wr_id, op, &mut [sge.to_raw()], flags)
    }
}
