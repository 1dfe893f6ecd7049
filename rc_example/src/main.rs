//! RDMA_RC_example: Send, Receive, RDMA Read and RDMA Write over an RC QP.
//!
//! A port of the example program of the Mellanox *RDMA Aware Networks
//! Programming User Manual* Rev 1.4, section 7.2 (synopsis in 7.1). Each step
//! function keeps the manual's name and cites its synopsis section.
//!
//! The server sends a message with SEND; the client receives it, then reads the
//! server's buffer with RDMA Read and overwrites it with RDMA Write. Connection
//! data (QP number, LID, GID, buffer address and rkey) travels over a TCP socket.

use std::net::TcpStream;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use common::cli::{Cli, Parsed};
use common::opts::{ConnOpts, ConnUsage};
// stdout that cannot be written ends the program in one line, not a panic.
use common::c_structs::CmConData;
use common::println;
use common::sock::{sock_connect, sock_sync_data};
use common::verbs::{
    c_str_lossy, AccessFlags, AhAttr, Context as IbContext, Cq, DeviceList, Gid, Grh, InitAttr,
    LinkLayer, Mr, Mtu, Pd, PortAttr, Qp, QpInitAttr, QpType, RtrAttr, RtsAttr, SendFlags, SendOp,
};
use common::{Error, Result, ResultExt};

/// Poll CQ timeout in milliseconds (2 seconds).
const MAX_POLL_CQ_TIMEOUT: u64 = 2000;
/// The message the server SENDs.
const MSG: &str = "SEND operation ";
/// What the server leaves for the client's RDMA Read.
const RDMAMSGR: &str = "RDMA read operation ";
/// What the client RDMA Writes into the server's buffer.
const RDMAMSGW: &str = "RDMA write operation";
/// Buffer, MR and transfer size: the longest message with its NUL (21 bytes).
/// The manual uses `strlen(MSG) + 1` (16), overflows it with the 21-byte
/// messages and transfers them truncated.
const MSG_SIZE: usize = const_max(const_max(MSG.len(), RDMAMSGR.len()), RDMAMSGW.len()) + 1;

const fn const_max(a: usize, b: usize) -> usize {
    if a > b {
        a
    } else {
        b
    }
}

/// Default TCP port (the manual's `config`; its usage text wrongly says 18515).
const DEFAULT_TCP_PORT: u16 = 19875;

/// Structure of test parameters (`struct config_t`): its fields are the
/// options both verbs-only examples share, so it is theirs.
type Config = ConnOpts;

/// System resources (`struct resources`). Fields are declared, and so
/// dropped, in the order `resources_destroy` releases them.
struct Resources {
    /// QP handle.
    qp: Qp,
    /// MR handle for buf (the MR owns the buffer).
    mr: Mr,
    /// CQ handle.
    cq: Cq,
    /// PD handle.
    pd: Pd,
    /// Device handle.
    ib_ctx: IbContext,
    /// TCP socket.
    sock: TcpStream,
    /// IB port attributes.
    port_attr: PortAttr,
    /// Values to connect to the remote side.
    remote_props: CmConData,
}

/// 7.1.13 poll_completion: poll the CQ until a completion is found or
/// `MAX_POLL_CQ_TIMEOUT` milliseconds have passed.
fn poll_completion(res: &Resources) -> Result<()> {
    let start = Instant::now();
    let timeout = Duration::from_millis(MAX_POLL_CQ_TIMEOUT);
    let wc = loop {
        if let Some(wc) = res.cq.poll_one().context("poll CQ failed")? {
            break wc;
        }
        if start.elapsed() >= timeout {
            return Err(Error::msg(
                "completion wasn't found in the CQ after timeout",
            ));
        }
    };
    println!(
        "completion was found in CQ with status 0x{:x}",
        wc.status.code()
    );
    if !wc.is_success() {
        return Err(Error::msg(format!(
            "got bad completion with status: 0x{:x} ({}), vendor syndrome: 0x{:x}",
            wc.status.code(),
            wc.status_str(),
            wc.vendor_err
        )));
    }
    Ok(())
}

/// The send-side operations of this example.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opcode {
    Send,
    RdmaRead,
    RdmaWrite,
}

