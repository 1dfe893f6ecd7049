//! The rdma_cm identifier, in both of the manual's styles (see the module
//! above): event-driven ids made on an [`EventChannel`], and synchronous
//! ones from `rdma_create_id(NULL, ...)`, `rdma_create_ep` and
//! `rdma_get_request`.
//!
//! Ownership follows librdmacm: the CQs that `rdma_create_ep` /
//! `rdma_create_qp` create when given none belong to the id and go with
//! `rdma_destroy_qp` (run by the [`Qp`]'s release); an SRQ from
//! `rdma_create_srq` goes with `rdma_destroy_srq`; the id goes last, with
//! `rdma_destroy_ep` or `rdma_destroy_id`. The id's PD (`id->pd`) is
//! librdmacm's PD of the device, freed when its last id is destroyed, so
//! every [`Mr`] registered on it keeps the id alive.

use std::any::Any;
use std::net::SocketAddr;
use std::os::raw::c_int;
use std::ptr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use rdma_core_sys as sys;
use socket2::SockAddr;

use super::{event_name, expect_established, AddrInfo, CmEventType, EventChannel, PortSpace};
use crate::error::{Error, Result};
use crate::handle::{destroy_last, wait_readable, Release};
use crate::verbs::{
    AccessFlags, CmQpOwner, CompQueue, Context, Cq, Mr, Pd, Qp, QpInitAttr, Srq, WeakPd,
    WorkCompletion,
};

use crate::signals::TICK;

/// How the id was made, which decides how it is destroyed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Made {
    /// `rdma_create_ep`: `rdma_destroy_ep` (also frees a passive id's saved
    /// QP attributes).
    Ep,
    /// `rdma_create_id`, `rdma_get_request` or a connect request event:
    /// `rdma_destroy_id`.
    Id,
}

struct IdInner {
    /// Null once released.
    id: *mut sys::rdma_cm_id,
    made: Made,
    /// The channel the id's events arrive on: the one it was made on, or,
    /// for a synchronous id, the one connect/accept moved it to. Dropped
    /// after the id, as a field.
    channel: OnceLock<EventChannel>,
    /// Serialises the check, migrate and store of `make_async`.
    migrate: Mutex<()>,
    /// The PD given to `create_qp` when it is not librdmacm's own:
    /// rdma_create_qp makes it `id->pd`, so [`CmId::pd`] hands out this one
    /// (or nothing, once the program deallocated it), never `id->pd`. Weak,
    /// so that the PD may go before the id, as in the C teardowns.
    qp_pd: Mutex<Option<WeakPd>>,
    /// CQs and SRQ named in a passive endpoint's QP attributes, which
    /// `rdma_get_request` gives to each new connection's QP.
    passive_qp_deps: Option<(Vec<Cq>, Option<Srq>)>,
    /// Why the peer is gone, once an event said so: the event is read (and
    /// acked) only once, and every later check must still see it.
    peer_gone: OnceLock<String>,
}

// SAFETY: librdmacm ids may be used from any thread; the pointer is only
// handed to the library.
unsafe impl Send for IdInner {}
// SAFETY: as above.
unsafe impl Sync for IdInner {}

impl Release for IdInner {
    fn release(&mut self) -> Result<()> {
        let id = std::mem::replace(&mut self.id, ptr::null_mut());
        if id.is_null() {
            return Ok(());
        }
        // SAFETY: QPs, SRQs and MRs on this id hold it, so they are gone
        // (rdma_destroy_qp / rdma_destroy_srq have run). librdmacm frees a
        // send CQ it created only together with a receive CQ it created;
        // with the application's receive CQ (the SRQ case) the send CQ and
        // its channel would be left behind: free them here.
        unsafe {
            if (*id).qp.is_null() && (*id).recv_cq.is_null() && !(*id).send_cq.is_null() {
                sys::ibv_destroy_cq((*id).send_cq);
                (*id).send_cq = ptr::null_mut();
                if !(*id).send_cq_channel.is_null() {
                    sys::ibv_destroy_comp_channel((*id).send_cq_channel);
                    (*id).send_cq_channel = ptr::null_mut();
                }
            }
        }
        match self.made {
            // SAFETY: destroyed once; events were acked as read. It returns
            // nothing to report.
            Made::Ep => unsafe { sys::rdma_destroy_ep(id) },
            Made::Id => {
                // SAFETY: as above.
                if unsafe { sys::rdma_destroy_id(id) } != 0 {
                    return Err(Error::last_os("rdma_destroy_id"));
                }
            }
        }
        Ok(())
    }
}

