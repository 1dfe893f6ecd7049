use super::*;
use std::net::Ipv6Addr;

fn gid(s: &str) -> Gid {
    Gid(s.parse::<Ipv6Addr>().unwrap().octets())
}

#[test]
fn ah_attr_round_trips_and_sets_is_global() {
    let a = AhAttr {
        dlid: 7,
        sl: 1,
        port_num: 1,
        grh: Some(Grh {
            dgid: gid("::ffff:192.0.2.2"),
            sgid_index: 1,
            hop_limit: 1,
            ..Grh::default()
        }),
        ..AhAttr::default()
    };
    let raw = a.to_raw();
    assert_eq!(raw.is_global, 1);
    assert_eq!(AhAttr::from_raw(&raw), a);
    let ib = AhAttr {
        dlid: 3,
        port_num: 1,
        ..AhAttr::default()
    };
    assert_eq!(ib.to_raw().is_global, 0);
    assert_eq!(AhAttr::from_raw(&ib.to_raw()), ib);
}
