//! The code the passive (server) and active (client) sides of Bedeir's
//! "Building an RDMA-Capable Application with IB Verbs" share (sections 2 and 3:
//! "steps one, five, seven, and eight on the passive side are roughly
//! equivalent to steps one, four, seven, and eight on the active side").
//!
//! Function names are the paper's: `build_context`, `build_qp_attr`,
//! `register_memory`, `post_receives`, `on_connection`, `poll_cq`,
//! `on_completion`. Each binary keeps its own `main`, `on_event` and the
//! handlers that differ.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use common::cm::{CmEvent, CmId, EventChannel};
// stdout that cannot be written ends the program in one line, not a panic.
use common::println;
use common::verbs::{
    c_str_lossy, first_failure, AccessFlags, CompChannel, Context, Cq, Mr, Pd, Qp, QpInitAttr,
    QpType, SendFlags, WcOpcode, WcStatus,
};
use common::{Error, Result, ResultExt};

/// Size of each side's send and receive buffer; the whole buffer travels.
pub const BUFFER_SIZE: usize = 1024;
/// Timeout of address and route resolution.
pub const TIMEOUT_IN_MS: i32 = 500;
/// Completion queue entries.
pub const CQ_ENTRIES: i32 = 10;
pub use common::signals::TICK;
/// How long a disconnected connection's posted work may take to complete on
/// its own (the peer's ACK of our last send can trail its DREQ) before its QP
/// is moved to the error state to flush the rest, and how long the flush may
/// take in turn.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);

/// Which side of the connection this program is; it picks the message and
/// whether to disconnect after the exchange.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The server: waits for connections and never disconnects first.
    Passive,
    /// The client: disconnects after its send and receive completed.
    Active,
}

impl Side {
    /// The message this side sends (the paper's `snprintf` text).
    pub fn message(self, pid: u32) -> String {
        match self {
            Side::Passive => format!("message from passive/server side with pid {pid}"),
            Side::Active => format!("message from active/client side with pid {pid}"),
        }
    }
}

/// One connection (`struct connection`): its id, QP and the two registered
/// buffers, released by [`State::release_connection`] in the paper's order.
pub struct Connection {
    /// The connection's cm_id.
    pub id: CmId,
    /// The QP created on the id.
    pub qp: Qp,
    /// Receive buffer.
    pub recv_mr: Mr,
    /// Send buffer.
    pub send_mr: Mr,
    /// Completions processed (the client disconnects after two).
    pub num_completions: AtomicU32,
    /// Work requests posted and not yet completed; the connection is only
    /// released once this is zero, so no completion outlives it.
    pub outstanding: AtomicU32,
    /// Set once the peer disconnected: flushed work is then expected.
    pub disconnecting: AtomicBool,
    /// The first failed completion after the peer disconnected, which the
    /// event loop reports (the poller thread prints no error of its own, so
    /// that a failure comes out as one line).
    pub failure: Mutex<Option<String>>,
}

/// Live connections by the key of their id, shared with the poller thread.
pub type Connections = Arc<Mutex<HashMap<u64, Arc<Connection>>>>;

/// The verbs context shared by all connections (`struct context`, `s_ctx`):
/// PD, completion channel, one CQ and the thread that polls it.
pub struct SharedContext {
    ctx: Context,
    /// The id whose device the context is (`id->verbs`): the context holds
    /// it, so it is destroyed after the context, at shutdown.
    ctx_id: CmId,
    /// Protection domain of every connection's QP and MRs.
    pub pd: Pd,
    /// The CQ every QP sends and receives on.
    pub cq: Cq,
    _comp_channel: CompChannel,
    poller: Option<JoinHandle<()>>,
    stop: Arc<AtomicBool>,
}

/// Everything a side keeps between events.
pub struct State {
    /// Which side this is.
    pub side: Side,
    /// The rdma_cm event channel.
    pub ec: EventChannel,
    /// Built at the first connection (`s_ctx`).
    pub s_ctx: Option<SharedContext>,
    /// Live connections.
    pub conns: Connections,
    /// The first error the poller thread hit; the main loop reports it.
    pub failure: Arc<Mutex<Option<Error>>>,
}

