//! Small RAII wrappers over the libibverbs objects the examples use.
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
use std::ffi::{CStr, CString};
use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::os::raw::c_int;
use std::ptr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rdma_sys as sys;

use crate::error::{Error, Result};

/// `IBV_LINK_LAYER_INFINIBAND` (a `#define` that bindgen does not export).
pub const LINK_LAYER_INFINIBAND: u8 = 1;
/// `IBV_LINK_LAYER_ETHERNET`: the port runs RoCE and every packet needs a GRH.
pub const LINK_LAYER_ETHERNET: u8 = 2;

/// `IBV_ACCESS_LOCAL_WRITE`.
pub const ACCESS_LOCAL_WRITE: u32 = sys::ibv_access_flags::IBV_ACCESS_LOCAL_WRITE.0;
/// `IBV_ACCESS_REMOTE_WRITE`.
pub const ACCESS_REMOTE_WRITE: u32 = sys::ibv_access_flags::IBV_ACCESS_REMOTE_WRITE.0;
/// `IBV_ACCESS_REMOTE_READ`.
pub const ACCESS_REMOTE_READ: u32 = sys::ibv_access_flags::IBV_ACCESS_REMOTE_READ.0;

/// `IBV_SEND_SIGNALED`: generate a completion for this request.
pub const SEND_SIGNALED: u32 = sys::ibv_send_flags::IBV_SEND_SIGNALED.0;
/// `IBV_SEND_SOLICITED`.
pub const SEND_SOLICITED: u32 = sys::ibv_send_flags::IBV_SEND_SOLICITED.0;
/// `IBV_SEND_INLINE`: the data is copied at post time.
pub const SEND_INLINE: u32 = sys::ibv_send_flags::IBV_SEND_INLINE.0;

/// Bytes of the GRH that the adapter puts in front of every UD receive.
pub const GRH_SIZE: usize = 40;

/// The byte count of an `ibv_mtu` value (IBV_MTU_256 .. IBV_MTU_4096), 0 if unknown.
pub fn mtu_to_bytes(mtu: sys::ibv_mtu::Type) -> u32 {
    match mtu {
        sys::ibv_mtu::IBV_MTU_256 => 256,
        sys::ibv_mtu::IBV_MTU_512 => 512,
        sys::ibv_mtu::IBV_MTU_1024 => 1024,
        sys::ibv_mtu::IBV_MTU_2048 => 2048,
        sys::ibv_mtu::IBV_MTU_4096 => 4096,
        _ => 0,
    }
}

/// The smaller of two `ibv_mtu` values: a path MTU must not exceed the port's active MTU.
pub fn mtu_min(a: sys::ibv_mtu::Type, b: sys::ibv_mtu::Type) -> sys::ibv_mtu::Type {
    if mtu_to_bytes(a) <= mtu_to_bytes(b) {
        a
    } else {
        b
    }
}

/// Turn a possibly NUL-terminated C string buffer into text, stopping at the first NUL,
/// as `printf("%s")` would.
pub fn c_str_lossy(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

// ---------------------------------------------------------------------------
// GID

/// A 16-byte GID, in network order as it sits in `union ibv_gid`.
#[derive(Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Gid(pub [u8; 16]);

impl Gid {
    /// True for the all-zero GID (an empty table entry, or "no GID" on the wire).
    pub fn is_zero(&self) -> bool {
        self.0.iter().all(|&b| b == 0)
    }

    /// The IPv4 address of an IPv4-mapped GID (`::ffff:a.b.c.d`), as RoCE uses.
    pub fn ipv4_mapped(&self) -> Option<Ipv4Addr> {
        Ipv6Addr::from(self.0).to_ipv4_mapped()
    }

    /// The GID as an IPv6 address, e.g. `::ffff:192.0.2.1` or `fe80::...`.
    pub fn to_ipv6(&self) -> Ipv6Addr {
        Ipv6Addr::from(self.0)
    }

    /// The raw union the verbs take.
    pub fn to_raw(&self) -> sys::ibv_gid {
        sys::ibv_gid { raw: self.0 }
    }

    /// From the raw union the verbs fill in.
    pub fn from_raw(raw: &sys::ibv_gid) -> Gid {
        // SAFETY: every bit pattern of the union is a valid [u8; 16].
        Gid(unsafe { raw.raw })
    }
}

/// The manual's format: 16 bytes as `%02x` separated by colons.
impl fmt::Display for Gid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(":")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Gid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Gid({})", self.to_ipv6())
    }
}

// ---------------------------------------------------------------------------
// Device list and device

/// `ibv_get_device_list` / `ibv_free_device_list`.
pub struct DeviceList {
    list: *mut *mut sys::ibv_device,
    len: usize,
}

impl DeviceList {
    /// Lists the RDMA devices of this host. An empty list is not an error here:
    /// the caller reports "found 0 device(s)" its own way.
    pub fn new() -> Result<DeviceList> {
        let mut num: c_int = 0;
        // SAFETY: `num` is a valid out-pointer; the list is freed in Drop.
        let list = unsafe { sys::ibv_get_device_list(&mut num) };
        if list.is_null() {
            return Err(Error::last_os("ibv_get_device_list"));
        }
        Ok(DeviceList {
            list,
            len: num.max(0) as usize,
        })
    }

    /// Number of devices.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the host has no RDMA device.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `i`-th device, in the library's order.
    pub fn get(&self, i: usize) -> Option<Device<'_>> {
        if i >= self.len {
            return None;
        }
        // SAFETY: i < len, and the list holds len valid device pointers.
        let dev = unsafe { *self.list.add(i) };
        Some(Device { dev, _list: self })
    }

    /// All devices.
    pub fn iter(&self) -> impl Iterator<Item = Device<'_>> {
        (0..self.len).filter_map(move |i| self.get(i))
    }

    /// The device called `name`, or the first device when `name` is `None`.
    pub fn find(&self, name: Option<&str>) -> Option<Device<'_>> {
        match name {
            None => self.get(0),
            Some(n) => self.iter().find(|d| d.name() == n),
        }
    }
}

impl Drop for DeviceList {
    fn drop(&mut self) {
        // SAFETY: `list` came from ibv_get_device_list and is freed once;
        // contexts opened from it stay valid after this.
        unsafe { sys::ibv_free_device_list(self.list) };
    }
}

/// One entry of a [`DeviceList`], valid while the list is.
pub struct Device<'a> {
    dev: *mut sys::ibv_device,
    _list: &'a DeviceList,
}

