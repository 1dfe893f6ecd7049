//! Devices and their contexts: `ibv_get_device_list`, `ibv_open_device`,
//! the port and GID queries, and the GID choice on RoCE ports.

use std::any::Any;
use std::ffi::CStr;
use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::os::raw::c_int;
use std::ptr;
use std::sync::Arc;
use std::time::Duration;

use rdma_core_sys as sys;

use super::{AsyncEvent, CompChannel, Cq, Pd};
use crate::error::{Error, Result};
use crate::handle::{c_enum, destroy_last, Release};

/// A path MTU (`enum ibv_mtu`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mtu(pub(crate) sys::ibv_mtu::Type);

impl Mtu {
    /// `IBV_MTU_256`.
    pub const MTU_256: Mtu = Mtu(sys::ibv_mtu::IBV_MTU_256);
    /// `IBV_MTU_512`.
    pub const MTU_512: Mtu = Mtu(sys::ibv_mtu::IBV_MTU_512);
    /// `IBV_MTU_1024`.
    pub const MTU_1024: Mtu = Mtu(sys::ibv_mtu::IBV_MTU_1024);
    /// `IBV_MTU_2048`.
    pub const MTU_2048: Mtu = Mtu(sys::ibv_mtu::IBV_MTU_2048);
    /// `IBV_MTU_4096`.
    pub const MTU_4096: Mtu = Mtu(sys::ibv_mtu::IBV_MTU_4096);

    /// Its size in bytes (256 .. 4096), 0 for a value this crate does not know.
    pub fn bytes(self) -> u32 {
        match self.0 {
            1..=5 => 128 << self.0,
            _ => 0,
        }
    }

    /// The smaller of two: a path MTU must not exceed the port's active MTU.
    pub fn min(self, other: Mtu) -> Mtu {
        if self.bytes() <= other.bytes() {
            self
        } else {
            other
        }
    }

    /// The `enum ibv_mtu` value, as the C programs print and send it.
    pub fn code(self) -> u32 {
        self.0
    }

    /// From the `enum ibv_mtu` value a peer sent.
    pub fn from_code(code: u32) -> Mtu {
        Mtu(code)
    }
}

/// What a port's frames are (the `IBV_LINK_LAYER_*` defines).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinkLayer {
    /// Not reported (old InfiniBand drivers).
    Unspecified,
    /// InfiniBand: LIDs, a GRH only across subnets.
    InfiniBand,
    /// Ethernet (RoCE): the peer is addressed by GID, so every address
    /// handle carries the GRH fields (on RoCE v2 they become the IPv4 and
    /// UDP headers on the wire).
    Ethernet,
}

impl LinkLayer {
    fn from_raw(v: u32) -> LinkLayer {
        match v {
            sys::IBV_LINK_LAYER_INFINIBAND => LinkLayer::InfiniBand,
            sys::IBV_LINK_LAYER_ETHERNET => LinkLayer::Ethernet,
            _ => LinkLayer::Unspecified,
        }
    }
}

c_enum! {
    /// A port's state (`enum ibv_port_state`).
    PortState: ibv_port_state {
        /// `IBV_PORT_NOP`.
        Nop = IBV_PORT_NOP,
        /// `IBV_PORT_DOWN`.
        Down = IBV_PORT_DOWN,
        /// `IBV_PORT_INIT`.
        Init = IBV_PORT_INIT,
        /// `IBV_PORT_ARMED`.
        Armed = IBV_PORT_ARMED,
        /// `IBV_PORT_ACTIVE`: it can carry traffic.
        Active = IBV_PORT_ACTIVE,
        /// `IBV_PORT_ACTIVE_DEFER`.
        ActiveDefer = IBV_PORT_ACTIVE_DEFER,
    }
}

/// What the examples read of `struct ibv_port_attr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortAttr {
    /// The port's state.
    pub state: PortState,
    /// The largest MTU it supports.
    pub max_mtu: Mtu,
    /// Its MTU now.
    pub active_mtu: Mtu,
    /// Entries of its GID table.
    pub gid_tbl_len: i32,
    /// The largest message it carries.
    pub max_msg_sz: u32,
    /// Its LID (0 on RoCE).
    pub lid: u16,
    /// The subnet manager's LID.
    pub sm_lid: u16,
    /// InfiniBand or Ethernet.
    pub link_layer: LinkLayer,
}

bitflags::bitflags! {
    /// Device capabilities (`enum ibv_device_cap_flags`); the examples test
    /// one, the others are kept as they came.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct DeviceCapFlags: u32 {
        /// `IBV_DEVICE_AUTO_PATH_MIG`: alternate paths and migration.
        const AUTO_PATH_MIG = sys::ibv_device_cap_flags::IBV_DEVICE_AUTO_PATH_MIG.0;
        const _ = !0;
    }
}

/// What the examples read of `struct ibv_device_attr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceAttr {
    /// Number of physical ports.
    pub phys_port_cnt: u8,
    /// Capabilities.
    pub cap_flags: DeviceCapFlags,
    /// Most work requests in a queue.
    pub max_qp_wr: i32,
    /// Most scatter/gather entries in a work request.
    pub max_sge: i32,
    /// Most entries of a CQ.
    pub max_cqe: i32,
    /// Largest memory region.
    pub max_mr_size: u64,
}

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
    pub(crate) fn to_raw(self) -> sys::ibv_gid {
        sys::ibv_gid { raw: self.0 }
    }

    /// From the raw union the verbs fill in.
    pub(crate) fn from_raw(raw: &sys::ibv_gid) -> Gid {
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
                _keep: None,
            }),
        })
    }
}

