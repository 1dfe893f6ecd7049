//! ibv_sockets_pingpong: a SEND from server to client over an RC QP that is
//! connected through a TCP socket; with `-n`, a timed ping-pong.
//!
//! A port of a classic two-program verbs example: `server.c` and `client.c`
//! (the verbs steps, one `[OK] ...` line each), `sock.c`/`sock.h` (the TCP
//! side channel) and `metadata.h` (`struct conn_info`, `struct mr_info`, sent
//! over the socket as raw structs). Each step function names the C code it
//! ports.
//!
//! Both sides list the devices, open one, create a CQ, a PD and an RC QP and
//! take it to INIT. They connect over TCP and exchange `conn_info` (LID, QP
//! number, and the GID when one is in use), take the QP to RTR and RTS,
//! register a buffer and exchange `mr_info` (address, length, rkey). The
//! server SENDs `hello from server`, the client receives and prints it.
//!
//! One binary plays both parts, as `ibv_rc_pingpong` does: without a host
//! argument it is the server, with one the client.

use std::net::{Ipv4Addr, TcpStream};
use std::os::fd::AsRawFd;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use common::c_structs::{ConnInfo, MrInfo};
use common::cli::{Cli, Opt, Parsed};
use common::opts::{ConnOpts, ConnUsage};
use common::sock::{self, sock_sync_data};
use common::verbs::{
    c_str_lossy, AccessFlags, AhAttr, Context as IbContext, Cq, DeviceList, Gid, Grh, InitAttr, Mr,
    Mtu, Pd, PortAttr, Qp, QpInitAttr, QpType, RtrAttr, RtsAttr, SendFlags, SendOp, WorkCompletion,
};
// stdout that cannot be written ends the program in one line, not a panic.
use common::println;
use common::{Error, Result, ResultExt};
use socket2::Socket;

mod pingpong;

/// The original's TCP port (`init_serv_sock_ctx(&ssctx, 6543)`).
const DEFAULT_TCP_PORT: u16 = 6543;
/// The original's `buf_len`.
const DEFAULT_SIZE: usize = 128;
/// What the server SENDs (`strcpy(buf, "hello from server\n")`, with its NUL).
const MSG: &[u8] = b"hello from server\n\0";
/// The server's `send_wr.wr_id`.
const SEND_WR_ID: u64 = 12345;
/// The client's `recv_wr.wr_id`.
const RECV_WR_ID: u64 = 54321;
/// The largest message InfiniBand can carry (2^31 bytes); the port may allow less.
const MAX_MSG_SIZE: u64 = 1 << 31;
/// How long to wait for a completion. The original tried 3 times a second
/// apart; a completion that has not come after this long will not come (the
/// peer is gone, or never posted its receive), and waiting on would hang.
const POLL_TIMEOUT: Duration = Duration::from_secs(5);
/// Empty polls between two looks at the clock: reading it on every poll would
/// add a clock read to every round trip, and on some VMs that is a system call.
const POLL_SPINS_PER_CLOCK_CHECK: u32 = 1024;

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Config {
    /// The options shared with rc_example. A `dev_name` of `None` is the
    /// original's device index 0; a `gid_idx` of `None` means LID only
    /// (InfiniBand), unless the port is RoCE.
    conn: ConnOpts,
    /// Message (and buffer) size in bytes.
    size: usize,
    /// Round trips of the ping-pong; `None` is the original's single SEND.
    iters: Option<u32>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            conn: ConnOpts::new(DEFAULT_TCP_PORT),
            size: DEFAULT_SIZE,
            iters: None,
        }
    }
}

impl Config {
    fn is_server(&self) -> bool {
        self.conn.server_name.is_none()
    }
}

/// `ibv_get_device_list` and the device table both programs print first.
fn get_device_list() -> Result<DeviceList> {
    let list = DeviceList::new().context("fail to get ibv dev list")?;
    if list.is_empty() {
        return Err(Error::msg(
            "fail to get ibv dev list: no RDMA device found (load an HCA driver, or rdma_rxe for Soft-RoCE)",
        ));
    }
    println!("[OK] get {} ib devices.", list.len());
    for (i, dev) in list.iter().enumerate() {
        // The original prints the __be64 as a plain integer: on x86-64 the
        // digits come out byte-reversed, as its "(BE)" label warns.
        println!(
            "\tidx: {i}, name: {}, guid (BE): {:016x}",
            dev.name(),
            dev.guid().to_be()
        );
    }
    Ok(list)
}

