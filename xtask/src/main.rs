//! `cargo xtask`: the developer's entry point, in the source tree. Every
//! command (setup, test, fmt, and the lab's: lab, doctor, handout, ladder,
//! list, bench) is the lab crate's, which the `rdma-lab` binary runs too.

fn main() -> std::process::ExitCode {
    rdma_lab::cli::main("cargo xtask")
}
