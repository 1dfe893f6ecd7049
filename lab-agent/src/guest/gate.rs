//! The door of a listening host (a serving agent, the mesh's coordinator):
//! it accepts connections and runs their handshakes side by side, each on a
//! thread of its own and each bounded in time by the handshake itself, so
//! that a stranger who opens a connection and says nothing delays no one
//! but himself. At most [`AT_ONCE`] handshakes run at once, and at most
//! [`PER_SOURCE`] from one address: strangers from one address cannot take
//! every slot, and a connection over its address's share is closed at once
//! (the peer retries with a fresh one). At capacity, new connections wait
//! in the kernel's listen queue, unaccepted.

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How many handshakes may be under way at once.
pub const AT_ONCE: usize = 64;

/// How many of them may come from one address.
pub const PER_SOURCE: usize = 8;

/// What a handshake came to, and from where.
type Finished<T> = (Result<T, String>, SocketAddr);

/// What happened at the door, for the caller to say in its own words.
pub enum Event<T> {
    /// A handshake ended: the session, or why not in one line.
    Done(Result<T, String>, SocketAddr),
    /// A connection from outside the allowed addresses, closed unheard.
    NotAllowed(SocketAddr),
    /// An address reached its share of the handshakes; its next
    /// connections are closed unheard until one of them ends (said once
    /// until all of them ended).
    Full(IpAddr),
}

/// A listener and the handshakes under way on it.
pub struct Gate<T> {
    listener: TcpListener,
    allow: Vec<IpAddr>,
    under_way: HashMap<IpAddr, usize>,
    told_full: HashSet<IpAddr>,
    tx: mpsc::Sender<Finished<T>>,
    rx: mpsc::Receiver<Finished<T>>,
}

impl<T: Send + 'static> Gate<T> {
    /// A gate on `listener`; `allow` empty lets any address in.
    pub fn new(listener: TcpListener, allow: Vec<IpAddr>) -> std::io::Result<Gate<T>> {
        listener.set_nonblocking(true)?;
        let (tx, rx) = mpsc::channel();
        Ok(Gate {
            listener,
            allow,
            under_way: HashMap::new(),
            told_full: HashSet::new(),
            tx,
            rx,
        })
    }

    /// The next event before `deadline`, accepting connections and
    /// starting their `handshake`s meanwhile; `None` at the deadline.
    pub fn next<F>(&mut self, deadline: Instant, handshake: &F) -> Option<Event<T>>
    where
        F: Fn(TcpStream, SocketAddr) -> Result<T, String> + Clone + Send + 'static,
    {
        while Instant::now() < deadline {
            if let Ok((done, from)) = self.rx.try_recv() {
                self.ended(from.ip());
                return Some(Event::Done(done, from));
            }
            let total: usize = self.under_way.values().sum();
            let accepted = (total < AT_ONCE)
                .then(|| self.listener.accept().ok())
                .flatten();
            let Some((stream, from)) = accepted else {
                let left = deadline.saturating_duration_since(Instant::now());
                if let Ok((done, from)) = self.rx.recv_timeout(left.min(Duration::from_millis(20)))
                {
                    self.ended(from.ip());
                    return Some(Event::Done(done, from));
                }
                continue;
            };
            if let Some(e) = self.start(stream, from, handshake) {
                return Some(e);
            }
        }
        None
    }

    /// Starts the handshake of one accepted connection, or says why not.
    fn start<F>(&mut self, stream: TcpStream, from: SocketAddr, handshake: &F) -> Option<Event<T>>
    where
        F: Fn(TcpStream, SocketAddr) -> Result<T, String> + Clone + Send + 'static,
    {
        if !self.allow.is_empty() && !self.allow.contains(&from.ip()) {
            return Some(Event::NotAllowed(from));
        }
        let n = self.under_way.entry(from.ip()).or_default();
        if *n >= PER_SOURCE {
            drop(stream);
            return self
                .told_full
                .insert(from.ip())
                .then_some(Event::Full(from.ip()));
        }
        *n += 1;
        let (tx, f) = (self.tx.clone(), handshake.clone());
        std::thread::spawn(move || {
            let done = stream
                .set_nonblocking(false)
                .map_err(|e| format!("control: {e}"))
                .and_then(|()| f(stream, from));
            let _ = tx.send((done, from));
        });
        None
    }

    /// A handshake from `ip` ended: its slot is free. The address is told
    /// full again only after all of its handshakes ended, so a flood says
    /// one line a while, not one a slot.
    fn ended(&mut self, ip: IpAddr) {
        if let Some(n) = self.under_way.get_mut(&ip) {
            *n -= 1;
            if *n == 0 {
                self.under_way.remove(&ip);
                self.told_full.remove(&ip);
            }
        }
    }
}
