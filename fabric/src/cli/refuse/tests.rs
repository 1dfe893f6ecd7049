use super::name_of;

#[test]
fn an_argument_is_named_as_the_user_knows_it() {
    assert_eq!(name_of("--star <HOST>"), "--star");
    assert_eq!(name_of("--ring"), "--ring");
    assert_eq!(name_of("<FILE>"), "FILE");
    assert_eq!(name_of("[NAME]..."), "NAME...");
}
