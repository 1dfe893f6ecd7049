"""A stand-in peer of rc_example for the handout's exercises: it speaks the
program's side channel (the 34-byte cm_con_data_t, then the one-byte syncs
'Q', 'R', 'W') with a real RC QP of its own (rdma-core's pyverbs), and does
one thing wrong, so that the faithful program meets a fault of the wire:

  python3 rc_example_peer.py rnr SERVER_IP DEV GID_IDX
      a client that connects its QP but posts no receive;
  python3 rc_example_peer.py bad_rkey SERVER_IP DEV GID_IDX
      a server that advertises an rkey one more than its buffer's.

(The lab passes the script's text with `python3 -c`.) Every wait is
bounded (20 s), and it prints one line a step."""
import socket
import struct
import sys

import pyverbs.enums as e
from pyverbs.addr import GID, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR

PORT = 19875
WAIT = 20
SEND_MSG = b"SEND operation ".ljust(21, b"\0")
READ_MSG = b"RDMA read operation \0"
BUF_LEN = 21


def recv_exact(sock, n):
    """n bytes from the peer, or fewer if it closed."""
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            break
        data += chunk
    return data


def sync(sock, byte):
    """The program's one-byte barrier: True when the peer sent the same."""
    sock.sendall(byte)
    return recv_exact(sock, 1) == byte


def gid_text(raw):
    """16 bytes as pyverbs takes a GID: eight groups of four hex digits."""
    return ":".join(raw[i:i + 2].hex() for i in range(0, 16, 2))


class Peer:
    """A device, a buffer, a CQ and an RC QP: what rc_example sets up."""

    def __init__(self, dev, gid_idx):
        self.ctx = Context(name=dev)
        self.gid_idx = gid_idx
        self.pd = PD(self.ctx)
        access = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_READ
                  | e.IBV_ACCESS_REMOTE_WRITE)
        self.mr = MR(self.pd, BUF_LEN, access)
        self.cq = CQ(self.ctx, 1)
        cap = QPCap(max_send_wr=1, max_recv_wr=1, max_send_sge=1, max_recv_sge=1)
        self.qp = QP(self.pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq,
                                         rcq=self.cq, cap=cap))
        self.gid = bytes.fromhex(self.ctx.query_gid(1, gid_idx).gid.replace(":", ""))

    def con_data(self, rkey):
        """Our cm_con_data_t: addr, rkey, QP number, LID 0, GID, big-endian."""
        return struct.pack(">QIIH16s", self.mr.buf, rkey, self.qp.qp_num, 0, self.gid)

    def connect(self, remote):
        """INIT, RTR and RTS towards the peer's QP, as the manual does."""
        _addr, _rkey, qpn, _lid, gid = struct.unpack(">QIIH16s", remote)
        attr = QPAttr()
        attr.qp_access_flags = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_READ
                                | e.IBV_ACCESS_REMOTE_WRITE)
        attr.port_num = 1
        attr.pkey_index = 0
        self.qp.to_init(attr)
        grh = GlobalRoute(dgid=GID(gid_text(gid)), sgid_index=self.gid_idx, hop_limit=1)
        attr.ah_attr = AHAttr(is_global=1, port_num=1, gr=grh)
        attr.path_mtu = e.IBV_MTU_256
        attr.dest_qp_num = qpn
        attr.rq_psn = 0
        attr.max_dest_rd_atomic = 1
        attr.min_rnr_timer = 0x12
        self.qp.to_rtr(attr)
        attr.timeout = 0x12
        attr.retry_cnt = 6
        attr.rnr_retry = 0
        attr.sq_psn = 0
        attr.max_rd_atomic = 1
        self.qp.to_rts(attr)

    def send(self, data):
        """A signaled SEND of data from our buffer (the whole buffer, as the
        manual's server sends it)."""
        self.mr.write(data, len(data))
        sge = SGE(self.mr.buf, len(data), self.mr.lkey)
        self.qp.post_send(SendWR(opcode=e.IBV_WR_SEND, num_sge=1, sg=[sge],
                                 send_flags=e.IBV_SEND_SIGNALED))


def no_receive_client(ip, peer):
    """Connects its QP to the server's and posts no receive."""
    sock = socket.create_connection((ip, PORT), timeout=WAIT)
    sock.sendall(peer.con_data(peer.mr.rkey))
    peer.connect(recv_exact(sock, 34))
    print("QP connected, no receive posted", flush=True)
    if sync(sock, b"Q"):
        print("synced 'Q'; the server sends now", flush=True)
    if recv_exact(sock, 1) == b"":
        print("the server closed the connection")
    else:
        print("the server went on to its next sync")


def bad_rkey_server(ip, peer):
    """Serves rc_example's client with an rkey its buffer does not have."""
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind((ip, PORT))
    lsock.listen(1)
    lsock.settimeout(WAIT)
    sock, _ = lsock.accept()
    sock.settimeout(WAIT)
    wrong = (peer.mr.rkey + 1) & 0xFFFFFFFF
    sock.sendall(peer.con_data(wrong))
    peer.connect(recv_exact(sock, 34))
    print(f"QP connected, advertised rkey 0x{wrong:x} (the buffer's is 0x{peer.mr.rkey:x})",
          flush=True)
    if not sync(sock, b"Q"):
        print("the client left before 'Q'")
        return
    peer.send(SEND_MSG)
    print("sent the SEND", flush=True)
    peer.mr.write(READ_MSG, len(READ_MSG))
    if sync(sock, b"R"):
        print("synced 'R'; the client reads now", flush=True)
    if recv_exact(sock, 1) == b"":
        print("the client closed the connection")
    else:
        print("the client went on to 'W'")


def main():
    """The mode and the program's addressing, from the command line."""
    mode, ip, dev, gid_idx = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    peer = Peer(dev, gid_idx)
    {"rnr": no_receive_client, "bad_rkey": bad_rkey_server}[mode](ip, peer)


main()
