//! mckey: the manual's "Multicast Using RDMA_CM and IBV Verbs" (sections 7.3
//! and 7.4). Every node (one rdma_cm id per connection, all on one event
//! channel) resolves the multicast address, builds a UD QP and joins the
//! group; the sender (`-s`) then posts `message_count` sends with immediate
//! data to the group, and the receiver waits for as many receives per node.
//!
//! Function names are the original's (`verify_test_params`, `init_node`,
//! `post_recvs`, `post_sends`, `addr_handler`, `join_handler`, `cma_handler`,
//! `poll_cqs`, `connect_events`, `get_addr`, `run`, ...).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use common::cli::{Cli, Parsed};
use common::cm::{mcast_route_hint, CmEvent, CmEventType, CmId, EventChannel, PortSpace, UdParam};
use common::opts::{last, set_number};
// stdout that cannot be written ends the program in one line, not a panic.
use common::println;
use common::signals::{install_stop_handler, sleep_unless_stopped, stop_requested};
use common::verbs::{
    first_failure, AccessFlags, Ah, CompChannel, Cq, Destroy, LinkLayer, Mr, Pd, Qp, QpInitAttr,
    QpType, SendFlags, SendOp, GRH_SIZE,
};
use common::{Error, Result, ResultExt};
use mckey::{dgid_text, get_addr, SEND_TIMEOUT, TICK};

/// `rdma_resolve_addr` timeout of the original.
const RESOLVE_TIMEOUT_MS: i32 = 2000;
/// The original's pause after the joins, for the subnet manager to program
/// the switches (UD multicast has no retransmission to cover a late switch).
const SM_PAUSE: Duration = Duration::from_secs(3);
/// Every join must have completed (or failed) within this; address resolution
/// alone gives up after 2 s, an IB join without a subnet manager much later.
const JOIN_TIMEOUT: Duration = Duration::from_secs(30);

/// The command line (the original's static globals).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Config {
    dst_addr: String,
    unmapped_addr: bool,
    is_sender: bool,
    src_addr: Option<String>,
    connections: usize,
    message_count: usize,
    message_size: usize,
    port_space: PortSpace,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            dst_addr: String::new(),
            unmapped_addr: false,
            is_sender: false,
            src_addr: None,
            connections: 1,
            message_size: 100,
            message_count: 10,
            port_space: PortSpace::Udp,
        }
    }
}

/// One connection (`struct cmatest_node`), in the stages the original fills
/// it in: its id, then (once the address resolved) its verbs objects, then
/// (once joined) the group to send to. Released in the original's order by
/// [`destroy_node`].
struct CmatestNode {
    id: usize,
    cma_id: CmId,
    /// rdma_join_multicast was called: only such nodes are left at the end.
    joined: bool,
    verbs: Option<NodeVerbs>,
    /// The node is connected (the original's `connected`) once this is set.
    group: Option<Group>,
}

/// What init_node makes for a node.
struct NodeVerbs {
    pd: Pd,
    /// The CQ's completion channel: poll_cqs sleeps on it.
    comp_channel: CompChannel,
    cq: Cq,
    qp: Qp,
    /// The message buffer; none when no messages are exchanged.
    mr: Option<Mr>,
}

/// What join_handler keeps of the group: where the sends go.
struct Group {
    ah: Ah,
    remote_qpn: u32,
    remote_qkey: u32,
}

/// The test (`struct cmatest`).
struct Cmatest {
    channel: EventChannel,
    nodes: Vec<CmatestNode>,
    connects_left: usize,
    dst_addr: Option<SocketAddr>,
    src_addr: Option<SocketAddr>,
}

/// create_message (7.4): one buffer per node with room for a message and the
/// GRH that precedes every UD receive. `-S 0` means no messages at all.
fn create_message(pd: &Pd, cfg: &mut Config) -> Result<Option<Mr>> {
    if cfg.message_size == 0 {
        cfg.message_count = 0;
    }
    if cfg.message_count == 0 {
        return Ok(None);
    }
    let mr = pd
        .reg_mr(cfg.message_size + GRH_SIZE, AccessFlags::LOCAL_WRITE)
        .context("failed to reg MR")?;
    Ok(Some(mr))
}

