//! mc: the manual's "Multicast Code Example Using RDMA CM" (section 8.2).
//!
//! Both the sender and receiver create a UD Queue Pair and join the specified
//! multicast group (`-m`). If the join is successful, the sender creates an
//! Address Handle and posts the specified number of sends (`-c`) to the
//! group, one at a time. The receiver waits to receive each one of the sends
//! and then both sides leave the group and clean up. A thread prints any CM
//! event that arrives while the messages are exchanged.
//!
//! Function names are the original's (`cm_thread`, `get_cm_event`,
//! `resolve_addr`, `create_resources`, `destroy_resources`, `post_send`,
//! `get_completion`).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use common::cli::{Cli, Parsed};
use common::cm::{mcast_route_hint, CmEvent, CmEventType, CmId, EventChannel, PortSpace};
use common::opts::{last, set_number};
// stdout that cannot be written ends the program in one line, not a panic.
use common::println;
use common::signals::{install_stop_handler, stop_requested};
use common::verbs::{
    first_failure, AccessFlags, Ah, CompChannel, Cq, Destroy, Mr, Pd, Qp, QpInitAttr, QpType,
    SendFlags, SendOp, GRH_SIZE,
};
use common::{Error, Result, ResultExt};
use mckey::{dgid_text, get_addr, SEND_TIMEOUT, TICK};

/// Default parameter values.
const DEFAULT_PORT: &str = "51216";
const DEFAULT_MSG_COUNT: usize = 4;
const DEFAULT_MSG_LENGTH: usize = 64;
/// `rdma_resolve_addr` timeout of the original.
const RESOLVE_TIMEOUT_MS: i32 = 2000;
/// An expected CM event (address resolved, group joined) must arrive within
/// this; the original waited forever.
const EVENT_TIMEOUT: Duration = Duration::from_secs(30);

/// User parameters (the first half of `struct context`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Params {
    sender: bool,
    bind_addr: Option<String>,
    mcast_addr: String,
    /// `-p`: the original reads it and never uses it (rdma_cm ignores the
    /// port of a multicast address); kept so its command lines still work.
    #[allow(dead_code)]
    server_port: String,
    msg_count: usize,
    msg_length: usize,
}

/// The cm_thread and the flag that stops it.
struct CmThread {
    stop: Arc<AtomicBool>,
    /// Set by the thread when an event ends the exchange.
    fatal: Fatal,
    handle: JoinHandle<()>,
}

/// Why the cm_thread ended the exchange, for get_completion to report.
type Fatal = Arc<Mutex<Option<String>>>;

/// Resources used in the example (`struct context`).
struct Context {
    params: Params,
    mcast_sockaddr: Option<SocketAddr>,
    id: CmId,
    channel: EventChannel,
    /// The PD that binding lent the id; create_resources allocates one
    /// otherwise.
    bound_pd: Option<Pd>,
    /// What create_resources made, once it ran.
    res: Option<Resources>,
    /// The sender's address handle for the group, once joined.
    ah: Option<Ah>,
    cm_thread: Option<CmThread>,
    /// rdma_join_multicast was called, so there is something to leave.
    joined: bool,
}

/// What create_resources makes.
struct Resources {
    pd: Pd,
    /// The CQ's completion channel: get_completion sleeps on it.
    comp_channel: CompChannel,
    cq: Cq,
    qp: Qp,
    mr: Mr,
}

/// Where the sends go: what the join event gave.
struct Group<'a> {
    ah: &'a Ah,
    remote_qpn: u32,
    remote_qkey: u32,
}