impl Device<'_> {
    /// `ibv_get_device_name`.
    pub fn name(&self) -> String {
        // SAFETY: dev is a live device of the list; the name is a NUL-terminated
        // string owned by the library.
        let p = unsafe { sys::ibv_get_device_name(self.dev) };
        if p.is_null() {
            return String::new();
        }
        // SAFETY: p is non-null and NUL-terminated.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    /// `ibv_get_device_guid`, in host order.
    pub fn guid(&self) -> u64 {
        // SAFETY: dev is a live device of the list.
        u64::from_be(unsafe { sys::ibv_get_device_guid(self.dev) })
    }

    /// `ibv_open_device`.
    pub fn open(&self) -> Result<Context> {
        let name = self.name();
        // SAFETY: dev is a live device of the list.
        let ctx = unsafe { sys::ibv_open_device(self.dev) };
        if ctx.is_null() {
            return Err(Error::last_os("ibv_open_device"));
        }
        Ok(Context {
            inner: Arc::new(ContextInner {
                ctx,
                name,
                owned: true,
            }),
        })
    }
}

// ---------------------------------------------------------------------------
// Context

struct ContextInner {
    ctx: *mut sys::ibv_context,
    name: String,
    /// False when librdmacm opened it (it closes it itself).
    owned: bool,
}

// SAFETY: libibverbs objects may be used from any thread (the library locks
// internally); the raw pointer is only an identifier here.
unsafe impl Send for ContextInner {}
// SAFETY: as above.
unsafe impl Sync for ContextInner {}

impl Drop for ContextInner {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: every child object holds an Arc to us, so none is left.
            unsafe { sys::ibv_close_device(self.ctx) };
        }
    }
}

/// An open device (`struct ibv_context`).
#[derive(Clone)]
pub struct Context {
    inner: Arc<ContextInner>,
}

