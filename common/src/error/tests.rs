use super::*;

#[test]
fn context_is_not_repeated() {
    let e = Error::with_errno("ibv_alloc_pd", libc::ENOMEM);
    let once = e.to_string();
    assert_eq!(e.context("ibv_alloc_pd").to_string(), once);
    let e = Error::with_errno("ibv_alloc_pd", libc::ENOMEM).context("ibv_alloc");
    assert!(
        e.to_string().starts_with("ibv_alloc: ibv_alloc_pd failed"),
        "{e}"
    );
}

#[test]
fn a_context_that_names_the_verb_and_failed_says_them_once() {
    let e = Error::with_errno("ibv_query_port", libc::EINVAL)
        .context("ibv_query_port on port 255 failed");
    assert_eq!(
        e.to_string(),
        "ibv_query_port on port 255 failed: Invalid argument (EINVAL)"
    );
    assert_eq!(e.errno(), Some(libc::EINVAL));
}

#[test]
fn from_ret_uses_the_returned_errno() {
    let e = Error::from_ret("ibv_modify_qp", libc::EINVAL);
    assert_eq!(e.errno(), Some(libc::EINVAL));
    assert_eq!(
        e.to_string(),
        "ibv_modify_qp failed: Invalid argument (EINVAL)"
    );
}

fn set_errno(v: i32) {
    // SAFETY: errno is this thread's own variable.
    unsafe { *libc::__errno_location() = v };
}

#[test]
fn from_ret_reads_negated_errnos_and_minus_one() {
    // A negated errno wins over whatever errno holds.
    set_errno(libc::EPERM);
    assert_eq!(
        Error::from_ret("ibv_post_send", -libc::ENOMEM).errno(),
        Some(libc::ENOMEM)
    );
    // -1 means "see errno".
    set_errno(libc::EAGAIN);
    assert_eq!(
        Error::from_ret("ibv_post_send", -1).errno(),
        Some(libc::EAGAIN)
    );
    set_errno(0);
    let e = Error::from_ret("ibv_post_send", -1);
    assert_eq!(e.errno(), None);
    assert!(e.to_string().contains("errno not set"), "{e}");
}

#[test]
fn reg_mr_enomem_carries_the_ulimit_hint() {
    let e = Error::with_errno("ibv_reg_mr", libc::ENOMEM);
    let s = e.to_string();
    assert!(s.starts_with("ibv_reg_mr failed: Cannot allocate memory (ENOMEM)"));
    assert!(s.contains("ulimit -l"), "{s}");
    let e = Error::with_errno("ibv_reg_mr", libc::EPERM);
    assert!(
        e.to_string().contains("may pin none: raise `ulimit -l`"),
        "{e}"
    );
}

#[test]
fn last_os_reads_errno() {
    // SAFETY: close(-1) has no effect beyond setting errno to EBADF.
    let rc = unsafe { libc::close(-1) };
    assert_eq!(rc, -1);
    let e = Error::last_os("close");
    assert_eq!(e.errno(), Some(libc::EBADF));
    assert!(e
        .to_string()
        .starts_with("close failed: Bad file descriptor"));
}

#[test]
fn context_prefixes_and_keeps_errno() {
    let r: Result<()> = Err(Error::with_errno("ibv_alloc_pd", libc::ENOMEM));
    let e = r.context("failed to create resources").unwrap_err();
    assert_eq!(e.errno(), Some(libc::ENOMEM));
    assert!(e
        .to_string()
        .starts_with("failed to create resources: ibv_alloc_pd failed: Cannot allocate memory"));
}

#[test]
fn zero_errno_is_not_reported_as_success() {
    let e = Error::with_errno("ibv_create_cq", 0);
    assert_eq!(e.errno(), None);
    assert!(e.to_string().contains("unknown error"));
}

#[test]
fn io_errors_read_like_verb_errors() {
    let e = Error::io(
        "connect to 10.0.0.1:1",
        &io::Error::from_raw_os_error(libc::ECONNREFUSED),
    );
    assert_eq!(
        e.to_string(),
        "connect to 10.0.0.1:1 failed: Connection refused (ECONNREFUSED)"
    );
    assert_eq!(e.errno(), Some(libc::ECONNREFUSED));
    let e = Error::io("read", &io::Error::new(io::ErrorKind::InvalidData, "junk"));
    assert_eq!(e.to_string(), "read failed: junk");
    assert_eq!(e.errno(), None);
}

#[test]
fn timeouts_are_recognised_and_hints_go_last() {
    let e = Error::timed_out("read failed: no answer").context("exchange");
    assert!(e.is_timeout());
    assert_eq!(
        e.hint("same -s?").to_string(),
        "exchange: read failed: no answer (hint: same -s?)"
    );
    assert!(!Error::msg("x").is_timeout());
}

#[test]
fn plain_message_has_no_errno() {
    let e = Error::msg("IB device foo wasn't found");
    assert_eq!(e.errno(), None);
    assert_eq!(e.to_string(), "IB device foo wasn't found");
}
