//! Registers every `src/scenarios/*.rs` but `mod.rs` as a module whose
//! `SCENARIOS` table (and `WAITING`, `KILLS` and `SIDE_CHANNEL` declarations, where it has
//! them) the lab runs: adding an example's scenario file is all
//! the lab and the Soft-RoCE tests need. The files are not in the module
//! tree `cargo fmt` walks, so `cargo xtask fmt` names them.

use std::path::Path;
use std::{env, fs};

fn main() {
    let dir =
        Path::new(&env::var("CARGO_MANIFEST_DIR").expect("set by cargo")).join("src/scenarios");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = fs::read_dir(&dir)
        .expect("src/scenarios is there")
        .map(|e| {
            e.expect("readable dir")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter_map(|f| f.strip_suffix(".rs").map(str::to_string))
        .filter(|n| n != "mod")
        .collect();
    names.sort();
    let mut out = String::new();
    for n in &names {
        let path = dir.join(format!("{n}.rs"));
        out += &format!("#[path = {:?}]\nmod {n};\n", path.display().to_string());
    }
    out += "\n/// Each scenario file's table, in file-name order.\nstatic TABLES: &[&[Scenario]] = &[\n";
    for n in &names {
        out += &format!("    {n}::SCENARIOS,\n");
    }
    out += "];\n";
    // The fault matrix's declarations, where a file has them.
    for (table, ty, item) in [
        ("WAITINGS", "Waiting", "WAITING"),
        ("KILLS", "Kill", "KILLS"),
        ("SIDE_CHANNELS", "SideChannel", "SIDE_CHANNEL"),
    ] {
        out +=
            &format!("\n/// The files' `{item}` declarations.\nstatic {table}: &[&[{ty}]] = &[\n");
        for n in &names {
            let text = fs::read_to_string(dir.join(format!("{n}.rs"))).expect("readable file");
            if text.contains(&format!("pub static {item}:")) {
                out += &format!("    {n}::{item},\n");
            }
        }
        out += "];\n";
    }
    let dest = Path::new(&env::var("OUT_DIR").expect("set by cargo")).join("scenario_tables.rs");
    fs::write(dest, out).expect("OUT_DIR is writable");
}
