use super::*;

#[test]
fn mesh_times_take_the_runs_that_passed() {
    let t = "parallel 1 0 10.5 70.5\nserial 1 0 71 191\nparallel 2 1 200 230\nserial 2 0 231 341\n";
    assert_eq!(mesh_times(t, "parallel"), vec![60.0]);
    assert_eq!(mesh_times(t, "serial"), vec![120.0, 110.0]);
}
