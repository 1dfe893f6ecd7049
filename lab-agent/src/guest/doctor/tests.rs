use crate::catalog::find;
use crate::guest::sys::rdma_links;
use crate::model::glob_match;
/// The multicast route cells expect what the code says: each sender's
/// line ends in the hint (and runs without -b), each doctor cell's
/// pattern matches the finding on a recorded `ip route get` answer,
/// and the healthy doctor's line the judgement of the lab's route.
#[test]
fn the_multicast_route_cells_expect_the_hint_and_the_findings() {
    let hint = format!(
        "(hint: {})",
        hints::mcast_no_rdma_route(hints::EXAMPLES_GROUP)
    );
    for name in [
        "mckey_no_mcast_route",
        "mc_no_mcast_route",
        "mckey_mcast_route_elsewhere",
        "mc_mcast_route_elsewhere",
    ] {
        let s = find(name).unwrap();
        let [line] = &s.server_expect.stderr[..] else {
            panic!("{name}: one error line")
        };
        assert!(line.ends_with(&hint), "{name}: {line}");
        let args = &s.server.as_ref().unwrap().args;
        assert!(
            args.iter().any(|a| a == "-s") && !args.iter().any(|a| a == "-b"),
            "{name}"
        );
    }
    let links = [("rxe0".to_string(), 1, "d0".to_string())];
    let judge = |answer: &str| {
        crate::guest::doctor::judge_mcast_route(
            "239.255.1.1",
            &crate::guest::doctor::mcast_route(answer),
            "d0",
            "rxe0",
            &links,
        )
    };
    for (name, answer) in [
        (
            "doctor_no_mcast_route",
            "RTNETLINK answers: Network is unreachable\n",
        ),
        (
            "doctor_mcast_route_elsewhere",
            "multicast 239.255.1.1 dev d8 src 198.51.100.8 uid 0 \\    cache <mc> \n",
        ),
    ] {
        let finding = judge(answer).unwrap_err();
        let [pattern] = &find(name).unwrap().server_expect.stderr[..] else {
            panic!("{name}: one finding")
        };
        assert!(glob_match(pattern, &finding), "{name}: {finding}");
    }
    let healthy = judge("multicast 239.255.1.1 dev d0 src 192.0.2.1 uid 0 \n").unwrap();
    assert!(
        find("doctor_healthy")
            .unwrap()
            .server_expect
            .stdout
            .contains(&healthy),
        "{healthy}"
    );
}

use super::*;

#[test]
fn differing_mtus_are_a_finding_both_hosts_word_alike() {
    let host = |role: &str, mtu| HostInfo {
        role: role.into(),
        active_mtu: mtu,
        ..Default::default()
    };
    let (a, b) = (host("server", Some(1024)), host("client", Some(4096)));
    let f = mtu_finding(&a, &b).unwrap();
    assert!(
        f.starts_with("the active MTU is 1024 on the server host and 4096 on the client host"),
        "{f}"
    );
    assert_eq!(mtu_finding(&b, &a), Some(f));
    assert_eq!(mtu_finding(&a, &host("client", Some(1024))), None);
    assert_eq!(mtu_finding(&a, &host("client", None)), None);
}

/// rdma_cm is judged by what its probe met making an event channel and
/// an id; a probe that could not start, or said something else, is a
/// note, never a finding.
#[test]
fn the_rdma_cm_probe_is_judged_by_what_it_met() {
    let bind = "rdma_bind_addr to 127.0.0.1:0 found no RDMA device: give the address of an \
                RDMA device's interface, or none to listen on all\n";
    assert_eq!(judge_cm_probe(Some(1), "", bind), CmProbe::Works);
    assert_eq!(
        judge_cm_probe(Some(124), "listening on port 41000.\n", ""),
        CmProbe::Works
    );
    let ec = "rdma_create_event_channel failed: No such device (ENODEV) (hint: x)";
    assert_eq!(
        judge_cm_probe(Some(1), "", &format!("{ec}\n")),
        CmProbe::Fails(ec.into())
    );
    let id = "rdma_create_id failed: Cannot allocate memory (ENOMEM)";
    assert_eq!(judge_cm_probe(Some(1), "", id), CmProbe::Fails(id.into()));
    let CmProbe::Unsure(why) = judge_cm_probe(
        Some(126),
        "",
        "timeout: failed to run command '/b/rdmacm_server': Permission denied\n",
    ) else {
        panic!("not started is unsure")
    };
    assert_eq!(
        why,
        "could not start /b/rdmacm_server: Permission denied (exit 126)"
    );
    assert!(matches!(
        judge_cm_probe(Some(139), "", "Segmentation fault\n"),
        CmProbe::Unsure(w) if w.contains("said \"Segmentation fault\"")
    ));
    assert!(matches!(
        judge_cm_probe(Some(0), "", ""),
        CmProbe::Unsure(w) if w.contains("exit 0")
    ));
}