/// verify_test_params (7.4): a UD message must fit in the port's active MTU.
/// An unmapped address (`-M`) is joined without address resolution, which
/// only InfiniBand can do.
fn verify_test_params(node: &CmatestNode, cfg: &Config) -> Result<()> {
    let verbs = node
        .cma_id
        .verbs()
        .ok_or_else(|| Error::msg("mckey: the cm_id has no device (id->verbs is NULL)"))?;
    let port = node.cma_id.port_num();
    let port_attr = verbs
        .query_port(port)
        .context(format!("mckey: {} port {port}", verbs.name()))?;
    if cfg.unmapped_addr && port_attr.link_layer == LinkLayer::Ethernet {
        return Err(Error::msg(format!(
            "mckey: unmapped multicast address (-M) needs an InfiniBand port; {} port {port} is RoCE (Ethernet link layer): use -m",
            verbs.name()
        )));
    }
    let mtu = port_attr.active_mtu.bytes() as usize;
    if cfg.message_count > 0 && cfg.message_size > mtu {
        return Err(Error::msg(format!(
            "mckey: message_size {} is larger than active mtu {mtu}",
            cfg.message_size
        )));
    }
    Ok(())
}

/// init_node (7.4): PD, a CQ of twice the message count, a UD QP created
/// through rdma_cm (which moves it to RTS with the port space's Q_Key), and the
/// message buffer.
fn init_node(node: &CmatestNode, cfg: &mut Config) -> Result<NodeVerbs> {
    let verbs = node
        .cma_id
        .verbs()
        .ok_or_else(|| Error::msg("mckey: the cm_id has no device (id->verbs is NULL)"))?;
    let pd = verbs.alloc_pd().context("mckey: unable to allocate PD")?;
    let cqe = if cfg.message_count > 0 {
        cfg.message_count * 2
    } else {
        2
    };
    // With a completion channel, so that waiting for messages sleeps
    // instead of spinning on ibv_poll_cq as the original does.
    let comp_channel = verbs
        .create_comp_channel()
        .context("mckey: unable to create CQ")?;
    let cq = verbs
        .create_cq(cqe as i32, Some(&comp_channel))
        .context("mckey: unable to create CQ")?;
    let wrs = cfg.message_count.max(1) as u32;
    let init_qp_attr = QpInitAttr::new(QpType::Ud, wrs).on_cq(&cq);
    let qp = node
        .cma_id
        .create_qp(Some(&pd), &init_qp_attr)
        .context("mckey: unable to create QP")?;
    let mr = create_message(&pd, cfg).context("mckey: failed to create messages")?;
    Ok(NodeVerbs {
        pd,
        comp_channel,
        cq,
        qp,
        mr,
    })
}

/// post_recvs (7.4): `message_count` receives of message + GRH, all into the
/// node's one buffer (only their number matters).
fn post_recvs(id: usize, verbs: &NodeVerbs, cfg: &Config) -> Result<()> {
    let Some(mr) = &verbs.mr else {
        return Ok(());
    };
    let sge = mr.sge(0, cfg.message_size + GRH_SIZE)?;
    for _ in 0..cfg.message_count {
        verbs
            .qp
            .post_recv(id as u64, &[sge])
            .context("failed to post receives")?;
    }
    Ok(())
}

/// post_sends (7.4): `message_count` sends with immediate data (the local QP
/// number, sent in network order) to the group's QPN and Q_Key. `signal_flag`
/// is the original's (0); the last send is signaled as well so that
/// [`poll_cqs`] can tell when all of them have left.
fn post_sends(node: &CmatestNode, cfg: &Config, signal_flag: SendFlags) -> Result<()> {
    let (Some(verbs), Some(group)) = (&node.verbs, &node.group) else {
        return Ok(());
    };
    let Some(mr) = &verbs.mr else {
        return Ok(());
    };
    let qp = &verbs.qp;
    let sge = mr.sge(0, cfg.message_size)?;
    let op = SendOp::Ud {
        ah: &group.ah,
        remote_qpn: group.remote_qpn,
        remote_qkey: group.remote_qkey,
        imm: Some(qp.qp_num()),
    };
    for i in 0..cfg.message_count {
        let last = i + 1 == cfg.message_count;
        let flags = signal_flag
            | if last {
                SendFlags::SIGNALED
            } else {
                SendFlags::empty()
            };
        qp.post_send(node.id as u64, op, &[sge], flags)
            .context("failed to post sends")?;
    }
    Ok(())
}