/// `ibv_open_device` on device index 0, or on the device named by `-d`.
fn open_device(list: &DeviceList, config: &Config) -> Result<(usize, IbContext)> {
    let idx = match &config.conn.dev_name {
        None => 0,
        Some(name) => list.iter().position(|d| d.name() == *name).ok_or_else(|| {
            Error::msg(format!(
                "fail to open device: IB device {name} wasn't found"
            ))
        })?,
    };
    let dev = list
        .get(idx)
        .ok_or_else(|| Error::msg(format!("fail to open device {idx}: no such device")))?;
    let ctx = dev.open().context(format!("fail to open device {idx}"))?;
    println!("[OK] open device {idx}.");
    Ok((idx, ctx))
}

/// `ibv_query_port`, and the checks the original leaves to chance: a message
/// larger than the port allows, and a RoCE port, which needs a GID.
fn query_port(ctx: &IbContext, config: &mut Config) -> Result<(PortAttr, Option<Gid>)> {
    let port_attr = ctx
        .query_port(config.conn.ib_port)
        .context("fail to query port")?;
    println!("[OK] query port.");
    println!("\tlid: {}", port_attr.lid);
    if config.size as u64 > u64::from(port_attr.max_msg_sz) {
        return Err(Error::msg(format!(
            "message size {} is larger than port {}'s maximum message size {}",
            config.size, config.conn.ib_port, port_attr.max_msg_sz
        ))
        .context("fail to query port"));
    }
    let gid = choose_gid(ctx, &port_attr, config)?;
    if let (Some(gid), Some(idx)) = (gid, config.conn.gid_idx) {
        println!("\tgid: {} (index {idx})", gid.to_ipv6());
    }
    Ok((port_attr, gid))
}

/// The GID to put in the GRH: the one `-g` names, or on an Ethernet (RoCE)
/// port, where there is no GRH-less path, the RoCE v2 IPv4-mapped one.
fn choose_gid(ctx: &IbContext, port_attr: &PortAttr, config: &mut Config) -> Result<Option<Gid>> {
    if config.conn.gid_idx.is_none() {
        config.conn.gid_idx = common::gid::default_gid_index(ctx, config.conn.ib_port, port_attr)?;
    }
    let Some(idx) = config.conn.gid_idx else {
        return Ok(None);
    };
    let gid = ctx
        .query_gid(config.conn.ib_port, i32::from(idx))
        .context("fail to query gid")?;
    // An empty slot of the table reads as zero, and the QP would only fail
    // at RTR, after the peer is already waiting.
    if gid.is_zero() {
        return Err(Error::msg(format!(
            "fail to query gid: GID index {idx} of port {} is empty (see `ibv_devinfo -v`)",
            config.conn.ib_port
        )));
    }
    Ok(Some(gid))
}

/// `ibv_create_cq`: the original's single entry, or room for every receive
/// of the ping-pong plus its one send.
fn create_cq(ctx: &IbContext, config: &Config) -> Result<Cq> {
    let cqe = match config.iters {
        None => 1,
        Some(_) => pingpong::RX_DEPTH as i32 + 1,
    };
    let cq = ctx.create_cq(cqe, None).context("fail to create cq")?;
    println!("[OK] create cq.");
    Ok(cq)
}

/// `ibv_alloc_pd`.
fn alloc_pd(ctx: &IbContext) -> Result<Pd> {
    let pd = ctx.alloc_pd().context("fail to allocate pd")?;
    println!("[OK] allocate pd.");
    Ok(pd)
}

/// `ibv_create_qp`: an RC QP on the one CQ, with the original's 2/2/2/2
/// capacities, or for the ping-pong `RX_DEPTH` receives and one send at a
/// time, as `ibv_rc_pingpong` sizes it.
fn create_qp(pd: &Pd, cq: &Cq, config: &Config) -> Result<Qp> {
    let (max_send_wr, max_recv_wr, max_sge) = match config.iters {
        None => (2, 2, 2),
        Some(_) => (1, pingpong::RX_DEPTH, 1),
    };
    let qp = pd
        .create_qp(&QpInitAttr {
            max_send_wr,
            max_recv_wr,
            max_send_sge: max_sge,
            max_recv_sge: max_sge,
            ..QpInitAttr::new(QpType::Rc, 0).on_cq(cq)
        })
        .context("fail to create qp")?;
    println!("[OK] create qp.");
    println!("\tqp num: {}", qp.qp_num());
    Ok(qp)
}

