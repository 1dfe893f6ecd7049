//! Raw FFI to the system's rdma-core: libibverbs and librdmacm, generated at
//! build time by bindgen from `infiniband/verbs.h`, `rdma/rdma_cma.h` and
//! `rdma/rdma_verbs.h` (see `build.rs`).
//!
//! The verbs those headers define `static inline` (`ibv_post_send`,
//! `ibv_post_recv`, `ibv_poll_cq`, `ibv_req_notify_cq`, `___ibv_query_port`,
//! ...) are here under their own names: bindgen compiles the headers' own
//! bodies into C wrappers and binds those.
//!
//! Naming follows the headers. Flag enums are newtypes
//! (`ibv_access_flags::IBV_ACCESS_LOCAL_WRITE.0`), value enums are modules
//! of constants (`ibv_mtu::IBV_MTU_1024`, of type `ibv_mtu::Type`), and the
//! socket address types are libc's. Only `common` uses this crate.

pub use libc::{
    in6_addr, in_addr, pthread_cond_t, pthread_mutex_t, sa_family_t, sockaddr, sockaddr_in,
    sockaddr_in6, sockaddr_storage,
};

#[allow(
    non_upper_case_globals,
    non_camel_case_types,
    non_snake_case,
    missing_docs,
    unsafe_op_in_unsafe_fn,
    clippy::all,
    clippy::undocumented_unsafe_blocks
)]
mod generated {
    use super::*;
    include!(concat!(env!("OUT_DIR"), "/bindings.rs"));
}

pub use generated::*;