impl State {
    /// A side with no connection yet.
    pub fn new(side: Side, ec: EventChannel) -> State {
        State {
            side,
            ec,
            s_ctx: None,
            conns: Arc::new(Mutex::new(HashMap::new())),
            failure: Arc::new(Mutex::new(None)),
        }
    }

    /// The paper's event loop: `while (rdma_get_cm_event(ec, &event) == 0)
    /// { ...; if (on_event(&event_copy)) break; }`. It also wakes every TICK
    /// to report the poller thread's error and to ask `tick` whether to stop
    /// (`Ok(true)`: stop cleanly; `Err`: give up with that error).
    pub fn event_loop(
        &mut self,
        mut tick: impl FnMut() -> Result<bool>,
        mut on_event: impl FnMut(&mut State, CmEvent) -> Result<bool>,
    ) -> Result<()> {
        loop {
            if let Some(e) = self.take_failure() {
                return Err(e);
            }
            if tick()? {
                return Ok(());
            }
            if let Some(ev) = self.ec.get_event(Some(TICK))? {
                if on_event(self, ev)? {
                    return Ok(());
                }
            }
        }
    }

    /// The poller's error, if it stopped on one.
    pub fn take_failure(&self) -> Option<Error> {
        lock(&self.failure).take()
    }

    /// build_context: on the first connection, create the PD, completion
    /// channel and CQ on the device of `id` and start the poller thread.
    pub fn build_context(&mut self, id: &CmId) -> Result<()> {
        let verbs = id
            .verbs()
            .ok_or_else(|| Error::msg("the cm_id has no device (id->verbs is NULL)"))?;
        if let Some(s) = &self.s_ctx {
            if !s.ctx.same_device(&verbs) {
                return Err(Error::msg("cannot handle events in more than one context."));
            }
            return Ok(());
        }
        let pd = verbs.alloc_pd()?;
        let comp_channel = verbs.create_comp_channel()?;
        let cq = verbs.create_cq(CQ_ENTRIES, Some(&comp_channel))?;
        cq.req_notify(false)?;
        let stop = Arc::new(AtomicBool::new(false));
        let poller = {
            let (cq, conns, failure, stop, side) = (
                cq.clone(),
                self.conns.clone(),
                self.failure.clone(),
                stop.clone(),
                self.side,
            );
            std::thread::Builder::new()
                .name("poll_cq".into())
                .spawn(move || {
                    if let Err(e) = poll_cq(&cq, &conns, &stop, side) {
                        lock(&failure).get_or_insert(e);
                    }
                })
                .map_err(|e| Error::io("pthread_create", &e))?
        };
        self.s_ctx = Some(SharedContext {
            ctx: verbs,
            ctx_id: id.clone(),
            pd,
            cq,
            _comp_channel: comp_channel,
            poller: Some(poller),
            stop,
        });
        Ok(())
    }

    /// Build a connection on `id` (QP, buffers, receive posted) and register
    /// it, as `on_connect_request` / `on_addr_resolved` do after build_context.
    pub fn build_connection(&mut self, id: CmId) -> Result<Arc<Connection>> {
        self.build_context(&id)?;
        let Some(s) = &self.s_ctx else {
            return Err(Error::msg("no verbs context"));
        };
        let qp = id.create_qp(Some(&s.pd), &build_qp_attr(&s.cq))?;
        let (send_mr, recv_mr) = register_memory(&s.pd)?;
        let conn = Arc::new(Connection {
            id,
            qp,
            recv_mr,
            send_mr,
            num_completions: AtomicU32::new(0),
            outstanding: AtomicU32::new(0),
            disconnecting: AtomicBool::new(false),
            failure: Mutex::new(None),
        });
        post_receives(&conn)?;
        lock(&self.conns).insert(conn.id.key() as u64, conn.clone());
        Ok(conn)
    }

