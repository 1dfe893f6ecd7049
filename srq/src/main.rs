//! srq: many RC connections whose receives all come from one shared receive queue.
//!
//! A port of the example program of the Mellanox *RDMA Aware Networks
//! Programming User Manual* Rev 1.4, section 8.3 "Shared Received Queue (SRQ)".
//! Each step function keeps the manual's name.
//!
//! Both sides create an SRQ and one CQ that every QP's receive side shares.
//! The client opens `qp_count` connections and blasts up to `max_wr` sends
//! round-robin over them; the server, whose receives all come from the SRQ,
//! answers each batch with one send on its first connection, which tells the
//! client to go on. This repeats until `msg_count` sends were made.

use common::cli::{Cli, Parsed};
use common::opts::{set_number, ExchangeOpts};
// stdout that cannot be written ends the program in one line, not a panic.
use common::println;
use common::signals::TICK;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use common::cm::{AddrInfo, CmId};
use common::verbs::{
    first_failure, CompChannel, Cq, Mr, Qp, QpInitAttr, QpType, SendFlags, SendOp, Srq,
};
use common::{Error, Result, ResultExt};

/// Default parameters values.
const DEFAULT_MSG_LENGTH: usize = 100000;
const DEFAULT_QP_COUNT: usize = 4;
const DEFAULT_MAX_WR: u32 = 64;

/// How long `rdma_connect` / `rdma_accept` wait for the peer's answer.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the server waits for the client's next connection once the
/// first one arrived (the first one is awaited without limit).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How long any completion is awaited before giving up.
const COMPLETION_TIMEOUT: Duration = Duration::from_secs(60);

/// User parameters (the first half of `struct context`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Config {
    /// `-s`, `-a`, `-p`, `-c`, `-l`, as 8.1 has them.
    base: ExchangeOpts,
    qp_count: usize,
    max_wr: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            base: ExchangeOpts::defaults(DEFAULT_MSG_LENGTH),
            qp_count: DEFAULT_QP_COUNT,
            max_wr: DEFAULT_MAX_WR,
        }
    }
}

/// One connection (`conn_id[i]`) and its QP.
struct Conn {
    qp: Qp,
    id: CmId,
}

/// Resources used in the example (the second half of `struct context`).
/// Fields are declared, and so dropped, in the order `destroy_resources`
/// releases them; the QPs also keep their CQ and SRQ alive, the MRs the PD.
struct Context {
    conn_id: Vec<Conn>,
    recv_mr: Mr,
    send_mr: Mr,
    srq_cq: Cq,
    srq_cq_channel: CompChannel,
    srq: Srq,
    /// The id that picks the device, owns the SRQ, and (server) listens.
    srq_id: CmId,
}

/// 8.3 init_resources: an id bound (server) or resolved (client) to pick the
/// device, the memory regions, the SRQ with `max_wr` receives posted, and the
/// completion channel and CQ that every QP's receive side shares.
fn init_resources(cfg: &Config, rai: &AddrInfo) -> Result<Context> {
    // Create an ID used for creating/accessing our SRQ.
    let srq_id = CmId::create_sync()?;

    // We need to bind the ID to a particular RDMA device. This is done by
    // resolving the address or binding to the address.
    if !cfg.base.server {
        srq_id.resolve_addr(None, &rai.dst()?, 1000)?;
    } else {
        srq_id.bind_addr(&rai.src()?)?;
    }
    let verbs = srq_id.verbs().ok_or_else(|| {
        let call = if cfg.base.server {
            "rdma_bind_addr"
        } else {
            "rdma_resolve_addr"
        };
        Error::msg(format!(
            "{call} to {} found no RDMA device: -a must be the address of an RDMA device's interface",
            rai.what()
        ))
    })?;
    // Before any memory is pinned: a message the port cannot carry.
    let port = verbs.query_port(srq_id.port_num())?;
    cfg.base
        .check_max_msg(port.max_msg_sz)
        .map_err(Error::msg)?;

    // Create the memory regions being used in this example.
    let recv_mr = srq_id.reg_msgs(cfg.base.msg_length)?;
    let send_mr = srq_id.reg_msgs(cfg.base.msg_length)?;

    // Create our shared receive queue.
    let srq = srq_id.create_srq(cfg.max_wr, 1)?;

    // Post our receive buffers on the SRQ.
    for _ in 0..cfg.max_wr {
        srq.post_recv(0, &[recv_mr.sge_all()?])
            .context("rdma_post_recv")?;
    }

    // Create a completion channel to use with the SRQ CQ.
    let srq_cq_channel = verbs.create_comp_channel()?;

    // Create a CQ to use for all connections (QPs) that use the SRQ.
    let cqe = i32::try_from(cfg.max_wr)
        .map_err(|_| Error::msg(format!("max_wr {} is too large for a CQ", cfg.max_wr)))?;
    let srq_cq = verbs.create_cq(cqe, Some(&srq_cq_channel))?;

    // Make sure that we get notified on the first completion.
    srq_cq.req_notify(false)?;

    Ok(Context {
        conn_id: Vec::new(),
        recv_mr,
        send_mr,
        srq_cq,
        srq_cq_channel,
        srq,
        srq_id,
    })
}

