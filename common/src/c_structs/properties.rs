use super::*;
use proptest::prelude::*;

fn gid() -> impl Strategy<Value = Gid> {
    any::<[u8; 16]>().prop_map(Gid)
}

proptest! {
    #[test]
    fn any_bytes_decode_or_fail_cleanly(b in proptest::collection::vec(any::<u8>(), 0..64)) {
        let sizes_ok = [
            (CmConData::decode(&b).is_ok(), b.len() == CmConData::SIZE),
            (ConnInfo::decode(&b).is_ok(), b.len() == ConnInfo::SIZE || b.len() == ConnInfo::SIZE_WITH_GID),
            (MrInfo::decode(&b).is_ok(), b.len() == MrInfo::SIZE),
        ];
        for (decoded, right_size) in sizes_ok {
            prop_assert_eq!(decoded, right_size);
        }
    }

    #[test]
    fn cm_con_data_round_trips(addr: u64, rkey: u32, qp_num: u32, lid: u16, gid in gid()) {
        let d = CmConData { addr, rkey, qp_num, lid, gid };
        prop_assert_eq!(CmConData::decode(&d.encode()).unwrap(), d);
    }

    #[test]
    fn conn_info_round_trips(lid: u16, qp_num: u32, gid in proptest::option::of(gid())) {
        let c = ConnInfo { lid, qp_num, gid };
        let b = c.encode();
        prop_assert_eq!(b.len(), ConnInfo::wire_size(gid.is_some()));
        prop_assert_eq!(ConnInfo::decode(&b).unwrap(), c);
    }

    #[test]
    fn qp_numbers_are_24_bits_and_not_0(qp_num: u32) {
        prop_assert_eq!(check_qp_num(qp_num).is_ok(), (1..=0xff_ffff).contains(&qp_num));
    }

    #[test]
    fn mr_info_round_trips(buf_addr: u64, buf_len: u64, rkey: u32) {
        let m = MrInfo { buf_addr, buf_len, rkey };
        prop_assert_eq!(MrInfo::decode(&m.encode()).unwrap(), m);
    }

    #[test]
    fn c_strings_stop_at_the_first_nul(b in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let s = crate::verbs::c_str_lossy(&b);
        prop_assert!(!s.contains('\0'));
        let text: String = b.iter().take_while(|&&c| c != 0).map(|&c| c as char).collect();
        if text.is_ascii() {
            prop_assert_eq!(s, text);
        }
    }
}
