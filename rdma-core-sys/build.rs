//! Generates the FFI from the system's own rdma-core headers.
//!
//! bindgen reads `src/wrapper.h` with whatever libclang the machine has
//! (LIBCLANG_PATH picks another), and `wrap_static_fns` turns the verbs the
//! headers define `static inline` (`ibv_post_send`, `ibv_poll_cq`, ...) into
//! small C functions that `cc` compiles, so their bodies come from the same
//! headers as the library the program links with, never from a hand copy.

use std::env;
use std::path::{Path, PathBuf};

/// The native libraries: pkg-config name, the Debian/Ubuntu package with its
/// headers and .pc file, and the oldest release we build against
/// (rdma-core 39, Ubuntu 22.04; pkg-config versions as that release sets them).
const LIBS: &[(&str, &str, &str)] = &[
    ("libibverbs", "libibverbs-dev", "1.14.39"),
    ("librdmacm", "librdmacm-dev", "1.3.39"),
];

/// Every function `common` calls. Real library entry points and the
/// headers' static inline helpers alike; bindgen tells them apart.
const FUNCTIONS: &[&str] = &[
    // Devices and contexts.
    "ibv_get_device_list",
    "ibv_free_device_list",
    "ibv_get_device_name",
    "ibv_get_device_guid",
    "ibv_open_device",
    "ibv_close_device",
    "ibv_query_device",
    // verbs.h maps ibv_query_port onto this static inline with a macro.
    "___ibv_query_port",
    "ibv_query_gid",
    "ibv_get_async_event",
    "ibv_ack_async_event",
    "ibv_event_type_str",
    // PD, MR, AH.
    "ibv_alloc_pd",
    "ibv_dealloc_pd",
    "ibv_reg_mr",
    "ibv_dereg_mr",
    "ibv_create_ah",
    "ibv_destroy_ah",
    // CQ and completion channel.
    "ibv_create_comp_channel",
    "ibv_destroy_comp_channel",
    "ibv_create_cq",
    "ibv_destroy_cq",
    "ibv_poll_cq",
    "ibv_req_notify_cq",
    "ibv_get_cq_event",
    "ibv_ack_cq_events",
    "ibv_wc_status_str",
    // QP and SRQ.
    "ibv_create_qp",
    "ibv_destroy_qp",
    "ibv_modify_qp",
    "ibv_query_qp",
    "ibv_post_send",
    "ibv_post_recv",
    "ibv_create_srq",
    "ibv_destroy_srq",
    "ibv_post_srq_recv",
    // rdma_cm.
    "rdma_create_event_channel",
    "rdma_destroy_event_channel",
    "rdma_get_cm_event",
    "rdma_ack_cm_event",
    "rdma_event_str",
    "rdma_create_id",
    "rdma_destroy_id",
    "rdma_create_ep",
    "rdma_destroy_ep",
    "rdma_migrate_id",
    "rdma_getaddrinfo",
    "rdma_freeaddrinfo",
    "rdma_bind_addr",
    "rdma_resolve_addr",
    "rdma_resolve_route",
    "rdma_listen",
    "rdma_get_request",
    "rdma_get_src_port",
    "rdma_connect",
    "rdma_accept",
    "rdma_reject",
    "rdma_disconnect",
    "rdma_create_qp",
    "rdma_destroy_qp",
    "rdma_create_srq",
    "rdma_destroy_srq",
    "rdma_join_multicast",
    "rdma_leave_multicast",
];

/// Enums whose values are OR-ed together: a newtype with `|` and `&`.
const FLAG_ENUMS: &[&str] = &[
    "ibv_access_flags",
    "ibv_send_flags",
    "ibv_wc_flags",
    "ibv_qp_attr_mask",
    "ibv_device_cap_flags",
];

