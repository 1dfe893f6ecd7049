use super::*;

#[test]
fn the_vm_tests_skip_cargo_only_after_a_good_build() {
    let env = vec![("LIBCLANG_PATH".to_string(), "/x".to_string())];
    let built = exe_env(&env, true);
    assert_eq!(built[0], env[0]);
    assert!(built.contains(&(BUILT_ENV.to_string(), "1".to_string())));
    assert_eq!(exe_env(&env, false), env);
}
