//! `bench`: the benchmarks (ping-pong, the mesh), each a ratio in one boot.

use super::args::see_help;
use super::define::{Bench, BenchArgs};
use crate::model::Mode;

/// `bench pingpong [--two-hosts] [--tcg] | bench mesh [--rails]`.
pub(super) fn bench_cmd(a: BenchArgs) -> Result<bool, String> {
    match a.which {
        Some(Bench::Mesh) => Ok(crate::present::bench::print_mesh(
            &crate::host::bench::mesh(a.rails)?,
        )),
        Some(Bench::Pingpong) => {
            let mode = if a.two_hosts {
                Mode::TwoHosts
            } else {
                Mode::SingleHost
            };
            let tcg = a.tcg || crate::host::lab::tcg_from_env();
            let b = crate::host::bench::pingpong(mode, tcg)?;
            Ok(crate::present::bench::print_pingpong(&b))
        }
        None => Err(format!(
            "bench: which one? pingpong or mesh; {}",
            see_help(Some("bench"))
        )),
    }
}
