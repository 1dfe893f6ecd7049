//! librdmacm's synchronous API (`rdma_getaddrinfo`, `rdma_create_ep`,
//! `rdma_get_request`, `rdma_reg_msgs`, `rdma_create_srq` and the
//! `rdma_verbs.h` helpers), as the manual's chapter 8 programs use it.
//!
//! An id created without an event channel is *synchronous*: librdmacm gives it
//! a private channel and each call waits for its own event. Those waits have
//! no time limit (`rdma_connect` to a host that stopped answering retries for
//! minutes, `rdma_get_send_comp` waits forever for a peer that died), so the
//! calls that wait for the peer are bounded here:
//! - [`SyncId::get_request`] polls the listener's private channel before it
//!   calls `rdma_get_request`;
//! - [`SyncId::connect`] and [`SyncId::accept`] first move the id to a channel
//!   of its own (`rdma_migrate_id`), which makes it asynchronous, then wait for
//!   the outcome there; the same channel later reports a peer that went away;
//! - [`SyncId::get_send_comp`] / [`SyncId::get_recv_comp`] do what the inline
//!   helpers do, waiting on the CQ's channel in ticks, and give up when the
//!   peer disconnects or the timeout passes.
//!
//! Ownership follows librdmacm: the CQs that `rdma_create_ep` /
//! `rdma_create_qp` create when given none belong to the id and go with
//! `rdma_destroy_qp` (run by the [`Qp`]'s drop); an SRQ from
//! `rdma_create_srq` goes with `rdma_destroy_srq`; the id goes last, with
//! `rdma_destroy_ep` or `rdma_destroy_id`. The id's PD (`id->pd`) is
//! librdmacm's PD of the device, freed when its last id is destroyed, so
//! every [`Mr`] registered on it keeps the id alive.

use std::any::Any;
use std::ffi::{CStr, CString};
use std::net::SocketAddr;
use std::os::raw::c_int;
use std::ptr;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use rdma_sys as sys;
use socket2::SockAddr;

use crate::cm::{event_name, event_type, ConnParam, EventChannel};
use crate::error::{Error, Result};
use crate::verbs::{
    wait_readable, Context, Cq, Mr, Pd, Qp, Srq, WorkCompletion, ACCESS_LOCAL_WRITE,
};

/// How often a bounded wait looks at the connection's event channel.
const TICK: Duration = Duration::from_millis(100);

// ---------------------------------------------------------------------------
// rdma_getaddrinfo

/// The result of `rdma_getaddrinfo`, freed with `rdma_freeaddrinfo`.
pub struct AddrInfo {
    rai: *mut sys::rdma_addrinfo,
    what: String,
}

// SAFETY: the list is plain heap data owned by this value.
unsafe impl Send for AddrInfo {}
// SAFETY: only read after creation.
unsafe impl Sync for AddrInfo {}

impl AddrInfo {
    /// `rdma_getaddrinfo(node, service)` for `RDMA_PS_TCP`; `passive` sets
    /// `RAI_PASSIVE` (the address to bind, for a server).
    pub fn new(node: Option<&str>, service: &str, passive: bool) -> Result<AddrInfo> {
        let what = format!("{}:{service}", node.unwrap_or("*"));
        let node_c = node
            .map(|n| CString::new(n).map_err(|_| Error::msg("address contains a NUL byte")))
            .transpose()?;
        let service_c =
            CString::new(service).map_err(|_| Error::msg("port contains a NUL byte"))?;
        // SAFETY: rdma_addrinfo is plain data; all-zero is "no hints".
        let mut hints: sys::rdma_addrinfo = unsafe { std::mem::zeroed() };
        hints.ai_port_space = sys::rdma_port_space::RDMA_PS_TCP as c_int;
        if passive {
            hints.ai_flags = sys::RAI_PASSIVE as c_int;
        }
        let mut rai: *mut sys::rdma_addrinfo = ptr::null_mut();
        // SAFETY: the strings and hints are valid for the call; rai is a
        // valid out-pointer, freed in Drop.
        let rc = unsafe {
            sys::rdma_getaddrinfo(
                node_c.as_ref().map_or(ptr::null(), |c| c.as_ptr()),
                service_c.as_ptr(),
                &hints,
                &mut rai,
            )
        };
        if rc != 0 {
            // -1 is librdmacm's own failure (errno set); anything else is the
            // getaddrinfo status, passed through unchanged.
            if rc == -1 {
                return Err(Error::last_os(&format!("rdma_getaddrinfo of {what}")));
            }
            // SAFETY: gai_strerror returns a static string for any code.
            let text = unsafe { CStr::from_ptr(libc::gai_strerror(rc)) }.to_string_lossy();
            return Err(Error::msg(format!(
                "rdma_getaddrinfo of {what} failed: {text}"
            )));
        }
        if rai.is_null() {
            return Err(Error::msg(format!(
                "rdma_getaddrinfo of {what} returned no address"
            )));
        }
        Ok(AddrInfo { rai, what })
    }