/// cm_thread (8.2): reads any CM events that occur during the sending of data and
/// prints out the details of the event, until [`stop_cm_thread`] asks it to
/// end (the original's thread ran until the process exited). An event that
/// ends the group or the device (MULTICAST_ERROR, DEVICE_REMOVAL), or a
/// failure to read events, ends the exchange: the original printed it and
/// went on waiting for messages that could no longer come.
fn cm_thread(channel: EventChannel, stop: Arc<AtomicBool>, fatal: Fatal) {
    while !stop.load(Ordering::SeqCst) {
        let why = match channel.get_event(Some(TICK)) {
            Ok(Some(event)) => {
                println!("event {}, status {}", event.name(), event.status);
                match event.event {
                    CmEventType::MulticastError | CmEventType::DeviceRemoval => format!(
                        "the exchange cannot go on: {} (status {})",
                        event.name(),
                        event.status
                    ),
                    _ => continue,
                }
            }
            Ok(None) => continue,
            Err(e) => e.to_string(),
        };
        *fatal.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
        break;
    }
}

/// Start [`cm_thread`] (`pthread_create`).
fn start_cm_thread(channel: &EventChannel) -> Result<CmThread> {
    let stop = Arc::new(AtomicBool::new(false));
    let fatal = Fatal::default();
    let (channel, flag, why) = (channel.clone(), stop.clone(), fatal.clone());
    let handle = std::thread::Builder::new()
        .name("cm_thread".into())
        .spawn(move || cm_thread(channel, flag, why))
        .map_err(|e| Error::io("pthread_create", &e))?;
    Ok(CmThread {
        stop,
        fatal,
        handle,
    })
}

/// Stop and join the cm_thread, if it runs.
fn stop_cm_thread(ctx: &mut Context) {
    if let Some(t) = ctx.cm_thread.take() {
        t.stop.store(true, Ordering::SeqCst);
        let _ = t.handle.join();
    }
}

/// get_cm_event (8.2): waits for the next CM event and checks that it matches the
/// expected type. The event comes back already acked (its data copied), so
/// no error path can leave it unacked.
fn get_cm_event(channel: &EventChannel, expected: CmEventType) -> Result<CmEvent> {
    let event = next_cm_event(channel, expected)?;
    if event.event != expected {
        return Err(unexpected(&event, expected));
    }
    Ok(event)
}

/// The next CM event, whatever it is, within EVENT_TIMEOUT; `expected`
/// names it in the errors.
fn next_cm_event(channel: &EventChannel, expected: CmEventType) -> Result<CmEvent> {
    let start = Instant::now();
    loop {
        if stop_requested() {
            return Err(Error::msg(format!(
                "interrupted while waiting for {}",
                common::cm::event_name(expected)
            )));
        }
        if start.elapsed() > EVENT_TIMEOUT {
            return Err(Error::msg(format!(
                "rdma_get_cm_event: no {} within {} s",
                common::cm::event_name(expected),
                EVENT_TIMEOUT.as_secs()
            )));
        }
        if let Some(ev) = channel.get_event(Some(TICK))? {
            return Ok(ev);
        }
    }
}

/// get_cm_event's error for an event other than the one `expected`.
fn unexpected(event: &CmEvent, expected: CmEventType) -> Error {
    Error::msg(format!(
        "event: {}, status: {} (expected {})",
        event.name(),
        event.status,
        common::cm::event_name(expected)
    ))
}

/// rdma_getaddrinfo of the original, for a host name or address.
fn getaddrinfo(what: &str, name: &str) -> Result<SocketAddr> {
    get_addr(name).map_err(|e| Error::msg(format!("rdma_getaddrinfo ({what}): {e}")))
}

