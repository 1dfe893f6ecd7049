use super::Buffer;

/// This process's resident set, in bytes (`/proc/self/statm`).
fn resident() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: usize = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    // SAFETY: sysconf has no preconditions.
    pages * unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize
}

/// A large `-l` costs nothing until the registration pins it: the
/// buffer is not written over first (issue 12, item 4).
#[test]
fn a_buffer_takes_memory_only_as_it_is_touched() {
    const LEN: usize = 256 << 20;
    let before = resident();
    let buf = Buffer::new(LEN, false).unwrap();
    let grew = resident().saturating_sub(before);
    assert!(grew < LEN / 16, "a fresh buffer made {grew} bytes resident");
    // SAFETY: the buffer is LEN bytes long and ours.
    let (first, last) = unsafe { (*buf.ptr, *buf.ptr.add(LEN - 1)) };
    assert_eq!((first, last), (0, 0), "zeroed");
    assert_eq!(buf.ptr as usize % 4096, 0, "page-aligned");
    drop(buf);
    // A registration without LOCAL_WRITE gets its pages up front.
    let before = resident();
    let _populated = Buffer::new(LEN, true).unwrap();
    let grew = resident().saturating_sub(before);
    assert!(
        grew >= LEN / 2,
        "a populated buffer made only {grew} bytes resident"
    );
}