    /// The local address (set for a passive lookup with an address).
    pub fn src_addr(&self) -> Option<SocketAddr> {
        // SAFETY: rai is live; the address is ai_src_len bytes or NULL.
        unsafe { sockaddr_to_std((*self.rai).ai_src_addr, (*self.rai).ai_src_len) }
    }

    /// The remote address (set for an active lookup).
    pub fn dst_addr(&self) -> Option<SocketAddr> {
        // SAFETY: as above.
        unsafe { sockaddr_to_std((*self.rai).ai_dst_addr, (*self.rai).ai_dst_len) }
    }

    /// What was looked up, `address:port`, for messages.
    pub fn what(&self) -> &str {
        &self.what
    }

    fn raw_src(&self) -> *mut libc::sockaddr {
        // SAFETY: rai is live.
        unsafe { (*self.rai).ai_src_addr }
    }

    fn raw_dst(&self) -> *mut libc::sockaddr {
        // SAFETY: rai is live.
        unsafe { (*self.rai).ai_dst_addr }
    }
}

impl Drop for AddrInfo {
    fn drop(&mut self) {
        // SAFETY: rai came from rdma_getaddrinfo and is freed once, with the
        // function that frees the whole list (the C example's free(rai) leaks it).
        unsafe { sys::rdma_freeaddrinfo(self.rai) };
    }
}

/// # Safety
/// `sa` must be NULL or point to `len` valid bytes of a sockaddr.
unsafe fn sockaddr_to_std(sa: *const libc::sockaddr, len: u32) -> Option<SocketAddr> {
    if sa.is_null() {
        return None;
    }
    // socket2 reads the family and swaps port and address; it only needs the
    // bytes copied into its storage (at most a sockaddr_storage of them).
    // SAFETY: the caller guarantees `len` valid bytes at `sa`; the copy is
    // bounded by the storage's size.
    let copied = unsafe {
        SockAddr::try_init(|storage, storage_len| {
            let n = (len as usize).min(*storage_len as usize);
            ptr::copy_nonoverlapping(sa.cast::<u8>(), storage.cast::<u8>(), n);
            *storage_len = n as libc::socklen_t;
            Ok(())
        })
    };
    copied.ok()?.1.as_socket()
}

// ---------------------------------------------------------------------------
// Synchronous ids

/// How the id was made, which decides how it is destroyed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Made {
    /// `rdma_create_ep`: `rdma_destroy_ep` (also frees a passive id's saved
    /// QP attributes).
    Ep,
    /// `rdma_create_id` or `rdma_get_request`: `rdma_destroy_id`.
    Id,
}

struct SyncIdInner {
    id: *mut sys::rdma_cm_id,
    made: Made,
    /// The channel the id was moved to by connect/accept (then asynchronous).
    /// Dropped after the id, as a field.
    channel: OnceLock<EventChannel>,
    /// Serialises the check, migrate and store of `make_async`.
    migrate: std::sync::Mutex<()>,
    /// CQs and SRQ named in a passive endpoint's QP attributes, which
    /// `rdma_get_request` gives to each new connection's QP.
    passive_qp_deps: Option<(Vec<Cq>, Option<Srq>)>,
    /// Why the peer is gone, once an event said so: the event is read (and
    /// acked) only once, and every later check must still see it.
    peer_gone: OnceLock<String>,
}

// SAFETY: librdmacm ids may be used from any thread; the pointer is only
// handed to the library.
unsafe impl Send for SyncIdInner {}
// SAFETY: as above.
unsafe impl Sync for SyncIdInner {}

