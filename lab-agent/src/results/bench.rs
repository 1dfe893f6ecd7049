//! What a benchmark measured: each a ratio of two medians in one boot,
//! which `present::bench` shows.

/// `bench pingpong`: ibv_sockets_pingpong against rdma-core's
/// ibv_rc_pingpong, alternating runs.
#[derive(Debug, Clone)]
pub struct Pingpong {
    /// Each run's name, with its client's usec/iter and Mbit/sec.
    pub runs: Vec<(String, f64, f64)>,
    /// ibv_rc_pingpong's median usec/iter.
    pub theirs: f64,
    /// ibv_sockets_pingpong's median usec/iter.
    pub ours: f64,
    /// Runs of each program.
    pub each: usize,
    /// Where the sides ran (the mode's label).
    pub mode: String,
    /// The most ours may take, as a multiple of theirs.
    pub target: f64,
}

impl Pingpong {
    /// Ours over theirs.
    pub fn ratio(&self) -> f64 {
        self.ours / self.theirs
    }

    /// Whether ours is within the target.
    pub fn met(&self) -> bool {
        self.ratio() <= self.target
    }
}

/// `bench mesh`: the four-host mesh in parallel rounds against its pairs
/// one at a time.
#[derive(Debug, Clone)]
pub struct Mesh {
    /// The parallel rounds' median wall time, in seconds, and their runs.
    pub parallel: (f64, usize),
    /// One pair at a time: the median, and the runs.
    pub serial: (f64, usize),
    /// `bench mesh --rails`: `parallel` is both rails at once, `serial`
    /// one rail at a time.
    pub rails: bool,
}

impl Mesh {
    /// Whether the parallel rounds were faster.
    pub fn faster(&self) -> bool {
        self.serial.0 > self.parallel.0
    }
}