/// resolve_addr (8.2): resolves the multicast address and also binds to the source
/// address if one was given.
fn resolve_addr(ctx: &mut Context) -> Result<()> {
    let bind_rai = match &ctx.params.bind_addr {
        Some(b) => Some(getaddrinfo("bind", b)?),
        None => None,
    };
    let mcast_rai = getaddrinfo("mcast", &ctx.params.mcast_addr)?;

    if let Some(bind) = &bind_rai {
        // Bind to a specific adapter if requested to do so.
        ctx.id.bind_addr(bind)?;
        // A PD is created when we bind. Copy it to the context so it can be
        // used later on.
        ctx.bound_pd = ctx.id.pd().ok();
    }

    ctx.id
        .resolve_addr(bind_rai.as_ref(), &mcast_rai, RESOLVE_TIMEOUT_MS)?;
    let what = format!("rdma_resolve_addr of {mcast_rai}");
    let event = next_cm_event(&ctx.channel, CmEventType::AddrResolved).context(&what)?;
    if event.event != CmEventType::AddrResolved {
        let e = unexpected(&event, CmEventType::AddrResolved);
        // Resolved without -b, the group goes where the routing table
        // sends it: a netdev without RDMA fails here (ENODEV).
        let hint = (event.event == CmEventType::AddrError && bind_rai.is_none())
            .then(|| mcast_route_hint(&mcast_rai, event.status.saturating_neg()))
            .flatten();
        return Err(match hint {
            Some(h) => e.hint(h),
            None => e,
        }
        .context(what));
    }

    ctx.mcast_sockaddr = Some(mcast_rai);
    Ok(())
}

/// create_resources (8.2): PD (unless binding gave one), CQ, UD QP and the
/// message buffer, with room for the GRH on the receiver.
fn create_resources(ctx: &Context) -> Result<Resources> {
    let verbs = ctx
        .id
        .verbs()
        .ok_or_else(|| Error::msg("the cm_id has no device (id->verbs is NULL)"))?;
    // If we are bound to an address, then a PD was already allocated to the CM ID.
    let pd = match &ctx.bound_pd {
        Some(pd) => pd.clone(),
        None => verbs.alloc_pd()?,
    };

    // Room for every receive's completion: the receiver may fall behind.
    let cqe = ctx.params.msg_count.max(2);
    // With a completion channel, so that waiting for a message sleeps
    // instead of spinning on ibv_poll_cq as the original does.
    let comp_channel = verbs.create_comp_channel()?;
    let cq = verbs.create_cq(cqe as i32, Some(&comp_channel))?;

    let wrs = ctx.params.msg_count.max(1) as u32;
    let attr = QpInitAttr::new(QpType::Ud, wrs).on_cq(&cq);
    let qp = ctx.id.create_qp(Some(&pd), &attr)?;

    // The receiver must allow enough space in the receive buffer for the GRH.
    let buf_size = ctx.params.msg_length + if ctx.params.sender { 0 } else { GRH_SIZE };
    // Register our memory region (rdma_reg_msgs: local write access).
    let mr = pd
        .reg_mr(buf_size.max(1), AccessFlags::LOCAL_WRITE)
        .context("rdma_reg_msgs")?;
    Ok(Resources {
        pd,
        comp_channel,
        cq,
        qp,
        mr,
    })
}

/// destroy_resources (8.2): QP, AH, CQ, MR and buffer, PD, then the id and
/// its channel; every step is tried and the first failure returned.
///
/// The PD is deallocated only if this program allocated it (binding lends
/// the id's); a QP keeps the AH it sent with until it is destroyed, so the QP
/// goes before the AH, not after it as in the original.
fn destroy_resources(ctx: Context) -> Result<()> {
    let Context {
        id,
        channel,
        bound_pd,
        res,
        ah,
        ..
    } = ctx;
    let (pd, comp_channel, cq, qp, mr) = match res {
        Some(r) => (
            Some(r.pd),
            Some(r.comp_channel),
            Some(r.cq),
            Some(r.qp),
            Some(r.mr),
        ),
        None => (None, None, None, None, None),
    };
    // The lent PD is one more handle on the id's: let it go first.
    drop(bound_pd);
    first_failure([
        qp.destroy(),
        ah.destroy(),
        cq.destroy(),
        comp_channel.destroy(),
        mr.destroy(),
        pd.destroy(),
        id.destroy(),
        channel.destroy(),
    ])
}