impl Drop for SyncIdInner {
    fn drop(&mut self) {
        let id = self.id;
        // SAFETY: QPs, SRQs and MRs on this id hold an Arc to us, so they
        // are gone (rdma_destroy_qp / rdma_destroy_srq have run).
        // librdmacm frees a send CQ it created only together with a receive
        // CQ it created; with the application's receive CQ (the SRQ case) the
        // send CQ and its channel would be left behind: free them here.
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
            // SAFETY: destroyed once; events were acked as read.
            Made::Ep => unsafe { sys::rdma_destroy_ep(id) },
            // SAFETY: as above.
            Made::Id => unsafe {
                sys::rdma_destroy_id(id);
            },
        }
    }
}

/// A synchronous rdma_cm id (created without an event channel).
#[derive(Clone)]
pub struct SyncId {
    inner: Arc<SyncIdInner>,
}

/// What `ibv_create_qp` needs when librdmacm creates the missing CQs: a CQ
/// left `None` is created by librdmacm (with its own completion channel)
/// and destroyed by `rdma_destroy_qp`.
pub struct EpQpInit<'a> {
    /// CQ for send completions, or `None` for one of librdmacm's.
    pub send_cq: Option<&'a Cq>,
    /// CQ for receive completions, or `None` for one of librdmacm's.
    pub recv_cq: Option<&'a Cq>,
    /// Shared receive queue.
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
    /// Signal every send.
    pub sq_sig_all: bool,
}

impl EpQpInit<'_> {
    fn to_raw(&self) -> sys::ibv_qp_init_attr {
        // SAFETY: plain data; zero is "no CQ, no SRQ".
        let mut attr: sys::ibv_qp_init_attr = unsafe { std::mem::zeroed() };
        attr.qp_type = sys::ibv_qp_type::IBV_QPT_RC;
        attr.send_cq = self.send_cq.map_or(ptr::null_mut(), |c| c.as_ptr());
        attr.recv_cq = self.recv_cq.map_or(ptr::null_mut(), |c| c.as_ptr());
        attr.srq = self.srq.map_or(ptr::null_mut(), |s| s.as_ptr());
        attr.cap.max_send_wr = self.max_send_wr;
        attr.cap.max_recv_wr = self.max_recv_wr;
        attr.cap.max_send_sge = self.max_send_sge;
        attr.cap.max_recv_sge = self.max_recv_sge;
        attr.cap.max_inline_data = self.max_inline_data;
        attr.sq_sig_all = self.sq_sig_all as c_int;
        attr
    }

    fn deps(&self) -> (Vec<Cq>, Option<Srq>) {
        let cqs = self.send_cq.iter().chain(self.recv_cq.iter());
        (cqs.map(|c| (*c).clone()).collect(), self.srq.cloned())
    }
}

/// A connection request taken with [`SyncId::get_request`].
pub struct ConnRequest {
    /// The new connection's id.
    pub id: SyncId,
    /// Its QP, when the listener was an endpoint with QP attributes.
    pub qp: Option<Qp>,
    /// The private data of the request as it arrived (the CM pads it: over
    /// InfiniBand and RoCE a request carries 56 bytes whatever was sent).
    pub private_data: Vec<u8>,
}

impl SyncId {
    fn own(id: *mut sys::rdma_cm_id, made: Made, deps: Option<(Vec<Cq>, Option<Srq>)>) -> SyncId {
        SyncId {
            inner: Arc::new(SyncIdInner {
                id,
                made,
                channel: OnceLock::new(),
                migrate: std::sync::Mutex::new(()),
                passive_qp_deps: deps,
                peer_gone: OnceLock::new(),
            }),
        }
    }

    /// `rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP)`: a synchronous id.
    pub fn create() -> Result<SyncId> {
        let mut id: *mut sys::rdma_cm_id = ptr::null_mut();
        // SAFETY: a NULL channel asks for a synchronous id; id is a valid out-pointer.
        let rc = unsafe {
            sys::rdma_create_id(
                ptr::null_mut(),
                &mut id,
                ptr::null_mut(),
                sys::rdma_port_space::RDMA_PS_TCP,
            )
        };
        if rc != 0 {
            return Err(Error::last_os("rdma_create_id"));
        }
        Ok(SyncId::own(id, Made::Id, None))
    }

