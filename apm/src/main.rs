//! apm: Automatic Path Migration over an rdma_cm connection.
//!
//! A port of the example program of the Mellanox *RDMA Aware Networks
//! Programming User Manual* Rev 1.4, section 8.1 "Automatic Path Migration
//! (APM)". Each step function keeps the manual's name.
//!
//! The basic flow: create a connection between client and server; load an
//! alternate path on each side; send back and forth; cause the path to be
//! migrated (by pulling the cable of the primary port, or with `-m`, by
//! `ibv_modify_qp(path_mig_state = IBV_MIG_MIGRATED)` on the client); and
//! complete the sends on the alternate path.
//!
//! On RoCE ports the kernel accepts no alternate path; the program says so
//! in one line and does the exchange without APM.

use common::cli::{Cli, Parsed};
use common::opts::{opt_number, set_number, ExchangeOpts};
// stdout that cannot be written ends the program in one line, not a panic.
use common::println;
use common::signals::TICK;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use common::cm::{AddrInfo, CmId, ConnParam};
use common::verbs::{
    first_failure, AsyncEventType, Context as IbContext, Destroy, DeviceCapFlags, LinkLayer, Mr,
    PortState, Qp, QpInitAttr, QpType, SendFlags, SendOp,
};
use common::{Error, Result, ResultExt};

/// Default parameter values.
const DEFAULT_MSG_LENGTH: usize = 1000000;
const DEFAULT_MSEC_DELAY: u32 = 500;

/// How long `rdma_connect` / `rdma_accept` wait for the peer's answer.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a completion is awaited, on top of the peer's `-w` pause: the
/// manual warns that a migration after a pulled cable may take up to a minute.
const COMPLETION_TIMEOUT: Duration = Duration::from_secs(120);

/// User parameters (the first half of `struct context`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Config {
    /// `-s`, `-a`, `-p`, `-c`, `-l`, as 8.3 has them.
    base: ExchangeOpts,
    msec_delay: u32,
    alt_srcport: u8,
    alt_dlid: u16,
    /// `-1` in C: never.
    migrate_after: Option<u32>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            base: ExchangeOpts::defaults(DEFAULT_MSG_LENGTH),
            msec_delay: DEFAULT_MSEC_DELAY,
            alt_srcport: 0,
            alt_dlid: 0,
            migrate_after: None,
        }
    }
}

impl Config {
    /// The alternate path was given on the command line (`-d` and `-r`), so
    /// neither the local ports nor the peer's private data are consulted.
    fn alt_path_given(&self) -> bool {
        self.alt_dlid != 0 && self.alt_srcport != 0
    }
}

/// The async event thread and its stop flag.
struct AsyncThread {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<()>,
}

impl AsyncThread {
    /// Stop the thread and wait for it (the C program never stops it).
    fn stop(self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.handle.join();
    }
}

/// Resources used in the example (the second half of `struct context`).
struct Context {
    /// Alternate path details: the remote DLID and the local port.
    alt_dlid: u16,
    alt_srcport: u8,
    /// The DLID of our own alternate port, sent to the peer.
    my_alt_dlid: u16,
    qp: Qp,
    id: CmId,
    listen_id: Option<CmId>,
}

/// 8.1 async_event_thread: print the asynchronous events of the device,
/// migration ones by name, until told to stop.
fn async_event_thread(verbs: IbContext, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::SeqCst) {
        let event = match verbs.get_async_event(Some(TICK)) {
            Ok(Some(ev)) => ev,
            Ok(None) => continue,
            Err(e) => {
                eprintln!("{e}");
                break;
            }
        };
        match event.event_type() {
            AsyncEventType::PathMig => println!("QP path migrated"),
            AsyncEventType::PathMigErr => println!("QP path migration error"),
            _ => println!("Async Event {}", event.number()),
        }
        // The event was acked as it was read (ibv_ack_async_event).
    }
}

/// 8.1 get_alt_dlid_from_private_data: the DLID the peer sent (2 bytes,
/// network order). The CM pads private data (a request arrives as 56 bytes
/// over RoCE), so anything of at least 2 bytes is taken.
fn get_alt_dlid_from_private_data(private_data: &[u8]) -> Result<u16> {
    match private_data {
        [hi, lo, ..] => Ok(u16::from_be_bytes([*hi, *lo])),
        _ => Err(Error::msg(format!(
            "unexpected private data len: {}",
            private_data.len()
        ))),
    }
}

