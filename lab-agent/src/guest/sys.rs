//! This host's RDMA devices as the kernel shows them (sysfs, and the
//! `rdma` and `ip` tools): what the doctor judges and the mesh's rail
//! ports are read from, below both.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

/// Where the kernel lists its RDMA devices.
pub(super) const SYS_IB: &str = "/sys/class/infiniband";

/// The trimmed text of a sysfs (or any) file; `None` when unreadable.
pub(super) fn read(path: impl AsRef<Path>) -> Option<String> {
    fs::read_to_string(path).ok().map(|s| s.trim().to_string())
}

/// The stdout of `program args` when it ran and succeeded: a tool such as
/// `rdma` or `ip` asked about this host, its stderr set aside.
pub(super) fn output(program: &str, args: &[&str]) -> Option<String> {
    let o = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).into_owned())
}

/// (device, port, netdev) of each `rdma link show` line that names a netdev
/// (`link rxe0/1 state ACTIVE physical_state LINK_UP netdev d0`).
pub fn rdma_links(rdma_link: &str) -> Vec<(String, u32, String)> {
    rdma_link
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let after = |k: &str| f.windows(2).find(|w| w[0] == k).map(|w| w[1]);
            let (dev, port) = after("link")?.split_once('/')?;
            Some((
                dev.to_string(),
                port.parse().ok()?,
                after("netdev")?.to_string(),
            ))
        })
        .collect()
}

/// One non-empty GID table entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GidRow {
    /// Its index.
    pub index: u32,
    /// As sysfs spells it.
    pub gid: String,
    /// "RoCE v2", "IB/RoCE v1", or none (InfiniBand, old kernels).
    pub kind: Option<String>,
    /// Its netdev, on RoCE.
    pub netdev: Option<String>,
}

impl GidRow {
    /// The IPv4 address of an IPv4-mapped GID (`...:ffff:c000:0201`).
    pub fn ipv4(&self) -> Option<String> {
        let rest = self.gid.strip_prefix("0000:0000:0000:0000:0000:ffff:")?;
        let v: Vec<u8> = rest
            .split(':')
            .flat_map(|w| {
                let n = u16::from_str_radix(w, 16).unwrap_or(0);
                [(n >> 8) as u8, n as u8]
            })
            .collect();
        (v.len() == 4).then(|| format!("{}.{}.{}.{}", v[0], v[1], v[2], v[3]))
    }

    pub(super) fn v2(&self) -> bool {
        self.kind.as_deref().is_some_and(|k| k.contains("v2"))
    }

    pub(super) fn describe(&self) -> String {
        let addr = self
            .ipv4()
            .map_or(self.gid.clone(), |a| format!("::ffff:{a}"));
        let kind = self.kind.as_deref().unwrap_or("type unknown");
        format!("{kind}, {addr}")
    }
}

/// The non-empty GID table entries of `dev`'s port `port`.
pub(super) fn gid_rows(dev: &str, port: u32) -> Vec<GidRow> {
    let base = format!("{SYS_IB}/{dev}/ports/{port}");
    let mut rows = Vec::new();
    let n = fs::read_dir(format!("{base}/gids")).map_or(0, |d| d.count());
    for i in 0..n as u32 {
        let Some(gid) = read(format!("{base}/gids/{i}")) else {
            continue;
        };
        if gid.chars().all(|c| c == '0' || c == ':') {
            continue;
        }
        rows.push(GidRow {
            index: i,
            gid,
            kind: read(format!("{base}/gid_attrs/types/{i}")).filter(|s| !s.is_empty()),
            netdev: read(format!("{base}/gid_attrs/ndevs/{i}")).filter(|s| !s.is_empty()),
        });
    }
    rows
}

/// This host's RDMA devices, by name, in order.
pub(super) fn devices() -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(SYS_IB)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The port numbers of `dev`, in order.
pub(super) fn ports(dev: &str) -> Vec<u32> {
    let mut v: Vec<u32> = fs::read_dir(format!("{SYS_IB}/{dev}/ports"))
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().to_string_lossy().parse().ok())
                .collect()
        })
        .unwrap_or_default();
    v.sort_unstable();
    v
}

/// (device, port, netdev) of every RDMA port with a netdev: `rdma link`'s,
/// and those that real HCAs name in their GID tables.
pub fn links() -> Vec<(String, u32, String)> {
    let mut links = rdma_links(&output("rdma", &["link", "show"]).unwrap_or_default());
    for d in devices() {
        for p in ports(&d) {
            for r in gid_rows(&d, p) {
                if let Some(n) = r.netdev {
                    links.push((d.clone(), p, n));
                }
            }
        }
    }
    links
}