    /// `rdma_create_ep`: bind (passive `rai`) or resolve address and route
    /// (2 s each), and create the QP when `qp` is given. For a passive
    /// endpoint the QP attributes are kept for the QPs of
    /// [`SyncId::get_request`]; otherwise the new QP is returned.
    pub fn create_ep(rai: &AddrInfo, qp: Option<&EpQpInit<'_>>) -> Result<(SyncId, Option<Qp>)> {
        let mut raw = qp.map(|q| q.to_raw());
        let mut id: *mut sys::rdma_cm_id = ptr::null_mut();
        // SAFETY: rai is live; raw (if any) is valid for the call; the CQs and
        // SRQ it names are kept alive below by whoever gets the QP.
        let rc = unsafe {
            sys::rdma_create_ep(
                &mut id,
                rai.rai,
                ptr::null_mut(),
                raw.as_mut().map_or(ptr::null_mut(), |r| r as *mut _),
            )
        };
        if rc != 0 {
            return Err(Error::last_os(&format!("rdma_create_ep for {}", rai.what)));
        }
        // SAFETY: rai is live.
        let passive = unsafe { (*rai.rai).ai_flags } & sys::RAI_PASSIVE as c_int != 0;
        let deps = qp.map(|q| q.deps());
        if passive {
            return Ok((SyncId::own(id, Made::Ep, deps), None));
        }
        let sid = SyncId::own(id, Made::Ep, None);
        let qp = deps.map(|(cqs, srq)| sid.wrap_qp(cqs, srq));
        Ok((sid, qp))
    }

    /// Wrap `id->qp`, which librdmacm just created.
    fn wrap_qp(&self, cqs: Vec<Cq>, srq: Option<Srq>) -> Qp {
        let pd = self.pd().ok();
        let keep: Arc<dyn Any + Send + Sync> = self.inner.clone();
        // SAFETY: id->qp was just created by librdmacm and only this Qp
        // destroys it (rdma_destroy_qp); keep holds the id until then.
        unsafe { Qp::from_cm(self.inner.id, pd, cqs, srq, keep) }
    }

    /// The raw pointer, for calls this crate does not wrap.
    pub fn as_ptr(&self) -> *mut sys::rdma_cm_id {
        self.inner.id
    }

    /// The device the id is bound to (`id->verbs`), once it has one.
    pub fn verbs(&self) -> Option<Context> {
        // SAFETY: id is live.
        let ctx = unsafe { (*self.inner.id).verbs };
        if ctx.is_null() {
            return None;
        }
        // SAFETY: librdmacm keeps a device context open until the library is
        // unloaded, so it outlives every user of this wrapper.
        Some(unsafe { Context::from_borrowed(ctx) })
    }

    /// The physical port the id is bound to.
    pub fn port_num(&self) -> u8 {
        // SAFETY: id is live.
        unsafe { (*self.inner.id).port_num }
    }

    /// librdmacm's PD of the id's device (`id->pd`); it holds the id.
    pub fn pd(&self) -> Result<Pd> {
        // SAFETY: id is live.
        let pd = unsafe { (*self.inner.id).pd };
        if pd.is_null() {
            return Err(Error::msg(
                "the rdma_cm id has no device yet (bind to a device's address, or resolve one)",
            ));
        }
        // SAFETY: librdmacm frees its PD when the last id of the device is
        // destroyed; the Pd holds this id.
        Ok(unsafe { Pd::from_borrowed(pd, self.inner.clone()) })
    }

    /// `rdma_reg_msgs(id, buf, len)`: `len` zeroed bytes registered on the
    /// id's PD for local access (`ibv_reg_mr(id->pd, .., IBV_ACCESS_LOCAL_WRITE)`).
    pub fn reg_msgs(&self, len: usize) -> Result<Mr> {
        let pd = self.pd().map_err(|e| e.context("rdma_reg_msgs"))?;
        pd.reg_mr(len, ACCESS_LOCAL_WRITE)
            .map_err(|e| e.context("rdma_reg_msgs"))
    }

    /// `rdma_bind_addr` to the address of a passive `rai`.
    pub fn bind_addr(&self, rai: &AddrInfo) -> Result<()> {
        let src = rai.raw_src();
        if src.is_null() {
            return Err(Error::msg(format!(
                "rdma_getaddrinfo of {} gave no local address",
                rai.what
            )));
        }
        // SAFETY: id is live; src is a valid sockaddr owned by rai.
        let rc = unsafe { sys::rdma_bind_addr(self.inner.id, src) };
        if rc != 0 {
            return Err(Error::last_os(&format!("rdma_bind_addr to {}", rai.what)));
        }
        Ok(())
    }