/// connect_error (7.4): one fewer node to wait for.
fn connect_error(test: &mut Cmatest) {
    test.connects_left = test.connects_left.saturating_sub(1);
}

/// addr_handler (7.4): on RDMA_CM_EVENT_ADDR_RESOLVED (or right after binding
/// for `-M`): check the parameters, build the node, post the receives and
/// join the group.
fn addr_handler(test: &mut Cmatest, i: usize, cfg: &mut Config) -> Result<()> {
    let r = addr_handler_steps(test, i, cfg);
    if r.is_err() {
        connect_error(test);
    }
    r
}

/// addr_handler's steps; [`addr_handler`] counts a failure as the original's
/// `err:` label does.
fn addr_handler_steps(test: &mut Cmatest, i: usize, cfg: &mut Config) -> Result<()> {
    let dst = test
        .dst_addr
        .ok_or_else(|| Error::msg("mckey: no multicast address"))?;
    let node = &mut test.nodes[i];
    verify_test_params(node, cfg)?;
    let verbs = node.verbs.insert(init_node(node, cfg)?);
    if !cfg.is_sender {
        post_recvs(node.id, verbs, cfg)?;
    }
    node.cma_id
        .join_multicast(&dst)
        .context("mckey: failure joining")?;
    node.joined = true;
    Ok(())
}

/// join_handler (7.4): on RDMA_CM_EVENT_MULTICAST_JOIN: print the group's
/// GID, keep its QPN and Q_Key, and make the address handle to send to it.
fn join_handler(test: &mut Cmatest, i: usize, param: &UdParam) -> Result<()> {
    let r = join_handler_steps(&mut test.nodes[i], param);
    match r {
        Ok(()) => test.connects_left = test.connects_left.saturating_sub(1),
        Err(_) => connect_error(test),
    }
    r
}

/// join_handler's steps; [`join_handler`] does the node accounting.
fn join_handler_steps(node: &mut CmatestNode, param: &UdParam) -> Result<()> {
    println!("mckey: joined dgid: {}", dgid_text(&param.ah_attr));
    let verbs = node
        .verbs
        .as_ref()
        .ok_or_else(|| Error::msg("mckey: joined a group before the node was set up"))?;
    let ah = verbs
        .pd
        .create_ah(&param.ah_attr)
        .context("mckey: failure creating address handle")?;
    node.group = Some(Group {
        ah,
        remote_qpn: param.qp_num,
        remote_qkey: param.qkey,
    });
    Ok(())
}

/// cma_handler (7.4): dispatch one event to its node's handler.
fn cma_handler(test: &mut Cmatest, event: &CmEvent, cfg: &mut Config) -> Result<()> {
    let Some(i) = test.nodes.iter().position(|n| n.cma_id.key() == event.id) else {
        return Ok(());
    };
    match event.event {
        CmEventType::AddrResolved => addr_handler(test, i, cfg),
        CmEventType::MulticastJoin => match &event.ud {
            Some(param) => join_handler(test, i, param),
            None => {
                connect_error(test);
                Err(Error::msg(
                    "mckey: RDMA_CM_EVENT_MULTICAST_JOIN without UD parameters",
                ))
            }
        },
        CmEventType::AddrError | CmEventType::RouteError | CmEventType::MulticastError => {
            connect_error(test);
            let e = Error::msg(format!(
                "mckey: event: {}, error: {}",
                event.name(),
                event.status
            ));
            // Resolved without -b, the group goes where the routing table
            // sends it: a netdev without RDMA fails here (ENODEV).
            let hint = test
                .dst_addr
                .filter(|_| event.event == CmEventType::AddrError && cfg.src_addr.is_none())
                .and_then(|dst| mcast_route_hint(&dst, event.status.saturating_neg()));
            Err(match hint {
                Some(h) => e.hint(h),
                None => e,
            })
        }
        // Cleanup will occur after the test completes.
        CmEventType::DeviceRemoval => Ok(()),
        _ => Ok(()),
    }
}

