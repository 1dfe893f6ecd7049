use super::*;

/// A key as `rdma-lab keygen` writes one.
const RANDOM: &str = "840970d3c79850c65ee2fecb7b00b4712ebf9aa4e54feeca63cdfac547397cbf";

#[test]
fn keys_that_are_not_random_are_named_so() {
    assert_eq!(not_random(RANDOM), None);
    for (key, why) in [
        ("0".repeat(64), "one digit, 0, 64 times"),
        ("ab".repeat(32), "only 2 different digits"),
        (
            "0123456789abcdef".repeat(4),
            "repeats a pattern of 16 digits",
        ),
        (
            format!("{}{}", &RANDOM[..40], "0123456789abcdef01234567"),
            "a run of 24 digits",
        ),
        (
            format!("{}{}", &RANDOM[..50], "fedcba98765432"),
            "a run of 14 digits",
        ),
        (
            format!("{}{}", &RANDOM[..32], "7".repeat(32)),
            "a run of 32 digits",
        ),
    ] {
        let said = not_random(&key).unwrap_or_else(|| panic!("{key} taken"));
        assert!(said.contains(why), "{key}: {said}");
    }
}

/// The test key is refused outside the lab's VMs (these tests run on a
/// host, whose kernel command line has no [`VM_MARK`]).
#[test]
fn the_test_key_is_the_vms_only() {
    assert!(!in_lab_vm());
    let said = not_random(VM_TEST_KEY).expect("refused on a host");
    assert!(said.contains("the lab's test key"), "{said}");
}

/// The scenarios' scripts all carry the one test key: a copy of it is
/// refused on a real host like the constant.
#[test]
fn the_scenarios_key_is_the_test_key() {
    let mut keys = Vec::new();
    for s in crate::catalog::all() {
        for cmd in [&s.server, &s.client].into_iter().flatten() {
            for arg in &cmd.args {
                for word in arg.split(|c: char| !c.is_ascii_hexdigit()) {
                    if word.len() == 64 {
                        keys.push(word.to_string());
                    }
                }
            }
        }
    }
    assert!(!keys.is_empty());
    assert!(keys.iter().all(|k| k == VM_TEST_KEY), "{keys:?}");
}

/// What `generate` makes is never refused.
#[test]
fn generated_keys_are_random() {
    for _ in 0..1000 {
        let s = crate::guest::control::Secret::generate().unwrap();
        assert_eq!(not_random(s.text()), None);
    }
}