/// 7.1.12 post_send: post a SEND, RDMA Read or RDMA Write of the whole buffer.
fn post_send(res: &Resources, opcode: Opcode) -> Result<()> {
    let sge = res.mr.sge(0, MSG_SIZE)?;
    let remote_addr = res.remote_props.addr;
    let rkey = res.remote_props.rkey;
    let op = match opcode {
        Opcode::Send => SendOp::Send,
        Opcode::RdmaRead => SendOp::RdmaRead { remote_addr, rkey },
        Opcode::RdmaWrite => SendOp::RdmaWrite { remote_addr, rkey },
    };
    // There is a Receive Request in the responder side, so we won't get any into RNR flow.
    res.qp
        .post_send(0, op, &[sge], SendFlags::SIGNALED)
        .context("failed to post SR")?;
    match opcode {
        Opcode::Send => println!("Send Request was posted"),
        Opcode::RdmaRead => println!("RDMA Read Request was posted"),
        Opcode::RdmaWrite => println!("RDMA Write Request was posted"),
    }
    Ok(())
}

/// 7.1.8 post_receive: post a receive for the whole buffer.
fn post_receive(res: &Resources) -> Result<()> {
    let sge = res.mr.sge(0, MSG_SIZE)?;
    res.qp.post_recv(0, &[sge]).context("failed to post RR")?;
    println!("Receive Request was posted");
    Ok(())
}

/// 7.1.4 resources_create: open the device and query the port (first, so
/// that a bad device never waits for a peer), connect the TCP socket, and
/// create the PD, CQ, registered buffer and QP.
///
/// (7.1.3 resources_init has nothing to do here: this returns either all the
/// resources or none, and what was built before a failure is released by Drop.)
fn resources_create(config: &mut Config) -> Result<Resources> {
    // The device and its port are opened before the TCP wait, so that a
    // misspelt -d or a host without RDMA fails at once rather than once a
    // peer has connected; the manual's lines still come in its order.
    // Get device names in the system.
    let dev_list = DeviceList::new().context("failed to get IB devices list")?;
    // If there isn't any IB device in host.
    if dev_list.is_empty() {
        return Err(Error::msg("found 0 device(s)"));
    }
    let found = dev_list.len();
    // Search for the specific device we want to work with.
    let first_found = match (&config.dev_name, dev_list.get(0)) {
        (None, Some(first)) => Some(first.name()),
        _ => None,
    };
    if let Some(name) = &first_found {
        config.dev_name = Some(name.clone());
    }
    let dev_name = config.dev_name.clone().unwrap_or_default();
    let ib_dev = dev_list
        .find(Some(&dev_name))
        .ok_or_else(|| Error::msg(format!("IB device {dev_name} wasn't found")))?;

    // Get device handle.
    let ib_ctx = ib_dev
        .open()
        .context(format!("failed to open device {dev_name}"))?;
    // We are now done with the device list, free it.
    drop(dev_list);

    // Query port properties.
    let port_attr = ib_ctx
        .query_port(config.ib_port)
        .context(format!("ibv_query_port on port {} failed", config.ib_port))?;
    // A -g that names no GID is refused here too, before the TCP wait.
    if let Some(gid_idx) = config.gid_idx {
        check_gid(&ib_ctx, config.ib_port, gid_idx)?;
    }

    let sock = match &config.server_name {
        Some(server) => sock_connect(Some(server), config.tcp_port).context(format!(
            "failed to establish TCP connection to server {server}, port {}",
            config.tcp_port
        ))?,
        None => {
            println!("waiting on port {} for TCP connection", config.tcp_port);
            sock_connect(None, config.tcp_port).context(format!(
                "failed to establish TCP connection with client on port {}",
                config.tcp_port
            ))?
        }
    };
    println!("TCP connection was established");
    // The search ran before the TCP wait; its lines come where the manual
    // prints them, as printing them there would put them before
    // "waiting on port" (README, difference 16).
    println!("searching for IB devices in host");
    println!("found {found} device(s)");
    if let Some(name) = first_found {
        println!("device not specified, using first one found: {name}");
    }

    // Allocate Protection Domain.
    let pd = ib_ctx.alloc_pd().context("ibv_alloc_pd failed")?;

    // Each side will send only one WR, so Completion Queue with 1 entry is enough.
    let cq_size = 1;
    let cq = ib_ctx
        .create_cq(cq_size, None)
        .context(format!("failed to create CQ with {cq_size} entries"))?;

    // Allocate and register the memory buffer that will hold the data.
    let mr_flags = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_READ | AccessFlags::REMOTE_WRITE;
    let mr = pd
        .reg_mr(MSG_SIZE, mr_flags)
        .context(format!("ibv_reg_mr failed with mr_flags=0x{mr_flags:x}"))?;
    // Only in the server side put the message in the memory buffer.
    if config.server_name.is_none() {
        mr.write(0, MSG.as_bytes())?;
        println!("going to send the message: \"{MSG}\"");
    }
    println!(
        "MR was registered with addr=0x{:x}, lkey=0x{:x}, rkey=0x{:x}, flags=0x{:x}",
        mr.addr(),
        mr.lkey(),
        mr.rkey(),
        mr_flags
    );

    // Create the Queue Pair.
    let qp = pd
        .create_qp(&QpInitAttr {
            sq_sig_all: true,
            ..QpInitAttr::new(QpType::Rc, 1).on_cq(&cq)
        })
        .context("failed to create QP")?;
    println!("QP was created, QP number=0x{:x}", qp.qp_num());

    Ok(Resources {
        qp,
        mr,
        cq,
        pd,
        ib_ctx,
        sock,
        port_attr,
        remote_props: CmConData::default(),
    })
}

