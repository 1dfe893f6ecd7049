use super::*;

/// Edits count by characters; a likely typo is at most a third of the
/// word away, and nothing is suggested for what is far from every name.
#[test]
fn a_typo_is_a_few_edits_from_its_name() {
    assert_eq!(edits("kitten", "sitting"), 3);
    assert_eq!(edits("", "ab"), 2);
    assert_eq!(edits("lbа", "lab"), 2);
    let known = ["rc_example", "srq", "mckey"];
    assert_eq!(closest("rc_exampel", known), Some("rc_example"));
    assert_eq!(closest("srk", known), Some("srq"));
    assert_eq!(closest("zzzzzz", known), None);
    assert_eq!(did_you_mean(Some("srq")), " (did you mean `srq`?)");
    assert_eq!(did_you_mean(None), "");
}