/// destroy_node (7.4): QP, AH, CQ, MR and buffer, PD, then the id; every
/// step is tried and the first failure returned.
///
/// A QP keeps the AH it sent with until it is destroyed (so no send can name
/// a freed AH), so the QP goes before the AH, not after it as in the original.
fn destroy_node(node: CmatestNode) -> Result<()> {
    let CmatestNode {
        cma_id,
        verbs,
        group,
        ..
    } = node;
    let (pd, comp_channel, cq, qp, mr) = match verbs {
        Some(v) => (
            Some(v.pd),
            Some(v.comp_channel),
            Some(v.cq),
            Some(v.qp),
            v.mr,
        ),
        None => (None, None, None, None, None),
    };
    let ah = group.map(|g| g.ah);
    first_failure([
        qp.destroy(),
        ah.destroy(),
        cq.destroy(),
        comp_channel.destroy(),
        mr.destroy(),
        pd.destroy(),
        // Destroy the RDMA ID after all device resources.
        cma_id.destroy(),
    ])
}

/// alloc_nodes (7.4): one rdma_cm id per connection, all on the test's channel.
fn alloc_nodes(channel: &EventChannel, cfg: &Config) -> Result<Vec<CmatestNode>> {
    let mut nodes = Vec::new();
    for id in 0..cfg.connections {
        let cma_id = channel.create_id(cfg.port_space)?;
        nodes.push(CmatestNode {
            id,
            cma_id,
            joined: false,
            verbs: None,
            group: None,
        });
    }
    Ok(nodes)
}

/// destroy_nodes (7.4): every node, then the first failure.
fn destroy_nodes(test: &mut Cmatest) -> Result<()> {
    let results: Vec<Result<()>> = test.nodes.drain(..).map(destroy_node).collect();
    first_failure(results)
}

/// poll_cqs (7.4): wait until every joined node's CQ gave `want`
/// completions, each of which must have succeeded. The receiver waits for
/// `message_count` receives per node, as long as it takes (SIGINT/SIGTERM
/// end the wait); the sender for its one signaled send, at most `limit`.
fn poll_cqs(test: &Cmatest, want: usize, limit: Option<Duration>) -> Result<()> {
    let start = Instant::now();
    for node in test.nodes.iter().filter(|n| n.group.is_some()) {
        let Some(cq) = node.verbs.as_ref().map(|v| &v.cq) else {
            continue;
        };
        let mut done = 0;
        while done < want {
            let wcs = cq.poll(8).context("mckey: failed polling CQ")?;
            for wc in &wcs {
                if !wc.is_success() {
                    return Err(Error::msg(format!(
                        "mckey: failed completion on connection {}: {} (status {}, vendor error 0x{:x}) after {done} of {want}",
                        node.id,
                        wc.status_str(),
                        wc.status.code(),
                        wc.vendor_err
                    )));
                }
                done += 1;
            }
            if wcs.is_empty() {
                if stop_requested() {
                    return Err(Error::msg(format!(
                        "mckey: interrupted on connection {} after {done} of {want} completions",
                        node.id
                    )));
                }
                if limit.is_some_and(|l| start.elapsed() > l) {
                    return Err(Error::msg(format!(
                        "mckey: connection {}: {done} of {want} completions within {} s",
                        node.id,
                        limit.map_or(0, |l| l.as_secs())
                    )));
                }
                check_transfer_events(test)?;
                // Sleep until a completion comes, or a tick passes: one that
                // came in before the CQ was armed raises no event, and the
                // next round polls it.
                cq.req_notify(false)?;
                cq.wait_event(Some(TICK))?;
            }
        }
    }
    Ok(())
}

/// The events that end the exchange while messages flow: the group or the
/// device went away, so no message can come (the original read no event
/// once joined, and a receiver waited for ever).
fn check_transfer_events(test: &Cmatest) -> Result<()> {
    while let Some(event) = test.channel.get_event(Some(Duration::ZERO))? {
        if matches!(
            event.event,
            CmEventType::MulticastError | CmEventType::DeviceRemoval
        ) {
            return Err(Error::msg(format!(
                "mckey: event: {}, error: {}",
                event.name(),
                event.status
            )));
        }
    }
    Ok(())
}