/// 7.1.7 modify_qp_to_init: transition the QP from RESET to INIT.
fn modify_qp_to_init(qp: &Qp, config: &Config) -> Result<()> {
    qp.modify_to_init(&InitAttr {
        port_num: config.ib_port,
        pkey_index: 0,
        access: AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_READ | AccessFlags::REMOTE_WRITE,
    })
    .context("failed to modify QP state to INIT")
}

/// 7.1.10 modify_qp_to_rtr: transition the QP from INIT to RTR, pointing it at
/// the remote QP (by LID, and by GID when one is in use: mandatory on RoCE).
fn modify_qp_to_rtr(
    qp: &Qp,
    remote_qpn: u32,
    dlid: u16,
    dgid: &Gid,
    config: &Config,
    active_mtu: Mtu,
) -> Result<()> {
    let grh = config.gid_idx.map(|sgid_index| Grh {
        dgid: *dgid,
        flow_label: 0,
        hop_limit: 1,
        sgid_index,
        traffic_class: 0,
    });
    qp.modify_to_rtr(&RtrAttr {
        // The manual's 256, which no port's active MTU is below.
        path_mtu: Mtu::MTU_256.min(active_mtu),
        dest_qp_num: remote_qpn,
        rq_psn: 0,
        max_dest_rd_atomic: 1,
        min_rnr_timer: 0x12,
        ah_attr: AhAttr {
            dlid,
            sl: 0,
            src_path_bits: 0,
            static_rate: 0,
            port_num: config.ib_port,
            grh,
        },
    })
    .context("failed to modify QP state to RTR")
}

/// 7.1.11 modify_qp_to_rts: transition the QP from RTR to RTS.
fn modify_qp_to_rts(qp: &Qp) -> Result<()> {
    qp.modify_to_rts(&RtsAttr {
        timeout: 0x12,
        retry_cnt: 6,
        rnr_retry: 0,
        sq_psn: 0,
        max_rd_atomic: 1,
    })
    .context("failed to modify QP state to RTS")
}

/// The GID that `-g` names, which must be there (not all zeros).
fn check_gid(ib_ctx: &IbContext, ib_port: u8, gid_idx: u8) -> Result<Gid> {
    let context = || format!("could not get gid for port {ib_port}, index {gid_idx}");
    let gid = ib_ctx
        .query_gid(ib_port, i32::from(gid_idx))
        .context(context())?;
    if gid.is_zero() {
        return Err(Error::msg(format!(
            "{}: the entry is empty (see `ibv_devinfo -v` for the port's GIDs)",
            context()
        )));
    }
    Ok(gid)
}

/// On a RoCE port the QP needs a GID; when the user gave none, pick the
/// RoCE v2 IPv4-mapped one and say so.
fn choose_gid_for_roce(res: &Resources, config: &mut Config) -> Result<()> {
    if config.gid_idx.is_none() {
        config.gid_idx =
            common::gid::default_gid_index(&res.ib_ctx, config.ib_port, &res.port_attr)?;
    }
    Ok(())
}