/// 8.1 get_alt_port_details: check that the device supports APM, then pick
/// an active port other than the QP's (or the QP's own if there is no
/// other) as the alternate port, and note its LID for the peer.
fn get_alt_port_details(ctx: &mut Context) -> Result<()> {
    let verbs = ctx
        .id
        .verbs()
        .ok_or_else(|| Error::msg("the connection has no RDMA device"))?;
    let dev_attr = verbs.query_device()?;

    // Query the QP to determine which port we are bound to.
    let qp_port = ctx.qp.query_path()?.port_num;

    // Verify the APM is supported by the HCA. Many RoCE devices do not set
    // the flag; there the kernel refuses alternate paths anyway, which
    // load_alt_path reports before going on without APM, so only an
    // InfiniBand port stops here.
    if !dev_attr.cap_flags.contains(DeviceCapFlags::AUTO_PATH_MIG) && !is_roce(ctx, qp_port) {
        return Err(Error::msg("device does not support auto path migration!"));
    }

    for i in 1..=dev_attr.phys_port_cnt {
        // Query all ports until we find one in the active state that is not
        // the port we are currently connected to.
        let port_attr = verbs.query_port(i)?;
        if port_attr.state == PortState::Active {
            ctx.my_alt_dlid = port_attr.lid;
            ctx.alt_srcport = i;
            if qp_port != i {
                break;
            }
        }
    }
    Ok(())
}

