use super::*;

#[test]
fn sigterm_raises_the_flag_and_does_not_kill() {
    install_stop_handler().unwrap();
    assert!(!stop_requested());
    nix::sys::signal::raise(Signal::SIGTERM).unwrap();
    assert!(stop_requested());
    // A stop cuts a sleep short.
    let t = std::time::Instant::now();
    assert!(!sleep_unless_stopped(std::time::Duration::from_secs(5)));
    assert!(t.elapsed() < std::time::Duration::from_secs(1));
}
