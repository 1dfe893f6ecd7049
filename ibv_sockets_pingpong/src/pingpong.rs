//! The `-n` ping-pong, this port's addition to the original's single
//! SEND: `ibv_rc_pingpong`'s timed loop over the QP and buffer that the
//! original's steps (in `main.rs`) set up, and its two summary lines.

use std::time::{Duration, Instant};

use common::print;
use common::verbs::{Cq, Mr, Qp, SendFlags, SendOp, Sge, WorkCompletion};
use common::{Error, Result, ResultExt};

use crate::{check_wc, poll_cq_timeout, Config, RECV_WR_ID, SEND_WR_ID};

/// Receives posted at a time in the ping-pong, as `ibv_rc_pingpong`'s default
/// `rx_depth`: refilled only when nearly used up, so posting stays out of
/// almost every round trip.
pub(crate) const RX_DEPTH: u32 = 500;

/// `iters` round trips, then the summary lines both sides print.
pub(crate) fn run(qp: &Qp, cq: &Cq, mr: &Mr, config: &Config, iters: u32) -> Result<()> {
    let elapsed = pingpong(qp, cq, mr, config, iters)?;
    print!(
        "{}",
        format_summary(config.size as u64, u64::from(iters), elapsed)
    );
    Ok(())
}

/// The `-n` ping-pong, with `ibv_rc_pingpong`'s loop: receives posted ahead
/// and refilled in bulk, busy polling for two completions at a time, the
/// next SEND posted once both the last SEND and the peer's answer are done.
/// The client sends first, as in `ibv_rc_pingpong`: it leaves the `mr_info`
/// exchange before the server, so its clock (the one the benchmark reads)
/// starts at its own first SEND, not while the server still reads
/// `mr_info`. Returns the time
/// the round trips took.
fn pingpong(qp: &Qp, cq: &Cq, mr: &Mr, config: &Config, iters: u32) -> Result<Duration> {
    // Inline sends save the adapter a read of the buffer, when it allows the size.
    let send_flags = if qp.query_cap()?.max_inline_data as usize >= config.size {
        SendFlags::SIGNALED | SendFlags::INLINE
    } else {
        SendFlags::SIGNALED
    };
    let sge: Sge<'_> = mr.sge_all()?;
    let mut wcs = [WorkCompletion::default(); 2];
    let mut routs = RX_DEPTH;
    let (mut scnt, mut rcnt) = (0u32, 0u32);
    let (mut pending_send, mut pending_recv) = (false, true);

    let start = Instant::now();
    if !config.is_server() {
        qp.post_send_one(SEND_WR_ID, SendOp::Send, sge, send_flags)
            .context("fail to post send")?;
        pending_send = true;
    }
    while rcnt < iters || scnt < iters {
        let n = poll_cq_timeout(cq, &mut wcs).context("fail to poll cq")?;
        for wc in &wcs[..n] {
            check_wc(wc).context("fail to poll cq")?;
            match wc.wr_id {
                SEND_WR_ID => {
                    scnt += 1;
                    pending_send = false;
                }
                RECV_WR_ID => {
                    routs -= 1;
                    if routs <= 1 {
                        while routs < RX_DEPTH {
                            qp.post_recv_one(RECV_WR_ID, sge)
                                .context("fail to post recv")?;
                            routs += 1;
                        }
                    }
                    rcnt += 1;
                    pending_recv = false;
                }
                other => {
                    return Err(Error::msg(format!(
                        "fail to poll cq: completion for unknown wr id {other}"
                    )))
                }
            }
            if scnt < iters && !pending_send && !pending_recv {
                qp.post_send_one(SEND_WR_ID, SendOp::Send, sge, send_flags)
                    .context("fail to post send")?;
                pending_send = true;
                pending_recv = true;
            }
        }
    }
    Ok(start.elapsed())
}

/// The two summary lines for `iters` round trips of `size`-byte messages
/// that took `elapsed`, in rdma-core `rc_pingpong.c`'s format
/// (`"%lld bytes in %.2f seconds = %.2f Mbit/sec\n"`,
/// `"%d iters in %.2f seconds = %.2f usec/iter\n"`), so one parser
/// (`xtask::bench::parse_summary`) reads both programs. Bytes count both
/// directions: every iteration moves one message each way.
fn format_summary(size: u64, iters: u64, elapsed: Duration) -> String {
    let usec = elapsed.as_secs_f64() * 1e6;
    let bytes = size * iters * 2;
    format!(
        "{bytes} bytes in {:.2} seconds = {:.2} Mbit/sec\n{iters} iters in {:.2} seconds = {:.2} usec/iter\n",
        usec / 1e6,
        bytes as f64 * 8.0 / usec,
        usec / 1e6,
        usec / iters as f64
    )
}

#[cfg(test)]
mod tests;
