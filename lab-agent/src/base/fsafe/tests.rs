use super::*;
use std::os::unix::fs::PermissionsExt;

fn chmod(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn a_dir_of_another_user_or_open_to_others_or_a_link_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let top = Dir::open(t.path()).unwrap();
    let mine = own_dir(&top, "mine").unwrap();
    assert_eq!(mode_of(&mine.stat().unwrap()), 0o700);
    own_dir(&top, "mine").unwrap();
    chmod(mine.path(), 0o777);
    let e = own_dir(&top, "mine").unwrap_err();
    assert!(
        matches!(e, FsError::OpenToOthers { mode: 0o777, .. }),
        "{e:?}"
    );
    std::os::unix::fs::symlink(mine.path(), t.path().join("link")).unwrap();
    let e = own_dir(&top, "link").unwrap_err();
    assert!(
        matches!(&e, FsError::Link { path, .. } if path.ends_with("link")),
        "{e:?}"
    );
    std::fs::write(t.path().join("file"), "").unwrap();
    let e = own_dir(&top, "file").unwrap_err();
    assert!(matches!(e, FsError::NotDir { .. }), "{e:?}");
    if euid() == 0 {
        let theirs = t.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
        let e = own_dir(&top, "theirs").unwrap_err();
        assert!(
            matches!(&e, FsError::NotYours { owner, you, .. } if owner == "nobody" && you == "root"),
            "{e:?}"
        );
        assert_eq!(e.to_string().lines().count(), 1);
    }
}

#[test]
fn a_file_is_replaced_never_written_through_a_link() {
    let t = tempfile::tempdir().unwrap();
    let victim = t.path().join("victim");
    std::fs::write(&victim, "root's alone").unwrap();
    let path = t.path().join("transcript");
    std::os::unix::fs::symlink(&victim, &path).unwrap();
    replace_file(&path, b"new").unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "root's alone");
    assert!(std::fs::symlink_metadata(&path).unwrap().is_file());
    assert_eq!(std::fs::read(&path).unwrap(), b"new");
    replace_file(&path, b"again").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"again");
}

/// A root others may add to or take from is refused, unless it has the
/// sticky bit (as /tmp); a link given as the root is refused too, unless
/// it is followed on purpose (cargo's target dir).
#[test]
fn a_root_others_could_swap_entries_in_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("root");
    let made = open_root(&root, "--out ", false).unwrap();
    assert_eq!(mode_of(&made.stat().unwrap()), 0o700, "made private");
    chmod(&root, 0o777);
    let e = open_root(&root, "--out ", false).unwrap_err();
    assert!(
        matches!(&e, FsError::RootSwappable { what, mode: 0o777, .. } if what == "--out "),
        "{e:?}"
    );
    assert!(e.to_string().starts_with("--out "), "{e}");
    assert_eq!(e.to_string().lines().count(), 1);
    chmod(&root, 0o1777);
    open_root(&root, "--out ", false).unwrap();
    let link = t.path().join("link");
    std::os::unix::fs::symlink(&root, &link).unwrap();
    let e = open_root(&link, "--out ", false).unwrap_err();
    assert!(
        matches!(&e, FsError::Io { source, .. } if super::super::rundir::is_link(source)),
        "{e:?}"
    );
    assert_eq!(open_root(&link, "", true).unwrap(), made);
}

#[test]
fn a_shared_working_directory_is_refused_in_one_line_naming_out() {
    let t = tempfile::tempdir().unwrap();
    let dir = Dir::open(t.path()).unwrap();
    shared_cwd_refused(&dir).unwrap();
    chmod(t.path(), 0o777);
    let e = shared_cwd_refused(&dir).unwrap_err();
    assert!(matches!(e, FsError::SharedCwd { mode: 0o777, .. }), "{e:?}");
    assert!(e.to_string().contains("pass --out DIR"), "{e}");
    assert_eq!(e.to_string().lines().count(), 1);
    chmod(t.path(), 0o1777);
    shared_cwd_refused(&dir).unwrap();
    chmod(t.path(), 0o700);
}

#[test]
fn each_run_gets_a_fresh_private_dir_of_its_own() {
    let t = tempfile::tempdir().unwrap();
    let root = Dir::open(t.path()).unwrap();
    let a = fresh_run(&root, "x-").unwrap();
    let b = fresh_run(&root, "x-").unwrap();
    assert_ne!(a, b);
    for d in [&a, &b] {
        assert_eq!(mode_of(&d.stat().unwrap()), 0o700);
        let name = d.path().file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("x-"), "{name}");
    }
}