struct ContextInner {
    ctx: *mut sys::ibv_context,
    name: String,
    /// False when librdmacm opened it (it closes it itself).
    owned: bool,
    /// For a borrowed context: what keeps it open (the rdma_cm id it came
    /// from; librdmacm closes a device's context when the device goes away,
    /// but not while an id on it lives).
    _keep: Option<Arc<dyn Any + Send + Sync>>,
}

// SAFETY: libibverbs objects may be used from any thread (the library locks
// internally); the raw pointer is only an identifier here.
unsafe impl Send for ContextInner {}
// SAFETY: as above.
unsafe impl Sync for ContextInner {}

impl Release for ContextInner {
    fn release(&mut self) -> Result<()> {
        let ctx = std::mem::replace(&mut self.ctx, ptr::null_mut());
        // SAFETY: every child object holds us, so none is left; once.
        if self.owned && !ctx.is_null() && unsafe { sys::ibv_close_device(ctx) } != 0 {
            return Err(Error::last_os("ibv_close_device"));
        }
        Ok(())
    }
}

impl Drop for ContextInner {
    fn drop(&mut self) {
        // The backstop of error paths; `destroy` reports failures.
        let _ = self.release();
    }
}

/// An open device (`struct ibv_context`).
#[derive(Clone)]
pub struct Context {
    inner: Arc<ContextInner>,
}

impl Context {
    /// A context that librdmacm opened (`cm_id->verbs`); it is not closed on
    /// drop, and `keep` (the id) is held until the last user is gone.
    ///
    /// # Safety
    /// `ctx` must stay valid as long as `keep` is alive.
    pub(crate) unsafe fn from_borrowed(
        ctx: *mut sys::ibv_context,
        keep: Arc<dyn Any + Send + Sync>,
    ) -> Context {
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
                _keep: Some(keep),
            }),
        }
    }

    /// `ibv_close_device` now (for a context this program opened), reporting
    /// a failure; an error while an object made from it, or a clone, still
    /// holds it.
    pub fn destroy(self) -> Result<()> {
        destroy_last(self.inner, "ibv_close_device", "device context")
    }

    /// The device name (`ibv_get_device_name(ctx->device)`).
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The raw pointer, for this crate's own calls.
    pub(crate) fn as_ptr(&self) -> *mut sys::ibv_context {
        self.inner.ctx
    }

    /// Whether `other` is the same open device (the same `ibv_context *`,
    /// as the Bedeir server compares `id->verbs` with its own).
    pub fn same_device(&self, other: &Context) -> bool {
        self.inner.ctx == other.inner.ctx
    }

    /// `ibv_query_device`.
    pub fn query_device(&self) -> Result<DeviceAttr> {
        let mut attr = sys::ibv_device_attr::default();
        // SAFETY: ctx is live and attr is a valid out-pointer.
        let rc = unsafe { sys::ibv_query_device(self.inner.ctx, &mut attr) };
        if rc != 0 {
            return Err(Error::from_ret("ibv_query_device", rc));
        }
        Ok(DeviceAttr {
            phys_port_cnt: attr.phys_port_cnt,
            cap_flags: DeviceCapFlags::from_bits_retain(attr.device_cap_flags),
            max_qp_wr: attr.max_qp_wr,
            max_sge: attr.max_sge,
            max_cqe: attr.max_cqe,
            max_mr_size: attr.max_mr_size,
        })
    }

    /// `ibv_query_port` (through `___ibv_query_port`, which passes the struct size).
    pub fn query_port(&self, port: u8) -> Result<PortAttr> {
        let mut attr = sys::ibv_port_attr::default();
        // SAFETY: ctx is live and attr is a valid out-pointer of the right size.
        let rc = unsafe { sys::___ibv_query_port(self.inner.ctx, port, &mut attr) };
        if rc != 0 {
            return Err(Error::from_ret("ibv_query_port", rc));
        }
        Ok(PortAttr {
            state: PortState::from_raw(attr.state),
            max_mtu: Mtu(attr.max_mtu),
            active_mtu: Mtu(attr.active_mtu),
            gid_tbl_len: attr.gid_tbl_len,
            max_msg_sz: attr.max_msg_sz,
            lid: attr.lid,
            sm_lid: attr.sm_lid,
            link_layer: LinkLayer::from_raw(u32::from(attr.link_layer)),
        })
    }

    /// `ibv_query_gid`.
    pub fn query_gid(&self, port: u8, index: i32) -> Result<Gid> {
        let mut gid = sys::ibv_gid::default();
        // SAFETY: ctx is live and gid is a valid out-pointer.
        let rc = unsafe { sys::ibv_query_gid(self.inner.ctx, port, index, &mut gid) };
        if rc != 0 {
            return Err(Error::from_ret("ibv_query_gid", rc)
                .context(format!("port {port}, GID index {index}")));
        }
        Ok(Gid::from_raw(&gid))
    }

    /// `ibv_alloc_pd`.
    pub fn alloc_pd(&self) -> Result<Pd> {
        Pd::alloc(self)
    }

    /// `ibv_create_comp_channel`.
    pub fn create_comp_channel(&self) -> Result<CompChannel> {
        CompChannel::create(self)
    }

    /// `ibv_create_cq` with `cqe` entries, optionally bound to a completion channel.
    pub fn create_cq(&self, cqe: i32, channel: Option<&CompChannel>) -> Result<Cq> {
        Cq::create(self, cqe, channel)
    }

    /// `ibv_get_async_event`, waiting at most `timeout` (forever if `None`).
    /// `Ok(None)` on timeout. The event is acked when dropped.
    pub fn get_async_event(&self, timeout: Option<Duration>) -> Result<Option<AsyncEvent>> {
        AsyncEvent::get(self, timeout)
    }
}

#[cfg(test)]
mod tests;
