//! Where a NIC sits among a host's NUMA nodes, as sysfs gives it
//! (`device/numa_node`, `device/local_cpulist`): a measurement started on
//! the NIC's own node moves its data through that node's memory and PCIe
//! root, not across the link between sockets. Plain data and its readers.

/// The most CPUs a list may name: a list that names more is not taken.
pub const CPUS_MAX: u32 = 16384;

/// A NIC's place: its NUMA node, when the host gives one, and the CPUs
/// local to it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NicPlace {
    /// Its node; `None` where sysfs says -1 (no node) or nothing.
    pub node: Option<u32>,
    /// Its local CPUs as a list (`0-15,32-47`), in the kernel's own form;
    /// `None` where sysfs gives none that reads.
    pub cpus: Option<String>,
}

/// A NUMA node as `device/numa_node` gives it: `None` for -1 (the
/// firmware placed the device on no node) and for what is not a number.
pub fn node(text: &str) -> Option<u32> {
    text.trim()
        .parse::<i64>()
        .ok()
        .and_then(|n| u32::try_from(n).ok())
}

/// The CPUs of a list such as `local_cpulist`'s (`0-15,32-47`, `3`), in
/// order; `None` when it is empty, is not one, or names more than
/// [`CPUS_MAX`] CPUs or one past it.
pub fn cpus(list: &str) -> Option<Vec<u32>> {
    let mut all = Vec::new();
    for part in list.trim().split(',') {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a.parse::<u32>().ok()?, b.parse::<u32>().ok()?),
            None => {
                let a = part.parse::<u32>().ok()?;
                (a, a)
            }
        };
        if a > b || b >= CPUS_MAX || all.len() as u64 + u64::from(b - a) >= u64::from(CPUS_MAX) {
            return None;
        }
        all.extend(a..=b);
    }
    (!all.is_empty()).then_some(all)
}

/// A place from the two sysfs files' text: the list kept only when it
/// reads ([`cpus`]), so that it can reach `taskset` as it is.
pub fn place(numa_node: Option<&str>, local_cpulist: Option<&str>) -> NicPlace {
    NicPlace {
        node: numa_node.and_then(node),
        cpus: local_cpulist
            .map(str::trim)
            .filter(|l| cpus(l).is_some())
            .map(str::to_string),
    }
}

/// The CPUs a NIC's measurements are pinned to: its local ones, unless it
/// is on no node of a host with several (`nodes`), where there is no
/// telling which are local (the doctor names it); `None`: unpinned.
pub fn pin_to(place: &NicPlace, nodes: usize) -> Option<&str> {
    if place.node.is_none() && nodes > 1 {
        return None;
    }
    place.cpus.as_deref()
}

/// The doctor's finding on a NIC (`dev`) that reports no NUMA node on a
/// host of `nodes` nodes, where its measurements cannot be placed.
pub fn unplaced(dev: &str, place: &NicPlace, nodes: usize) -> Option<String> {
    (place.node.is_none() && nodes > 1).then(|| {
        format!(
            "{dev} reports no NUMA node on a {nodes}-node host: its measurements cannot be \
             placed; check the BIOS's ACPI SRAT/NUMA setting"
        )
    })
}

#[cfg(test)]
mod tests;