    /// `rdma_resolve_addr` to the destination of an active `rai`; waits for
    /// the result (at most about `timeout_ms`).
    pub fn resolve_addr(&self, rai: &AddrInfo, timeout_ms: i32) -> Result<()> {
        let dst = rai.raw_dst();
        if dst.is_null() {
            return Err(Error::msg(format!(
                "rdma_getaddrinfo of {} gave no remote address",
                rai.what
            )));
        }
        // SAFETY: id is live; dst is a valid sockaddr owned by rai.
        let rc = unsafe { sys::rdma_resolve_addr(self.inner.id, ptr::null_mut(), dst, timeout_ms) };
        if rc != 0 {
            return Err(Error::last_os(&format!(
                "rdma_resolve_addr to {}",
                rai.what
            )));
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
        // SAFETY: plain data.
        let mut attr: sys::ibv_srq_init_attr = unsafe { std::mem::zeroed() };
        attr.attr.max_wr = max_wr;
        attr.attr.max_sge = max_sge;
        // SAFETY: id is live and has a PD; attr is valid for the call.
        let rc = unsafe { sys::rdma_create_srq(self.inner.id, ptr::null_mut(), &mut attr) };
        if rc != 0 {
            return Err(Error::last_os("rdma_create_srq").context(format!("max_wr {max_wr}")));
        }
        let keep: Arc<dyn Any + Send + Sync> = self.inner.clone();
        // SAFETY: rdma_create_srq set id->srq on the id's PD; only this Srq
        // destroys it, and keep holds the id until then.
        Ok(unsafe { Srq::from_cm(self.inner.id, pd, keep) })
    }

    /// `rdma_create_qp(id, NULL, attr)` on the id's PD.
    pub fn create_qp(&self, init: &EpQpInit<'_>) -> Result<Qp> {
        let mut attr = init.to_raw();
        // SAFETY: id is live; attr and the objects it names are valid; the
        // Qp keeps the CQs and SRQ alive.
        let rc = unsafe { sys::rdma_create_qp(self.inner.id, ptr::null_mut(), &mut attr) };
        if rc != 0 {
            return Err(Error::last_os("rdma_create_qp"));
        }
        let (cqs, srq) = init.deps();
        Ok(self.wrap_qp(cqs, srq))
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
        if !wait_readable(self.channel_fd(), timeout, "poll(rdma_cm listen channel)")? {
            return Ok(None);
        }
        let mut id: *mut sys::rdma_cm_id = ptr::null_mut();
        // SAFETY: self is a live synchronous listening id; the channel is
        // readable, so this does not block.
        let rc = unsafe { sys::rdma_get_request(self.inner.id, &mut id) };
        if rc != 0 {
            return Err(Error::last_os("rdma_get_request"));
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
        let sid = SyncId::own(id, Made::Id, None);
        // SAFETY: id is live.
        let has_qp = unsafe { !(*id).qp.is_null() };
        let qp = if has_qp {
            let (cqs, srq) = self.inner.passive_qp_deps.clone().unwrap_or_default();
            Some(sid.wrap_qp(cqs, srq))
        } else {
            None
        };
        Ok(Some(ConnRequest {
            id: sid,
            qp,
            private_data,
        }))
    }

    /// Move the id to a channel of its own (`rdma_migrate_id`): from now on
    /// calls return at once and their outcome is read from that channel.
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

    /// Wait for this id's next event on its own channel, at most `timeout`.
    fn wait_event(&self, what: &str, timeout: Duration) -> Result<(u32, i32, Vec<u8>)> {
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
                if ev.id == self.inner.id as usize {
                    return Ok((ev.event, ev.status, ev.private_data));
                }
            }
        }
    }

    /// `rdma_connect`, waiting at most `timeout` for the connection to be
    /// established; returns the private data of the peer's reply. A `None`
    /// `param` is the C call with NULL (librdmacm's defaults: 7 retries, 7
    /// RNR retries, the device's read limits).
    pub fn connect(&self, param: Option<&ConnParam>, timeout: Duration) -> Result<Vec<u8>> {
        self.make_async()?;
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
        let (ev, status, data) = self.wait_event("rdma_connect", timeout)?;
        expect_established("rdma_connect", ev, status)?;
        Ok(data)
    }