impl Drop for IdInner {
    fn drop(&mut self) {
        // The backstop of error paths; `CmId::destroy` reports failures.
        let _ = self.release();
    }
}

/// An rdma_cm identifier (`struct rdma_cm_id`): event-driven or synchronous.
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
    fn to_raw(&self) -> Result<sys::rdma_conn_param> {
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
            ..Default::default()
        })
    }
}

/// A connection request taken with [`CmId::get_request`].
pub struct ConnRequest {
    /// The new connection's id.
    pub id: CmId,
    /// Its QP, when the listener was an endpoint with QP attributes.
    pub qp: Option<Qp>,
    /// The private data of the request as it arrived (the CM pads it: over
    /// InfiniBand and RoCE a request carries 56 bytes whatever was sent).
    pub private_data: Vec<u8>,
}

impl CmId {
    fn own(
        id: *mut sys::rdma_cm_id,
        made: Made,
        channel: Option<&EventChannel>,
        deps: Option<(Vec<Cq>, Option<Srq>)>,
    ) -> CmId {
        let ch = OnceLock::new();
        if let Some(c) = channel {
            let _ = ch.set(c.clone());
        }
        CmId {
            inner: Arc::new(IdInner {
                id,
                made,
                channel: ch,
                migrate: Mutex::new(()),
                qp_pd: Mutex::new(None),
                passive_qp_deps: deps,
                peer_gone: OnceLock::new(),
            }),
        }
    }

    /// `rdma_create_id` on `channel`, or synchronous without one.
    pub(super) fn create(channel: Option<&EventChannel>, ps: PortSpace) -> Result<CmId> {
        let mut id: *mut sys::rdma_cm_id = ptr::null_mut();
        let ch = channel.map_or(ptr::null_mut(), EventChannel::as_raw);
        // SAFETY: ch is live or NULL (a synchronous id); id is a valid out-pointer.
        let rc = unsafe { sys::rdma_create_id(ch, &mut id, ptr::null_mut(), ps.code()) };
        if rc != 0 {
            return Err(Error::last_os("rdma_create_id"));
        }
        Ok(CmId::own(id, Made::Id, channel, None))
    }

    /// The id a connect request created, owned by the caller from now on;
    /// its events arrive on the listener's `channel`.
    ///
    /// # Safety
    /// `id` must be the valid new id of a connect request that nothing else owns.
    pub(super) unsafe fn from_request(id: *mut sys::rdma_cm_id, channel: &EventChannel) -> CmId {
        CmId::own(id, Made::Id, Some(channel), None)
    }

    /// `rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP)`: a synchronous id.
    pub fn create_sync() -> Result<CmId> {
        CmId::create(None, PortSpace::Tcp)
    }

    /// `rdma_create_ep`: a synchronous id bound (passive `rai`) or with its
    /// address and route resolved (2 s each), and its QP when `qp` is given.
    /// For a passive endpoint the QP attributes are kept for the QPs of
    /// [`CmId::get_request`]; otherwise the new QP is returned.
    pub fn create_ep(rai: &AddrInfo, qp: Option<&QpInitAttr<'_>>) -> Result<(CmId, Option<Qp>)> {
        let mut raw = qp.map(QpInitAttr::to_raw);
        let mut id: *mut sys::rdma_cm_id = ptr::null_mut();
        // SAFETY: rai is live; raw (if any) is valid for the call; the CQs and
        // SRQ it names are kept alive below by whoever gets the QP.
        let rc = unsafe {
            sys::rdma_create_ep(
                &mut id,
                rai.as_ptr(),
                ptr::null_mut(),
                raw.as_mut().map_or(ptr::null_mut(), |r| r as *mut _),
            )
        };
        if rc != 0 {
            return Err(Error::last_os(&format!(
                "rdma_create_ep for {}",
                rai.what()
            )));
        }
        let deps = qp.map(QpInitAttr::deps);
        if rai.passive() {
            return Ok((CmId::own(id, Made::Ep, None, deps), None));
        }
        let cid = CmId::own(id, Made::Ep, None, None);
        let qp = deps.map(|(cqs, srq)| cid.wrap_qp(librdmacm_pd(&cid), cqs, srq));
        Ok((cid, qp))
    }

