//! What is wrong with a fabric's rails before any pair runs: a port on a
//! subnet that no other host has, a host missing from a rail that every
//! other host is on, and the two together, a NIC on the wrong subnet.
//! Each is a finding that names the host, and the device where it can.

use crate::model::mesh::MeshRun;
use crate::model::rails::{Port, Rail, Subnet};
use std::collections::HashMap;

/// The most lone ports of one host named one by one; more are counted.
const LONE_NAMED: usize = 4;

/// The findings of these rails among `hosts` (every host of the run, in
/// order), each with the index in `hosts` of the host it names. A rail of
/// one host is that host's port on the wrong subnet (or the only one
/// cabled to that plane). With three hosts or more, a rail that every
/// host but one is on is missing that host's port, and a host with one
/// of each has its NIC on the wrong subnet; two hosts cannot tell which
/// of them is wrong, so each lone port is named as such.
pub fn findings(hosts: &[&str], rails: &[Rail]) -> Vec<(usize, String)> {
    if hosts.len() < 2 {
        return Vec::new();
    }
    let index: HashMap<&str, usize> = hosts.iter().enumerate().map(|(i, h)| (*h, i)).collect();
    // Each rail's hosts, once: which of `hosts` are on it.
    let on: Vec<Vec<bool>> = rails
        .iter()
        .map(|r| {
            let mut on = vec![false; hosts.len()];
            for (h, _) in &r.ports {
                if let Some(&i) = index.get(h.as_str()) {
                    on[i] = true;
                }
            }
            on
        })
        .collect();
    let count: Vec<usize> = on
        .iter()
        .map(|o| o.iter().filter(|x| **x).count())
        .collect();
    let mut found = Vec::new();
    for (at, host) in hosts.iter().enumerate() {
        let lone: Vec<(&Subnet, &Port)> = (0..rails.len())
            .filter(|&r| count[r] == 1 && on[r][at])
            .flat_map(|r| {
                rails[r]
                    .ports
                    .iter()
                    .map(move |(_, p)| (&rails[r].subnet, p))
            })
            .collect();
        let missing: Vec<&Subnet> = (0..rails.len())
            .filter(|&r| hosts.len() > 2 && count[r] + 1 == hosts.len() && !on[r][at])
            .map(|r| &rails[r].subnet)
            .collect();
        found.extend(
            host_findings(host, &lone, &missing)
                .into_iter()
                .map(|t| (at, t)),
        );
    }
    found
}

/// One host's findings: its lone ports (`subnet`, port) and the rails it
/// is missing from.
fn host_findings(host: &str, lone: &[(&Subnet, &Port)], missing: &[&Subnet]) -> Vec<String> {
    if let ([(subnet, p)], [rail]) = (lone, missing) {
        return vec![format!(
            "{host} {} is on {subnet}, not on rail {rail} as every other host's port: a NIC on the wrong subnet (the address of {})",
            p.dev, p.netdev
        )];
    }
    let mut found = Vec::new();
    if lone.len() > LONE_NAMED {
        let some: Vec<String> = lone[..LONE_NAMED]
            .iter()
            .map(|(s, p)| format!("{} on {s}", p.dev))
            .collect();
        found.push(format!(
            "{host} has {} ports on subnets no other host has a port on ({}, ...): wrong addresses, or ports cabled to planes no other host is on",
            lone.len(),
            some.join(", ")
        ));
    } else {
        for (subnet, p) in lone {
            found.push(format!(
                "{host} {} is on {subnet}, which no other host has a port on: a wrong address on {}, or the only port cabled to that plane",
                p.dev, p.netdev
            ));
        }
    }
    for rail in missing {
        found.push(format!(
            "{host} has no port on rail {rail}, which every other host is on: its NIC there is down, has no address, or is miscabled"
        ));
    }
    found
}

/// The hosts whose devices are on other rails than most hosts' (device
/// names follow PCI order, which differs after a NIC is replaced or a
/// slot left empty), each said with its devices and most hosts' by rail,
/// in rank order. Not a finding: the rails pair ports by subnet, so such
/// a host takes part as the others do. Rails a host has no port on are
/// compared as unknown, not as differing: a missing port is a finding of
/// [`findings`].
pub fn device_order(run: &MeshRun) -> Vec<String> {
    let devs: Vec<Vec<Option<String>>> = (0..run.hosts.len()).map(|r| run.rail_devs(r)).collect();
    let Some(most) = most_common(&devs) else {
        return Vec::new();
    };
    let listed = |d: &[Option<String>]| -> String {
        let words: Vec<String> = d
            .iter()
            .enumerate()
            .filter_map(|(rail, dev)| Some(format!("rail {rail} {}", dev.as_deref()?)))
            .collect();
        words.join(", ")
    };
    let differs = |d: &[Option<String>]| {
        d.iter()
            .zip(most)
            .any(|(a, b)| matches!((a, b), (Some(a), Some(b)) if a != b))
    };
    devs.iter()
        .enumerate()
        .filter(|(_, d)| differs(d))
        .map(|(rank, d)| {
            format!(
                "{}: {}, where most hosts have {}",
                run.name(rank),
                listed(d),
                listed(most)
            )
        })
        .collect()
}

/// The list most of `lists` are, the first of the most common where they
/// tie; `None` when there is none with a device.
fn most_common(lists: &[Vec<Option<String>>]) -> Option<&Vec<Option<String>>> {
    let known = lists.iter().filter(|l| l.iter().any(Option::is_some));
    let count = |l: &Vec<Option<String>>| lists.iter().filter(|m| *m == l).count();
    let mut best: Option<(&Vec<Option<String>>, usize)> = None;
    for l in known {
        let n = count(l);
        if best.is_none_or(|(_, b)| n > b) {
            best = Some((l, n));
        }
    }
    best.map(|(l, _)| l)
}

#[cfg(test)]
pub(crate) mod tests;
