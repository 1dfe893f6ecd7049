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
mod tests;

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
mod sockets_pingpong_tests;

/// Whatever a peer sends, decoding gives a value or an error, never a panic;
/// and what we encode decodes to itself.
#[cfg(test)]
mod properties;
