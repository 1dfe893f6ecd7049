//! A packet between the two hosts as tshark decoded it: what the wire
//! facts are judged on and the ladder draws.

use crate::model::{Addrs, Side, CONTROL_PORT};

/// An RDMA Extended Transport Header: where an RDMA Read or Write goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reth {
    /// The remote virtual address.
    pub va: u64,
    /// The remote key.
    pub rkey: u32,
    /// The DMA length.
    pub len: u32,
}

/// What kind of packet a frame is, as far as the ladder cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// RoCE v2 (UDP 4791): a transport packet or a CM MAD.
    Roce,
    /// TCP, with its ports and the flags that open and close connections.
    Tcp {
        /// Source port.
        sport: u16,
        /// Destination port.
        dport: u16,
        /// SYN set.
        syn: bool,
        /// FIN set.
        fin: bool,
        /// RST set.
        rst: bool,
        /// ACK set (a SYN with it answers one).
        ack: bool,
    },
    /// ARP.
    Arp,
    /// IGMP (multicast group membership).
    Igmp,
    /// Anything else (IPv6 neighbour discovery and the like).
    Other,
}

/// One frame, as tshark decoded it.
#[derive(Debug, Clone, PartialEq)]
pub struct Packet {
    /// Frame number in the run's capture (1-based).
    pub frame: u32,
    /// Seconds since the start of the capture, then of the scenario.
    pub time: f64,
    /// Sender's IPv4 address (ARP's sender address for ARP).
    pub src: String,
    /// Destination IPv4 address.
    pub dst: String,
    /// Its kind.
    pub kind: Kind,
    /// What it is, in Wireshark's words: `RC Send Only`, `CM ConnectRequest`,
    /// `UD Send Only Immediate`, `TCP`, `ARP`, `IGMPv3`...
    pub what: String,
    /// Wireshark's one-line summary.
    pub info: String,
    /// Destination QP (BTH).
    pub dest_qp: Option<u32>,
    /// Packet sequence number (BTH).
    pub psn: Option<u32>,
    /// RDMA Extended Transport Header.
    pub reth: Option<Reth>,
    /// Immediate data.
    pub imm: Option<u32>,
    /// The bytes carried: an IB payload without its pad, a TCP payload, a
    /// CM message's private data.
    pub payload: Vec<u8>,
    /// The group an IGMP report names.
    pub group: Option<String>,
    /// The QP a CM ConnectRequest connects (its Local QPN).
    pub local_qpn: Option<u32>,
    /// A CM message's MAD transaction ID, which its retries repeat.
    pub tid: Option<u64>,
    /// Its headers decoded in words, one line each (`BTH: ...`,
    /// `AETH: ACK, credit code 31, MSN 2`...): what the ladder shows of
    /// an arrow beyond its label.
    pub headers: Vec<String>,
}

impl Packet {
    /// What makes a packet the same as one sent before: a reliable
    /// connection's retransmission repeats its QP and PSN, a CM retry its
    /// transaction ID. `None` for packets nothing resends.
    pub fn resend_key(&self) -> Option<(String, String, u64)> {
        // An ACK that repeats a PSN acknowledges it again: nothing resent.
        // The sender is part of the key: both hosts may number their QPs
        // and PSNs alike.
        if self.what.starts_with("RC ") && !self.what.contains("Acknowledge") {
            Some((
                self.src.clone(),
                self.what.clone(),
                (u64::from(self.dest_qp?) << 32) | u64::from(self.psn?),
            ))
        } else if self.what.starts_with("CM ") {
            Some((self.src.clone(), self.what.clone(), self.tid?))
        } else {
            None
        }
    }

    /// How many bytes of a message it stands for: an RDMA Read Request's
    /// DMA length, otherwise the payload's length. A CM message's private data field has a fixed size, zero-padded:
    /// its length is that of what was put in it, up to the last byte that
    /// is not zero.
    pub fn message_len(&self) -> usize {
        if self.what.starts_with("CM ") {
            return self
                .payload
                .iter()
                .rposition(|&b| b != 0)
                .map_or(0, |i| i + 1);
        }
        match (&self.reth, self.payload.is_empty()) {
            (Some(r), true) => r.len as usize,
            _ => self.payload.len(),
        }
    }

    /// A TCP segment with nothing for the ladder: no data, no SYN, FIN or
    /// RST.
    pub fn bare_ack(&self) -> bool {
        matches!(
            self.kind,
            Kind::Tcp {
                syn: false,
                fin: false,
                rst: false,
                ..
            }
        ) && self.payload.is_empty()
    }

    /// The lab's own control connection.
    pub fn control(&self) -> bool {
        matches!(self.kind, Kind::Tcp { sport, dport, .. } if sport == CONTROL_PORT || dport == CONTROL_PORT)
    }

    /// The side that sent it, by address.
    pub fn from(&self, addrs: &Addrs) -> Option<Side> {
        if self.src == addrs.server_ip {
            Some(Side::Server)
        } else if self.src == addrs.client_ip {
            Some(Side::Client)
        } else {
            None
        }
    }

    /// Up to `n` bytes of payload as text, dots for what does not print,
    /// trailing zeros dropped; binary data (a side channel's C struct) as
    /// the hex of its first 16 bytes instead.
    pub fn preview(&self, n: usize) -> String {
        let end = self
            .payload
            .iter()
            .rposition(|&b| b != 0)
            .map_or(0, |i| i + 1);
        let shown = &self.payload[..end.min(n)];
        let printable = shown
            .iter()
            .filter(|b| b.is_ascii_graphic() || **b == b' ')
            .count();
        if printable * 2 < shown.len() {
            let head = &self.payload[..self.payload.len().min(16)];
            let hex: Vec<String> = head.iter().map(|b| format!("{b:02x}")).collect();
            let more = if self.payload.len() > 16 { " …" } else { "" };
            return format!("{}{more}", hex.join(" "));
        }
        let mut s: String = shown
            .iter()
            .map(|&b| {
                if b.is_ascii_graphic() || b == b' ' {
                    b as char
                } else {
                    '.'
                }
            })
            .collect();
        if end > n {
            s.push('…');
        }
        s
    }
}

/// One arrow of the ladder: a packet or a whole message, or a note (a
/// block of arrows that repeats, a pause, a stretch summed up).
#[derive(Debug, Clone, PartialEq)]
pub struct Rung {
    /// Seconds since the scenario began, of the first packet.
    pub time: f64,
    /// The sender; `None` for a note.
    pub from: Option<Side>,
    /// Protocol and opcode, destination QP and PSN, length; a message's
    /// packets.
    pub label: String,
    /// What it carries: a payload preview, an RDMA target, a group.
    pub note: String,
    /// How many packets it stands for.
    pub count: usize,
    /// The first and last frame it stands for, numbered as Wireshark
    /// numbers the scenario's own pcap (from 1).
    pub frames: (usize, usize),
    /// The headers of its (first) packet, decoded, one line each.
    pub headers: Vec<String>,
    /// What sent it, where the scenario declares it.
    pub cause: Option<&'static str>,
}

impl Rung {
    /// Its frames as text: `#7`, or `#7-19`.
    pub fn frames_text(&self) -> String {
        match self.frames {
            (a, b) if a == b => format!("#{a}"),
            (a, b) => format!("#{a}-{b}"),
        }
    }
}