#[test]
fn mtus_from_ibv_devinfo() {
    let text = "hca_id:\trxe0\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tmax_mtu:\t\t4096 (5)\n\t\t\tactive_mtu:\t\t1024 (3)\n";
    assert_eq!(parse_mtus(text), (Some(1024), Some(4096)));
    assert_eq!(parse_mtus("nothing"), (None, None));
}

#[test]
fn locked_memory_and_the_capability() {
    let limits = "Max cpu time              unlimited            unlimited            seconds   \nMax locked memory         65536                65536                bytes     \n";
    assert_eq!(memlock_limit(limits), Some(Some(65536)));
    assert_eq!(
        memlock_limit("Max locked memory         unlimited            unlimited            bytes"),
        Some(None)
    );
    assert_eq!(memlock_limit(""), None);
    assert!(has_cap_ipc_lock("CapEff:\t000001ffffffffff\n"));
    assert!(!has_cap_ipc_lock("CapEff:\t0000000000000000\n"));
    assert!(
        !has_cap_ipc_lock("CapEff:\t000001ffffffbfff\n"),
        "bit 14 cleared"
    );
    let f = judge_memlock(Some(65536), false, 1960, "apm").unwrap();
    assert!(
        f.starts_with("`ulimit -l` is 64 KiB, below the 1960 KiB that apm registers: "),
        "{f}"
    );
    assert_eq!(judge_memlock(Some(65536), true, 1960, "apm"), None);
    assert_eq!(judge_memlock(None, false, 1960, "apm"), None);
    assert_eq!(judge_memlock(Some(8 << 20), false, 1960, "apm"), None);
}

#[test]
fn addresses_and_links() {
    let ip = "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever\n3: d0    inet 192.0.2.1/24 scope global d0\\       valid_lft forever\n4: eth0@if5    inet 10.0.0.2/24 brd 10.0.0.255 scope global eth0\n";
    assert_eq!(netdev_of(ip, "192.0.2.1").as_deref(), Some("d0"));
    assert_eq!(netdev_of(ip, "127.0.0.1").as_deref(), Some("lo"));
    assert_eq!(netdev_of(ip, "10.0.0.2").as_deref(), Some("eth0"));
    assert_eq!(netdev_of(ip, "192.0.2.9"), None);
    let links = rdma_links(
        "link rxe0/1 state ACTIVE physical_state LINK_UP netdev d0 \nlink mlx5_0/1 state DOWN physical_state DISABLED \n",
    );
    assert_eq!(links, [("rxe0".to_string(), 1, "d0".to_string())]);
}

/// `ip -o route get 239.255.1.1` as a VM answered it: without a route,
/// with a default route on a second netdev, with the lab's route.
const NO_ROUTE: &str = "RTNETLINK answers: Network is unreachable\n";
const VIA_D1: &str =
    "multicast 239.255.1.1 dev d1 src 198.51.100.1 rt_offload_failed uid 0 \\    cache <mc> \n";
const VIA_D0: &str =
    "multicast 239.255.1.1 dev d0 src 192.0.2.1 rt_offload_failed uid 0 \\    cache <mc> \n";