/// 8.1 load_alt_path: load the alternate path (the current path with the
/// alternate port and DLID) and set the migration state to REARM.
///
/// Returns whether APM is armed: on a RoCE port the kernel refuses
/// alternate paths (EINVAL), which is said in one line, and the exchange
/// goes on without APM.
fn load_alt_path(ctx: &Context) -> Result<bool> {
    // Query to get the current attributes of the QP.
    let primary = ctx.qp.query_path()?;

    // Initialize the alternate path attributes with the current path
    // attributes; if an alternate path was supplied, set the source port
    // and the DLID.
    let mut alt = primary;
    if ctx.alt_srcport != 0 {
        alt.port_num = ctx.alt_srcport;
    }
    // The alternate path leaves from that port: the kernel refuses an
    // address vector for another one (the original copied the primary's).
    alt.ah_attr.port_num = alt.port_num;
    if ctx.alt_dlid != 0 {
        alt.ah_attr.dlid = ctx.alt_dlid;
    }

    println!(
        "loading alt path - local port: {}, dlid: {}",
        alt.port_num, alt.ah_attr.dlid
    );

    let port = primary.port_num;
    match ctx.qp.load_alt_path(&alt) {
        Ok(()) => Ok(true),
        Err(e) if e.errno() == Some(nix::errno::Errno::EINVAL as i32) && is_roce(ctx, port) => {
            let dev = ctx
                .id
                .verbs()
                .map(|v| v.name().to_string())
                .unwrap_or_default();
            println!(
                "APM is not available on this port: {dev} port {port} is RoCE (Ethernet), where the kernel accepts no alternate path ({e}); continuing without APM"
            );
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

/// Whether `port` of the connection's device runs RoCE (an Ethernet link layer).
fn is_roce(ctx: &Context, port: u8) -> bool {
    ctx.id
        .verbs()
        .and_then(|v| v.query_port(port).ok())
        .is_some_and(|a| a.link_layer == LinkLayer::Ethernet)
}

/// The message buffers (the first half of `struct context`'s resources).
struct Buffers {
    send_mr: Mr,
    recv_mr: Mr,
}

/// 8.1 reg_mem: the send buffer (filled with 0x12) and the receive buffer,
/// registered with `rdma_reg_msgs`.
fn reg_mem(cfg: &Config, ctx: &Context) -> Result<Buffers> {
    let send_mr = ctx.id.reg_msgs(cfg.base.msg_length)?;
    send_mr.fill(0x12);
    let recv_mr = ctx.id.reg_msgs(cfg.base.msg_length)?;
    Ok(Buffers { send_mr, recv_mr })
}

/// The QP attributes of both sides: one send and one receive in flight,
/// on CQs that librdmacm creates.
fn qp_init_attr() -> QpInitAttr<'static> {
    QpInitAttr::new(QpType::Rc, 1)
}

/// 8.1 getaddrinfo_and_create_ep: look the address up and create the
/// endpoint (the client's with its QP; the server's is the listener, whose
/// QP attributes serve the connection that `rdma_get_request` returns).
fn getaddrinfo_and_create_ep(cfg: &Config) -> Result<(CmId, Option<Qp>)> {
    println!("rdma_getaddrinfo");
    let rai = AddrInfo::new(
        cfg.base.server_name.as_deref(),
        &cfg.base.server_port,
        cfg.base.server,
    )?;
    println!("rdma_create_ep");
    CmId::create_ep(&rai, Some(&qp_init_attr()))
}

/// 8.1 get_connect_request: listen and wait for the client's connect
/// request; the alternate DLID comes from its private data unless given.
fn get_connect_request(cfg: &Config, listen_id: CmId) -> Result<Context> {
    println!("rdma_listen");
    listen_id.listen(4)?;

    println!("rdma_get_request");
    let req = listen_id
        .get_request(None)?
        .ok_or_else(|| Error::msg("rdma_get_request: no connection request"))?;
    let qp = req
        .qp
        .ok_or_else(|| Error::msg("rdma_get_request created no QP"))?;
    let mut ctx = Context {
        alt_dlid: cfg.alt_dlid,
        alt_srcport: cfg.alt_srcport,
        my_alt_dlid: 0,
        qp,
        id: req.id,
        listen_id: Some(listen_id),
    };

    // If the alternate path info was not set on the command line, get it
    // from the private data.
    if !cfg.alt_path_given() {
        ctx.alt_dlid = get_alt_dlid_from_private_data(&req.private_data)?;
    }
    Ok(ctx)
}

/// 8.1 establish_connection: post a receive for the first send, then
/// `rdma_accept` (server) or `rdma_connect` (client) with the DLID of our
/// alternate port as private data; the client takes the server's from the
/// reply.
fn establish_connection(cfg: &Config, ctx: &mut Context, bufs: &Buffers) -> Result<()> {
    // Post a receive to catch the first send.
    post_recv(ctx, bufs)?;

    // Send the DLID for the alternate port in the private data: exactly its
    // two bytes, in network order.
    let conn_param = ConnParam {
        private_data: ctx.my_alt_dlid.to_be_bytes().to_vec(),
        responder_resources: 2,
        initiator_depth: 2,
        retry_count: 5,
        rnr_retry_count: 5,
        ..ConnParam::default()
    };

    if cfg.base.server {
        println!("rdma_accept");
        ctx.id.accept_sync(Some(&conn_param), CONNECT_TIMEOUT)?;
    } else {
        println!("rdma_connect");
        let reply = ctx.id.connect_sync(Some(&conn_param), CONNECT_TIMEOUT)?;
        // If the alternate path info was not set on the command line, get
        // it from the private data.
        if !cfg.alt_path_given() {
            ctx.alt_dlid = get_alt_dlid_from_private_data(&reply)?;
        }
    }
    Ok(())
}

fn post_recv(ctx: &Context, bufs: &Buffers) -> Result<()> {
    ctx.qp
        .post_recv_one(0, bufs.recv_mr.sge_all()?)
        .context("rdma_post_recv")
}

fn completion_timeout(cfg: &Config) -> Duration {
    COMPLETION_TIMEOUT + Duration::from_millis(u64::from(cfg.msec_delay))
}

/// 8.1 send_msg: send the whole buffer and wait for its completion.
fn send_msg(cfg: &Config, ctx: &Context, bufs: &Buffers) -> Result<()> {
    ctx.qp
        .post_send_one(
            0,
            SendOp::Send,
            bufs.send_mr.sge_all()?,
            SendFlags::SIGNALED,
        )
        .context("rdma_post_send")?;
    let wc = ctx.qp.get_send_comp(completion_timeout(cfg))?;
    if !wc.is_success() {
        return Err(Error::msg(format!(
            "rdma_get_send_comp: work completion status {}",
            wc.status_str()
        )));
    }
    Ok(())
}

/// 8.1 recv_msg: wait for a receive completion and post a new receive.
fn recv_msg(cfg: &Config, ctx: &Context, bufs: &Buffers) -> Result<()> {
    let wc = ctx.qp.get_recv_comp(completion_timeout(cfg))?;
    if !wc.is_success() {
        return Err(Error::msg(format!(
            "rdma_get_recv_comp: work completion status {}",
            wc.status_str()
        )));
    }
    post_recv(ctx, bufs)
}

/// The client's manual migration: `path_mig_state = IBV_MIG_MIGRATED`.
fn migrate(ctx: &Context, apm_loaded: bool) -> Result<()> {
    if !apm_loaded {
        println!(
            "nothing to migrate: no alternate path is loaded (APM is not available on this port)"
        );
        return Ok(());
    }
    ctx.qp.migrate()
}

/// 8.1 main, after the checks of the options: connect, load the alternate
/// path, exchange `msg_count` messages, migrate on request, disconnect.
fn run(cfg: &Config) -> Result<()> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    cfg.base.check_memory(&meminfo).map_err(Error::msg)?;
    cfg.base.check_memlock().map_err(Error::msg)?;
    let (id, qp) = getaddrinfo_and_create_ep(cfg)?;

    let mut ctx = if cfg.base.server {
        get_connect_request(cfg, id)?
    } else {
        Context {
            alt_dlid: cfg.alt_dlid,
            alt_srcport: cfg.alt_srcport,
            my_alt_dlid: 0,
            qp: qp.ok_or_else(|| Error::msg("rdma_create_ep created no QP"))?,
            id,
            listen_id: None,
        }
    };

    // Before any memory is pinned: a message the port cannot carry. (The
    // device handle goes out of scope here: it holds the id, which
    // destroy_resources must find free.)
    {
        let verbs = ctx
            .id
            .verbs()
            .ok_or_else(|| Error::msg("the connection has no RDMA device"))?;
        let port = verbs.query_port(ctx.id.port_num())?;
        cfg.base
            .check_max_msg(port.max_msg_sz)
            .map_err(Error::msg)?;
    }

    // Only query for the alternate port if the information was not
    // specified on the command line.
    if !cfg.alt_path_given() {
        get_alt_port_details(&mut ctx)?;
    }

    // Create a thread to handle async events.
    let verbs = ctx
        .id
        .verbs()
        .ok_or_else(|| Error::msg("the connection has no RDMA device"))?;
    let stop = Arc::new(AtomicBool::new(false));
    let events = AsyncThread {
        stop: stop.clone(),
        handle: thread::spawn(move || async_event_thread(verbs, stop)),
    };

    let (result, bufs) = match reg_mem(cfg, &ctx) {
        Ok(bufs) => (exchange(cfg, &mut ctx, &bufs), Some(bufs)),
        Err(e) => (Err(e), None),
    };
    events.stop();
    // A failed run is the error to report; teardown failures come second.
    result.and(destroy_resources(ctx, bufs))
}

/// 8.1 main's `out:` label: the QP (which `rdma_destroy_ep` takes with the
/// id in C), the MRs, then the connection's id and the listener's; every
/// step is tried and the first failure returned. The QP goes first because
/// it holds the memory it was given.
fn destroy_resources(ctx: Context, bufs: Option<Buffers>) -> Result<()> {
    let Context {
        qp, id, listen_id, ..
    } = ctx;
    let (send_mr, recv_mr) = bufs.map(|b| (b.send_mr, b.recv_mr)).unzip();
    first_failure([
        qp.destroy(),
        send_mr.destroy(),
        recv_mr.destroy(),
        id.destroy(),
        listen_id.destroy(),
    ])
}

/// The part of main that runs with the async event thread, once the
/// buffers are registered.
fn exchange(cfg: &Config, ctx: &mut Context, bufs: &Buffers) -> Result<()> {
    establish_connection(cfg, ctx, bufs)?;

    // Load the alternate path after the connection was created. This can be
    // done at connection time, but the connection must be created and
    // established using all ib verbs.
    let apm_loaded = load_alt_path(ctx)?;

    let mut send_cnt = 0;
    let mut recv_cnt = 0;
    for i in 0..cfg.base.msg_count {
        // Migrate the path manually if desired, after the given number of
        // iterations.
        if !cfg.base.server && cfg.migrate_after == Some(i) {
            migrate(ctx, apm_loaded)?;
        }

        if cfg.base.server {
            recv_msg(cfg, ctx, bufs)?;
            recv_cnt += 1;
            println!("recv: {recv_cnt}");
        }

        if cfg.msec_delay > 0 {
            thread::sleep(Duration::from_millis(u64::from(cfg.msec_delay)));
        }

        send_msg(cfg, ctx, bufs)?;
        send_cnt += 1;
        println!("send: {send_cnt}");

        if !cfg.base.server {
            recv_msg(cfg, ctx, bufs)?;
            recv_cnt += 1;
            println!("recv: {recv_cnt}");
        }
    }

    ctx.id.disconnect()
}

/// 8.1's command line (`getopt(argc, argv, "sa:p:c:l:d:r:m:w:")`: the C
/// string forgets `w:`, so its `-w` case can never be reached) and the
/// usage text the original prints for it.
fn cli() -> Cli {
    let d = Config::default();
    let usage = format!(
        "\
usage: $0 [-s or -a required]
\t[-s[server mode] (default: client)
\t[-a ip_address] (required for the client; default for the server: any)
\t[-p port_number] (default {})
\t[-c msg_count] (default {})
\t[-l msg_length] (default {})
\t[-d alt_dlid] (requires -r; default: from the ports and the peer)
\t[-r alt_srcport] (requires -d; default: another active port)
\t[-m num_iterations_then_migrate] (client only; default: never)
\t[-w msec_wait_between_sends] (default {})
\t[-h] print this help",
        d.base.server_port, d.base.msg_count, d.base.msg_length, d.msec_delay
    );
    Cli::getopt("apm", "sa:p:c:l:d:r:m:w:", &usage)
}

/// The configuration the options ask for; `Err` is the one-line reason a
/// value was refused.
fn read_config(m: &getopts::Matches) -> std::result::Result<Parsed<Config>, String> {
    let int_max = i32::MAX as u64;
    let mut cfg = Config::default();
    cfg.base = cfg.base.read(m)?;
    set_number(m, "d", 0, 65535, &mut cfg.alt_dlid)?;
    set_number(m, "r", 0, 255, &mut cfg.alt_srcport)?;
    if let Some(v) = opt_number(m, "m", 0, int_max)? {
        cfg.migrate_after = Some(v as u32);
    }
    set_number(m, "w", 0, int_max, &mut cfg.msec_delay)?;
    Ok(Parsed::Run(cfg))
}

fn print_config(cfg: &Config) {
    println!(
        "mode:    {}",
        if cfg.base.server { "server" } else { "client" }
    );
    println!(
        "address:  {}",
        cfg.base.server_name.as_deref().unwrap_or("NULL")
    );
    println!("port:     {}", cfg.base.server_port);
    println!("count:    {}", cfg.base.msg_count);
    println!("length:   {}", cfg.base.msg_length);
    println!("alt_dlid:  {}", cfg.alt_dlid);
    println!("alt_port:  {}", cfg.alt_srcport);
    println!("mig_after: {}", cfg.migrate_after.map_or(-1, i64::from));
    println!("msec_wait: {}", cfg.msec_delay);
    println!();
}

/// The checks main makes after printing the configuration.
fn check_config(cfg: &Config) -> std::result::Result<(), String> {
    if !cfg.base.server && cfg.base.server_name.is_none() {
        return Err("server address must be specified for client mode".into());
    }
    // Both of these must be set or neither should be set.
    let both = cfg.alt_dlid > 0 && cfg.alt_srcport > 0;
    let neither = cfg.alt_dlid == 0 && cfg.alt_srcport == 0;
    if !(both || neither) {
        return Err("-d and -r must be used together".into());
    }
    if cfg.migrate_after.is_some_and(|m| m >= cfg.base.msg_count) {
        return Err("num_iterations_then_migrate must be less than msg_count".into());
    }
    Ok(())
}

fn main() -> ExitCode {
    common::cli::main(&cli(), read_config, |cfg| {
        print_config(&cfg);
        let checked = check_config(&cfg).map_err(Error::msg);
        common::exit_code(checked.and_then(|()| run(&cfg)))
    })
}

#[cfg(test)]
mod tests;

/// apm's private data as the peer decodes it: any bytes give a DLID or one
/// error line, and the two bytes we send (padded by the CM) give ours back.
#[cfg(test)]
mod properties;