/// post_send (8.2): one UD send of `msg_length` bytes of 0x12 to the group.
/// Multicast requires that the message is sent with immediate data and that
/// the QP number is the contents of the immediate data.
fn post_send(params: &Params, res: &Resources, group: &Group<'_>) -> Result<()> {
    // Set the data to non-zero.
    res.mr.write(0, &vec![0x12; params.msg_length])?;
    let op = SendOp::Ud {
        ah: group.ah,
        remote_qpn: group.remote_qpn,
        remote_qkey: group.remote_qkey,
        imm: Some(res.qp.qp_num()),
    };
    res.qp.post_send(
        0,
        op,
        &[res.mr.sge(0, params.msg_length)?],
        SendFlags::SIGNALED,
    )
}

/// get_completion (8.2): waits for a completion and verifies that the operation
/// was successful. The receiver waits as long as it takes (SIGINT/SIGTERM, or
/// an event that ends the group, end the wait), the sender at most
/// SEND_TIMEOUT. It sleeps on the CQ's channel between completions.
fn get_completion(params: &Params, cq: &Cq, fatal: &Mutex<Option<String>>) -> Result<()> {
    let start = Instant::now();
    let wc = loop {
        if let Some(wc) = cq.poll_one()? {
            break wc;
        }
        if let Some(why) = fatal.lock().unwrap_or_else(|e| e.into_inner()).clone() {
            return Err(Error::msg(why));
        }
        if stop_requested() {
            return Err(Error::msg("interrupted (SIGINT/SIGTERM)"));
        }
        if params.sender && start.elapsed() > SEND_TIMEOUT {
            return Err(Error::msg(format!(
                "ibv_poll_cq: no send completion within {} s",
                SEND_TIMEOUT.as_secs()
            )));
        }
        // Arm the CQ, look once more (a completion may have come in
        // between), then sleep until one comes or a tick passes.
        cq.req_notify(false)?;
        if let Some(wc) = cq.poll_one()? {
            break wc;
        }
        cq.wait_event(Some(TICK))?;
    };
    if !wc.is_success() {
        return Err(Error::msg(format!(
            "work completion status {} (status {}, vendor error 0x{:x})",
            wc.status_str(),
            wc.status.code(),
            wc.vendor_err
        )));
    }
    Ok(())
}

/// main (8.2): the steps between creating the id and leaving the group.
fn run(ctx: &mut Context) -> Result<()> {
    resolve_addr(ctx)?;

    // Verify that the buffer length is not larger than the MTU.
    let verbs = ctx
        .id
        .verbs()
        .ok_or_else(|| Error::msg("the cm_id has no device (id->verbs is NULL)"))?;
    let port_attr = verbs.query_port(ctx.id.port_num())?;
    let mtu = port_attr.active_mtu.bytes() as usize;
    if ctx.params.msg_length > mtu {
        return Err(Error::msg(format!(
            "buffer length {} is larger than active mtu {mtu}",
            ctx.params.msg_length
        )));
    }

    let res = create_resources(ctx)?;
    let res = &*ctx.res.insert(res);

    if !ctx.params.sender {
        let sge = res.mr.sge(0, ctx.params.msg_length + GRH_SIZE)?;
        for _ in 0..ctx.params.msg_count {
            res.qp.post_recv(0, &[sge]).context("rdma_post_recv")?;
        }
    }

    // Join the multicast group.
    let mcast = ctx
        .mcast_sockaddr
        .ok_or_else(|| Error::msg("no multicast address"))?;
    ctx.id.join_multicast(&mcast)?;
    ctx.joined = true;

    // Verify that we successfully joined the multicast group.
    let event = get_cm_event(&ctx.channel, CmEventType::MulticastJoin)
        .context(format!("rdma_join_multicast of {}", mcast.ip()))?;
    let ud = event
        .ud
        .ok_or_else(|| Error::msg("RDMA_CM_EVENT_MULTICAST_JOIN without UD parameters"))?;
    println!(
        "joined dgid: {}, mlid 0x{:x}, sl {}",
        dgid_text(&ud.ah_attr),
        ud.ah_attr.dlid,
        ud.ah_attr.sl
    );

    // Create an address handle for the sender.
    let group = if ctx.params.sender {
        let ah = &*ctx.ah.insert(res.pd.create_ah(&ud.ah_attr)?);
        Some(Group {
            ah,
            remote_qpn: ud.qp_num,
            remote_qkey: ud.qkey,
        })
    } else {
        None
    };

    // Create a thread to handle any CM events while messages are exchanged.
    let fatal = start_cm_thread(&ctx.channel).map(|t| ctx.cm_thread.insert(t).fatal.clone())?;

    if !ctx.params.sender {
        println!("waiting for messages...");
    }

    for i in 0..ctx.params.msg_count {
        if let Some(group) = &group {
            post_send(&ctx.params, res, group)?;
        }
        let what = if ctx.params.sender {
            "sending"
        } else {
            "receiving"
        };
        get_completion(&ctx.params, &res.cq, &fatal).context(format!(
            "{what} message {} of {}",
            i + 1,
            ctx.params.msg_count
        ))?;
        if ctx.params.sender {
            println!("sent message {}", i + 1);
        } else {
            println!("received message {}", i + 1);
        }
    }
    Ok(())
}

