//! Byte-exact encodings of the structures the C programs send to each other.

use byteorder::{BigEndian, ByteOrder};

use crate::error::{Error, Result};
use crate::verbs::Gid;

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
