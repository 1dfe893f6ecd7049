//! The lab's commands as its help lists them, the fabric's among them;
//! what every command shares (the program's name, where to read more) is
//! the fabric's, re-exported.

pub(super) use rdma_fabric::cli::args::*;
pub(super) use rdma_fabric::cli::usage::*;

/// Every command of the lab, the fabric's (`doctor`, `mesh`, `keygen`)
/// after [`super::define::FIRST`], as the help lists them.
pub(super) fn lab_commands() -> &'static [Command] {
    static ALL: std::sync::OnceLock<Vec<Command>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let own = rdma_fabric::cli::read::listed(&super::define::root("cargo xtask"));
        let (first, rest): (Vec<Command>, Vec<Command>) = own
            .into_iter()
            .partition(|c| super::define::FIRST.contains(&c.0));
        [
            &first[..],
            rdma_fabric::cli::read::fabric_commands(),
            &rest[..],
        ]
        .concat()
    })
}
