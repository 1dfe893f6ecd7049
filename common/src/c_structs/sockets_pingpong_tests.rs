use super::*;

fn v4_gid() -> Gid {
    Gid([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1])
}

#[test]
#[cfg(target_endian = "little")]
fn conn_info_exact_bytes_as_x86_64_lays_it_out() {
    let c = ConnInfo {
        lid: 0x0102,
        qp_num: 0x0a0b_0c0d,
        gid: None,
    };
    assert_eq!(
        c.encode(),
        [0x02, 0x01, 0, 0, 0x0d, 0x0c, 0x0b, 0x0a],
        "lid, 2 zero padding bytes, qp_num"
    );
    let g = ConnInfo {
        gid: Some(v4_gid()),
        ..c
    };
    let mut want = vec![0x02, 0x01, 0, 0, 0x0d, 0x0c, 0x0b, 0x0a];
    want.extend_from_slice(&v4_gid().0);
    assert_eq!(g.encode(), want);
}

#[test]
fn conn_info_is_host_order_with_zero_padding() {
    let c = ConnInfo {
        lid: 7,
        qp_num: 0x11,
        gid: None,
    };
    let b = c.encode();
    assert_eq!(b.len(), 8);
    assert_eq!(&b[0..2], &7u16.to_ne_bytes());
    assert_eq!(&b[2..4], &[0, 0]);
    assert_eq!(&b[4..8], &0x11u32.to_ne_bytes());
    assert_eq!(ConnInfo::wire_size(false), 8);
    assert_eq!(ConnInfo::wire_size(true), 24);
}

#[test]
fn conn_info_round_trip_both_sizes() {
    let c = ConnInfo {
        lid: 0xffff,
        qp_num: 0x00ff_ffff,
        gid: None,
    };
    assert_eq!(ConnInfo::decode(&c.encode()).unwrap(), c);
    let g = ConnInfo {
        lid: 0,
        qp_num: 17,
        gid: Some(v4_gid()),
    };
    assert_eq!(g.encode().len(), 24);
    assert_eq!(ConnInfo::decode(&g.encode()).unwrap(), g);
    // An all-zero GID is still "a GID in use": the size says so, not the value.
    let z = ConnInfo {
        gid: Some(Gid::default()),
        ..g
    };
    assert_eq!(ConnInfo::decode(&z.encode()).unwrap(), z);
}

#[test]
fn conn_info_ignores_a_c_peers_garbage_padding() {
    let mut b = ConnInfo {
        lid: 3,
        qp_num: 189,
        gid: None,
    }
    .encode();
    b[2] = 0xaa;
    b[3] = 0x55;
    let c = ConnInfo::decode(&b).unwrap();
    assert_eq!((c.lid, c.qp_num, c.gid), (3, 189, None));
}

#[test]
fn conn_info_wrong_length_is_an_error() {
    for n in [0, 7, 9, 23, 25] {
        let e = ConnInfo::decode(&vec![0u8; n]).unwrap_err();
        assert!(e.to_string().contains("expected 8 or 24"), "{e}");
    }
}

#[test]
#[cfg(target_endian = "little")]
fn mr_info_exact_bytes_as_x86_64_lays_it_out() {
    let m = MrInfo {
        buf_addr: 0x0000_5628_c04a_6870,
        buf_len: 128,
        rkey: 263107, // 0x000403c3
    };
    let want: [u8; 24] = [
        0x70, 0x68, 0x4a, 0xc0, 0x28, 0x56, 0x00, 0x00, // buf_addr
        0x80, 0, 0, 0, 0, 0, 0, 0, // buf_len
        0xc3, 0x03, 0x04, 0x00, // rkey
        0, 0, 0, 0, // tail padding, zero
    ];
    assert_eq!(m.encode(), want);
    assert_eq!(MrInfo::SIZE, 24);
}

#[test]
fn mr_info_round_trip_and_length_check() {
    let m = MrInfo {
        buf_addr: 0xdead_beef_0000_1000,
        buf_len: 1 << 31,
        rkey: u32::MAX,
    };
    assert_eq!(MrInfo::decode(&m.encode()).unwrap(), m);
    assert_eq!(&m.encode()[20..24], &[0, 0, 0, 0]);
    assert_eq!(
        MrInfo::decode(&MrInfo::default().encode()).unwrap(),
        MrInfo::default()
    );
    assert!(MrInfo::decode(&[0u8; 23]).is_err());
    assert!(MrInfo::decode(&[0u8; 20]).is_err());
}
