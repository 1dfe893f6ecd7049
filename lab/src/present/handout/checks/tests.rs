use super::*;

/// The script's `show` prints a short output whole and numbered (the
/// events in their order, the errors, the exit status), of a long one
/// only its lines with the step's words and its exit status, and never
/// fails the case, not even on a missing file.
#[test]
fn show_prints_a_short_output_whole_and_a_long_ones_lines() {
    let dir = tempfile::tempdir().unwrap();
    let short = "address resolved.\nroute resolved.\n--- its errors (stderr) ---\n\
                 on_event: unexpected event\n--- exit 1 ---\n";
    let long = (0..40).map(|i| format!("line {i}\n")).collect::<String>()
        + "on_event: x\n--- exit 0 ---\n";
    fs::write(dir.path().join("short.txt"), short).unwrap();
    fs::write(dir.path().join("long.txt"), long).unwrap();
    let script = format!(
        "{}show on_event short.txt long.txt gone.txt\n",
        show_function()
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(&script)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("== short.txt\n1:address resolved.\n2:route resolved.\n"),
        "{said}"
    );
    assert!(said.contains("\n5:--- exit 1 ---\n== long.txt\n"), "{said}");
    assert!(
        said.contains("\n41:on_event: x\n42:--- exit 0 ---\n"),
        "{said}"
    );
    assert!(!said.contains("line 3"), "{said}");
    assert!(out.stdout.is_empty());
}