/// `ibv_modify_qp` RESET->INIT, with each side's access flags as the original sets them.
fn modify_qp_to_init(qp: &Qp, config: &Config) -> Result<()> {
    let access = if config.is_server() {
        AccessFlags::LOCAL_WRITE
    } else {
        AccessFlags::REMOTE_WRITE
    };
    qp.modify_to_init(&InitAttr {
        port_num: config.conn.ib_port,
        pkey_index: 0,
        access,
    })
    .context("fail to modify qp to INIT state")?;
    println!("[OK] modify qp to INIT state.");
    Ok(())
}

/// sock.c `init_serv_sock_ctx`: a TCP socket bound to every local address at
/// `port`, listening.
fn init_serv_sock_ctx(port: u16) -> Result<Socket> {
    let sock = sock::tcp_socket().context("fail to create server sock fd")?;
    println!("successfully create server sock fd: {}", sock.as_raw_fd());
    sock::bind_any(&sock, port).context("fail to bind")?;
    println!(
        "successfully bind addr: {:08x}, port: {port}",
        u32::from(Ipv4Addr::UNSPECIFIED)
    );
    sock.listen(5)
        .map_err(|e| Error::io("listen", &e))
        .context("fail to listen")?;
    println!("start to listen...");
    Ok(sock)
}

/// sock.c `accept_sock_cli`: wait for the client.
fn accept_sock_cli(listener: &Socket) -> Result<TcpStream> {
    let (conn, peer) = sock::accept_with_timeouts(listener).context("fail to accept")?;
    match peer {
        Some(peer) => println!(
            "successfully accept client, ip: {}, port: {}",
            peer.ip(),
            peer.port()
        ),
        None => println!("successfully accept client"),
    }
    Ok(conn)
}

/// sock.c `init_cli_sock_ctx`: connect to the server (an IPv4 address or a
/// name that resolves to one).
fn init_cli_sock_ctx(server: &str, port: u16) -> Result<TcpStream> {
    let context = format!("fail to connect to server {server}, port {port}");
    let mut last = None;
    for addr in sock::resolve_ipv4(server, port).context(&context)? {
        let s = sock::tcp_socket().context("fail to create client sock fd")?;
        println!("successfully create client sock fd: {}", s.as_raw_fd());
        match sock::connect_within(s, addr) {
            Ok(stream) => {
                println!(
                    "successfully connect to server, ip: {}, port: {port}",
                    addr.ip()
                );
                return Ok(stream);
            }
            Err(e) => last = Some(e),
        }
    }
    Err(last
        .unwrap_or_else(|| Error::msg("connect failed"))
        .context(&context))
}

/// sock.c `sock_serv_exchange_data`: send, then receive. Unlike the C
/// `recv`, a short read is continued, not an error or, in the C, silently
/// half-filled data.
fn sock_serv_exchange_data(sock: &mut TcpStream, local: &[u8], remote: &mut [u8]) -> Result<()> {
    sock_sync_data(sock, local, remote)
}

/// sock.c `sock_cli_exchange_data`: receive, then send, so each write meets
/// the server's read.
fn sock_cli_exchange_data(sock: &mut TcpStream, local: &[u8], remote: &mut [u8]) -> Result<()> {
    sock_sync_data(sock, &[], remote)?;
    sock_sync_data(sock, local, &mut [])
}

/// The exchange of this side: the server's or the client's. The messages
/// carry no length, so a side that waits in vain most likely has a peer
/// with another `-s` or another choice of GID: say so.
fn exchange_data(
    sock: &mut TcpStream,
    is_server: bool,
    local: &[u8],
    remote: &mut [u8],
) -> Result<()> {
    let result = if is_server {
        sock_serv_exchange_data(sock, local, remote)
    } else {
        sock_cli_exchange_data(sock, local, remote)
    };
    result.map_err(|e| {
        if e.is_timeout() {
            e.hint("do both sides use the same -s, and -g on both or neither?")
        } else {
            e
        }
    })
}