    /// The connection of the id an event is for.
    pub fn connection(&self, id_key: usize) -> Result<Arc<Connection>> {
        lock(&self.conns)
            .get(&(id_key as u64))
            .cloned()
            .ok_or_else(|| Error::msg("event for an unknown connection"))
    }

    /// The paper's on_disconnect release, made safe: wait until the
    /// connection's posted work has completed (its last send's completion may
    /// still be on its way when DISCONNECTED arrives), and if it does not
    /// finish within DRAIN_TIMEOUT, flush it as [`State::drop_connection`]
    /// does; then forget the connection, which releases its QP, MRs and id
    /// once the poller lets go of it too. Returns the failed completion the
    /// connection's last work met, if any, for the caller to report.
    pub fn release_connection(&self, id_key: usize) -> Result<Option<String>> {
        let Some(conn) = lock(&self.conns).get(&(id_key as u64)).cloned() else {
            return Ok(None);
        };
        conn.disconnecting.store(true, Ordering::SeqCst);
        if self.drain(&conn)? {
            lock(&self.conns).remove(&(id_key as u64));
            let failure = lock(&conn.failure).take();
            self.destroy_connection(conn)?;
            return Ok(failure);
        }
        // drop_connection destroys the connection once nothing else holds
        // it: this handle must not be one.
        drop(conn);
        self.drop_connection(id_key).map(|()| None)
    }

    /// Give up on a connection at once: move its QP to the error state so
    /// its posted work completes flushed, wait for that, and forget it.
    pub fn drop_connection(&self, id_key: usize) -> Result<()> {
        let Some(conn) = lock(&self.conns).get(&(id_key as u64)).cloned() else {
            return Ok(());
        };
        conn.disconnecting.store(true, Ordering::SeqCst);
        conn.qp.modify_to_err()?;
        let drained = self.drain(&conn)?;
        lock(&self.conns).remove(&(id_key as u64));
        if !drained {
            return Err(Error::msg(format!(
                "{} work request(s) still not completed {} s after the QP was moved \
                 to the error state",
                conn.outstanding.load(Ordering::SeqCst),
                DRAIN_TIMEOUT.as_secs()
            )));
        }
        self.destroy_connection(conn)
    }