/// connect_events (7.4): handle events until every node has joined or failed.
fn connect_events(test: &mut Cmatest, cfg: &mut Config) -> Result<()> {
    let start = Instant::now();
    while test.connects_left > 0 {
        if stop_requested() {
            return Err(Error::msg("mckey: interrupted while joining"));
        }
        if start.elapsed() > JOIN_TIMEOUT {
            return Err(Error::msg(format!(
                "mckey: {} of {} connections not joined within {} s",
                test.connects_left,
                test.nodes.len(),
                JOIN_TIMEOUT.as_secs()
            )));
        }
        if let Some(event) = test.channel.get_event(Some(TICK))? {
            cma_handler(test, &event, cfg)?;
        }
    }
    Ok(())
}

/// get_addr (7.4): resolve a host name or address.
fn get_addr_or_err(name: &str) -> Result<SocketAddr> {
    get_addr(name).map_err(Error::msg)
}

/// run (7.3.2): resolve the addresses, bind and resolve (or, for `-M`, go
/// straight to addr_handler) every node, wait for the joins, pause for the
/// subnet manager, exchange the messages, and leave the group.
fn run(test: &mut Cmatest, cfg: &mut Config) -> Result<()> {
    println!(
        "mckey: starting {}",
        if cfg.is_sender { "client" } else { "server" }
    );
    let result = join_and_transfer(test, cfg);
    // Leave only what was joined: the original also "left" nodes that never
    // joined and let the result of the last leave replace the test's.
    let mut leave_error = None;
    if let Some(dst) = test.dst_addr {
        for node in test.nodes.iter().filter(|n| n.joined) {
            if let Err(e) = node.cma_id.leave_multicast(&dst) {
                leave_error.get_or_insert(e.context("mckey: failure leaving"));
            }
        }
    }
    result.and(leave_error.map_or(Ok(()), Err))
}

/// run (7.3.2) up to its `out:` label; [`run`] leaves the group after it,
/// whatever this returned.
fn join_and_transfer(test: &mut Cmatest, cfg: &mut Config) -> Result<()> {
    if let Some(src) = &cfg.src_addr {
        test.src_addr = Some(get_addr_or_err(src)?);
    }
    let dst = get_addr_or_err(&cfg.dst_addr)?;
    test.dst_addr = Some(dst);

    println!("mckey: joining");
    for i in 0..test.nodes.len() {
        if let Some(src) = test.src_addr {
            if let Err(e) = test.nodes[i].cma_id.bind_addr(&src) {
                connect_error(test);
                return Err(e.context("mckey: addr bind failure"));
            }
        }
        // The manual's text closes the loop before this step (a brace lost
        // in extraction), which would resolve only nodes[connections].
        if cfg.unmapped_addr {
            // addr_handler's errors already say which step failed.
            addr_handler(test, i, cfg)?;
        } else {
            let src = test.src_addr;
            let r = test.nodes[i]
                .cma_id
                .resolve_addr(src.as_ref(), &dst, RESOLVE_TIMEOUT_MS);
            if r.is_err() {
                connect_error(test);
            }
            r.context("mckey: resolve addr failure")?;
        }
    }

    connect_events(test, cfg)?;

    // Pause to give SM chance to configure switches. We don't want to
    // handle reliability issue in this simple test program.
    if !sleep_unless_stopped(SM_PAUSE) {
        return Err(Error::msg("mckey: interrupted before the data transfers"));
    }

    if cfg.message_count > 0 {
        if cfg.is_sender {
            println!("initiating data transfers");
            for node in &test.nodes {
                post_sends(node, cfg, SendFlags::empty())?;
            }
            // Leaving and destroying the QP right after posting (as the
            // original does) may drop sends still in the queue.
            poll_cqs(test, 1, Some(SEND_TIMEOUT))?;
        } else {
            println!("receiving data transfers");
            poll_cqs(test, cfg.message_count, None)?;
        }
        println!("data transfers complete");
    }
    Ok(())
}

