//! The id as the owner of the QP librdmacm made on it: its destruction
//! through `rdma_destroy_qp`, and its completions read from librdmacm's
//! own CQs (`rdma_get_send_comp`/`rdma_get_recv_comp`, bounded here).

use super::*;

/// The id as the owner of the QP librdmacm made on it.
impl CmQpOwner for CmId {
    fn destroy_qp(&self) {
        // SAFETY: the id is live (the QP holds this handle) and its QP is
        // destroyed once, by the QP's release; rdma_destroy_qp returns
        // nothing to report.
        unsafe { sys::rdma_destroy_qp(self.inner.id) }
    }

    /// `rdma_get_send_comp` / `rdma_get_recv_comp` for `qp`, this id's QP:
    /// the next completion of librdmacm's CQ (created with the QP when none
    /// was given), waiting at most `timeout`, and failing early if the peer
    /// disconnects. The completion's status is the caller's to check, as in
    /// C. Borrowing `qp` keeps the CQs alive: `rdma_destroy_qp` frees them.
    fn get_comp(&self, qp: &Qp, which: CompQueue, timeout: Duration) -> Result<WorkCompletion> {
        let id = self.inner.id;
        // SAFETY: id is live, and so is its QP (borrowed), which the CQs go with.
        let (what, cq, ch) = unsafe {
            debug_assert_eq!((*id).qp, qp.as_ptr());
            match which {
                CompQueue::Send => ("rdma_get_send_comp", (*id).send_cq, (*id).send_cq_channel),
                CompQueue::Recv => ("rdma_get_recv_comp", (*id).recv_cq, (*id).recv_cq_channel),
            }
        };
        if cq.is_null() || ch.is_null() {
            return Err(Error::msg(format!(
                "{what}: the id has no CQ of librdmacm's (its QP was created with the application's CQ)"
            )));
        }
        let deadline = Instant::now() + timeout;
        let mut peer_gone: Option<Error> = None;
        loop {
            // The helper's order: poll, arm, poll again, then sleep on the
            // channel, so that no completion slips between poll and arm.
            if let Some(wc) = poll_one_raw(cq)? {
                return Ok(wc);
            }
            // SAFETY: cq is live while the QP is (see above).
            let rc = unsafe { sys::ibv_req_notify_cq(cq, 0) };
            if rc != 0 {
                return Err(Error::from_ret("ibv_req_notify_cq", rc).context(what));
            }
            let wc = poll_one_raw(cq)?;
            if let Some(e) = peer_gone {
                // The CQ was polled once more after the peer's goodbye: a
                // completion that made it is still good; the flushed rest
                // are explained by the peer leaving.
                return match wc {
                    Some(wc) if wc.is_success() => Ok(wc),
                    _ => Err(e.context(what)),
                };
            }
            if let Some(wc) = wc {
                return Ok(wc);
            }
            // SAFETY: ch is live with cq.
            let fd = unsafe { (*ch).fd };
            if wait_readable(fd, Some(TICK), "poll(completion channel)")? {
                let mut ev_cq: *mut sys::ibv_cq = ptr::null_mut();
                let mut ev_ctx: *mut libc::c_void = ptr::null_mut();
                // SAFETY: ch is live; the fd is readable so this does not block.
                let rc = unsafe { sys::ibv_get_cq_event(ch, &mut ev_cq, &mut ev_ctx) };
                if rc != 0 {
                    return Err(Error::last_os("ibv_get_cq_event").context(what));
                }
                // SAFETY: acked once, on the CQ the event is for.
                unsafe { sys::ibv_ack_cq_events(ev_cq, 1) };
                continue;
            }
            if let Err(e) = self.check_peer() {
                peer_gone = Some(e);
                continue;
            }
            if Instant::now() >= deadline {
                return Err(Error::msg(format!(
                    "{what}: no completion within {} s",
                    timeout.as_secs()
                )));
            }
        }
    }
}

/// librdmacm's PD of the id's device (`id->pd`), held through the id.
pub(super) fn librdmacm_pd(id: &CmId) -> Option<Pd> {
    // SAFETY: id is live.
    let pd = unsafe { (*id.inner.id).pd };
    // SAFETY: librdmacm frees its PD when the last id of the device is
    // destroyed; the Pd holds this id.
    (!pd.is_null()).then(|| unsafe { Pd::from_borrowed(pd, id.keep()) })
}

fn poll_one_raw(cq: *mut sys::ibv_cq) -> Result<Option<WorkCompletion>> {
    let mut wc = sys::ibv_wc::default();
    // SAFETY: cq is live (see get_comp); wc has room for one entry.
    let n = unsafe { sys::ibv_poll_cq(cq, 1, &mut wc) };
    if n < 0 {
        return Err(crate::verbs::poll_cq_error(n));
    }
    Ok((n > 0).then(|| WorkCompletion::from_raw(&wc)))
}
