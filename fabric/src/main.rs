//! `rdma-fabric`: the fabric tool an administrator copies to a cluster's
//! nodes with the example binaries beside it (no Rust, no source tree):
//! `doctor`, `mesh` and `keygen`.

fn main() -> std::process::ExitCode {
    rdma_fabric::cli::main()
}
