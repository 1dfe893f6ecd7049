//! Rails: the RDMA ports of a fabric's hosts grouped by subnet. A cluster
//! gives each node one NIC per rail (its own subnet and switch plane), and
//! NIC i of one host meets NIC i of another on rail i. Plain data: which
//! ports a host has, and which rails they make.

use std::net::Ipv4Addr;

/// An active RDMA port with an IPv4 address on its netdev.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Port {
    /// The device, as `rdma link` names it (`mlx5_0`, `rxe1`).
    pub dev: String,
    /// Its port number.
    pub port: u32,
    /// The netdev it serves.
    pub netdev: String,
    /// The netdev's IPv4 address.
    pub addr: Ipv4Addr,
    /// The address's prefix length.
    pub prefix: u8,
    /// The link rate as sysfs gives it (`100 Gb/sec (4X EDR)`), if it does.
    pub rate: Option<String>,
}

impl Port {
    /// The subnet its address is on: its rail.
    pub fn subnet(&self) -> Subnet {
        Subnet::of(self.addr, self.prefix)
    }

    /// Its link rate in Gb/s: the number `rate` starts with (`100 Gb/sec
    /// (4X EDR)`), when it is one above zero.
    pub fn gbps(&self) -> Option<f64> {
        let rate = self.rate.as_deref()?;
        let number = rate.split_whitespace().next()?;
        let v: f64 = number.parse().ok()?;
        (v.is_finite() && v > 0.0 && rate[number.len()..].trim_start().starts_with("Gb/s"))
            .then_some(v)
    }
}

/// An IPv4 subnet: a network address and a prefix length.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Subnet {
    /// The network address (host bits zero).
    pub net: Ipv4Addr,
    /// The prefix length, 0 to 32.
    pub prefix: u8,
}

impl Subnet {
    /// The subnet of `addr` with `prefix` bits of network (more than 32
    /// count as 32).
    pub fn of(addr: Ipv4Addr, prefix: u8) -> Subnet {
        let prefix = prefix.min(32);
        let mask = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
        Subnet {
            net: Ipv4Addr::from(u32::from(addr) & mask),
            prefix,
        }
    }
}

impl std::fmt::Display for Subnet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.net, self.prefix)
    }
}

/// One rail: a subnet and each host's ports on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rail {
    /// Its subnet.
    pub subnet: Subnet,
    /// `(host, port)` for every port on the subnet, in host order.
    pub ports: Vec<(String, Port)>,
}

/// The rails of these hosts' ports, in subnet order (rail 0 first): every
/// subnet that any port is on is a rail, even one only one host reaches.
pub fn rails(hosts: &[(String, Vec<Port>)]) -> Vec<Rail> {
    let mut by_subnet: std::collections::BTreeMap<Subnet, Vec<(String, Port)>> =
        std::collections::BTreeMap::new();
    for (host, ports) in hosts {
        for p in ports {
            by_subnet
                .entry(p.subnet())
                .or_default()
                .push((host.clone(), p.clone()));
        }
    }
    by_subnet
        .into_iter()
        .map(|(subnet, ports)| Rail { subnet, ports })
        .collect()
}

/// The port a host's rail 0 is on when no device, netdev or address is
/// named: the one whose subnet holds `toward` (the coordinator's address,
/// when the mesh's control runs over a rail), else the one on the lowest
/// subnet. Either is the same rail on every host, whatever each host calls
/// its devices: rails are subnets, and device names follow PCI order,
/// which differs between hosts after a NIC is replaced or a slot is empty.
pub fn rail0_port(ports: &[Port], toward: Option<Ipv4Addr>) -> Option<&Port> {
    let holds = |p: &&Port| toward.is_some_and(|a| Subnet::of(a, p.prefix) == p.subnet());
    ports.iter().find(holds).or_else(|| {
        ports
            .iter()
            .min_by(|a, b| (a.subnet(), &a.dev, a.port).cmp(&(b.subnet(), &b.dev, b.port)))
    })
}

#[cfg(test)]
pub(crate) mod tests;
