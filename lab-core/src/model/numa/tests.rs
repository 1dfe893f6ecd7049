use super::*;

#[test]
fn a_node_of_minus_one_is_no_node() {
    assert_eq!(node("1\n"), Some(1));
    assert_eq!(node("0"), Some(0));
    assert_eq!(node("-1\n"), None);
    assert_eq!(node(""), None);
    assert_eq!(node("one"), None);
}

#[test]
fn a_cpu_list_reads_ranges_and_single_cpus() {
    assert_eq!(cpus("3\n"), Some(vec![3]));
    assert_eq!(cpus("0-3"), Some(vec![0, 1, 2, 3]));
    let two = cpus("0-15,32-47").unwrap();
    assert_eq!(two.len(), 32);
    assert_eq!((two[15], two[16], two[31]), (15, 32, 47));
}

#[test]
fn a_list_that_is_not_one_is_none() {
    for bad in [
        "",
        "\n",
        "a",
        "3-1",
        "1,,2",
        "-1",
        "0-99999999",
        "1-",
        "0x3",
        " , ",
    ] {
        assert_eq!(cpus(bad), None, "{bad:?}");
    }
    // Too many CPUs in all, each range within bounds.
    let many = (0..3).map(|_| "0-8191").collect::<Vec<_>>().join(",");
    assert_eq!(cpus(&many), None);
}

#[test]
fn a_place_keeps_only_a_list_that_reads() {
    assert_eq!(
        place(Some("1\n"), Some("1\n")),
        NicPlace {
            node: Some(1),
            cpus: Some("1".into())
        }
    );
    assert_eq!(
        place(Some("-1"), Some("0-3;rm -rf /")),
        NicPlace {
            node: None,
            cpus: None
        }
    );
    assert_eq!(
        place(None, None),
        NicPlace {
            node: None,
            cpus: None
        }
    );
}

#[test]
fn a_nic_is_pinned_to_its_own_cpus_unless_it_has_no_node_of_several() {
    let on_1 = place(Some("1"), Some("1"));
    assert_eq!(pin_to(&on_1, 2), Some("1"));
    assert_eq!(unplaced("mlx5_3", &on_1, 2), None);
    let nowhere = place(Some("-1"), Some("0-3"));
    // One node: every CPU is local, and nothing is wrong.
    assert_eq!(pin_to(&nowhere, 1), Some("0-3"));
    assert_eq!(unplaced("mlx5_3", &nowhere, 1), None);
    // Several: no telling which are local.
    assert_eq!(pin_to(&nowhere, 2), None);
    assert_eq!(
        unplaced("mlx5_3", &nowhere, 2).unwrap(),
        "mlx5_3 reports no NUMA node on a 2-node host: its measurements cannot be placed; \
         check the BIOS's ACPI SRAT/NUMA setting"
    );
}