    /// Wrap `id->qp`, which librdmacm just created on `pd`.
    fn wrap_qp(&self, pd: Option<Pd>, cqs: Vec<Cq>, srq: Option<Srq>) -> Qp {
        // SAFETY: id is live (self holds it).
        let qp = unsafe { (*self.inner.id).qp };
        // SAFETY: id->qp was just created by librdmacm and only this Qp
        // destroys it (rdma_destroy_qp, through the id); it holds the id
        // until then.
        unsafe { Qp::from_cm(qp, Box::new(self.clone()), pd, cqs, srq) }
    }

    /// Releases the id now (`rdma_destroy_id`, or `rdma_destroy_ep` for an
    /// endpoint), reporting a failure; an error, and nothing released, while
    /// a QP, SRQ, PD, MR or clone still holds it.
    pub fn destroy(self) -> Result<()> {
        destroy_last(self.inner, "rdma_destroy_id", "rdma_cm id")
    }

    /// What keeps the id alive, for the objects that borrow from it.
    fn keep(&self) -> Arc<dyn Any + Send + Sync> {
        self.inner.clone()
    }

    /// A key that identifies this id in events ([`super::CmEvent::id`]).
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
        // SAFETY: librdmacm keeps the device's context open while an id on
        // it lives; the Context holds this id.
        Some(unsafe { Context::from_borrowed(ctx, self.keep()) })
    }

    /// The id's PD: the one given to [`CmId::create_qp`], else librdmacm's
    /// PD of the id's device (`id->pd`), which holds the id.
    pub fn pd(&self) -> Result<Pd> {
        let given = self
            .inner
            .qp_pd
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(weak) = given {
            return weak
                .upgrade()
                .ok_or_else(|| Error::msg("the PD of the rdma_cm id's QP was deallocated"));
        }
        librdmacm_pd(self).ok_or_else(|| {
            Error::msg(
                "the rdma_cm id has no device yet (bind to a device's address, or resolve one)",
            )
        })
    }

    /// The physical port the id is bound to.
    pub fn port_num(&self) -> u8 {
        // SAFETY: id is live.
        unsafe { (*self.inner.id).port_num }
    }

    /// `rdma_get_src_port`, in host order.
    pub fn src_port(&self) -> u16 {
        // SAFETY: id is live.
        u16::from_be(unsafe { sys::rdma_get_src_port(self.inner.id) })
    }

    /// `rdma_reg_msgs(id, buf, len)`: `len` zeroed bytes registered on the
    /// id's PD for local access (`ibv_reg_mr(id->pd, .., IBV_ACCESS_LOCAL_WRITE)`).
    pub fn reg_msgs(&self, len: usize) -> Result<Mr> {
        let pd = self.pd().map_err(|e| e.context("rdma_reg_msgs"))?;
        pd.reg_mr(len, AccessFlags::LOCAL_WRITE)
            .map_err(|e| e.context("rdma_reg_msgs"))
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

    /// `rdma_resolve_addr` from `src` (any local address if `None`) to `dst`.
    /// A synchronous id waits for the result (at most about `timeout_ms`);
    /// an event-driven one gets RDMA_CM_EVENT_ADDR_RESOLVED or an error event.
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
            let e = Error::last_os(&format!("rdma_resolve_addr to {dst}"));
            // Without a source, the kernel resolves a group by the routing
            // table; no route answers ENETUNREACH at once. (With one, it
            // sends from the source's netdev, whatever the routes; and
            // ENODEV keeps its own hint.)
            let hint = e
                .errno()
                .filter(|&n| src.is_none() && n == libc::ENETUNREACH)
                .and_then(|n| super::mcast_route_hint(dst, n));
            return Err(match hint {
                Some(h) => e.hint(h),
                None => e,
            });
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

    /// `rdma_listen`.
    pub fn listen(&self, backlog: i32) -> Result<()> {
        // SAFETY: id is live.
        let rc = unsafe { sys::rdma_listen(self.inner.id, backlog) };
        if rc != 0 {
            return Err(Error::last_os("rdma_listen"));
        }
        Ok(())
    }

    /// `rdma_create_srq(id, NULL, {max_wr, max_sge})` on the id's PD; the
    /// SRQ is released with `rdma_destroy_srq`.
    pub fn create_srq(&self, max_wr: u32, max_sge: u32) -> Result<Srq> {
        // SAFETY: id is live.
        if unsafe { !(*self.inner.id).srq.is_null() } {
            // librdmacm keeps one SRQ per id and would overwrite the first.
            return Err(Error::msg("rdma_create_srq: this id already has an SRQ"));
        }
        let pd = self.pd().map_err(|e| e.context("rdma_create_srq"))?;
        let mut attr = sys::ibv_srq_init_attr::default();
        attr.attr.max_wr = max_wr;
        attr.attr.max_sge = max_sge;
        // SAFETY: id is live and has a PD; attr is valid for the call.
        let rc = unsafe { sys::rdma_create_srq(self.inner.id, ptr::null_mut(), &mut attr) };
        if rc != 0 {
            return Err(Error::last_os("rdma_create_srq").context(format!("max_wr {max_wr}")));
        }
        // SAFETY: rdma_create_srq set id->srq on the id's PD; only this Srq
        // destroys it, and it holds the id until then.
        Ok(unsafe { Srq::from_cm(self.inner.id, pd, self.keep()) })
    }

    /// `rdma_create_qp` on this id, on `pd` (the id's own PD if `None`) with
    /// `init`'s CQs; librdmacm creates the CQs left `None`.
    pub fn create_qp(&self, pd: Option<&Pd>, init: &QpInitAttr<'_>) -> Result<Qp> {
        let mut attr = init.to_raw();
        let pd_ptr = pd.map_or(ptr::null_mut(), Pd::as_ptr);
        // SAFETY: id is live.
        let own_pd = unsafe { (*self.inner.id).pd };
        // SAFETY: id, pd and the objects attr names are live; the Qp keeps them so.
        let rc = unsafe { sys::rdma_create_qp(self.inner.id, pd_ptr, &mut attr) };
        if rc != 0 {
            return Err(Error::last_os("rdma_create_qp"));
        }
        let pd = match pd {
            Some(pd) if pd.as_ptr() != own_pd => {
                // Not librdmacm's PD: id->pd now names it, so pd() must hand
                // out this one. The QP holds it; the id only refers to it.
                *self.inner.qp_pd.lock().unwrap_or_else(|e| e.into_inner()) = Some(pd.downgrade());
                Some(pd.clone())
            }
            _ => librdmacm_pd(self),
        };
        let (cqs, srq) = init.deps();
        Ok(self.wrap_qp(pd, cqs, srq))
    }

    /// `rdma_join_multicast` of `addr` (the MGID comes from the address); the
    /// result arrives as RDMA_CM_EVENT_MULTICAST_JOIN with
    /// [`super::CmEvent::ud`].
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

    /// The fd of the channel events of this id arrive on.
    fn channel_fd(&self) -> c_int {
        // SAFETY: id is live and always has a channel (its private one while
        // synchronous).
        unsafe { (*(*self.inner.id).channel).fd }
    }

    /// `rdma_get_request` on a listening synchronous id, after waiting at most
    /// `timeout` (forever if `None`) for a request; `Ok(None)` on timeout.
    pub fn get_request(&self, timeout: Option<Duration>) -> Result<Option<ConnRequest>> {
        if self.inner.channel.get().is_some() {
            // librdmacm answers EINVAL for an id with an event channel: its
            // requests arrive as RDMA_CM_EVENT_CONNECT_REQUEST instead.
            return Err(Error::msg(
                "rdma_get_request: the id is event-driven; read its CONNECT_REQUEST events",
            ));
        }
        // librdmacm swallows a request it cannot set up (a new channel for
        // the child, say, when the process is out of file descriptors) and
        // reads the channel again; on a blocking fd that read would outlast
        // `timeout`. Non-blocking for the call, it answers EAGAIN instead,
        // and the wait goes on until the deadline.
        let fd = self.channel_fd();
        let _nonblocking = NonBlocking::set(fd, "fcntl(rdma_cm listen channel, O_NONBLOCK)")?;
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut id: *mut sys::rdma_cm_id = ptr::null_mut();
        loop {
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            if !wait_readable(fd, left, "poll(rdma_cm listen channel)")? {
                return Ok(None);
            }
            // SAFETY: self is a live synchronous listening id; its channel
            // is non-blocking, so this does not block.
            let rc = unsafe { sys::rdma_get_request(self.inner.id, &mut id) };
            if rc == 0 {
                break;
            }
            let err = std::io::Error::last_os_error();
            if err.raw_os_error() != Some(libc::EAGAIN) {
                let errno = err.raw_os_error().unwrap_or(0);
                return Err(Error::with_errno("rdma_get_request", errno));
            }
        }
        // SAFETY: rdma_get_request left the request in id->event until the
        // next call on the id; the private data is copied now.
        let private_data = unsafe { event_private_data((*id).event) };
        // SAFETY: the request event is acked here, once, and cleared so that
        // librdmacm does not ack it again; left unacked it would make
        // destroying the listener wait for this child.
        unsafe {
            if !(*id).event.is_null() {
                sys::rdma_ack_cm_event((*id).event);
                (*id).event = ptr::null_mut();
            }
        }
        let cid = CmId::own(id, Made::Id, None, None);
        // SAFETY: id is live.
        let has_qp = unsafe { !(*id).qp.is_null() };
        let qp = if has_qp {
            let (cqs, srq) = self.inner.passive_qp_deps.clone().unwrap_or_default();
            Some(cid.wrap_qp(librdmacm_pd(&cid), cqs, srq))
        } else {
            None
        };
        Ok(Some(ConnRequest {
            id: cid,
            qp,
            private_data,
        }))
    }

    /// The id's event channel; a synchronous id is first moved to a channel
    /// of its own (`rdma_migrate_id`), so that from now on calls return at
    /// once and their outcome is read from that channel.
    fn make_async(&self) -> Result<&EventChannel> {
        if let Some(ch) = self.inner.channel.get() {
            return Ok(ch);
        }
        let _guard = self.inner.migrate.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(ch) = self.inner.channel.get() {
            return Ok(ch);
        }
        let ch = EventChannel::new()?;
        // SAFETY: id and the new channel are live; the channel is stored in
        // the id's inner value, which destroys the id before the channel.
        let rc = unsafe { sys::rdma_migrate_id(self.inner.id, ch.as_raw()) };
        if rc != 0 {
            return Err(Error::last_os("rdma_migrate_id"));
        }
        Ok(self.inner.channel.get_or_init(|| ch))
    }

    /// Wait for this id's next event on its channel, at most `timeout`.
    fn wait_event(&self, what: &str, timeout: Duration) -> Result<(CmEventType, i32, Vec<u8>)> {
        let ch = self.make_async()?;
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Error::msg(format!(
                    "{what}: no answer from the peer within {} s",
                    timeout.as_secs()
                )));
            }
            if let Some(ev) = ch.get_event(Some(left))? {
                if ev.id == self.key() {
                    return Ok((ev.event, ev.status, ev.private_data));
                }
            }
        }
    }

    /// `rdma_connect`: the outcome arrives as an event on the id's channel.
    pub fn connect(&self, param: &ConnParam) -> Result<()> {
        self.connect_raw(Some(param))
    }

    fn connect_raw(&self, param: Option<&ConnParam>) -> Result<()> {
        let mut raw = param.map(ConnParam::to_raw).transpose()?;
        // SAFETY: id is live; raw and its private data are valid for the call.
        let rc = unsafe {
            sys::rdma_connect(
                self.inner.id,
                raw.as_mut().map_or(ptr::null_mut(), |r| r as *mut _),
            )
        };
        if rc != 0 {
            return Err(Error::last_os("rdma_connect"));
        }
        Ok(())
    }

    /// `rdma_connect` as a synchronous call, waiting at most `timeout` for
    /// the connection to be established; returns the private data of the
    /// peer's reply. A `None` `param` is the C call with NULL (librdmacm's
    /// defaults: 7 retries, 7 RNR retries, the device's read limits).
    pub fn connect_sync(&self, param: Option<&ConnParam>, timeout: Duration) -> Result<Vec<u8>> {
        self.make_async()?;
        self.connect_raw(param)?;
        let (ev, status, data) = self.wait_event("rdma_connect", timeout)?;
        expect_established("rdma_connect", ev, status)?;
        Ok(data)
    }

    /// `rdma_accept`: the outcome arrives as an event on the id's channel.
    pub fn accept(&self, param: &ConnParam) -> Result<()> {
        self.accept_raw(Some(param))
    }

    fn accept_raw(&self, param: Option<&ConnParam>) -> Result<()> {
        let mut raw = param.map(ConnParam::to_raw).transpose()?;
        // SAFETY: id is live; raw and its private data are valid for the call.
        let rc = unsafe {
            sys::rdma_accept(
                self.inner.id,
                raw.as_mut().map_or(ptr::null_mut(), |r| r as *mut _),
            )
        };
        if rc != 0 {
            return Err(Error::last_os("rdma_accept"));
        }
        Ok(())
    }

    /// `rdma_accept` as a synchronous call, waiting at most `timeout` for the
    /// connection to be established. A `None` `param` is the C call with NULL.
    pub fn accept_sync(&self, param: Option<&ConnParam>, timeout: Duration) -> Result<()> {
        self.make_async()?;
        self.accept_raw(param)?;
        let (ev, status, _) = self.wait_event("rdma_accept", timeout)?;
        expect_established("rdma_accept", ev, status)
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

    /// `rdma_disconnect` (does not wait for the peer's answer).
    pub fn disconnect(&self) -> Result<()> {
        // SAFETY: id is live.
        let rc = unsafe { sys::rdma_disconnect(self.inner.id) };
        if rc != 0 {
            return Err(Error::last_os("rdma_disconnect"));
        }
        Ok(())
    }

    /// An error if the connection's channel reports that the peer went away
    /// (DISCONNECTED, or any error event), now or at an earlier check; does
    /// not wait. For the synchronous style, whose connect/accept moved the
    /// id to a channel of its own.
    pub fn check_peer(&self) -> Result<()> {
        if let Some(why) = self.inner.peer_gone.get() {
            return Err(Error::msg(why.clone()));
        }
        let Some(ch) = self.inner.channel.get() else {
            return Ok(());
        };
        while let Some(ev) = ch.get_event(Some(Duration::ZERO))? {
            if ev.id != self.key() {
                continue;
            }
            match ev.event {
                CmEventType::Established | CmEventType::TimewaitExit => {}
                other => {
                    let why = format!(
                        "the peer went away: {} (status {})",
                        event_name(other),
                        ev.status
                    );
                    return Err(Error::msg(self.inner.peer_gone.get_or_init(|| why).clone()));
                }
            }
        }
        Ok(())
    }
}

