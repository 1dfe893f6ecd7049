//! `rdma-lab`: the lab as a binary to take to a host, which runs from a
//! copy with the eight example binaries beside it (no Rust, no source
//! tree); the same commands as `cargo xtask`.

fn main() -> std::process::ExitCode {
    rdma_lab::cli::main("rdma-lab")
}
