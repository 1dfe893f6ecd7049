//! Byte-exact encodings of the structures the C programs send to each other.

use byteorder::{BigEndian, ByteOrder};

use crate::error::{Error, Result};
use crate::verbs::Gid;

/// A QP number from a peer is 24 bits and never 0 (what the C programs
/// take on trust): anything else means the peer is not the program it
/// should be, and must be refused before the QP is touched.
pub fn check_qp_num(qp_num: u32) -> Result<()> {
    if qp_num == 0 || qp_num > 0xff_ffff {
        return Err(Error::msg(format!(
            "the peer's QP number 0x{qp_num:x} is not a QP number (24 bits, not 0): \
             is the peer this program?"
        )));
    }
    Ok(())
}

/// `struct cm_con_data_t` of the manual's RDMA_RC_example (7.2): what each side
/// needs to connect its QP to the peer's and to reach the peer's buffer.
///
/// On the wire it is the packed C struct, 34 bytes, every integer big-endian:
/// `addr` u64 at 0, `rkey` u32 at 8, `qp_num` u32 at 12, `lid` u16 at 16,
/// `gid` 16 bytes at 18. The manual swaps `addr` with `htonl`, which keeps only
/// its low 32 bits; here it is swapped as the 64-bit value it is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CmConData {
    /// Buffer address.
    pub addr: u64,
    /// Remote key.
    pub rkey: u32,
    /// QP number.
    pub qp_num: u32,
    /// LID of the IB port.
    pub lid: u16,
    /// GID (all zero when no GID index is in use).
    pub gid: Gid,
}

impl CmConData {
    /// Encoded size: `sizeof(struct cm_con_data_t)` with `__attribute__((packed))`.
    pub const SIZE: usize = 34;

    /// The bytes the C program would send.
    pub fn encode(&self) -> [u8; Self::SIZE] {
        let mut b = [0u8; Self::SIZE];
        BigEndian::write_u64(&mut b[0..8], self.addr);
        BigEndian::write_u32(&mut b[8..12], self.rkey);
        BigEndian::write_u32(&mut b[12..16], self.qp_num);
        BigEndian::write_u16(&mut b[16..18], self.lid);
        b[18..34].copy_from_slice(&self.gid.0);
        b
    }

    /// Parse what the peer sent; it must be exactly [`Self::SIZE`] bytes.
    pub fn decode(b: &[u8]) -> Result<CmConData> {
        if b.len() != Self::SIZE {
            return Err(Error::msg(format!(
                "connection data is {} bytes, expected {}",
                b.len(),
                Self::SIZE
            )));
        }
        let mut gid = [0u8; 16];
        gid.copy_from_slice(&b[18..34]);
        Ok(CmConData {
            addr: BigEndian::read_u64(&b[0..8]),
            rkey: BigEndian::read_u32(&b[8..12]),
            qp_num: BigEndian::read_u32(&b[12..16]),
            lid: BigEndian::read_u16(&b[16..18]),
            gid: Gid(gid),
        })
    }
}

#[cfg(test)]
mod tests {
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
}

/// `struct conn_info` of the ibv_sockets_pingpong example (`metadata.h`): what
/// each side needs to move its QP to RTR.
///
/// On the wire it is the C struct as the compiler lays it out on x86-64, in
/// host byte order: `lid` u16 at 0, two padding bytes (sent as zero; the C
/// program sends whatever the stack held), `qp_num` u32 at 4: 8 bytes. When a
/// GID is in use (mandatory on RoCE, which the C struct cannot express), the
/// 16-byte GID follows at 8, making one 24-byte message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnInfo {
    /// LID of the IB port (0 on RoCE).
    pub lid: u16,
    /// QP number.
    pub qp_num: u32,
    /// The port's GID, when one is in use.
    pub gid: Option<Gid>,
}

impl ConnInfo {
    /// `sizeof(struct conn_info)` on x86-64.
    pub const SIZE: usize = 8;
    /// The size with the GID appended.
    pub const SIZE_WITH_GID: usize = Self::SIZE + 16;

    /// The size of the message when a GID is (or is not) in use; both sides
    /// must agree on it, since the message carries no length.
    pub fn wire_size(with_gid: bool) -> usize {
        if with_gid {
            Self::SIZE_WITH_GID
        } else {
            Self::SIZE
        }
    }

    /// The bytes to send: 8, or 24 with a GID.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = vec![0u8; Self::wire_size(self.gid.is_some())];
        byteorder::NativeEndian::write_u16(&mut b[0..2], self.lid);
        byteorder::NativeEndian::write_u32(&mut b[4..8], self.qp_num);
        if let Some(gid) = &self.gid {
            b[8..24].copy_from_slice(&gid.0);
        }
        b
    }

    /// Parse what the peer sent: 8 bytes, or 24 with a GID. The padding is
    /// ignored, as a C peer leaves it uninitialised.
    pub fn decode(b: &[u8]) -> Result<ConnInfo> {
        let gid = match b.len() {
            Self::SIZE => None,
            Self::SIZE_WITH_GID => {
                let mut g = [0u8; 16];
                g.copy_from_slice(&b[8..24]);
                Some(Gid(g))
            }
            n => {
                return Err(Error::msg(format!(
                    "conn_info is {n} bytes, expected {} or {}",
                    Self::SIZE,
                    Self::SIZE_WITH_GID
                )))
            }
        };
        Ok(ConnInfo {
            lid: byteorder::NativeEndian::read_u16(&b[0..2]),
            qp_num: byteorder::NativeEndian::read_u32(&b[4..8]),
            gid,
        })
    }
}

/// `struct mr_info` of the ibv_sockets_pingpong example (`metadata.h`): where
/// the peer's buffer is and its rkey.
///
/// On the wire it is the C struct as laid out on x86-64, in host byte order:
/// `buf_addr` u64 at 0, `buf_len` u64 at 8, `rkey` u32 at 16, then four
/// padding bytes (sent as zero): 24 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MrInfo {
    /// Virtual address of the buffer.
    pub buf_addr: u64,
    /// Length of the buffer in bytes.
    pub buf_len: u64,
    /// Remote key of the buffer's memory region.
    pub rkey: u32,
}

impl MrInfo {
    /// `sizeof(struct mr_info)` on x86-64, tail padding included.
    pub const SIZE: usize = 24;

    /// The bytes to send.
    pub fn encode(&self) -> [u8; Self::SIZE] {
        let mut b = [0u8; Self::SIZE];
        byteorder::NativeEndian::write_u64(&mut b[0..8], self.buf_addr);
        byteorder::NativeEndian::write_u64(&mut b[8..16], self.buf_len);
        byteorder::NativeEndian::write_u32(&mut b[16..20], self.rkey);
        b
    }

    /// Parse what the peer sent; it must be exactly [`Self::SIZE`] bytes.
    pub fn decode(b: &[u8]) -> Result<MrInfo> {
        if b.len() != Self::SIZE {
            return Err(Error::msg(format!(
                "mr_info is {} bytes, expected {}",
                b.len(),
                Self::SIZE
            )));
        }
        Ok(MrInfo {
            buf_addr: byteorder::NativeEndian::read_u64(&b[0..8]),
            buf_len: byteorder::NativeEndian::read_u64(&b[8..16]),
            rkey: byteorder::NativeEndian::read_u32(&b[16..20]),
        })
    }
}

#[cfg(test)]
mod sockets_pingpong_tests {
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
}

/// Whatever a peer sends, decoding gives a value or an error, never a panic;
/// and what we encode decodes to itself.
#[cfg(test)]
mod properties {
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
}
