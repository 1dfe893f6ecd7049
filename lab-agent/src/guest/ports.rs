//! This host's rails: every active RDMA port whose netdev has an IPv4
//! address, as `rdma link`, sysfs and `ip -4 addr` show them.

use crate::model::rails::Port;
use std::net::Ipv4Addr;

/// The IPv4 addresses of `ip -o -4 addr show`'s lines: `(netdev, address,
/// prefix)`, in its order; a line that is not one is skipped.
pub fn ipv4_addrs(ip_output: &str) -> Vec<(String, Ipv4Addr, u8)> {
    ip_output
        .lines()
        .filter_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let at = words.iter().position(|w| *w == "inet")?;
            let (addr, prefix) = words.get(at + 1)?.split_once('/')?;
            let netdev = words.get(1)?.trim_end_matches(':');
            // `ip` names a VLAN or a veth `eth0.5@eth0`.
            let netdev = netdev.split('@').next()?;
            Some((netdev.to_string(), addr.parse().ok()?, prefix.parse().ok()?))
        })
        .collect()
}

/// The ports of `links` (`(device, port, netdev)`) that are `active` and
/// whose netdev has an address in `addrs`, one per address, with the rate
/// `rate` gives; in device and port order.
pub fn rail_ports(
    links: &[(String, u32, String)],
    addrs: &[(String, Ipv4Addr, u8)],
    active: impl Fn(&str, u32) -> bool,
    rate: impl Fn(&str, u32) -> Option<String>,
) -> Vec<Port> {
    let mut seen: Vec<(&str, u32, &str)> = Vec::new();
    let mut ports = Vec::new();
    for (dev, port, netdev) in links {
        if seen.contains(&(dev.as_str(), *port, netdev.as_str())) || !active(dev, *port) {
            continue;
        }
        seen.push((dev, *port, netdev));
        for (_, addr, prefix) in addrs.iter().filter(|(n, _, _)| n == netdev) {
            ports.push(Port {
                dev: dev.clone(),
                port: *port,
                netdev: netdev.clone(),
                addr: *addr,
                prefix: *prefix,
                rate: rate(dev, *port),
            });
        }
    }
    ports.sort_by(|a, b| (&a.dev, a.port, a.addr).cmp(&(&b.dev, b.port, b.addr)));
    ports
}

/// This host's rail ports.
pub fn this_host() -> Vec<Port> {
    use super::sys::{links, output, read};
    let ip = output("ip", &["-o", "-4", "addr", "show"]).unwrap_or_default();
    let sys = |dev: &str, port: u32, file: &str| {
        read(format!("{}/{dev}/ports/{port}/{file}", hints::SYS_IB))
    };
    rail_ports(
        &links(),
        &ipv4_addrs(&ip),
        // sysfs says `4: ACTIVE`.
        |d, p| sys(d, p, "state").is_some_and(|s| s.ends_with("ACTIVE")),
        |d, p| sys(d, p, "rate"),
    )
}

/// The ports of `devs` among `ports` (`--dev`, repeatable); all of them
/// when `devs` is empty.
pub fn of_devices(ports: Vec<Port>, devs: &[String]) -> Vec<Port> {
    ports
        .into_iter()
        .filter(|p| devs.is_empty() || devs.contains(&p.dev))
        .collect()
}

#[cfg(test)]
mod tests;
