use super::*;

/// A4 unless asked, each paper named as the option takes it, and an
/// edition carries its paper's page rule for a browser's print.
#[test]
fn a_handout_prints_on_a4_unless_asked() {
    assert_eq!(Paper::default(), Paper::A4);
    assert_eq!(Paper::from_name("letter"), Some(Paper::Letter));
    assert_eq!(Paper::from_name("a4"), Some(Paper::A4));
    assert_eq!(Paper::from_name("A5"), None);
    let report = super::super::tests::rendered_report();
    let lab = &super::super::LABS[0];
    let a4 = super::super::edition_html(&report, super::super::Edition::Student, Some(lab));
    assert!(a4.contains("@page { size: A4;"), "the default page rule");
    let letter = super::super::edition_on(
        &report,
        super::super::Edition::Student,
        Some(lab),
        Paper::Letter,
    );
    assert!(letter.contains("@page { size: letter;") && !letter.contains("size: A4"));
}