/// The command line (getopt string `shb:m:p:c:l:`; `-h` is in it but, as
/// in the original, only leads to the usage) and the original's usage text.
fn cli() -> Cli {
    let usage = format!(
        "\
usage: $0 -m mc_address
\t-m mc_address (required)
\t-s[ender mode] (default: receiver)
\t-b bind_address (default: the device the route to the group takes)
\t-p port_number (default {DEFAULT_PORT})
\t-c msg_count (default {DEFAULT_MSG_COUNT})
\t-l msg_length (default {DEFAULT_MSG_LENGTH})
\t-h print this help"
    );
    Cli::getopt("mc", "shb:m:p:c:l:", &usage)
}

/// The parameters the options ask for; `Err` is the one-line reason a
/// value was refused.
fn read_params(m: &getopts::Matches) -> std::result::Result<Parsed<Params>, String> {
    let int_max = i32::MAX as u64;
    let mut p = Params {
        sender: m.opt_present("s"),
        bind_addr: last(m, "b"),
        mcast_addr: String::new(),
        server_port: last(m, "p").unwrap_or_else(|| DEFAULT_PORT.to_string()),
        msg_count: DEFAULT_MSG_COUNT,
        msg_length: DEFAULT_MSG_LENGTH,
    };
    set_number(m, "c", 0, int_max, &mut p.msg_count)?;
    set_number(m, "l", 0, int_max - GRH_SIZE as u64, &mut p.msg_length)?;
    p.mcast_addr = last(m, "m").ok_or("multicast address must be specified with -m")?;
    Ok(Parsed::Run(p))
}

fn main() -> ExitCode {
    common::cli::main(&cli(), read_params, run_main)
}

/// main after the options: set up, run, leave the group, tear down.
fn run_main(params: Params) -> ExitCode {
    common::exit_code(run_all(params))
}

/// What main does with the parameters; its error is the one line printed.
fn run_all(params: Params) -> Result<()> {
    install_stop_handler()?;
    let channel = EventChannel::new()?;
    let id = channel.create_id(PortSpace::Udp)?;
    let mut ctx = Context {
        params,
        mcast_sockaddr: None,
        id,
        channel,
        bound_pd: None,
        res: None,
        ah: None,
        cm_thread: None,
        joined: false,
    };

    let mut ret = run(&mut ctx);

    // out: leave the group (if it was joined) without losing an earlier error.
    if ctx.joined {
        if let Some(mcast) = ctx.mcast_sockaddr {
            if let Err(e) = ctx.id.leave_multicast(&mcast) {
                ret = ret.and(Err(e));
            }
        }
    }
    stop_cm_thread(&mut ctx);
    // A teardown failure is reported only after an otherwise good run.
    ret.and(destroy_resources(ctx))
}

#[cfg(test)]
#[path = "mc/tests.rs"]
mod tests;
