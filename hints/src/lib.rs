//! What to do about the failures users meet most, as the examples print it
//! in their error hints and as `cargo xtask doctor` says it in its
//! findings, and the examples' choice of a GID on RoCE ports.
//!
//! A crate of its own without dependencies: `common` (so the examples) and
//! `xtask`, which must build without rdma-core, both depend on it, so the
//! doctor and the examples cannot drift apart.

/// ENOMEM from a memory registration.
pub const MEMLOCK_ENOMEM: &str =
    "memory registration pins pages: the locked-memory limit may be too low, check `ulimit -l`";

/// EPERM from a memory registration: the kernel's answer for a limit of 0
/// without CAP_IPC_LOCK (as in many containers).
pub const MEMLOCK_EPERM: &str = "memory registration pins pages, and this process may pin none: \
                                 raise `ulimit -l` (it is 0?) or grant CAP_IPC_LOCK";

/// How to raise the locked-memory limit for good.
pub const MEMLOCK_FIX: &str = "raise it (`ulimit -l unlimited`, or `memlock` in \
                               /etc/security/limits.conf) or grant CAP_IPC_LOCK";

/// ENOSYS from the device list.
pub const NO_RDMA_KERNEL: &str =
    "this kernel has no RDMA support: load an HCA driver or rdma_rxe (Soft-RoCE)";

/// No device at all in /sys/class/infiniband.
pub const NO_DEVICE: &str = "load your HCA's driver, or make a Soft-RoCE device: \
                             `modprobe rdma_rxe; rdma link add rxe0 type rxe netdev NETDEV`";

/// rdma_cm's device node, which `rdma_create_event_channel` opens. librdmacm
/// asks the kernel for it over netlink first, which loads rdma_ucm on
/// demand: a node missing before a program runs is no fault by itself.
pub const RDMA_CM_NODE: &str = "/dev/infiniband/rdma_cm";

/// Where the kernel lists the RDMA devices.
pub const SYS_IB: &str = "/sys/class/infiniband";

/// The first words of the doctor's finding, and of the examples' hint, on a
/// host without an RDMA device.
pub const NO_DEVICE_HERE: &str = "no RDMA device on this host";

/// The node missing while a device is there: rdma_ucm could not be loaded.
pub const NO_RDMA_CM: &str = "no RDMA connection manager: /dev/infiniband/rdma_cm is missing \
                              although an RDMA device is there: load rdma_ucm \
                              (`modprobe rdma_ucm`)";

/// The hint for ENOENT or ENODEV from `rdma_create_event_channel`, by what
/// is there: a node (`node`) and a device (`devices`). It names only what
/// it saw: without a device, that; with the node and a device, nothing
/// (the cause is elsewhere, and a guess would mislead).
pub fn rdma_cm_hint(node: bool, devices: bool) -> Option<String> {
    match (node, devices) {
        (_, false) => Some(format!("{NO_DEVICE_HERE}: {NO_DEVICE}")),
        (false, true) => Some(NO_RDMA_CM.to_string()),
        (true, true) => None,
    }
}

/// [`rdma_cm_hint`] for this host, looked at now.
pub fn rdma_cm_hint_here() -> Option<String> {
    let node = std::path::Path::new(RDMA_CM_NODE).exists();
    let devices = std::fs::read_dir(SYS_IB).is_ok_and(|mut d| d.next().is_some());
    rdma_cm_hint(node, devices)
}

/// ENODEV or EADDRNOTAVAIL from an rdma_cm call given an address.
pub const NO_DEVICE_FOR_ADDRESS: &str =
    "no RDMA device serves that address: is rdma_rxe or an HCA bound to its interface?";

/// EMFILE from a verb: every channel and context is a file descriptor.
pub const FD_LIMIT: &str =
    "each RDMA channel and device context is a file descriptor: raise `ulimit -n`";

/// EINVAL from `ibv_query_gid`.
pub const GID_BEYOND_TABLE: &str =
    "the GID index is beyond the port's GID table: see `ibv_devinfo -v`";

/// An RC message that does not cross between two hosts whose TCP does.
pub const RC_PATH_BLOCKED: &str = "UDP 4791 blocked or GID wrong: let RoCE v2 (UDP port 4791) \
                                   through the firewalls both ways, and check the GID index each \
                                   host uses (`cargo xtask doctor` shows the table)";

/// The multicast group the examples and the lab use (`-m 239.255.1.1`),
/// which the doctor checks the route to.
pub const EXAMPLES_GROUP: &str = "239.255.1.1";

/// How to make the kernel send IPv4 multicast out of `netdev`, the RDMA
/// device's netdev (`NETDEV` where the caller cannot know it), and what else
/// that changes: the fix for rdma_cm's address resolution of a group
/// without a bind address (`-b`), which goes where the routing table sends
/// the group.
pub fn mcast_route_fix(netdev: &str) -> String {
    format!(
        "route IPv4 multicast through the RDMA netdev, `ip route add 224.0.0.0/4 dev {netdev}` \
         (then all IPv4 multicast from this host leaves through {netdev} unless a more specific \
         route says otherwise), or give -b an address on that netdev"
    )
}

/// ENETUNREACH, or no RDMA device found, when rdma_cm resolved the IPv4
/// multicast group `group` without a bind address: the route to the group
/// leaves through no RDMA netdev, or there is none.
pub fn mcast_no_rdma_route(group: &str) -> String {
    format!(
        "no route sends {group} out of an RDMA netdev (`ip route get {group}` shows where it \
         goes): {}",
        mcast_route_fix("NETDEV")
    )
}

/// One non-empty entry of a RoCE port's GID table, as the GID choice sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GidEntry {
    /// Its index in the table.
    pub index: u8,
    /// It is an IPv4-mapped address (`::ffff:a.b.c.d`).
    pub ipv4_mapped: bool,
    /// Its type is RoCE v2 (routable, UDP 4791).
    pub roce_v2: bool,
}

/// The GID index a RoCE port should use when the user named none: the RoCE
/// v2 IPv4-mapped GID (routable, and what rdma_cm picks), else any
/// IPv4-mapped GID, else any RoCE v2 GID.
pub fn choose_gid(entries: &[GidEntry]) -> Option<u8> {
    entries
        .iter()
        .find(|e| e.ipv4_mapped && e.roce_v2)
        .or_else(|| entries.iter().find(|e| e.ipv4_mapped))
        .or_else(|| entries.iter().find(|e| e.roce_v2))
        .map(|e| e.index)
}

#[cfg(test)]
mod tests;
