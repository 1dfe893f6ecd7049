use super::*;

#[test]
fn the_body_of_a_captured_line_is_found_without_the_key() {
    let mac = "0f".repeat(32);
    assert_eq!(
        body_of(&format!("{mac} begin rc_example")),
        "begin rc_example"
    );
    assert_eq!(body_of("begin rc_example"), "begin rc_example");
    assert_eq!(body_of(""), "");
}