/// 7.1.6 connect_qp: exchange connection data over TCP, then take the QP to
/// INIT (posting the client's receive), RTR and RTS, and sync once more.
fn connect_qp(res: &mut Resources, config: &mut Config) -> Result<()> {
    choose_gid_for_roce(res, config)?;
    let my_gid = match config.gid_idx {
        Some(gid_idx) => check_gid(&res.ib_ctx, config.ib_port, gid_idx)?,
        None => Gid::default(),
    };

    // Exchange using TCP sockets info required to connect QPs.
    let local_con_data = CmConData {
        addr: res.mr.addr(),
        rkey: res.mr.rkey(),
        qp_num: res.qp.qp_num(),
        lid: res.port_attr.lid,
        gid: my_gid,
    };
    println!("\nLocal LID = 0x{:x}", res.port_attr.lid);
    let mut tmp_con_data = [0u8; CmConData::SIZE];
    sock_sync_data(&mut res.sock, &local_con_data.encode(), &mut tmp_con_data)
        .context("failed to exchange connection data between sides")?;
    let remote_con_data = CmConData::decode(&tmp_con_data)?;

    // Save the remote side attributes, we will need them for the post SR.
    res.remote_props = remote_con_data;
    println!("Remote address = 0x{:x}", remote_con_data.addr);
    println!("Remote rkey = 0x{:x}", remote_con_data.rkey);
    println!("Remote QP number = 0x{:x}", remote_con_data.qp_num);
    println!("Remote LID = 0x{:x}", remote_con_data.lid);
    if config.gid_idx.is_some() {
        println!("Remote GID = {}", remote_con_data.gid);
    }
    let roce = res.port_attr.link_layer == LinkLayer::Ethernet;
    check_remote_con_data(&remote_con_data, roce)?;

    modify_qp_to_init(&res.qp, config).context("change QP state to INIT failed")?;

    // Let the client post RR to be prepared for incoming messages.
    if config.server_name.is_some() {
        post_receive(res)?;
    }

    modify_qp_to_rtr(
        &res.qp,
        remote_con_data.qp_num,
        remote_con_data.lid,
        &remote_con_data.gid,
        config,
        res.port_attr.active_mtu,
    )?;
    modify_qp_to_rts(&res.qp)?;
    println!("QP state was change to RTS");

    // Sync to make sure that both sides are in states that they can connect to prevent packet loss.
    sync_byte(&mut res.sock, b'Q').context("sync error after QPs are were moved to RTS")
}

/// What the manual takes on trust from the peer's `cm_con_data_t`: a QP
/// number is 24 bits and never 0, and RoCE addresses by GID, so a peer
/// without one (no `-g` on its side) cannot be reached.
fn check_remote_con_data(remote: &CmConData, roce: bool) -> Result<()> {
    common::c_structs::check_qp_num(remote.qp_num)?;
    if roce && remote.gid == Gid::default() {
        return Err(Error::msg(
            "the peer sent no GID, which a RoCE port needs: give the peer -g",
        ));
    }
    Ok(())
}

/// The manual's one-byte syncs ('Q', 'R', 'W'): both sides send the same
/// byte at the same point, so another byte means the two sides are not at
/// the same step, and the barrier must not be passed.
fn sync_byte(sock: &mut TcpStream, byte: u8) -> Result<()> {
    let mut peer = [0u8; 1];
    sock_sync_data(sock, &[byte], &mut peer)?;
    if peer[0] != byte {
        return Err(Error::msg(format!(
            "the peer sent {:?} where both sides send {:?}: the two sides are out of step",
            char::from(peer[0]),
            char::from(byte)
        )));
    }
    Ok(())
}

/// 7.1.14 resources_destroy: release everything, children first (QP, MR and
/// its buffer, CQ, PD, device context, socket), as the manual does: every
/// step is tried, and the first failure is reported with the manual's words.
fn resources_destroy(res: Resources) -> Result<()> {
    let Resources {
        qp,
        mr,
        cq,
        pd,
        ib_ctx,
        sock,
        ..
    } = res;
    let steps = [
        qp.destroy().context("failed to destroy QP"),
        mr.destroy().context("failed to deregister MR"),
        cq.destroy().context("failed to destroy CQ"),
        pd.destroy().context("failed to deallocate PD"),
        ib_ctx.destroy().context("failed to close device context"),
    ];
    // close() of a TCP socket reports nothing Rust's drop could act on.
    drop(sock);
    steps
        .into_iter()
        .collect::<Result<Vec<()>>>()
        .map(drop)
        .context("failed to destroy resources")
}