/// Exchange `struct conn_info` (with the GID appended when one is in use).
fn exchange_conn_info(sock: &mut TcpStream, config: &Config, local: &ConnInfo) -> Result<ConnInfo> {
    let mut remote = vec![0u8; ConnInfo::wire_size(local.gid.is_some())];
    exchange_data(sock, config.is_server(), &local.encode(), &mut remote)
        .context("fail to exchange conn info")?;
    let remote = ConnInfo::decode(&remote)?;
    println!("remote qp num: {}, lid: {}", remote.qp_num, remote.lid);
    if let Some(gid) = remote.gid {
        println!("remote gid: {}", gid.to_ipv6());
    }
    common::c_structs::check_qp_num(remote.qp_num).context("fail to exchange conn info")?;
    Ok(remote)
}

/// `ibv_modify_qp` INIT->RTR towards the peer's QP: by LID, plus a GRH when a
/// GID is in use (which RoCE requires).
fn modify_qp_to_rtr(qp: &Qp, remote: &ConnInfo, config: &Config, active_mtu: Mtu) -> Result<()> {
    let grh = match (remote.gid, config.conn.gid_idx) {
        (Some(dgid), Some(sgid_index)) => Some(Grh {
            dgid,
            flow_label: 0,
            sgid_index,
            hop_limit: 1,
            traffic_class: 0,
        }),
        _ => None,
    };
    qp.modify_to_rtr(&RtrAttr {
        // The original's 4096 fails on ports with a smaller active MTU (1024 on Soft-RoCE).
        path_mtu: Mtu::MTU_4096.min(active_mtu),
        dest_qp_num: remote.qp_num,
        rq_psn: 0,
        max_dest_rd_atomic: 1,
        min_rnr_timer: 12,
        ah_attr: AhAttr {
            dlid: remote.lid,
            sl: 0,
            src_path_bits: 0,
            static_rate: 0,
            port_num: config.conn.ib_port,
            grh,
        },
    })
    .context("fail to modify qp to RTR state")?;
    println!("[OK] modify qp to RTR state.");
    Ok(())
}

/// `ibv_modify_qp` RTR->RTS, with the original's timeout and retry counts.
fn modify_qp_to_rts(qp: &Qp) -> Result<()> {
    qp.modify_to_rts(&RtsAttr {
        timeout: 14,
        retry_cnt: 7,
        // Infinite, as the original: a C peer posts its receive late and
        // relies on it. Here each side posts before the peer can send, and a
        // wait that does not end is cut by POLL_TIMEOUT.
        rnr_retry: 7,
        sq_psn: 0,
        max_rd_atomic: 1,
    })
    .context("fail to modify qp to RTS state")?;
    println!("[OK] modify qp to RTS state.");
    Ok(())
}

/// `malloc` + `ibv_reg_mr`, with each side's access flags as the original
/// registers them; the server puts its message in.
fn reg_mr(pd: &Pd, config: &Config) -> Result<Mr> {
    let access = if config.is_server() {
        AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ
    } else {
        AccessFlags::LOCAL_WRITE
    };
    let mr = pd.reg_mr(config.size, access).context("fail to reg mr")?;
    println!("[OK] reg mr.");
    if config.is_server() {
        println!("\tva: {:#x}, len: {}", mr.addr(), mr.len());
        mr.write(0, &MSG[..MSG.len().min(config.size)])?;
    } else {
        println!(
            "\tva: {:#x}, len: {}, lkey: {}, rkey: {}",
            mr.addr(),
            mr.len(),
            mr.lkey(),
            mr.rkey()
        );
    }
    Ok(mr)
}

/// `ibv_post_recv` of `count` receives of the whole buffer. Done before the
/// exchange that lets the peer send, so no SEND can arrive before its receive.
fn post_recv(qp: &Qp, mr: &Mr, count: u32) -> Result<()> {
    let sge = mr.sge_all()?;
    for _ in 0..count {
        qp.post_recv_one(RECV_WR_ID, sge)
            .context("fail to post recv")?;
    }
    println!("[OK] post recv.");
    Ok(())
}

/// Exchange `struct mr_info`; the server prints the client's.
fn exchange_mr_info(sock: &mut TcpStream, config: &Config, mr: &Mr) -> Result<MrInfo> {
    let local = MrInfo {
        buf_addr: mr.addr(),
        buf_len: mr.len() as u64,
        rkey: mr.rkey(),
    };
    let mut remote = [0u8; MrInfo::SIZE];
    exchange_data(sock, config.is_server(), &local.encode(), &mut remote)
        .context("fail to exchange mr info")?;
    let remote = MrInfo::decode(&remote)?;
    // The original sends a message as long as its own buffer into the
    // peer's: with another -s it would fail (or truncate) only on the wire.
    if remote.buf_len != local.buf_len {
        return Err(Error::msg(format!(
            "fail to exchange mr info: the peer's buffer is {} bytes and ours {}: give both sides the same -s",
            remote.buf_len, local.buf_len
        )));
    }
    if config.is_server() {
        println!(
            "remote addr: {:#x}, len: {}, rkey: {}",
            remote.buf_addr, remote.buf_len, remote.rkey
        );
    }
    Ok(remote)
}