/// 8.3 destroy_resources: disconnect each connection and release its QP
/// and id, then the SRQ, the MRs, the CQ and its channel, and the SRQ's id;
/// every step is tried and the first failure returned. The manual frees the
/// SRQ last; here it goes before the MRs, because it holds the receive
/// buffer its posted receives name.
fn destroy_resources(ctx: Context) -> Result<()> {
    let Context {
        conn_id,
        recv_mr,
        send_mr,
        srq_cq,
        srq_cq_channel,
        srq,
        srq_id,
    } = ctx;
    let mut steps = Vec::new();
    for conn in conn_id {
        // Best effort: the peer may be gone already.
        let _ = conn.id.disconnect();
        steps.push(conn.qp.destroy());
        steps.push(conn.id.destroy());
    }
    steps.extend([
        srq.destroy(),
        recv_mr.destroy(),
        send_mr.destroy(),
        srq_cq.destroy(),
        srq_cq_channel.destroy(),
        srq_id.destroy(),
    ]);
    first_failure(steps)
}

/// 8.3 await_completion: wait for a CQ event on the SRQ CQ's channel, ack it
/// and re-arm the CQ. Bounded: fails if a peer disconnects or nothing comes
/// within `COMPLETION_TIMEOUT`.
fn await_completion(ctx: &Context) -> Result<()> {
    let deadline = Instant::now() + COMPLETION_TIMEOUT;
    // Wait for a CQ event to arrive on the channel.
    while !ctx.srq_cq.wait_event(Some(TICK))? {
        for (i, conn) in ctx.conn_id.iter().enumerate() {
            if let Err(e) = conn.id.check_peer() {
                // A peer that sends its last message and leaves at once may
                // be seen leaving before that message's CQ event is read:
                // look once more before calling it an error.
                if ctx.srq_cq.wait_event(Some(TICK))? {
                    return ctx.srq_cq.req_notify(false);
                }
                return Err(e.context(format!("ibv_get_cq_event: connection {i}")));
            }
        }
        if Instant::now() >= deadline {
            return Err(Error::msg(format!(
                "ibv_get_cq_event: no completion within {} s",
                COMPLETION_TIMEOUT.as_secs()
            )));
        }
    }
    // Reload the event notification.
    ctx.srq_cq.req_notify(false)
}

/// Poll the SRQ CQ until it is empty (the C `do { ibv_poll_cq } while (ne)`),
/// reposting each receive to the SRQ; `on_recv` prints and counts.
fn drain_srq_cq(ctx: &Context, mut on_recv: impl FnMut(u32)) -> Result<()> {
    while let Some(wc) = ctx.srq_cq.poll_one()? {
        if !wc.is_success() {
            return Err(Error::msg(format!(
                "work completion status {}",
                wc.status_str()
            )));
        }
        on_recv(wc.qp_num);
        ctx.srq
            .post_recv(wc.wr_id, &[ctx.recv_mr.sge_all()?])
            .context("rdma_post_recv")?;
    }
    Ok(())
}

/// `rdma_post_send` of the whole send buffer on `conn`, then
/// `rdma_get_send_comp`; returns the QP number the completion names.
fn send_and_wait(ctx: &Context, conn: &Conn) -> Result<u32> {
    conn.qp
        .post_send_one(0, SendOp::Send, ctx.send_mr.sge_all()?, SendFlags::SIGNALED)
        .context("rdma_post_send")?;
    let wc = conn.qp.get_send_comp(COMPLETION_TIMEOUT)?;
    if !wc.is_success() {
        return Err(Error::msg(format!(
            "rdma_get_send_comp: work completion status {}",
            wc.status_str()
        )));
    }
    Ok(wc.qp_num)
}

/// The QP of every connection: receives from the SRQ into the shared CQ;
/// sends complete on a CQ librdmacm creates for the connection.
fn qp_attr<'a>(cfg: &Config, ctx: &'a Context) -> QpInitAttr<'a> {
    QpInitAttr {
        recv_cq: Some(&ctx.srq_cq),
        srq: Some(&ctx.srq),
        ..QpInitAttr::new(QpType::Rc, cfg.max_wr)
    }
}