/// 7.1.2 print_config: print out configuration information.
fn print_config(config: &Config) {
    println!(" ------------------------------------------------");
    println!(
        " Device name : \"{}\"",
        config.dev_name.as_deref().unwrap_or("(first device found)")
    );
    println!(" IB port : {}", config.ib_port);
    if let Some(server) = &config.server_name {
        println!(" IP : {server}");
    }
    println!(" TCP port : {}", config.tcp_port);
    if let Some(gid_idx) = config.gid_idx {
        println!(" GID index : {gid_idx}");
    }
    println!(" ------------------------------------------------\n");
}

/// The command line (7.1.1) and its description, as the original's usage()
/// prints it.
fn cli() -> Cli {
    ConnOpts::cli("rc_example", " ", ConnUsage {
        port: format!(" -p, --port <port>              listen on/connect to port <port> (default {DEFAULT_TCP_PORT})"),
        ib_dev: " -d, --ib-dev <dev>             use IB device <dev> (default first device found)".into(),
        ib_port: " -i, --ib-port <port>           use port <port> of IB device (default 1)".into(),
        gid_idx: " -g, --gid-idx <gid index>      gid index to be used in GRH (default not used; on a RoCE port the RoCE v2 IPv4 GID is chosen)".into(),
        help: " -h, --help                     print this help".into(),
    }, Vec::new())
}

/// The configuration the command line asks for: options override
/// `config`'s defaults; a trailing server name selects client mode. `Err`
/// carries the one-line reason.
fn read_config(m: &getopts::Matches) -> std::result::Result<Parsed<Config>, String> {
    Ok(Parsed::Run(ConnOpts::read(m, DEFAULT_TCP_PORT)?))
}

/// The main flow of 7.1.1 after option parsing and print_config.
fn run(config: &mut Config) -> Result<()> {
    // Create resources before using them.
    let mut res = resources_create(config).context("failed to create resources")?;
    let result = run_test(&mut res, config);
    // A failed test is the error to report; teardown failures come second.
    result.and(resources_destroy(res))
}

fn run_test(res: &mut Resources, config: &mut Config) -> Result<()> {
    // Connect the QPs.
    connect_qp(res, config).context("failed to connect QPs")?;

    // Let the server post the SR.
    if config.server_name.is_none() {
        post_send(res, Opcode::Send).context("failed to post sr")?;
    }

    // In both sides we expect to get a completion.
    poll_completion(res).context("poll completion failed")?;

    // After polling the completion we have the message in the client buffer too.
    if config.server_name.is_some() {
        println!("Message is: '{}'", c_str_lossy(&res.mr.to_vec()));
    } else {
        // Setup server buffer with read message.
        res.mr.write(0, RDMAMSGR.as_bytes())?;
        res.mr.write(RDMAMSGR.len(), &[0])?;
    }

    // Sync so we are sure server side has data ready before client tries to read it.
    sync_byte(&mut res.sock, b'R').context("sync error before RDMA ops")?;

    // Now the client performs an RDMA read and then write on server.
    // Note that the server has no idea these events have occurred.
    if config.server_name.is_some() {
        // First we read contents of server's buffer.
        post_send(res, Opcode::RdmaRead).context("failed to post SR 2")?;
        poll_completion(res).context("poll completion failed 2")?;
        println!(
            "Contents of server's buffer: '{}'",
            c_str_lossy(&res.mr.to_vec())
        );

        // Now we replace what's in the server's buffer.
        res.mr.write(0, RDMAMSGW.as_bytes())?;
        res.mr.write(RDMAMSGW.len(), &[0])?;
        println!("Now replacing it with: '{RDMAMSGW}'");
        post_send(res, Opcode::RdmaWrite).context("failed to post SR 3")?;
        poll_completion(res).context("poll completion failed 3")?;
    }

    // Sync so server will know that client is done mucking with its memory.
    sync_byte(&mut res.sock, b'W').context("sync error after RDMA ops")?;
    if config.server_name.is_none() {
        println!(
            "Contents of server buffer: '{}'",
            c_str_lossy(&res.mr.to_vec())
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    common::cli::main(&cli(), read_config, run_main)
}

/// main after the options: print them, run, print the result.
fn run_main(mut config: Config) -> ExitCode {
    // Print the used parameters for info.
    print_config(&config);

    let rc = match run(&mut config) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("{e}");
            1
        }
    };
    println!("\ntest result is {rc}");
    if rc == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests;
