//! What is wrong with a fabric's rails before any pair runs: a port on a
//! subnet that no other host has, a host missing from a rail that every
//! other host is on, and the two together, a NIC on the wrong subnet.
//! Each is a finding that names the host, and the device where it can.

use crate::model::rails::{Port, Rail, Subnet};

/// The findings of these rails among `hosts` (every host of the run, in
/// order), each with the index in `hosts` of the host it names. A rail of one host is that host's port on the wrong subnet (or
/// the only one cabled to that plane); a rail that every host but one is
/// on is missing that host's port; a host with one of each has its NIC on
/// the wrong subnet.
pub fn findings(hosts: &[&str], rails: &[Rail]) -> Vec<(usize, String)> {
    if hosts.len() < 2 {
        return Vec::new();
    }
    let mut found = Vec::new();
    for (at, host) in hosts.iter().enumerate() {
        let lone: Vec<(&Subnet, &Port)> = rails
            .iter()
            .filter(|r| r.hosts() == [*host])
            .flat_map(|r| r.ports.iter().map(move |(_, p)| (&r.subnet, p)))
            .collect();
        let missing: Vec<&Subnet> = rails
            .iter()
            .filter(|r| r.hosts().len() + 1 == hosts.len() && !r.hosts().contains(host))
            .map(|r| &r.subnet)
            .collect();
        if let ([(subnet, p)], [rail]) = (lone.as_slice(), missing.as_slice()) {
            found.push((at, format!(
                "{host} {} is on {subnet}, not on rail {rail} as every other host's port: a NIC on the wrong subnet (the address of {})",
                p.dev, p.netdev
            )));
            continue;
        }
        for (subnet, p) in lone {
            found.push((at, format!(
                "{host} {} is on {subnet}, which no other host has a port on: a wrong address on {}, or the only port cabled to that plane",
                p.dev, p.netdev
            )));
        }
        for rail in missing {
            found.push((at, format!(
                "{host} has no port on rail {rail}, which every other host is on: its NIC there is down, has no address, or is miscabled"
            )));
        }
    }
    found
}

#[cfg(test)]
mod tests;