/// Enums of plain values: a module of constants, so that a value the kernel
/// adds in a later release is just a number, not undefined behaviour.
const VALUE_ENUMS: &[&str] = &[
    "ibv_mtu",
    "ibv_port_state",
    "ibv_qp_type",
    "ibv_qp_state",
    "ibv_mig_state",
    "ibv_wr_opcode",
    "ibv_wc_status",
    "ibv_wc_opcode",
    "ibv_event_type",
    "rdma_cm_event_type",
    "rdma_port_space",
];

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets it"));
    let header = manifest.join("src/wrapper.h");
    println!("cargo:rerun-if-changed={}", header.display());
    println!("cargo:rerun-if-env-changed=LIBCLANG_PATH");

    let libs = probe_libraries();
    let includes: Vec<PathBuf> = libs
        .iter()
        .flat_map(|l| l.include_paths.iter().cloned())
        .collect();

    let static_fns = out.join("static_fns");
    let mut builder = bindgen::Builder::default()
        .header(header.to_string_lossy())
        .clang_args(includes.iter().map(|p| format!("-I{}", p.display())))
        .parse_callbacks(Box::new(bindgen::CargoCallbacks::new()))
        .allowlist_var("RAI_.*")
        .allowlist_var("IBV_LINK_LAYER_.*")
        .allowlist_recursively(true)
        // The socket address types are libc's, so they pass to and from
        // socket2 and std without a cast between two identical structs.
        .blocklist_type("sockaddr(_in|_in6|_storage)?")
        .blocklist_type("in6?_addr")
        .blocklist_type("sa_family_t")
        // Embedded in ibv_context, ibv_cq, ...; never touched from Rust.
        .blocklist_type("pthread_(mutex|cond)_t")
        .prepend_enum_name(false)
        .derive_default(true)
        .derive_debug(false)
        .generate_comments(false)
        .wrap_static_fns(true)
        .wrap_static_fns_path(&static_fns);
    for f in FUNCTIONS {
        builder = builder.allowlist_function(f);
    }
    for e in FLAG_ENUMS {
        builder = builder.allowlist_type(e).bitfield_enum(e);
    }
    for e in VALUE_ENUMS {
        builder = builder.allowlist_type(e).constified_enum_module(e);
    }
    let bindings = builder.generate().unwrap_or_else(|e| {
        fail(&format!(
            "bindgen could not read the rdma-core headers: {e}\n\
             bindgen needs libclang (Debian/Ubuntu: apt-get install libclang-dev); \
             LIBCLANG_PATH selects another one"
        ))
    });
    bindings
        .write_to_file(out.join("bindings.rs"))
        .unwrap_or_else(|e| fail(&format!("cannot write the bindings: {e}")));

    // The wrappers include the header by its absolute path, so the compiler
    // needs only rdma-core's include directories.
    cc::Build::new()
        .file(static_fns.with_extension("c"))
        .includes(&includes)
        .warnings(false)
        .compile("rdma_core_static_fns");

    // After the wrappers' archive, so that the linker, which resolves left to
    // right, finds what the wrappers call (ibv_query_port, ...).
    for lib in &libs {
        for dir in &lib.link_paths {
            println!("cargo:rustc-link-search=native={}", dir.display());
        }
        for name in &lib.libs {
            println!("cargo:rustc-link-lib={name}");
        }
    }
}

/// Finds libibverbs and librdmacm with pkg-config, or stops the build with
/// the package that provides them.
fn probe_libraries() -> Vec<pkg_config::Library> {
    LIBS.iter()
        .map(|(name, package, version)| {
            pkg_config::Config::new()
                .atleast_version(version)
                .cargo_metadata(false)
                .probe(name)
                .unwrap_or_else(|e| {
                    let hint = if which("pkg-config").is_none() {
                        "pkg-config is not installed (apt-get install pkg-config)".to_string()
                    } else {
                        format!("install {package} (rdma-core 39 or later)")
                    };
                    fail(&format!("{name} not found: {hint}\n{e}"))
                })
        })
        .collect()
}

fn which(name: &str) -> Option<PathBuf> {
    env::split_paths(&env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| Path::is_file(p))
}

/// Ends the build with `msg` first, where cargo shows it.
fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(1);
}
