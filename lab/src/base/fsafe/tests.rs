use super::*;
use std::os::unix::fs::PermissionsExt;

#[test]
fn a_dir_of_another_user_or_open_to_others_or_a_link_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let mine = t.path().join("mine");
    own_dir(&mine).unwrap();
    assert_eq!(std::fs::metadata(&mine).unwrap().mode() & 0o777, 0o700);
    own_dir(&mine).unwrap();
    std::fs::set_permissions(&mine, std::fs::Permissions::from_mode(0o777)).unwrap();
    let e = own_dir(&mine).unwrap_err();
    assert!(e.contains("writable by other users (mode 777)"), "{e}");
    let link = t.path().join("link");
    std::os::unix::fs::symlink(&mine, &link).unwrap();
    assert!(own_dir(&link).unwrap_err().contains("symbolic link"));
    if euid() == 0 {
        let theirs = t.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
        let e = own_dir(&theirs).unwrap_err();
        assert!(e.contains("belongs to nobody, not to you (root)"), "{e}");
        assert_eq!(e.lines().count(), 1);
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
