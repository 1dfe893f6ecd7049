//! The examples' choice of a GID on RoCE ports, when the user named none.
//!
//! Policy, not a verb: it reads the GID types from sysfs (as
//! `ibv_query_gid_type` does) and announces its choice on stdout, so it lives
//! beside the verbs wrappers, not in them.

use crate::error::{Error, Result};
use crate::verbs::{Context, Gid, LinkLayer, PortAttr};

/// The GID's type as the kernel names it ("RoCE v2", "IB/RoCE v1"), read
/// from sysfs as `ibv_query_gid_type` does; `None` where sysfs has no entry
/// (InfiniBand ports, empty slots, old kernels).
pub fn gid_type(ctx: &Context, port: u8, index: i32) -> Option<String> {
    let path = format!(
        "/sys/class/infiniband/{}/ports/{port}/gid_attrs/types/{index}",
        ctx.name()
    );
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The GID index a RoCE port should use when the user named none: the
/// RoCE v2 IPv4-mapped GID (routable, and what rdma_cm picks), else any
/// IPv4-mapped GID, else any RoCE v2 GID.
pub fn find_roce_gid(ctx: &Context, port: u8) -> Result<Option<(u8, Gid)>> {
    let attr = ctx.query_port(port)?;
    let len = attr.gid_tbl_len.clamp(0, 256);
    let mut entries = Vec::new();
    for i in 0..len {
        if let Ok(gid) = ctx.query_gid(port, i) {
            if !gid.is_zero() {
                entries.push((i as u8, gid, gid_type(ctx, port, i)));
            }
        }
    }
    Ok(choose_roce_gid(&entries))
}

/// The GID index a verbs-only example uses on `port` when the user gave
/// none (`-g`): on an Ethernet (RoCE) port, where the address handle must
/// carry the GRH fields (RoCE addresses by GID), the
/// one [`find_roce_gid`] picks, announced in one line; on InfiniBand
/// `None`, so the program runs by LID only as its original.
pub fn default_gid_index(ctx: &Context, port: u8, port_attr: &PortAttr) -> Result<Option<u8>> {
    if port_attr.link_layer != LinkLayer::Ethernet {
        return Ok(None);
    }
    match find_roce_gid(ctx, port)? {
        Some((idx, gid)) => {
            let kind = gid_type(ctx, port, i32::from(idx))
                .unwrap_or_else(|| "type unknown".to_string());
            crate::println!(
                "port {port} is Ethernet (RoCE) and no GID index was given: using GID index {idx} ({kind}, {})",
                gid.to_ipv6()
            );
            Ok(Some(idx))
        }
        None => Err(Error::msg(format!(
            "port {port} of {} is Ethernet (RoCE) but has no usable GID: give its netdev an IP address, or pass -g",
            ctx.name()
        ))),
    }
}

/// The GID choice of [`find_roce_gid`], on (index, gid, type) entries: the
/// policy of [`crate::hints::choose_gid`], which the doctor judges by too.
pub fn choose_roce_gid(entries: &[(u8, Gid, Option<String>)]) -> Option<(u8, Gid)> {
    let seen: Vec<crate::hints::GidEntry> = entries
        .iter()
        .map(|(i, g, t)| crate::hints::GidEntry {
            index: *i,
            ipv4_mapped: g.ipv4_mapped().is_some(),
            roce_v2: t.as_deref().is_some_and(|t| t.contains("v2")),
        })
        .collect();
    let index = crate::hints::choose_gid(&seen)?;
    entries
        .iter()
        .find(|(i, _, _)| *i == index)
        .map(|(i, g, _)| (*i, *g))
}

#[cfg(test)]
mod tests;
