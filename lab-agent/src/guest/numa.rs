//! This host's NUMA nodes and each NIC's place among them, from sysfs.

use super::sys::{read, SYS_IB};
use crate::model::numa::{place, NicPlace};
use std::path::{Path, PathBuf};

/// Where the kernel lists the host's NUMA nodes.
const SYS_NODES: &str = "/sys/devices/system/node";

/// How many levels above a device its PCI function may be: a netdev's
/// `device` is the function itself, or its virtio device, a level below.
const UP_TO_PCI: usize = 3;

/// How many NUMA nodes this host has: 1 where sysfs lists none (a kernel
/// without NUMA).
pub fn nodes() -> usize {
    let is_node = |name: &str| {
        name.strip_prefix("node")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    std::fs::read_dir(SYS_NODES)
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| is_node(&e.file_name().to_string_lossy()))
                .count()
        })
        .unwrap_or(0)
        .max(1)
}

/// The place of the sysfs device at `device` (a `device` link): that of
/// the nearest of it and its parents that has a `numa_node`.
fn place_of(device: &Path) -> Option<NicPlace> {
    let real = std::fs::canonicalize(device).ok()?;
    let at: PathBuf = real
        .ancestors()
        .take(UP_TO_PCI)
        .find(|p| p.join("numa_node").is_file())?
        .to_path_buf();
    Some(place(
        read(at.join("numa_node")).as_deref(),
        read(at.join("local_cpulist")).as_deref(),
    ))
}

/// The place of RDMA device `dev`, whose netdev is `netdev`: its PCI
/// function's, else its netdev's (an rxe device has no PCI function of
/// its own; its NIC is its netdev's). No node and no CPUs where neither
/// says.
pub fn nic_place(dev: &str, netdev: &str) -> NicPlace {
    place_of(&Path::new(SYS_IB).join(dev).join("device"))
        .or_else(|| place_of(&Path::new("/sys/class/net").join(netdev).join("device")))
        .unwrap_or(NicPlace {
            node: None,
            cpus: None,
        })
}
