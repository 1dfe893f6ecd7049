use super::*;

fn sample() -> CmConData {
    CmConData {
        addr: 0x0000_7f12_3456_7000,
        rkey: 0x1122_3344,
        qp_num: 0x11,
        lid: 0x0102,
        gid: Gid([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1]),
    }
}

#[test]
fn cm_con_data_exact_bytes() {
    let b = sample().encode();
    let expected: [u8; 34] = [
        0x00, 0x00, 0x7f, 0x12, 0x34, 0x56, 0x70, 0x00, // addr, all 64 bits, big-endian
        0x11, 0x22, 0x33, 0x44, // rkey
        0x00, 0x00, 0x00, 0x11, // qp_num
        0x01, 0x02, // lid
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1, // gid
    ];
    assert_eq!(b, expected);
    assert_eq!(CmConData::SIZE, 34);
}

#[test]
fn cm_con_data_round_trip() {
    let d = sample();
    assert_eq!(CmConData::decode(&d.encode()).unwrap(), d);
    let z = CmConData::default();
    assert_eq!(CmConData::decode(&z.encode()).unwrap(), z);
}

#[test]
fn the_high_half_of_the_address_survives() {
    // The manual's htonl() would drop the upper 32 bits of a user-space address.
    let d = CmConData {
        addr: 0xdead_beef_0000_1000,
        ..CmConData::default()
    };
    assert_eq!(
        CmConData::decode(&d.encode()).unwrap().addr,
        0xdead_beef_0000_1000
    );
}

#[test]
fn cm_con_data_wrong_length_is_an_error() {
    assert!(CmConData::decode(&[0u8; 33]).is_err());
    assert!(CmConData::decode(&[0u8; 35]).is_err());
}