/// 8.3 run_server: listen; accept `qp_count` connections, each QP on the
/// SRQ; then receive, repost to the SRQ, and after each `max_wr` receives
/// send once on connection 0 to let the client go on.
fn run_server(cfg: &Config, ctx: &mut Context) -> Result<()> {
    // Use the srq_id as the listen_id since it is already set up.
    ctx.srq_id.listen(4)?;

    println!("waiting for connection from client...");
    for i in 0..cfg.qp_count {
        let wait = (i > 0).then_some(REQUEST_TIMEOUT);
        let req = ctx.srq_id.get_request(wait)?.ok_or_else(|| {
            Error::msg(format!(
                "rdma_get_request: connection {} of {} did not arrive within {} s",
                i + 1,
                cfg.qp_count,
                REQUEST_TIMEOUT.as_secs()
            ))
        })?;

        // Create the queue pair.
        let qp = req.id.create_qp(None, &qp_attr(cfg, ctx))?;

        // librdmacm tells the peer that the QP uses an SRQ from the QP itself
        // (`id->qp->srq`), so the C code's `conn_id[i]->srq = srq` is not
        // needed (and would make rdma_destroy_ep destroy the shared SRQ).
        req.id.accept_sync(None, CONNECT_TIMEOUT)?;
        ctx.conn_id.push(Conn { qp, id: req.id });
    }

    let mut send_count: u64 = 0;
    let mut recv_count: u64 = 0;
    let msg_count = u64::from(cfg.base.msg_count);
    while recv_count < msg_count {
        let mut i: u64 = 0;
        while i < u64::from(cfg.max_wr) && recv_count < msg_count {
            await_completion(ctx)?;
            drain_srq_cq(ctx, |qp_num| {
                recv_count += 1;
                println!("recv count: {recv_count}, qp_num: {qp_num}");
                i += 1;
            })?;
        }

        send_and_wait(ctx, &ctx.conn_id[0])?;
        send_count += 1;
        println!("send count: {send_count}");
    }
    Ok(())
}

/// 8.3 run_client: `qp_count` times rdma_create_ep + rdma_connect; then send
/// up to `max_wr` messages round-robin over the QPs and wait for the
/// server's send before the next batch.
fn run_client(cfg: &Config, rai: &AddrInfo, ctx: &mut Context) -> Result<()> {
    for _ in 0..cfg.qp_count {
        let (id, qp) = CmId::create_ep(rai, Some(&qp_attr(cfg, ctx)))?;
        let qp = qp.ok_or_else(|| Error::msg("rdma_create_ep created no QP"))?;
        id.connect_sync(None, CONNECT_TIMEOUT)?;
        ctx.conn_id.push(Conn { qp, id });
    }

    let mut send_count: u64 = 0;
    let mut recv_count: u64 = 0;
    let msg_count = u64::from(cfg.base.msg_count);
    let qp_count = ctx.conn_id.len() as u64;
    while send_count < msg_count {
        let mut i: u64 = 0;
        while i < u64::from(cfg.max_wr) && send_count < msg_count {
            // Perform our send to the server; the round-robin goes on across
            // batches, so every QP carries messages whatever max_wr is.
            let conn = &ctx.conn_id[(send_count % qp_count) as usize];
            let qp_num = send_and_wait(ctx, conn)?;
            send_count += 1;
            println!("send count: {send_count}, qp_num: {qp_num}");
            i += 1;
        }

        // Wait for a recv indicating that all buffers were processed. A CQ
        // event without a completion (one raised for a completion already
        // polled) is not the server's answer: wait again.
        let before = recv_count;
        while recv_count == before {
            await_completion(ctx)?;
            drain_srq_cq(ctx, |_| {
                recv_count += 1;
                println!("recv count: {recv_count}");
            })?;
        }
    }
    Ok(())
}

/// 8.3's command line (`getopt(argc, argv, "sa:p:c:l:q:w:")`) and the
/// usage text the original prints for it.
fn cli() -> Cli {
    let d = Config::default();
    let usage = format!(
        "\
usage: $0 -a server_address
\t-a server_address (required, on either side)
\t[-s server mode] (default: client)
\t[-p port_number] (default {})
\t[-c msg_count] (default {})
\t[-l msg_length] (default {})
\t[-q qp_count] (default {})
\t[-w max_wr] (default {})
\t[-h] print this help",
        d.base.server_port, d.base.msg_count, d.base.msg_length, d.qp_count, d.max_wr
    );
    Cli::getopt("srq", "sa:p:c:l:q:w:", &usage)
}

/// The configuration the options ask for; `Err` is the one-line reason a
/// value was refused.
fn read_config(m: &getopts::Matches) -> std::result::Result<Parsed<Config>, String> {
    let int_max = i32::MAX as u64;
    let mut cfg = Config::default();
    cfg.base = cfg.base.read(m)?;
    set_number(m, "q", 1, int_max, &mut cfg.qp_count)?;
    set_number(m, "w", 1, int_max, &mut cfg.max_wr)?;
    Ok(Parsed::Run(cfg))
}

/// 8.3 main: read the options, look the address up, run one side, release
/// everything.
fn run(cfg: &Config) -> Result<()> {
    if cfg.base.server_name.is_none() {
        return Err(Error::msg("server address required (use -a)!"));
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    cfg.base.check_memory(&meminfo).map_err(Error::msg)?;
    cfg.base.check_memlock().map_err(Error::msg)?;
    let rai = AddrInfo::new(
        cfg.base.server_name.as_deref(),
        &cfg.base.server_port,
        cfg.base.server,
    )?;
    let mut ctx = init_resources(cfg, &rai)?;
    let ret = if cfg.base.server {
        run_server(cfg, &mut ctx)
    } else {
        run_client(cfg, &rai, &mut ctx)
    };
    // A failed run is the error to report; teardown failures come second.
    ret.and(destroy_resources(ctx))
}

fn main() -> ExitCode {
    common::cli::main(&cli(), read_config, |cfg| common::exit_code(run(&cfg)))
}

#[cfg(test)]
mod tests;