impl Context {
    /// A context that librdmacm opened (`cm_id->verbs`); it is not closed on drop.
    ///
    /// # Safety
    /// `ctx` must be a valid context that outlives every use of the returned value.
    pub unsafe fn from_borrowed(ctx: *mut sys::ibv_context) -> Context {
        // SAFETY: the caller guarantees ctx is valid; device is set by the library.
        let name = unsafe {
            let p = sys::ibv_get_device_name((*ctx).device);
            if p.is_null() {
                String::new()
            } else {
                CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        };
        Context {
            inner: Arc::new(ContextInner {
                ctx,
                name,
                owned: false,
            }),
        }
    }

    /// The device name (`ibv_get_device_name(ctx->device)`).
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The raw pointer, for calls this crate does not wrap yet.
    pub fn as_ptr(&self) -> *mut sys::ibv_context {
        self.inner.ctx
    }

    /// `ibv_query_device`.
    pub fn query_device(&self) -> Result<sys::ibv_device_attr> {
        // SAFETY: ibv_device_attr is plain data; zero is a valid value.
        let mut attr: sys::ibv_device_attr = unsafe { std::mem::zeroed() };
        // SAFETY: ctx is live and attr is a valid out-pointer.
        let rc = unsafe { sys::ibv_query_device(self.inner.ctx, &mut attr) };
        if rc != 0 {
            return Err(Error::from_ret("ibv_query_device", rc));
        }
        Ok(attr)
    }

    /// `ibv_query_port` (through `___ibv_query_port`, which passes the struct size).
    pub fn query_port(&self, port: u8) -> Result<sys::ibv_port_attr> {
        // SAFETY: ibv_port_attr is plain data; zero is a valid value.
        let mut attr: sys::ibv_port_attr = unsafe { std::mem::zeroed() };
        // SAFETY: ctx is live and attr is a valid out-pointer of the right size.
        let rc = unsafe { sys::___ibv_query_port(self.inner.ctx, port, &mut attr) };
        if rc != 0 {
            return Err(Error::from_ret("ibv_query_port", rc));
        }
        Ok(attr)
    }

    /// `ibv_query_gid`.
    pub fn query_gid(&self, port: u8, index: i32) -> Result<Gid> {
        // SAFETY: ibv_gid is plain data.
        let mut gid: sys::ibv_gid = unsafe { std::mem::zeroed() };
        // SAFETY: ctx is live and gid is a valid out-pointer.
        let rc = unsafe { sys::ibv_query_gid(self.inner.ctx, port, index, &mut gid) };
        if rc != 0 {
            return Err(Error::from_ret("ibv_query_gid", rc)
                .context(format!("port {port}, GID index {index}")));
        }
        Ok(Gid::from_raw(&gid))
    }

    /// The GID's type as the kernel names it ("RoCE v2", "IB/RoCE v1"), read
    /// from sysfs as `ibv_query_gid_type` does; `None` where sysfs has no entry
    /// (InfiniBand ports, empty slots, old kernels).
    pub fn gid_type(&self, port: u8, index: i32) -> Option<String> {
        let path = format!(
            "/sys/class/infiniband/{}/ports/{port}/gid_attrs/types/{index}",
            self.inner.name
        );
        std::fs::read_to_string(path)
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    }

    /// The GID index a RoCE port should use when the user named none: the
    /// RoCE v2 IPv4-mapped GID (routable, and what rdma_cm picks), else any
    /// IPv4-mapped GID, else any RoCE v2 GID.
    pub fn find_roce_gid(&self, port: u8) -> Result<Option<(u8, Gid)>> {
        let attr = self.query_port(port)?;
        let len = attr.gid_tbl_len.clamp(0, 256);
        let mut entries = Vec::new();
        for i in 0..len {
            if let Ok(gid) = self.query_gid(port, i) {
                if !gid.is_zero() {
                    entries.push((i as u8, gid, self.gid_type(port, i)));
                }
            }
        }
        Ok(choose_roce_gid(&entries))
    }

    /// The GID index a verbs-only example uses on `port` when the user gave
    /// none (`-g`): on an Ethernet (RoCE) port, where a GRH is mandatory, the
    /// one [`Context::find_roce_gid`] picks, announced in one line; on
    /// InfiniBand `None`, so the program runs by LID only as its original.
    pub fn default_gid_index(
        &self,
        port: u8,
        port_attr: &sys::ibv_port_attr,
    ) -> Result<Option<u8>> {
        if port_attr.link_layer != LINK_LAYER_ETHERNET {
            return Ok(None);
        }
        match self.find_roce_gid(port)? {
            Some((idx, gid)) => {
                let kind = self
                    .gid_type(port, i32::from(idx))
                    .unwrap_or_else(|| "type unknown".to_string());
                println!(
                    "port {port} is Ethernet (RoCE) and no GID index was given: using GID index {idx} ({kind}, {})",
                    gid.to_ipv6()
                );
                Ok(Some(idx))
            }
            None => Err(Error::msg(format!(
                "port {port} of {} is Ethernet (RoCE) but has no usable GID: give its netdev an IP address, or pass -g",
                self.name()
            ))),
        }
    }

    /// `ibv_alloc_pd`.
    pub fn alloc_pd(&self) -> Result<Pd> {
        // SAFETY: ctx is live.
        let pd = unsafe { sys::ibv_alloc_pd(self.inner.ctx) };
        if pd.is_null() {
            return Err(Error::last_os("ibv_alloc_pd"));
        }
        Ok(Pd {
            inner: Arc::new(PdInner {
                pd,
                owned: true,
                _ctx: Some(self.clone()),
                _keep: None,
            }),
        })
    }

    /// `ibv_create_comp_channel`.
    pub fn create_comp_channel(&self) -> Result<CompChannel> {
        // SAFETY: ctx is live.
        let ch = unsafe { sys::ibv_create_comp_channel(self.inner.ctx) };
        if ch.is_null() {
            return Err(Error::last_os("ibv_create_comp_channel"));
        }
        Ok(CompChannel {
            inner: Arc::new(ChannelInner {
                ch,
                _ctx: self.clone(),
            }),
        })
    }

    /// `ibv_create_cq` with `cqe` entries, optionally bound to a completion channel.
    pub fn create_cq(&self, cqe: i32, channel: Option<&CompChannel>) -> Result<Cq> {
        let ch = channel.map_or(ptr::null_mut(), |c| c.inner.ch);
        // SAFETY: ctx and channel (if any) are live.
        let cq = unsafe { sys::ibv_create_cq(self.inner.ctx, cqe, ptr::null_mut(), ch, 0) };
        if cq.is_null() {
            return Err(Error::last_os("ibv_create_cq").context(format!("{cqe} entries")));
        }
        Ok(Cq {
            inner: Arc::new(CqInner {
                cq,
                channel: channel.cloned(),
                _ctx: self.clone(),
            }),
        })
    }

    /// `ibv_get_async_event`, waiting at most `timeout` (forever if `None`).
    /// `Ok(None)` on timeout. The event is acked when dropped.
    pub fn get_async_event(&self, timeout: Option<Duration>) -> Result<Option<AsyncEvent>> {
        // SAFETY: ctx is live; async_fd is set by the library at open.
        let fd = unsafe { (*self.inner.ctx).async_fd };
        if !wait_readable(fd, timeout, "poll(async_fd)")? {
            return Ok(None);
        }
        // SAFETY: ibv_async_event is plain data.
        let mut ev: sys::ibv_async_event = unsafe { std::mem::zeroed() };
        // SAFETY: ctx is live and ev is a valid out-pointer; fd is readable so
        // this does not block for long.
        let rc = unsafe { sys::ibv_get_async_event(self.inner.ctx, &mut ev) };
        if rc != 0 {
            return Err(Error::last_os("ibv_get_async_event"));
        }
        Ok(Some(AsyncEvent {
            ev,
            _ctx: self.clone(),
        }))
    }
}

/// The GID choice of [`Context::find_roce_gid`], on (index, gid, type) entries.
pub fn choose_roce_gid(entries: &[(u8, Gid, Option<String>)]) -> Option<(u8, Gid)> {
    let is_v2 = |t: &Option<String>| t.as_deref().is_some_and(|t| t.contains("v2"));
    entries
        .iter()
        .find(|(_, g, t)| g.ipv4_mapped().is_some() && is_v2(t))
        .or_else(|| entries.iter().find(|(_, g, _)| g.ipv4_mapped().is_some()))
        .or_else(|| entries.iter().find(|(_, _, t)| is_v2(t)))
        .map(|(i, g, _)| (*i, *g))
}

/// Wait until `fd` is readable; false on timeout. EINTR restarts the wait.
pub(crate) fn wait_readable(fd: c_int, timeout: Option<Duration>, what: &str) -> Result<bool> {
    let deadline = timeout.map(|d| std::time::Instant::now() + d);
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    loop {
        let ms: c_int = match deadline {
            None => -1,
            Some(d) => d
                .saturating_duration_since(std::time::Instant::now())
                .as_millis()
                .min(c_int::MAX as u128) as c_int,
        };
        // SAFETY: pfd is one valid pollfd.
        let n = unsafe { libc::poll(&mut pfd, 1, ms) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EINTR) {
                // A stop signal ends the wait as a timeout would, so that the
                // caller's loop sees the stop flag; others resume the wait.
                if crate::signals::stop_requested() {
                    return Ok(false);
                }
                continue;
            }
            return Err(Error::io(what, &e));
        }
        return Ok(n > 0);
    }
}

/// `ibv_poll_cq` failed: it returns a negative value and sets no errno.
pub(crate) fn poll_cq_error(n: c_int) -> Error {
    Error::msg(format!("ibv_poll_cq failed (returned {n})"))
}

// ---------------------------------------------------------------------------
// Asynchronous events

/// An affiliated or unaffiliated asynchronous event; acked on drop.
///
/// Drop it before the QP, CQ or SRQ it is about: destroying that object
/// waits until all of its events are acked.
pub struct AsyncEvent {
    ev: sys::ibv_async_event,
    _ctx: Context,
}

// SAFETY: the event is plain data plus pointers used as identifiers only.
unsafe impl Send for AsyncEvent {}

impl AsyncEvent {
    /// The event type.
    pub fn event_type(&self) -> sys::ibv_event_type {
        self.ev.event_type
    }

    /// `ibv_event_type_str`.
    pub fn name(&self) -> String {
        // SAFETY: returns a static NUL-terminated string for any value.
        let p = unsafe { sys::ibv_event_type_str(self.ev.event_type) };
        if p.is_null() {
            return format!("{:?}", self.ev.event_type);
        }
        // SAFETY: non-null static C string.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    /// The event type as its numeric value, as the manual's programs print it.
    pub fn number(&self) -> u32 {
        self.ev.event_type as u32
    }
}

impl Drop for AsyncEvent {
    fn drop(&mut self) {
        // SAFETY: the event came from ibv_get_async_event and is acked exactly once.
        unsafe { sys::ibv_ack_async_event(&mut self.ev) };
    }
}

// ---------------------------------------------------------------------------
// Protection domain

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

impl Drop for PdInner {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: every MR/QP/AH/SRQ holds an Arc to us, so none is left.
            unsafe { sys::ibv_dealloc_pd(self.pd) };
        }
    }
}