/// `ibv_post_send` of one signaled SEND of the whole buffer.
fn post_send(qp: &Qp, mr: &Mr) -> Result<()> {
    qp.post_send_one(SEND_WR_ID, SendOp::Send, mr.sge_all()?, SendFlags::SIGNALED)
        .context("fail to post send")?;
    println!("[OK] post send.");
    Ok(())
}

/// Busy-poll the CQ until it yields completions, for at most `POLL_TIMEOUT`
/// (the original's loop slept a second between tries). The clock is only
/// read every `POLL_SPINS_PER_CLOCK_CHECK` empty polls, so a completion that
/// comes quickly costs no clock read.
fn poll_cq_timeout(cq: &Cq, wcs: &mut [WorkCompletion]) -> Result<usize> {
    let mut spins: u32 = 0;
    let mut since: Option<Instant> = None;
    loop {
        let n = cq.poll_into(wcs)?;
        if n > 0 {
            return Ok(n);
        }
        spins = spins.wrapping_add(1);
        if spins % POLL_SPINS_PER_CLOCK_CHECK == 0 {
            match since {
                None => since = Some(Instant::now()),
                Some(t) if t.elapsed() >= POLL_TIMEOUT => {
                    return Err(Error::msg(format!(
                        "no completion within {} s (is the peer still running?)",
                        POLL_TIMEOUT.as_secs()
                    )))
                }
                Some(_) => {}
            }
        }
    }
}

/// A failed completion is an error (the original printed its status and exited 0).
fn check_wc(wc: &WorkCompletion) -> Result<()> {
    if wc.is_success() {
        return Ok(());
    }
    Err(Error::msg(format!(
        "wr id {} completed with status {} ({}), vendor syndrome 0x{:x}",
        wc.wr_id,
        wc.status.code(),
        wc.status_str(),
        wc.vendor_err
    )))
}

/// `ibv_poll_cq` for the one completion of the single-message run.
fn poll_cq(cq: &Cq, mr: &Mr, config: &Config) -> Result<()> {
    let mut wcs = [WorkCompletion::default(); 1];
    poll_cq_timeout(cq, &mut wcs).context("fail to poll cq")?;
    let wc = wcs[0];
    check_wc(&wc).context("fail to poll cq")?;
    println!("[OK] poll cq.");
    if config.is_server() {
        println!(
            "\twr id: {}, opcode: {}, qp num: {}, status: {}",
            wc.wr_id,
            wc.opcode.code(),
            wc.qp_num,
            wc.status.code()
        );
    } else {
        println!("\twr id: {}", wc.wr_id);
        let len = (wc.byte_len as usize).min(mr.len());
        // `%s` of a buffer that ends in "\n": the blank line after it is the original's.
        println!("\tbuf: {}", c_str_lossy(&mr.read(0, len)?));
    }
    Ok(())
}

/// Everything made by the steps, released by [`teardown`].
struct Resources {
    dev_idx: usize,
    ctx: IbContext,
    cq: Cq,
    pd: Pd,
    qp: Qp,
    mr: Mr,
    sock: TcpStream,
    listener: Option<Socket>,
}

/// The original's teardown, each line printed once its verb has run, and a
/// failing verb reported as the original does (`fail to ...`). The QP goes
/// before the MR, unlike in the original: a QP may still name the memory of
/// a request it has not completed, so the MR is released only after it.
fn teardown(res: Resources) -> Result<()> {
    let Resources {
        dev_idx,
        ctx,
        cq,
        pd,
        qp,
        mr,
        sock,
        listener,
    } = res;
    qp.destroy().context("fail to destroy qp")?;
    println!("[OK] destroy qp.");
    mr.destroy().context("fail to dereg mr")?;
    println!("[OK] dereg mr.");
    pd.destroy().context("fail to dealloc pd")?;
    println!("[OK] dealloc pd.");
    cq.destroy().context("fail to destroy cq")?;
    println!("[OK] destroy cq.");
    ctx.destroy()
        .context(format!("fail to close device {dev_idx}"))?;
    println!("[OK] close device {dev_idx}.");
    // The original shuts the sockets down; closing them does that.
    drop(sock);
    drop(listener);
    Ok(())
}

