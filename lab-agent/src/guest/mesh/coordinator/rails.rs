//! Which rails a pair runs on, with its two hosts' addresses there: rail
//! 0 between their RDMA addresses, each other rail where both have a port
//! on its subnet; the rails of a mesh from its members' ports.

use super::*;

/// The rails `p` runs on (`only` one, when given): rail 0 between the
/// hosts' RDMA addresses with every scenario, and each other rail both
/// hosts have a port on with the rail's checks (the doctor's probe,
/// which every session runs, and `--perf`'s measurements).
pub(super) fn pair_rails(
    p: Pair,
    members: &[Member],
    cfg: &CoordConfig,
    rails: &[Option<Subnet>],
    only: Option<usize>,
) -> Vec<Leg> {
    let (s, c) = (&members[p.server].host, &members[p.client].host);
    rails
        .iter()
        .enumerate()
        .filter(|(k, _)| only.is_none_or(|o| o == *k))
        .filter_map(|(rail, net)| {
            let Some(net) = net else {
                return Some(Leg {
                    rail,
                    server_ip: s.rdma_addr.clone(),
                    client_ip: c.rdma_addr.clone(),
                    scenarios: cfg.scenarios.clone(),
                });
            };
            Some(Leg {
                rail,
                server_ip: rail_addr(s, *net)?,
                client_ip: rail_addr(c, *net)?,
                scenarios: cfg
                    .scenarios
                    .iter()
                    .filter(|n| catalog::perf_runs().iter().any(|s| &s.name == *n))
                    .cloned()
                    .collect(),
            })
        })
        .collect()
}

/// The lesser link rate, in Gb/s, of the ports at `a` and `b` (each host's
/// port with that address), when both hosts gave one.
pub(super) fn rate_of(s: &MeshHost, a: &str, c: &MeshHost, b: &str) -> Option<f64> {
    let of = |h: &MeshHost, ip: &str| {
        h.ports
            .iter()
            .find(|p| p.addr.to_string() == ip)
            .and_then(Port::gbps)
    };
    Some(of(s, a)?.min(of(c, b)?))
}

/// `h`'s address on the rail `net`: its first port there.
pub(super) fn rail_addr(h: &MeshHost, net: Subnet) -> Option<String> {
    h.ports
        .iter()
        .find(|p| p.subnet() == net)
        .map(|p| p.addr.to_string())
}

/// The rails of the joined hosts: rail 0, their RDMA addresses, then
/// every other subnet that two of them or more have a port on, in subnet
/// order, at most [`messages::RAILS_MAX`] in all.
pub(super) fn rail_plan(members: &[Member]) -> Vec<Option<Subnet>> {
    let joined: Vec<&MeshHost> = members
        .iter()
        .filter(|m| m.control.is_some())
        .map(|m| &m.host)
        .collect();
    let first: Vec<Subnet> = joined
        .iter()
        .flat_map(|h| h.ports.iter().filter(|p| p.addr.to_string() == h.rdma_addr))
        .map(Port::subnet)
        .collect();
    let hosts: Vec<(String, Vec<Port>)> = joined
        .iter()
        .map(|h| (h.rank.to_string(), h.ports.clone()))
        .collect();
    let mut plan = vec![None];
    for rail in crate::model::rails::rails(&hosts) {
        let mut on: Vec<&String> = rail.ports.iter().map(|(h, _)| h).collect();
        on.dedup();
        if on.len() >= 2 && !first.contains(&rail.subnet) {
            plan.push(Some(rail.subnet));
        }
    }
    plan.truncate(messages::RAILS_MAX);
    plan
}