#[test]
fn multicast_routes_from_ip_route_get() {
    assert_eq!(mcast_route(NO_ROUTE), McastRoute::Unreachable);
    assert_eq!(mcast_route(VIA_D1), McastRoute::Dev("d1".into()));
    assert_eq!(mcast_route(VIA_D0), McastRoute::Dev("d0".into()));
    // A route through a gateway names its netdev after it.
    assert_eq!(
        mcast_route("multicast 239.255.1.1 via 10.0.0.1 dev eth0 src 10.0.0.2 uid 0 \n"),
        McastRoute::Dev("eth0".into())
    );
    assert_eq!(
        mcast_route("Error: inet prefix is expected rather than \"x\".\n"),
        McastRoute::Unknown("Error: inet prefix is expected rather than \"x\".".into())
    );
    assert_eq!(mcast_route(""), McastRoute::Unknown("no answer".into()));
}

#[test]
fn a_multicast_route_elsewhere_is_a_finding_with_its_fix() {
    let links = [("rxe0".to_string(), 1, "d0".to_string())];
    let judge =
        |answer| judge_mcast_route("239.255.1.1", &mcast_route(answer), "d0", "rxe0", &links);
    assert_eq!(
        judge(VIA_D0),
        Ok("multicast 239.255.1.1: leaves through d0, rxe0's netdev".to_string())
    );
    let fix = "`ip route add 224.0.0.0/4 dev d0` (then all IPv4 multicast from this host \
               leaves through d0 unless a more specific route says otherwise)";
    let f = judge(NO_ROUTE).unwrap_err();
    assert!(
        f.starts_with("multicast to 239.255.1.1 has no route on this host (`ip route get 239.255.1.1`: Network is unreachable): ")
            && f.contains("fail with ENETUNREACH")
            && f.contains(fix),
        "{f}"
    );
    let f = judge(VIA_D1).unwrap_err();
    assert!(
        f.starts_with("multicast to 239.255.1.1 leaves this host through d1, not through d0 (rxe0's netdev): ")
            && f.contains("find no RDMA device there and fail (ENODEV)")
            && f.contains(fix),
        "{f}"
    );
    // Through another RDMA device's netdev: that device, not ours.
    let two = [
        links[0].clone(),
        ("mlx5_0".to_string(), 1, "d1".to_string()),
    ];
    let f = judge_mcast_route("239.255.1.1", &mcast_route(VIA_D1), "d0", "rxe0", &two).unwrap_err();
    assert!(f.contains("use mlx5_0, d1's device, not rxe0: "), "{f}");
    // What `ip` could not answer is said, not judged.
    let l = judge("Error: x\n").unwrap();
    assert!(l.contains("said \"Error: x\""), "{l}");
}

fn row(index: u32, gid: &str, kind: &str) -> GidRow {
    GidRow {
        index,
        gid: gid.into(),
        kind: Some(kind.into()),
        netdev: Some("d0".into()),
    }
}

#[test]
fn gid_judgement() {
    let ll = "fe80:0000:0000:0000:5054:00ff:fe12:3401";
    let v4 = "0000:0000:0000:0000:0000:ffff:c000:0201";
    let rows = [
        row(0, ll, "IB/RoCE v1"),
        row(1, ll, "RoCE v2"),
        row(2, v4, "IB/RoCE v1"),
        row(3, v4, "RoCE v2"),
    ];
    assert_eq!(rows[3].ipv4().as_deref(), Some("192.0.2.1"));
    assert_eq!(judge_gid("rxe0", 1, &rows, None), (Some(3), vec![]));
    assert_eq!(judge_gid("rxe0", 1, &rows, Some(3)), (Some(3), vec![]));
    let (used, f) = judge_gid("rxe0", 1, &rows, Some(2));
    assert_eq!(used, Some(2));
    assert_eq!(f.len(), 1);
    assert!(
        f[0].contains("IB/RoCE v1") && f[0].ends_with("pass --gid-idx 3"),
        "{}",
        f[0]
    );
    let (_, f) = judge_gid("rxe0", 1, &rows, Some(1));
    assert!(f[0].contains("RoCE v2, fe80"), "not IPv4-mapped: {}", f[0]);
    let (_, f) = judge_gid("rxe0", 1, &rows, Some(7));
    assert!(
        f[0].starts_with("GID index 7 of rxe0 port 1 is empty"),
        "{}",
        f[0]
    );
    let (_, f) = judge_gid("rxe0", 1, &[], None);
    assert!(f[0].contains("no usable GID"), "{}", f[0]);
}