/// The command line (7.3.1 step 1, getopt string `m:M:sb:c:C:S:p:`) and
/// the original's usage text (`-p` values as `%#x`). The original has no
/// help option: a refused line prints the usage and exits 1.
fn cli() -> Cli {
    let d = Config::default();
    let usage = format!(
        "\
usage: $0
\t-m multicast_address (required, or -M)
\t[-M unmapped_multicast_address]
\t replaces -m and requires -b
\t[-s(ender)] (default: receiver)
\t[-b bind_address] (default: the device the route to the group takes)
\t[-c connections] (default {})
\t[-C message_count] (default {})
\t[-S message_size] (default {})
\t[-p port_space - {:#x} for UDP (default), {:#x} for IPOIB]
\t[-h] print this help",
        d.connections,
        d.message_count,
        d.message_size,
        PortSpace::Udp.code(),
        PortSpace::Ipoib.code()
    );
    Cli::getopt("mckey", "m:M:sb:c:C:S:p:", &usage)
}

/// The configuration the options ask for; `Err` is the one-line reason a
/// value was refused.
fn read_config(m: &getopts::Matches) -> std::result::Result<Parsed<Config>, String> {
    let mut cfg = Config::default();
    match (last(m, "m"), last(m, "M")) {
        (Some(_), Some(_)) => return Err("-M replaces -m: give one of them".to_string()),
        (Some(a), None) => cfg.dst_addr = a,
        (None, Some(a)) => {
            cfg.dst_addr = a;
            cfg.unmapped_addr = true;
        }
        (None, None) => return Err("a multicast address (-m or -M) is required".to_string()),
    }
    cfg.is_sender = m.opt_present("s");
    cfg.src_addr = last(m, "b");
    if cfg.unmapped_addr && cfg.src_addr.is_none() {
        return Err(
            "unmapped multicast address requires binding to source address (-b)".to_string(),
        );
    }
    // The counts and sizes become C ints in the verbs (CQ size twice the count).
    let int_max = i32::MAX as u64;
    set_number(m, "c", 1, 1024, &mut cfg.connections)?;
    set_number(m, "C", 0, int_max / 2, &mut cfg.message_count)?;
    set_number(m, "S", 0, int_max - GRH_SIZE as u64, &mut cfg.message_size)?;
    if let Some(v) = last(m, "p") {
        let ps = common::opts::parse_c_ulong(&v)
            .filter(|&p| {
                p == u64::from(PortSpace::Udp.code()) || p == u64::from(PortSpace::Ipoib.code())
            })
            .ok_or_else(|| {
                format!(
                    "invalid port space '{v}' for -p (expected {:#x} for UDP or {:#x} for IPOIB)",
                    PortSpace::Udp.code(),
                    PortSpace::Ipoib.code()
                )
            })?;
        cfg.port_space = PortSpace::from_raw(ps as u32);
    }
    Ok(Parsed::Run(cfg))
}

fn main() -> ExitCode {
    common::cli::main(&cli(), read_config, run_main)
}

/// main after the options (7.3.1 steps 2-): set up, run, tear down.
fn run_main(mut cfg: Config) -> ExitCode {
    if let Err(e) = install_stop_handler() {
        eprintln!("mckey: {e}");
        return ExitCode::FAILURE;
    }
    let channel = match EventChannel::new() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("mckey: failed to create event channel: {e}");
            return ExitCode::FAILURE;
        }
    };
    let nodes = match alloc_nodes(&channel, &cfg) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("mckey: unable to create the rdma_cm ids: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut test = Cmatest {
        connects_left: nodes.len(),
        channel,
        nodes,
        dst_addr: None,
        src_addr: None,
    };

    let ret = run(&mut test, &mut cfg);
    if let Err(e) = &ret {
        eprintln!("{e}");
    }
    println!("test complete");
    let torn = destroy_nodes(&mut test).and(test.channel.destroy());
    // One line on stderr: a teardown failure is news only after a good run.
    if let (Ok(()), Err(e)) = (&ret, &torn) {
        eprintln!("{e}");
    }

    let status = u8::from(ret.is_err() || torn.is_err());
    println!("return status {status}");
    ExitCode::from(status)
}

#[cfg(test)]
#[path = "mckey/tests.rs"]
mod tests;