    /// `rdma_accept`, waiting at most `timeout` for the connection to be
    /// established. A `None` `param` is the C call with NULL.
    pub fn accept(&self, param: Option<&ConnParam>, timeout: Duration) -> Result<()> {
        self.make_async()?;
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
        let (ev, status, _) = self.wait_event("rdma_accept", timeout)?;
        expect_established("rdma_accept", ev, status)
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
    /// not wait.
    pub fn check_peer(&self) -> Result<()> {
        if let Some(why) = self.inner.peer_gone.get() {
            return Err(Error::msg(why.clone()));
        }
        let Some(ch) = self.inner.channel.get() else {
            return Ok(());
        };
        while let Some(ev) = ch.get_event(Some(Duration::ZERO))? {
            if ev.id != self.inner.id as usize {
                continue;
            }
            match ev.event {
                event_type::RDMA_CM_EVENT_ESTABLISHED | event_type::RDMA_CM_EVENT_TIMEWAIT_EXIT => {
                }
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

    /// `rdma_get_send_comp`: the next completion of librdmacm's send CQ of
    /// this id (created with the QP when no send CQ was given), waiting at
    /// most `timeout`, and failing early if the peer disconnects. The
    /// completion's status is the caller's to check, as in C.
    pub fn get_send_comp(&self, timeout: Duration) -> Result<WorkCompletion> {
        // SAFETY: id is live.
        let (cq, ch) = unsafe { ((*self.inner.id).send_cq, (*self.inner.id).send_cq_channel) };
        self.get_comp("rdma_get_send_comp", cq, ch, timeout)
    }

    /// `rdma_get_recv_comp`: as [`SyncId::get_send_comp`], on the receive CQ.
    pub fn get_recv_comp(&self, timeout: Duration) -> Result<WorkCompletion> {
        // SAFETY: id is live.
        let (cq, ch) = unsafe { ((*self.inner.id).recv_cq, (*self.inner.id).recv_cq_channel) };
        self.get_comp("rdma_get_recv_comp", cq, ch, timeout)
    }

    fn get_comp(
        &self,
        what: &str,
        cq: *mut sys::ibv_cq,
        ch: *mut sys::ibv_comp_channel,
        timeout: Duration,
    ) -> Result<WorkCompletion> {
        if cq.is_null() || ch.is_null() {
            return Err(Error::msg(format!(
                "{what}: the id has no CQ of librdmacm's (its QP was created with the application's CQ)"
            )));
        }
        let deadline = Instant::now() + timeout;
        let mut peer_gone: Option<Error> = None;
        loop {
            // The helper's order: poll, arm, poll again, then sleep on the
            // channel, so that no completion slips between poll and arm.
            if let Some(wc) = poll_one_raw(cq)? {
                return Ok(wc);
            }
            // SAFETY: cq is live while the id's QP is (librdmacm frees it with
            // rdma_destroy_qp, and leaves it in place otherwise).
            let rc = unsafe { sys::ibv_req_notify_cq(cq, 0) };
            if rc != 0 {
                return Err(Error::from_ret("ibv_req_notify_cq", rc).context(what));
            }
            let wc = poll_one_raw(cq)?;
            if let Some(e) = peer_gone {
                // The CQ was polled once more after the peer's goodbye: a
                // completion that made it is still good; the flushed rest
                // are explained by the peer leaving.
                return match wc {
                    Some(wc) if wc.is_success() => Ok(wc),
                    _ => Err(e.context(what)),
                };
            }
            if let Some(wc) = wc {
                return Ok(wc);
            }
            // SAFETY: ch is live with cq.
            let fd = unsafe { (*ch).fd };
            if wait_readable(fd, Some(TICK), "poll(completion channel)")? {
                let mut ev_cq: *mut sys::ibv_cq = ptr::null_mut();
                let mut ev_ctx: *mut libc::c_void = ptr::null_mut();
                // SAFETY: ch is live; the fd is readable so this does not block.
                let rc = unsafe { sys::ibv_get_cq_event(ch, &mut ev_cq, &mut ev_ctx) };
                if rc != 0 {
                    return Err(Error::last_os("ibv_get_cq_event").context(what));
                }
                // SAFETY: acked once, on the CQ the event is for.
                unsafe { sys::ibv_ack_cq_events(ev_cq, 1) };
                continue;
            }
            if let Err(e) = self.check_peer() {
                peer_gone = Some(e);
                continue;
            }
            if Instant::now() >= deadline {
                return Err(Error::msg(format!(
                    "{what}: no completion within {} s",
                    timeout.as_secs()
                )));
            }
        }
    }
}

fn poll_one_raw(cq: *mut sys::ibv_cq) -> Result<Option<WorkCompletion>> {
    // SAFETY: ibv_wc is plain data.
    let mut wc: sys::ibv_wc = unsafe { std::mem::zeroed() };
    // SAFETY: cq is live (see get_comp); wc has room for one entry.
    let n = unsafe { sys::ibv_poll_cq(cq, 1, &mut wc) };
    if n < 0 {
        return Err(crate::verbs::poll_cq_error(n));
    }
    Ok((n > 0).then(|| WorkCompletion::from_ibv_wc(&wc)))
}

fn expect_established(what: &str, ev: u32, status: i32) -> Result<()> {
    if ev == event_type::RDMA_CM_EVENT_ESTABLISHED && status == 0 {
        return Ok(());
    }
    // librdmacm's synchronous calls turn these events into errno values.
    let errno = match ev {
        event_type::RDMA_CM_EVENT_REJECTED => libc::ECONNREFUSED,
        _ if status < 0 => -status,
        event_type::RDMA_CM_EVENT_UNREACHABLE | event_type::RDMA_CM_EVENT_CONNECT_ERROR => {
            libc::ETIMEDOUT
        }
        _ => 0,
    };
    let e = Error::with_errno(what, errno);
    Err(Error::msg(format!(
        "{e} ({}, status {status})",
        event_name(ev)
    )))
}

/// # Safety
/// `ev` must be NULL or a valid, not yet acked event.
unsafe fn event_private_data(ev: *const sys::rdma_cm_event) -> Vec<u8> {
    if ev.is_null() {
        return Vec::new();
    }
    // SAFETY: the caller guarantees ev is valid; connect requests carry `conn`.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sockaddr_conversion() {
        for text in ["192.0.2.1:51216", "[fe80::1]:7"] {
            let want: SocketAddr = text.parse().unwrap();
            let sa = SockAddr::from(want);
            // SAFETY: sa holds a valid sockaddr of sa.len() bytes.
            let got = unsafe { sockaddr_to_std(sa.as_ptr().cast(), sa.len()) };
            assert_eq!(got, Some(want));
        }
        // SAFETY: NULL is allowed.
        assert_eq!(unsafe { sockaddr_to_std(ptr::null(), 0) }, None);
    }

    #[test]
    fn conn_param_is_copied_whole() {
        let p = ConnParam {
            private_data: vec![0x12, 0x34],
            responder_resources: 2,
            initiator_depth: 2,
            retry_count: 5,
            rnr_retry_count: 5,
            ..ConnParam::default()
        };
        let raw = ConnParam::to_raw(&p).unwrap();
        assert_eq!(raw.private_data_len, 2);
        assert_eq!((raw.retry_count, raw.rnr_retry_count), (5, 5));
        assert!(ConnParam::to_raw(&ConnParam {
            private_data: vec![0; 256],
            ..ConnParam::default()
        })
        .is_err());
    }

    #[test]
    fn rejected_connect_reads_as_connection_refused() {
        let e = expect_established("rdma_connect", event_type::RDMA_CM_EVENT_REJECTED, 8)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("rdma_connect failed: Connection refused (ECONNREFUSED)"),
            "{e}"
        );
        assert!(e.ends_with("(RDMA_CM_EVENT_REJECTED, status 8)"), "{e}");
        assert!(expect_established("x", event_type::RDMA_CM_EVENT_ESTABLISHED, 0).is_ok());
    }

    #[test]
    fn getaddrinfo_of_a_bad_name_is_an_error() {
        // Without RDMA devices librdmacm fails first (ENODEV); with them the
        // name lookup fails. Either way it is a clear error, not a panic.
        let e = AddrInfo::new(Some("no-such-host.invalid"), "51216", false)
            .err()
            .expect("must fail")
            .to_string();
        assert!(
            e.starts_with("rdma_getaddrinfo of no-such-host.invalid:51216 failed"),
            "{e}"
        );
    }
}