/// O_NONBLOCK on a descriptor for as long as this lives; the flags it had
/// come back on drop.
struct NonBlocking {
    fd: c_int,
    flags: c_int,
}

impl NonBlocking {
    fn set(fd: c_int, what: &str) -> Result<NonBlocking> {
        // SAFETY: fd is an open descriptor that the caller's object owns.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        // SAFETY: as above.
        if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
            return Err(Error::last_os(what));
        }
        Ok(NonBlocking { fd, flags })
    }
}

impl Drop for NonBlocking {
    fn drop(&mut self) {
        // SAFETY: the descriptor outlives this guard (its owner holds both).
        unsafe { libc::fcntl(self.fd, libc::F_SETFL, self.flags) };
    }
}

/// # Safety
/// `ev` must be NULL or a valid, not yet acked event.
pub(super) unsafe fn event_private_data(ev: *const sys::rdma_cm_event) -> Vec<u8> {
    if ev.is_null() {
        return Vec::new();
    }
    // SAFETY: the caller guarantees ev is valid; connection events carry `conn`.
    let conn = unsafe { &(*ev).param.conn };
    if conn.private_data.is_null() || conn.private_data_len == 0 {
        return Vec::new();
    }
    // SAFETY: the library provides private_data_len bytes there.
    unsafe {
        std::slice::from_raw_parts(
            conn.private_data as *const u8,
            conn.private_data_len as usize,
        )
    }
    .to_vec()
}

mod owner;

use owner::librdmacm_pd;

#[cfg(test)]
mod tests;