/// `main` of server.c and client.c, one step after the other.
fn run(config: &mut Config) -> Result<()> {
    let list = get_device_list()?;
    let (dev_idx, ctx) = open_device(&list, config)?;
    let (port_attr, gid) = query_port(&ctx, config)?;
    let cq = create_cq(&ctx, config)?;
    let pd = alloc_pd(&ctx)?;
    let qp = create_qp(&pd, &cq, config)?;
    modify_qp_to_init(&qp, config)?;

    let (mut sock, listener) = match &config.conn.server_name {
        None => {
            let listener = init_serv_sock_ctx(config.conn.tcp_port)?;
            (accept_sock_cli(&listener)?, Some(listener))
        }
        Some(server) => (init_cli_sock_ctx(server, config.conn.tcp_port)?, None),
    };

    let local = ConnInfo {
        lid: port_attr.lid,
        qp_num: qp.qp_num(),
        gid,
    };
    let remote = exchange_conn_info(&mut sock, config, &local)?;
    modify_qp_to_rtr(&qp, &remote, config, port_attr.active_mtu)?;
    modify_qp_to_rts(&qp)?;

    let mr = reg_mr(&pd, config)?;
    match config.iters {
        None if !config.is_server() => post_recv(&qp, &mr, 1)?,
        None => {}
        Some(_) => post_recv(&qp, &mr, pingpong::RX_DEPTH)?,
    }
    exchange_mr_info(&mut sock, config, &mr)?;

    match config.iters {
        None => {
            if config.is_server() {
                post_send(&qp, &mr)?;
            }
            poll_cq(&cq, &mr, config)?;
        }
        Some(iters) => pingpong::run(&qp, &cq, &mr, config, iters)?,
    }

    teardown(Resources {
        dev_idx,
        ctx,
        cq,
        pd,
        qp,
        mr,
        sock,
        listener,
    })?;
    drop(list);
    Ok(())
}

/// The command line and its description, as the original's usage() prints
/// it, with this port's `-s` and `-n`.
fn cli() -> Cli {
    ConnOpts::cli("ibv_sockets_pingpong", "  ", ConnUsage {
        port: format!("  -p, --port <port>          listen on/connect to port <port> (default {DEFAULT_TCP_PORT})"),
        ib_dev: "  -d, --ib-dev <dev>         use IB device <dev> (default the first device, index 0)".into(),
        ib_port: "  -i, --ib-port <port>       use port <port> of IB device (default 1)".into(),
        gid_idx: "  -g, --gid-idx <gid index>  local port gid index (default none: LID only; on a RoCE port the RoCE v2 IPv4 GID is chosen)".into(),
        help: "  -h, --help                 print this help".into(),
    }, vec![
        Opt::value("s", "size", format!("  -s, --size <size>          size of message to exchange (default {DEFAULT_SIZE})")),
        Opt::value("n", "iters", "  -n, --iters <iters>        ping-pong <iters> times and print the rates (default one message, server to client)"),
    ])
}

/// The configuration the command line asks for; `Err` carries the
/// one-line reason.
fn read_config(m: &getopts::Matches) -> std::result::Result<Parsed<Config>, String> {
    use common::opts::{last, parse_in_range};
    let mut config = Config {
        conn: ConnOpts::read(m, DEFAULT_TCP_PORT)?,
        ..Config::default()
    };
    if let Some(v) = last(m, "s") {
        config.size = parse_in_range(&v, 1, MAX_MSG_SIZE).ok_or_else(|| {
            format!("invalid message size '{v}' for -s (expected 1..{MAX_MSG_SIZE})")
        })? as usize;
    }
    if let Some(v) = last(m, "n") {
        config.iters = Some(parse_in_range(&v, 1, i32::MAX as u64).ok_or_else(|| {
            format!(
                "invalid iteration count '{v}' for -n (expected 1..{})",
                i32::MAX
            )
        })? as u32);
    }
    Ok(Parsed::Run(config))
}

fn main() -> ExitCode {
    common::cli::main(&cli(), read_config, |mut config| {
        common::exit_code(run(&mut config))
    })
}

#[cfg(test)]
mod tests;