/// A protection domain.
#[derive(Clone)]
pub struct Pd {
    inner: Arc<PdInner>,
}

impl Pd {
    /// A PD that librdmacm allocated; `keep` is held until the last user is gone.
    ///
    /// # Safety
    /// `pd` must stay valid as long as `keep` is alive.
    pub unsafe fn from_borrowed(pd: *mut sys::ibv_pd, keep: Arc<dyn Any + Send + Sync>) -> Pd {
        Pd {
            inner: Arc::new(PdInner {
                pd,
                owned: false,
                _ctx: None,
                _keep: Some(keep),
            }),
        }
    }

    /// The raw pointer, for calls this crate does not wrap yet.
    pub fn as_ptr(&self) -> *mut sys::ibv_pd {
        self.inner.pd
    }

    /// Allocate `len` zeroed bytes (page aligned) and register them with `access`
    /// (`ibv_reg_mr`).
    pub fn reg_mr(&self, len: usize, access: u32) -> Result<Mr> {
        let buf = Buffer::new(len)?;
        // SAFETY: pd is live; buf is `len` valid bytes that MrInner frees only
        // after deregistering.
        let mr = unsafe { sys::ibv_reg_mr(self.inner.pd, buf.ptr.cast(), len, access as c_int) };
        if mr.is_null() {
            return Err(Error::last_os("ibv_reg_mr").context(format!(
                "registering {len} bytes with access flags 0x{access:x}"
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
        // SAFETY: ibv_qp_init_attr is plain data.
        let mut attr: sys::ibv_qp_init_attr = unsafe { std::mem::zeroed() };
        attr.qp_type = init.qp_type;
        attr.sq_sig_all = init.sq_sig_all as c_int;
        attr.send_cq = init.send_cq.inner.cq;
        attr.recv_cq = init.recv_cq.inner.cq;
        attr.srq = init.srq.map_or(ptr::null_mut(), |s| s.inner.srq);
        attr.cap.max_send_wr = init.max_send_wr;
        attr.cap.max_recv_wr = init.max_recv_wr;
        attr.cap.max_send_sge = init.max_send_sge;
        attr.cap.max_recv_sge = init.max_recv_sge;
        attr.cap.max_inline_data = init.max_inline_data;
        // SAFETY: pd, CQs and SRQ are live; the QP keeps them alive (QpInner).
        let qp = unsafe { sys::ibv_create_qp(self.inner.pd, &mut attr) };
        if qp.is_null() {
            return Err(Error::last_os("ibv_create_qp"));
        }
        Ok(Qp {
            inner: Arc::new(QpInner {
                qp,
                owner: QpOwner::Verbs,
                _pd: Some(self.clone()),
                _cqs: vec![init.send_cq.clone(), init.recv_cq.clone()],
                _srq: init.srq.cloned(),
                keep: Mutex::new(Vec::new()),
            }),
        })
    }

    /// `ibv_create_ah`.
    pub fn create_ah(&self, attr: &AhAttr) -> Result<Ah> {
        self.create_ah_raw(&attr.to_raw())
    }

    /// `ibv_create_ah` from the raw attribute struct (as rdma_cm's UD parameters give it).
    pub fn create_ah_raw(&self, attr: &sys::ibv_ah_attr) -> Result<Ah> {
        let mut a = *attr;
        // SAFETY: pd is live; a is a valid attribute struct.
        let ah = unsafe { sys::ibv_create_ah(self.inner.pd, &mut a) };
        if ah.is_null() {
            return Err(Error::last_os("ibv_create_ah"));
        }
        Ok(Ah {
            inner: Arc::new(AhInner {
                ah,
                _pd: self.clone(),
            }),
        })
    }

    /// `ibv_create_srq` with room for `max_wr` receives of `max_sge` entries.
    pub fn create_srq(&self, max_wr: u32, max_sge: u32) -> Result<Srq> {
        // SAFETY: plain data.
        let mut attr: sys::ibv_srq_init_attr = unsafe { std::mem::zeroed() };
        attr.attr.max_wr = max_wr;
        attr.attr.max_sge = max_sge;
        // SAFETY: pd is live; attr is valid.
        let srq = unsafe { sys::ibv_create_srq(self.inner.pd, &mut attr) };
        if srq.is_null() {
            return Err(Error::last_os("ibv_create_srq").context(format!("max_wr {max_wr}")));
        }
        Ok(Srq {
            inner: Arc::new(SrqInner {
                srq,
                cm: None,
                _pd: self.clone(),
                keep: Mutex::new(Vec::new()),
            }),
        })
    }
}

// ---------------------------------------------------------------------------
// Memory region

/// Page-aligned zeroed memory that this crate owns.
struct Buffer {
    ptr: *mut u8,
    len: usize,
    layout: std::alloc::Layout,
}

impl Buffer {
    fn new(len: usize) -> Result<Buffer> {
        let layout = std::alloc::Layout::from_size_align(len.max(1), 4096)
            .map_err(|_| Error::msg(format!("cannot allocate a {len}-byte buffer")))?;
        // SAFETY: layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(Error::with_errno("malloc", libc::ENOMEM)
                .context(format!("allocating {len} bytes")));
        }
        Ok(Buffer { ptr, len, layout })
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: allocated in Buffer::new with this layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) };
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

impl Drop for MrInner {
    fn drop(&mut self) {
        // SAFETY: no QP holds us any more (they keep an Arc), so no request
        // names this memory; deregister before `buf` is freed.
        unsafe { sys::ibv_dereg_mr(self.mr) };
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
    fn to_raw(self) -> sys::ibv_sge {
        sys::ibv_sge {
            addr: self.mr.addr() + self.offset as u64,
            length: self.length,
            lkey: self.mr.lkey(),
        }
    }
}

// ---------------------------------------------------------------------------
// Completion channel and completion queue

struct ChannelInner {
    ch: *mut sys::ibv_comp_channel,
    _ctx: Context,
}

// SAFETY: see ContextInner.
unsafe impl Send for ChannelInner {}
// SAFETY: see ContextInner.
unsafe impl Sync for ChannelInner {}

impl Drop for ChannelInner {
    fn drop(&mut self) {
        // SAFETY: every CQ on this channel holds an Arc to us, so none is left.
        unsafe { sys::ibv_destroy_comp_channel(self.ch) };
    }
}

/// A completion event channel.
#[derive(Clone)]
pub struct CompChannel {
    inner: Arc<ChannelInner>,
}

impl CompChannel {
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

impl Drop for CqInner {
    fn drop(&mut self) {
        // SAFETY: every QP using this CQ holds an Arc to us, and CQ events are
        // acked as they are read (Cq::wait_event), so destroy cannot block.
        unsafe { sys::ibv_destroy_cq(self.cq) };
    }
}

/// A completion queue.
#[derive(Clone)]
pub struct Cq {
    inner: Arc<CqInner>,
}

/// A completion, copied out of `struct ibv_wc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkCompletion {
    /// The request's id.
    pub wr_id: u64,
    /// `ibv_wc_status` value; 0 is success.
    pub status: u32,
    /// `ibv_wc_opcode` value.
    pub opcode: u32,
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
    /// `ibv_wc_flags`.
    pub wc_flags: u32,
    /// Source LID.
    pub slid: u16,
    /// Service level.
    pub sl: u8,
}

impl WorkCompletion {
    fn from_raw(wc: &sys::ibv_wc) -> WorkCompletion {
        let with_imm = wc.wc_flags & sys::ibv_wc_flags::IBV_WC_WITH_IMM.0 != 0;
        WorkCompletion {
            wr_id: wc.wr_id,
            status: wc.status,
            opcode: wc.opcode,
            vendor_err: wc.vendor_err,
            byte_len: wc.byte_len,
            // SAFETY: the union is plain u32 data either way.
            imm_data: with_imm
                .then(|| u32::from_be(unsafe { wc.imm_data_invalidated_rkey_union.imm_data })),
            qp_num: wc.qp_num,
            src_qp: wc.src_qp,
            wc_flags: wc.wc_flags,
            slid: wc.slid,
            sl: wc.sl,
        }
    }

    /// True for `IBV_WC_SUCCESS`.
    pub fn is_success(&self) -> bool {
        self.status == sys::ibv_wc_status::IBV_WC_SUCCESS
    }

    /// `ibv_wc_status_str` of the status.
    pub fn status_str(&self) -> String {
        wc_status_str(self.status)
    }
}

/// `ibv_wc_status_str`.
pub fn wc_status_str(status: u32) -> String {
    // SAFETY: returns a static NUL-terminated string for any value.
    let p = unsafe { sys::ibv_wc_status_str(status) };
    if p.is_null() {
        return format!("status {status}");
    }
    // SAFETY: non-null static C string.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

impl Cq {
    /// The raw pointer, for calls this crate does not wrap yet.
    pub fn as_ptr(&self) -> *mut sys::ibv_cq {
        self.inner.cq
    }

    /// `ibv_poll_cq` for at most `max` completions.
    pub fn poll(&self, max: usize) -> Result<Vec<WorkCompletion>> {
        let max = max.clamp(1, 256);
        // SAFETY: ibv_wc is plain data.
        let mut wcs: Vec<sys::ibv_wc> = (0..max).map(|_| unsafe { std::mem::zeroed() }).collect();
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

// ---------------------------------------------------------------------------
// Queue pair

/// What `ibv_create_qp` needs.
pub struct QpInitAttr<'a> {
    /// `IBV_QPT_RC`, `IBV_QPT_UD`, ... (`sys::ibv_qp_type::*`).
    pub qp_type: sys::ibv_qp_type::Type,
    /// CQ for send completions.
    pub send_cq: &'a Cq,
    /// CQ for receive completions.
    pub recv_cq: &'a Cq,
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

enum QpOwner {
    /// Created with ibv_create_qp: destroyed with ibv_destroy_qp.
    Verbs,
    /// Created with rdma_create_qp on a cm_id: destroyed with rdma_destroy_qp,
    /// before `keep` (which owns the cm_id) lets the id go.
    Cm {
        id: *mut sys::rdma_cm_id,
        _keep: Arc<dyn Any + Send + Sync>,
    },
}

struct QpInner {
    qp: *mut sys::ibv_qp,
    owner: QpOwner,
    _pd: Option<Pd>,
    _cqs: Vec<Cq>,
    _srq: Option<Srq>,
    /// MRs and AHs named by posted requests: they must outlive the QP.
    keep: Mutex<Vec<Arc<dyn Any + Send + Sync>>>,
}

// SAFETY: see ContextInner.
unsafe impl Send for QpInner {}
// SAFETY: see ContextInner.
unsafe impl Sync for QpInner {}

impl Drop for QpInner {
    fn drop(&mut self) {
        match &self.owner {
            // SAFETY: last reference; the QP is destroyed before the PD, CQs,
            // SRQ and kept MRs/AHs, which are fields dropped after this body.
            QpOwner::Verbs => unsafe {
                sys::ibv_destroy_qp(self.qp);
            },
            // SAFETY: as above; `keep` still holds the cm_id, so it is valid.
            QpOwner::Cm { id, .. } => unsafe { sys::rdma_destroy_qp(*id) },
        }
    }
}

/// Attributes of the RESET->INIT transition of an RC/UC QP.
#[derive(Clone, Copy, Debug)]
pub struct InitAttr {
    /// Physical port.
    pub port_num: u8,
    /// P_Key index.
    pub pkey_index: u16,
    /// Remote access allowed (`IBV_ACCESS_*`).
    pub access: u32,
}

/// Attributes of the INIT->RTR transition of an RC QP.
#[derive(Clone, Copy, Debug)]
pub struct RtrAttr {
    /// Path MTU (`sys::ibv_mtu::*`).
    pub path_mtu: sys::ibv_mtu::Type,
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

/// Fill and post an `ibv_recv_wr` (shared by QP and SRQ).
fn build_sges(sges: &[Sge<'_>]) -> Vec<sys::ibv_sge> {
    sges.iter().map(|s| s.to_raw()).collect()
}

/// Keep `obj` alive for as long as the QP (or SRQ) lives. Takes the lock but
/// does not touch the reference count when `obj` is already kept (the common
/// case in a loop that reuses one buffer).
fn keep_alive<T: Any + Send + Sync>(keep: &Mutex<Vec<Arc<dyn Any + Send + Sync>>>, obj: &Arc<T>) {
    let mut k = keep.lock().unwrap_or_else(|e| e.into_inner());
    let target = Arc::as_ptr(obj) as *const u8;
    if !k.iter().any(|o| Arc::as_ptr(o) as *const u8 == target) {
        k.push(obj.clone());
    }
}

/// A queue pair.
#[derive(Clone)]
pub struct Qp {
    inner: Arc<QpInner>,
}

impl Qp {
    /// Wrap the QP librdmacm created on `id` (`rdma_create_qp`, `rdma_create_ep`).
    /// It is destroyed with `rdma_destroy_qp`; `keep` (the cm_id's owner) is
    /// held until then, and `cqs`/`srq`/`pd` until after.
    ///
    /// # Safety
    /// `id` must be valid while `keep` is alive, and `id->qp` a live QP that
    /// nothing else destroys.
    pub(crate) unsafe fn from_cm(
        id: *mut sys::rdma_cm_id,
        pd: Option<Pd>,
        cqs: Vec<Cq>,
        srq: Option<Srq>,
        keep: Arc<dyn Any + Send + Sync>,
    ) -> Qp {
        Qp {
            inner: Arc::new(QpInner {
                // SAFETY: the caller guarantees id is valid.
                qp: unsafe { (*id).qp },
                owner: QpOwner::Cm { id, _keep: keep },
                _pd: pd,
                _cqs: cqs,
                _srq: srq,
                keep: Mutex::new(Vec::new()),
            }),
        }
    }

    /// The raw pointer, for calls this crate does not wrap yet.
    pub fn as_ptr(&self) -> *mut sys::ibv_qp {
        self.inner.qp
    }

    /// The QP number.
    pub fn qp_num(&self) -> u32 {
        // SAFETY: qp is live while self is.
        unsafe { (*self.inner.qp).qp_num }
    }

    /// `ibv_modify_qp` with a full attribute struct and mask; `what` names the
    /// transition in the error.
    pub fn modify(&self, mut a: sys::ibv_qp_attr, mask: u32, what: &str) -> Result<()> {
        // SAFETY: qp is live; a is a valid attribute struct.
        let rc = unsafe { sys::ibv_modify_qp(self.inner.qp, &mut a, mask as c_int) };
        if rc != 0 {
            return Err(Error::from_ret(&format!("ibv_modify_qp ({what})"), rc));
        }
        Ok(())
    }

    /// Any state -> ERR: every posted work request then completes, flushed.
    pub fn modify_to_err(&self) -> Result<()> {
        let mut a = zeroed_qp_attr();
        a.qp_state = sys::ibv_qp_state::IBV_QPS_ERR;
        self.modify(a, sys::ibv_qp_attr_mask::IBV_QP_STATE.0, "->ERR")
    }

    /// RESET->INIT for an RC/UC QP.
    pub fn modify_to_init(&self, init: &InitAttr) -> Result<()> {
        use sys::ibv_qp_attr_mask as m;
        let mut a = zeroed_qp_attr();
        a.qp_state = sys::ibv_qp_state::IBV_QPS_INIT;
        a.port_num = init.port_num;
        a.pkey_index = init.pkey_index;
        a.qp_access_flags = init.access;
        let mask = m::IBV_QP_STATE.0
            | m::IBV_QP_PKEY_INDEX.0
            | m::IBV_QP_PORT.0
            | m::IBV_QP_ACCESS_FLAGS.0;
        self.modify(a, mask, "RESET->INIT")
    }

    /// RESET->INIT for a UD QP.
    pub fn modify_to_init_ud(&self, port_num: u8, pkey_index: u16, qkey: u32) -> Result<()> {
        use sys::ibv_qp_attr_mask as m;
        let mut a = zeroed_qp_attr();
        a.qp_state = sys::ibv_qp_state::IBV_QPS_INIT;
        a.port_num = port_num;
        a.pkey_index = pkey_index;
        a.qkey = qkey;
        let mask = m::IBV_QP_STATE.0 | m::IBV_QP_PKEY_INDEX.0 | m::IBV_QP_PORT.0 | m::IBV_QP_QKEY.0;
        self.modify(a, mask, "RESET->INIT")
    }

    /// INIT->RTR for an RC QP.
    pub fn modify_to_rtr(&self, rtr: &RtrAttr) -> Result<()> {
        use sys::ibv_qp_attr_mask as m;
        let mut a = zeroed_qp_attr();
        a.qp_state = sys::ibv_qp_state::IBV_QPS_RTR;
        a.path_mtu = rtr.path_mtu;
        a.dest_qp_num = rtr.dest_qp_num;
        a.rq_psn = rtr.rq_psn;
        a.max_dest_rd_atomic = rtr.max_dest_rd_atomic;
        a.min_rnr_timer = rtr.min_rnr_timer;
        a.ah_attr = rtr.ah_attr.to_raw();
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
        let mut a = zeroed_qp_attr();
        a.qp_state = sys::ibv_qp_state::IBV_QPS_RTR;
        self.modify(a, sys::ibv_qp_attr_mask::IBV_QP_STATE.0, "INIT->RTR")
    }

    /// RTR->RTS for an RC QP.
    pub fn modify_to_rts(&self, rts: &RtsAttr) -> Result<()> {
        use sys::ibv_qp_attr_mask as m;
        let mut a = zeroed_qp_attr();
        a.qp_state = sys::ibv_qp_state::IBV_QPS_RTS;
        a.timeout = rts.timeout;
        a.retry_cnt = rts.retry_cnt;
        a.rnr_retry = rts.rnr_retry;
        a.sq_psn = rts.sq_psn;
        a.max_rd_atomic = rts.max_rd_atomic;
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
        let mut a = zeroed_qp_attr();
        a.qp_state = sys::ibv_qp_state::IBV_QPS_RTS;
        a.sq_psn = sq_psn;
        self.modify(a, m::IBV_QP_STATE.0 | m::IBV_QP_SQ_PSN.0, "RTR->RTS")
    }

    /// `ibv_query_qp` for the attributes in `mask`.
    pub fn query(&self, mask: u32) -> Result<(sys::ibv_qp_attr, sys::ibv_qp_init_attr)> {
        let mut a = zeroed_qp_attr();
        // SAFETY: plain data.
        let mut init: sys::ibv_qp_init_attr = unsafe { std::mem::zeroed() };
        // SAFETY: qp is live; out-pointers valid.
        let rc = unsafe { sys::ibv_query_qp(self.inner.qp, &mut a, mask as c_int, &mut init) };
        if rc != 0 {
            return Err(Error::from_ret("ibv_query_qp", rc));
        }
        Ok((a, init))
    }

    /// `ibv_post_send` of one work request.
    pub fn post_send(
        &self,
        wr_id: u64,
        op: SendOp<'_>,
        sges: &[Sge<'_>],
        flags: u32,
    ) -> Result<()> {
        for s in sges {
            keep_alive(&self.inner.keep, &s.mr.inner);
        }
        let mut sg = build_sges(sges);
        self.post_send_raw(wr_id, op, &mut sg, flags)
    }

    /// Fill an `ibv_send_wr` for `op` over `sg` and post it; the caller has
    /// already made the QP keep the MRs that `sg` names.
    fn post_send_raw(
        &self,
        wr_id: u64,
        op: SendOp<'_>,
        sg: &mut [sys::ibv_sge],
        flags: u32,
    ) -> Result<()> {
        // SAFETY: ibv_send_wr is plain data; zero is "no next, no flags".
        let mut wr: sys::ibv_send_wr = unsafe { std::mem::zeroed() };
        wr.wr_id = wr_id;
        wr.sg_list = if sg.is_empty() {
            ptr::null_mut()
        } else {
            sg.as_mut_ptr()
        };
        wr.num_sge = sg.len() as c_int;
        wr.send_flags = flags;
        use sys::ibv_wr_opcode as o;
        match op {
            SendOp::Send => wr.opcode = o::IBV_WR_SEND,
            SendOp::SendWithImm(imm) => {
                wr.opcode = o::IBV_WR_SEND_WITH_IMM;
                wr.imm_data_invalidated_rkey_union.imm_data = imm.to_be();
            }
            SendOp::RdmaWrite { remote_addr, rkey } => {
                wr.opcode = o::IBV_WR_RDMA_WRITE;
                wr.wr.rdma = sys::rdma_t { remote_addr, rkey };
            }
            SendOp::RdmaRead { remote_addr, rkey } => {
                wr.opcode = o::IBV_WR_RDMA_READ;
                wr.wr.rdma = sys::rdma_t { remote_addr, rkey };
            }
            SendOp::Ud {
                ah,
                remote_qpn,
                remote_qkey,
                imm,
            } => {
                keep_alive(&self.inner.keep, &ah.inner);
                wr.opcode = match imm {
                    Some(v) => {
                        wr.imm_data_invalidated_rkey_union.imm_data = v.to_be();
                        o::IBV_WR_SEND_WITH_IMM
                    }
                    None => o::IBV_WR_SEND,
                };
                wr.wr.ud = sys::ud_t {
                    ah: ah.inner.ah,
                    remote_qpn,
                    remote_qkey,
                };
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
        let mut sg = build_sges(sges);
        for s in sges {
            keep_alive(&self.inner.keep, &s.mr.inner);
        }
        let mut wr = sys::ibv_recv_wr {
            wr_id,
            next: ptr::null_mut(),
            sg_list: if sg.is_empty() {
                ptr::null_mut()
            } else {
                sg.as_mut_ptr()
            },
            num_sge: sg.len() as c_int,
        };
        let mut bad: *mut sys::ibv_recv_wr = ptr::null_mut();
        // SAFETY: qp is live; wr is valid for the call; memory kept alive as above.
        let rc = unsafe { sys::ibv_post_recv(self.inner.qp, &mut wr, &mut bad) };
        if rc != 0 {
            return Err(Error::from_ret("ibv_post_recv", rc));
        }
        Ok(())
    }
}

fn zeroed_qp_attr() -> sys::ibv_qp_attr {
    // SAFETY: ibv_qp_attr is plain data; all-zero is its documented initial value.
    unsafe { std::mem::zeroed() }
}

// ---------------------------------------------------------------------------
// Address handle

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
    pub fn to_raw(&self) -> sys::ibv_ah_attr {
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
    pub fn from_raw(raw: &sys::ibv_ah_attr) -> AhAttr {
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

impl Drop for AhInner {
    fn drop(&mut self) {
        // SAFETY: QPs that sent with this AH hold an Arc to it.
        unsafe { sys::ibv_destroy_ah(self.ah) };
    }
}

/// An address handle.
#[derive(Clone)]
pub struct Ah {
    inner: Arc<AhInner>,
}

// ---------------------------------------------------------------------------
// Shared receive queue

struct SrqInner {
    srq: *mut sys::ibv_srq,
    /// Set when librdmacm created the SRQ on a cm_id (`rdma_create_srq`): it
    /// is then released with `rdma_destroy_srq` on that id, which the second
    /// member keeps alive until then.
    cm: Option<(*mut sys::rdma_cm_id, Arc<dyn Any + Send + Sync>)>,
    _pd: Pd,
    keep: Mutex<Vec<Arc<dyn Any + Send + Sync>>>,
}

// SAFETY: see ContextInner.
unsafe impl Send for SrqInner {}
// SAFETY: see ContextInner.
unsafe impl Sync for SrqInner {}

impl Drop for SrqInner {
    fn drop(&mut self) {
        match &self.cm {
            // SAFETY: QPs attached to the SRQ hold an Arc to it, so none is
            // left; the id is held by `cm` and `id->srq` is this SRQ.
            Some((id, _)) => unsafe { sys::rdma_destroy_srq(*id) },
            // SAFETY: QPs attached to the SRQ hold an Arc to it, so none is left.
            None => unsafe {
                sys::ibv_destroy_srq(self.srq);
            },
        }
    }
}

/// A shared receive queue.
#[derive(Clone)]
pub struct Srq {
    inner: Arc<SrqInner>,
}

impl Srq {
    /// The raw pointer, for calls this crate does not wrap yet.
    pub fn as_ptr(&self) -> *mut sys::ibv_srq {
        self.inner.srq
    }

    /// `ibv_post_srq_recv` of one work request.
    pub fn post_recv(&self, wr_id: u64, sges: &[Sge<'_>]) -> Result<()> {
        let mut sg = build_sges(sges);
        for s in sges {
            keep_alive(&self.inner.keep, &s.mr.inner);
        }
        let mut wr = sys::ibv_recv_wr {
            wr_id,
            next: ptr::null_mut(),
            sg_list: if sg.is_empty() {
                ptr::null_mut()
            } else {
                sg.as_mut_ptr()
            },
            num_sge: sg.len() as c_int,
        };
        let mut bad: *mut sys::ibv_recv_wr = ptr::null_mut();
        // SAFETY: srq is live; wr valid for the call; memory kept alive by `keep`.
        let rc = unsafe { sys::ibv_post_srq_recv(self.inner.srq, &mut wr, &mut bad) };
        if rc != 0 {
            return Err(Error::from_ret("ibv_post_srq_recv", rc));
        }
        Ok(())
    }
}

impl Srq {
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

impl WorkCompletion {
    /// A completion copied out of the raw struct, for CQs this module does
    /// not own (librdmacm's, polled by `cm_sync`).
    pub(crate) fn from_ibv_wc(wc: &sys::ibv_wc) -> WorkCompletion {
        WorkCompletion::from_raw(wc)
    }
}

/// A NUL-terminated copy of `s` for C, or an error naming `what` if `s` has a NUL inside.
pub fn c_string(what: &str, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::msg(format!("{what} must not contain a NUL byte")))
}

// ---------------------------------------------------------------------------
// Allocation-free posting and polling, for timed loops

// All zero, so callers can keep a reusable array for `Cq::poll_into`. Written
// out rather than derived to leave the struct's declaration untouched.
#[allow(clippy::derivable_impls)]
impl Default for WorkCompletion {
    fn default() -> Self {
        WorkCompletion {
            wr_id: 0,
            status: 0,
            opcode: 0,
            vendor_err: 0,
            byte_len: 0,
            imm_data: None,
            qp_num: 0,
            src_qp: 0,
            wc_flags: 0,
            slid: 0,
            sl: 0,
        }
    }
}

/// Most completions [`Cq::poll_into`] reads in one call (its stack buffer).
pub const POLL_INTO_MAX: usize = 16;

impl Cq {
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
}

impl Qp {
    /// `ibv_post_send` of one request with one scatter/gather entry, without
    /// allocating: [`Qp::post_send`] for loops that measure latency.
    pub fn post_send_one(
        &self,
        wr_id: u64,
        op: SendOp<'_>,
        sge: Sge<'_>,
        flags: u32,
    ) -> Result<()> {
        keep_alive(&self.inner.keep, &sge.mr.inner);
        let mut sg = [sge.to_raw()];
        self.post_send_raw(wr_id, op, &mut sg, flags)
    }

    /// `ibv_post_recv` of one request with one scatter/gather entry, without
    /// allocating: [`Qp::post_recv`] for loops that measure latency.
    pub fn post_recv_one(&self, wr_id: u64, sge: Sge<'_>) -> Result<()> {
        keep_alive(&self.inner.keep, &sge.mr.inner);
        let mut sg = sge.to_raw();
        let mut wr = sys::ibv_recv_wr {
            wr_id,
            next: ptr::null_mut(),
            sg_list: &mut sg,
            num_sge: 1,
        };
        let mut bad: *mut sys::ibv_recv_wr = ptr::null_mut();
        // SAFETY: qp is live; wr and sg are valid for the call; the memory is
        // kept alive by `keep` until the QP is destroyed.
        let rc = unsafe { sys::ibv_post_recv(self.inner.qp, &mut wr, &mut bad) };
        if rc != 0 {
            return Err(Error::from_ret("ibv_post_recv", rc));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gid(s: &str) -> Gid {
        Gid(s.parse::<Ipv6Addr>().unwrap().octets())
    }

    #[test]
    fn gid_prints_as_the_manual_does() {
        let g = gid("::ffff:192.0.2.1");
        assert_eq!(
            g.to_string(),
            "00:00:00:00:00:00:00:00:00:00:ff:ff:c0:00:02:01"
        );
        assert_eq!(g.ipv4_mapped(), Some(Ipv4Addr::new(192, 0, 2, 1)));
        assert!(!g.is_zero());
        assert!(Gid::default().is_zero());
        assert_eq!(Gid::from_raw(&g.to_raw()), g);
    }

    #[test]
    fn roce_v2_ipv4_gid_is_preferred() {
        let link_local = gid("fe80::5054:ff:fe12:3401");
        let v4 = gid("::ffff:192.0.2.1");
        let entries = vec![
            (0, link_local, Some("IB/RoCE v1".to_string())),
            (1, link_local, Some("RoCE v2".to_string())),
            (2, v4, Some("IB/RoCE v1".to_string())),
            (3, v4, Some("RoCE v2".to_string())),
        ];
        assert_eq!(choose_roce_gid(&entries), Some((3, v4)));
        // Without type information, the IPv4-mapped one still wins.
        let untyped: Vec<_> = entries.iter().map(|(i, g, _)| (*i, *g, None)).collect();
        assert_eq!(choose_roce_gid(&untyped), Some((2, v4)));
        // No IPv4 address: the RoCE v2 link-local GID.
        assert_eq!(choose_roce_gid(&entries[..2]), Some((1, link_local)));
        assert_eq!(choose_roce_gid(&[]), None);
    }

    #[test]
    fn ah_attr_round_trips_and_sets_is_global() {
        let a = AhAttr {
            dlid: 7,
            sl: 1,
            port_num: 1,
            grh: Some(Grh {
                dgid: gid("::ffff:192.0.2.2"),
                sgid_index: 1,
                hop_limit: 1,
                ..Grh::default()
            }),
            ..AhAttr::default()
        };
        let raw = a.to_raw();
        assert_eq!(raw.is_global, 1);
        assert_eq!(AhAttr::from_raw(&raw), a);
        let ib = AhAttr {
            dlid: 3,
            port_num: 1,
            ..AhAttr::default()
        };
        assert_eq!(ib.to_raw().is_global, 0);
        assert_eq!(AhAttr::from_raw(&ib.to_raw()), ib);
    }

    #[test]
    fn mtu_helpers() {
        use sys::ibv_mtu::*;
        assert_eq!(mtu_to_bytes(IBV_MTU_1024), 1024);
        assert_eq!(mtu_min(IBV_MTU_4096, IBV_MTU_1024), IBV_MTU_1024);
        assert_eq!(mtu_min(IBV_MTU_256, IBV_MTU_1024), IBV_MTU_256);
    }

    #[test]
    fn c_str_lossy_stops_at_nul() {
        assert_eq!(
            c_str_lossy(b"SEND operation \0\0\0\0\0\0"),
            "SEND operation "
        );
        assert_eq!(c_str_lossy(b"no nul"), "no nul");
        assert_eq!(c_str_lossy(b""), "");
    }

    #[test]
    fn c_string_rejects_inner_nul() {
        assert!(c_string("device name", "rxe0").is_ok());
        let e = c_string("device name", "rx\0e0").unwrap_err();
        assert!(e.to_string().contains("device name"));
    }

    #[test]
    fn device_list_on_a_host_without_rdma_is_empty_or_a_clear_error() {
        // This host may or may not have RDMA: either outcome must be well-formed.
        match DeviceList::new() {
            Ok(list) => assert_eq!(list.iter().count(), list.len()),
            Err(e) => assert!(
                e.to_string().starts_with("ibv_get_device_list failed: "),
                "{e}"
            ),
        }
    }
}