    /// The paper's on_disconnect cleanup of a connection that is no longer
    /// in the table: `rdma_destroy_qp`, `ibv_dereg_mr` of both buffers, then
    /// `rdma_destroy_id`, each reported if it fails. The poller may still
    /// hold the connection for the completion it is finishing; it is waited
    /// for. The id the shared context came from is destroyed at shutdown,
    /// after the context, which holds it (the server answers the peer's
    /// disconnect on it at once, with `rdma_disconnect`).
    fn destroy_connection(&self, conn: Arc<Connection>) -> Result<()> {
        let deadline = Instant::now() + DRAIN_TIMEOUT;
        let mut conn = conn;
        let conn = loop {
            match Arc::try_unwrap(conn) {
                Ok(c) => break c,
                Err(shared) if Instant::now() < deadline => {
                    conn = shared;
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(_) => {
                    return Err(Error::msg(
                        "rdma_destroy_qp: the connection is still in use by the CQ poller",
                    ))
                }
            }
        };
        let Connection {
            id,
            qp,
            recv_mr,
            send_mr,
            ..
        } = conn;
        first_failure([qp.destroy(), send_mr.destroy(), recv_mr.destroy()])?;
        match &self.s_ctx {
            // The shared context holds this id until shutdown. The DREP that
            // rdma_destroy_id would send the peer, which waits for it to
            // see its own DISCONNECTED, is sent now.
            Some(s) if s.ctx_id.key() == id.key() => match self.side {
                Side::Passive => id.disconnect(),
                Side::Active => Ok(()),
            },
            _ => id.destroy(),
        }
    }

    /// Wait up to DRAIN_TIMEOUT for `conn`'s posted work to complete; false
    /// if some is left. The poller's error, if it stopped on one, ends it.
    fn drain(&self, conn: &Connection) -> Result<bool> {
        let deadline = Instant::now() + DRAIN_TIMEOUT;
        while conn.outstanding.load(Ordering::SeqCst) > 0 {
            if let Some(e) = self.take_failure() {
                return Err(e);
            }
            if Instant::now() >= deadline {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(true)
    }

    /// Stop the poller thread and release everything: connections first
    /// (QPs, MRs, ids), then the CQ, completion channel and PD, and the id
    /// the context came from; every step is tried and the first failure
    /// returned. The event channel is the caller's, to destroy after its
    /// own ids.
    pub fn shutdown(&mut self) -> Result<()> {
        if let Some(s) = &mut self.s_ctx {
            s.stop.store(true, Ordering::SeqCst);
            if let Some(h) = s.poller.take() {
                let _ = h.join();
            }
        }
        let conns: Vec<Arc<Connection>> = lock(&self.conns).drain().map(|(_, c)| c).collect();
        let mut steps: Vec<Result<()>> = conns
            .into_iter()
            .map(|c| self.destroy_connection(c))
            .collect();
        if let Some(s) = self.s_ctx.take() {
            let SharedContext {
                ctx,
                ctx_id,
                pd,
                cq,
                _comp_channel,
                ..
            } = s;
            steps.extend([
                cq.destroy(),
                _comp_channel.destroy(),
                pd.destroy(),
                ctx.destroy(),
                ctx_id.destroy(),
            ]);
        }
        first_failure(steps)
    }
}

impl Drop for State {
    fn drop(&mut self) {
        // The backstop of error paths; the binaries call shutdown and report.
        let _ = self.shutdown();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// build_qp_attr: an RC QP on the shared CQ with room for 10 sends and 10
/// receives of one scatter/gather entry each.
pub fn build_qp_attr(cq: &Cq) -> QpInitAttr<'_> {
    QpInitAttr::new(QpType::Rc, 10).on_cq(cq)
}

/// register_memory: a send and a receive buffer of BUFFER_SIZE bytes each.
pub fn register_memory(pd: &Pd) -> Result<(Mr, Mr)> {
    let access = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE;
    let send_mr = pd.reg_mr(BUFFER_SIZE, access)?;
    let recv_mr = pd.reg_mr(BUFFER_SIZE, access)?;
    Ok((send_mr, recv_mr))
}

/// post_receives: one receive of the whole buffer; wr_id names the connection.
pub fn post_receives(conn: &Connection) -> Result<()> {
    let sge = conn.recv_mr.sge_all()?;
    counted(conn, || conn.qp.post_recv(conn.id.key() as u64, &[sge]))
}

/// Post through `post`, counting the work request as outstanding until its
/// completion is polled (or not at all if the post fails).
fn counted(conn: &Connection, post: impl FnOnce() -> Result<()>) -> Result<()> {
    conn.outstanding.fetch_add(1, Ordering::SeqCst);
    let r = post();
    if r.is_err() {
        conn.outstanding.fetch_sub(1, Ordering::SeqCst);
    }
    r
}

/// The bytes on the wire: the whole BUFFER_SIZE buffer, holding `text` cut to
/// fit and NUL-terminated, zeros after it (the paper's `sprintf` into it).
pub fn message_buffer(text: &str) -> Vec<u8> {
    let mut buf = vec![0u8; BUFFER_SIZE];
    let n = text.len().min(BUFFER_SIZE - 1);
    buf[..n].copy_from_slice(&text.as_bytes()[..n]);
    buf
}

/// on_connection: write this side's message into the send buffer and post
/// the SEND of the whole buffer.
pub fn on_connection(conn: &Connection, side: Side) -> Result<()> {
    conn.send_mr
        .write(0, &message_buffer(&side.message(std::process::id())))?;
    println!("connected. posting send...");
    let sge = conn.send_mr.sge_all()?;
    counted(conn, || {
        conn.qp.post_send(
            conn.id.key() as u64,
            common::verbs::SendOp::Send,
            &[sge],
            SendFlags::SIGNALED,
        )
    })
}

/// poll_cq: the poller thread. Wait on the completion channel, ack, re-arm,
/// then drain the CQ. Unlike the paper's endless loop it wakes up every
/// TICK to see whether the program is shutting down, and then drains the CQ
/// once more so completions that arrived meanwhile still get their lines.
pub fn poll_cq(cq: &Cq, conns: &Connections, stop: &AtomicBool, side: Side) -> Result<()> {
    loop {
        let stopping = stop.load(Ordering::SeqCst);
        if !stopping {
            if !cq.wait_event(Some(TICK))? {
                continue;
            }
            cq.req_notify(false)?;
        }
        while let Some(wc) = cq.poll_one()? {
            on_completion(&wc, conns, side)?;
        }
        if stopping {
            return Ok(());
        }
    }
}

/// on_completion: print the received message or the send's success; the
/// client disconnects after its second completion. Work flushed from a
/// connection whose peer disconnected is expected and passes silently.
pub fn on_completion(
    wc: &common::verbs::WorkCompletion,
    conns: &Connections,
    side: Side,
) -> Result<()> {
    let conn = lock(conns).get(&wc.wr_id).cloned();
    // The work request counts as outstanding until its completion has been
    // handled, so release_connection waits for the lines printed below.
    let _done = conn.as_deref().map(Completed);
    if !wc.is_success() {
        let text = format!(
            "on_completion: status is not IBV_WC_SUCCESS: {} (status {}, vendor error 0x{:x})",
            wc.status_str(),
            wc.status.code(),
            wc.vendor_err
        );
        let flushed = wc.status == WcStatus::WrFlushErr;
        // The line is reported by the event loop when the connection is
        // released, so that one failure comes out as one line.
        let note = |c: &Connection, note: &str| {
            lock(&c.failure).get_or_insert(format!("{text}{note}"));
        };
        return match (&conn, side) {
            // The peer left; its QP's work fails or is flushed. A server
            // keeps serving the others.
            (Some(c), _) if c.disconnecting.load(Ordering::SeqCst) => {
                if !flushed {
                    let why = if side == Side::Passive {
                        "; the peer had disconnected"
                    } else {
                        ""
                    };
                    note(c, why);
                }
                Ok(())
            }
            // Work that fails on a live connection ends that connection,
            // not the server: disconnect it, and its DISCONNECTED event
            // releases it and reports the line.
            (Some(c), Side::Passive) => {
                c.disconnecting.store(true, Ordering::SeqCst);
                note(c, "; connection dropped");
                c.id.disconnect().context("on_completion")
            }
            (None, _) if flushed => Ok(()),
            _ => Err(Error::msg(text)),
        };
    }
    let conn = conn
        .as_deref()
        .ok_or_else(|| Error::msg("on_completion: completion for an unknown connection"))?;
    if wc.opcode.is_recv() {
        println!("received message: {}", c_str_lossy(&conn.recv_mr.to_vec()));
    } else if wc.opcode == WcOpcode::Send {
        println!("send completed successfully.");
    } else {
        return Err(Error::msg(
            "on_completion: completion isn't a send or a receive.",
        ));
    }
    if side == Side::Active && conn.num_completions.fetch_add(1, Ordering::SeqCst) + 1 == 2 {
        conn.id.disconnect().context("on_completion")?;
    }
    Ok(())
}

/// Counts one of a connection's work requests as done when dropped.
struct Completed<'a>(&'a Connection);

impl Drop for Completed<'_> {
    fn drop(&mut self) {
        self.0.outstanding.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The one-line report of a CM event no handler expects (the paper's
/// `die("on_event: unknown event.")`), with the event's name and status.
pub fn unknown_event(ev: &CmEvent) -> Error {
    Error::msg(format!(
        "on_event: unexpected event {} (status {})",
        ev.name(),
        ev.status
    ))
}

#[cfg(test)]
mod tests;

/// The message buffer as the peer decodes it: whatever the text, the buffer
/// is BUFFER_SIZE bytes, NUL-terminated, and gives the text back (cut to fit).
#[cfg(test)]
mod properties;
