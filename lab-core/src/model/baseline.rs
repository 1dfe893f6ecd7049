//! A baseline: the figures of an earlier `mesh --perf` run that its user
//! calls good, each link against its own earlier figure, so that a whole
//! fabric that got slower alike (a firmware update, an MTU pushed to
//! every switch, PFC turned off) shows, which no ratio to the run's own
//! median can. Plain data; `rdma_lab_agent::results::baseline` reads one
//! from that run's JSON Lines report.

/// An earlier run's figures.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Baseline {
    /// When its report was written (`YYYY-MM-DD`), as it says.
    pub date: String,
    /// The version of `rdma-lab` that wrote it.
    pub version: String,
    /// Its rails by index: rail 0 (`None`, the hosts' RDMA addresses),
    /// then each rail's subnet.
    pub rails: Vec<Option<String>>,
    /// The QP timeout its measurements ran with, when not perftest's own.
    pub qp_timeout: Option<u8>,
    /// Each measured link.
    pub links: Vec<BaseLink>,
}

/// One link of a baseline.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BaseLink {
    /// Its rail's index in [`Baseline::rails`].
    pub rail: usize,
    /// Its two hosts' names, in name order.
    pub hosts: [String; 2],
    /// Its bandwidth in Gb/s, when measured.
    pub gbps: Option<f64>,
}
