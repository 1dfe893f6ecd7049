use super::*;

#[test]
fn program_name_is_argv0s_file_name() {
    let a = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(program_name(&a(&["/x/y/srq", "-s"]), "srq"), "srq");
    assert_eq!(program_name(&a(&["isp"]), "srq"), "isp");
    assert_eq!(program_name(&a(&[]), "srq"), "srq");
}
