use super::*;

#[test]
fn a_stat_line_gives_its_ticks_only_in_its_group() {
    let line = "4242 (qemu (x) y) S 1 4200 4200 0 -1 4194560 100 0 0 0 700 50 30 20 20 0 5";
    assert_eq!(stat_ticks(line, 4200), Some(800));
    assert_eq!(stat_ticks(line, 4201), None);
    assert_eq!(stat_ticks("garbage", 4200), None);
}

#[test]
fn this_process_group_has_used_some_cpu() {
    let me = nix::unistd::getpgrp().as_raw() as u32;
    let mut x = 0u64;
    for i in 0..5_000_000u64 {
        x = x.wrapping_add(i * i);
    }
    assert!(x > 0);
    assert!(group_secs(me).is_some_and(|(n, s)| n > 0 && s > 0.0));
}
