use super::*;

fn tmp() -> (tempfile::TempDir, Dir) {
    let t = tempfile::tempdir().unwrap();
    let d = Dir::open(t.path()).unwrap();
    (t, d)
}

/// What a run writes stays below its dir whatever was planted there: a
/// link where a file goes is replaced, a link where a dir goes is
/// refused, and `..` never leaves.
#[test]
fn nothing_leaves_the_dir_through_a_link_or_dot_dot() {
    let (t, d) = tmp();
    let elsewhere = tempfile::tempdir().unwrap();
    let victim = elsewhere.path().join("victim");
    std::fs::write(&victim, "root's alone").unwrap();
    std::os::unix::fs::symlink(&victim, t.path().join("file")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), t.path().join("sub")).unwrap();
    d.write("file", "new").unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "root's alone");
    assert_eq!(d.read("file").unwrap(), b"new");
    assert!(d.make_dir("sub/x").is_err());
    assert!(d.write_deep("sub/x", "no").is_err());
    assert!(d.append("sub/victim").is_err());
    assert!(d.read("sub/victim").is_err());
    assert!(d.write("../escaped", "no").is_err());
    assert!(d.make_dir("/abs").is_err());
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 1);
}

/// The handle is the dir: once opened, renaming its path and planting a
/// link there changes nothing the run writes (the attack of issue 44).
#[test]
fn a_dir_swapped_for_a_link_after_it_was_opened_changes_nothing() {
    let t = tempfile::tempdir().unwrap();
    let run = t.path().join("run");
    std::fs::create_dir(&run).unwrap();
    let d = Dir::open(&run).unwrap();
    let theirs = tempfile::tempdir().unwrap();
    std::fs::rename(&run, t.path().join("moved")).unwrap();
    std::os::unix::fs::symlink(theirs.path(), &run).unwrap();
    d.write_deep("pairs/0-1/x.txt", "mine").unwrap();
    assert_eq!(std::fs::read_dir(theirs.path()).unwrap().count(), 0);
    let moved = t.path().join("moved/pairs/0-1/x.txt");
    assert_eq!(std::fs::read_to_string(moved).unwrap(), "mine");
}

#[test]
fn dirs_are_made_private_and_fresh_ones_only_once() {
    let (_t, d) = tmp();
    let a = d.make_dir("a/b").unwrap();
    assert_eq!(mode_of(&a.stat().unwrap()), 0o700);
    assert_eq!(d.make_dir("a/b").unwrap(), a, "made once, then opened");
    d.fresh_dir("f").unwrap();
    assert!(d.fresh_dir("f").is_err());
    assert_eq!(d.numbered_dir("f").unwrap().path(), d.join("f-2"));
    assert_eq!(d.numbered_dir("g").unwrap().path(), d.join("g"));
}

#[test]
fn files_are_added_to_read_copied_and_trees_removed() {
    let (t, d) = tmp();
    use std::io::Write as _;
    d.append("log").unwrap().write_all(b"one\n").unwrap();
    d.append("log").unwrap().write_all(b"two\n").unwrap();
    assert_eq!(d.read("log").unwrap(), b"one\ntwo\n");
    assert!(d.exists("log") && !d.exists("nothing"));
    let exe = t.path().join("exe");
    std::fs::write(&exe, "#!/bin/sh\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let bin = d.make_dir("bin").unwrap();
    bin.copy_from(&exe, "copy").unwrap();
    let meta = std::fs::metadata(t.path().join("bin/copy")).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o755);
    d.write_deep("tree/x/y", "z").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("keep"), "").unwrap();
    std::os::unix::fs::symlink(outside.path(), t.path().join("tree/link")).unwrap();
    d.remove_tree("tree").unwrap();
    assert!(!d.exists("tree"));
    assert!(
        outside.path().join("keep").exists(),
        "a link is removed, not followed"
    );
    let mut names = d.entries().unwrap();
    names.sort();
    assert_eq!(names, ["bin", "exe", "log"]);
}

#[test]
fn a_read_may_be_bounded() {
    let (_t, d) = tmp();
    d.write("f", "0123456789").unwrap();
    assert_eq!(d.read_at_most("f", 4).unwrap(), (b"0123".to_vec(), true));
    assert_eq!(
        d.read_at_most("f", 10).unwrap(),
        (b"0123456789".to_vec(), false)
    );
    assert_eq!(d.read("f").unwrap(), b"0123456789");
}
