//! `rdma_getaddrinfo`: the address lookup of the chapter 8 programs.

use std::ffi::{CStr, CString};
use std::net::SocketAddr;
use std::os::raw::c_int;
use std::ptr;

use rdma_core_sys as sys;
use socket2::SockAddr;

use crate::error::{Error, Result};

/// The result of `rdma_getaddrinfo`, freed with `rdma_freeaddrinfo`.
pub struct AddrInfo {
    rai: *mut sys::rdma_addrinfo,
    what: String,
}

// SAFETY: the list is plain heap data owned by this value.
unsafe impl Send for AddrInfo {}
// SAFETY: only read after creation.
unsafe impl Sync for AddrInfo {}

impl AddrInfo {
    /// `rdma_getaddrinfo(node, service)` for `RDMA_PS_TCP`; `passive` sets
    /// `RAI_PASSIVE` (the address to bind, for a server).
    pub fn new(node: Option<&str>, service: &str, passive: bool) -> Result<AddrInfo> {
        let what = format!("{}:{service}", node.unwrap_or("*"));
        let node_c = node
            .map(|n| CString::new(n).map_err(|_| Error::msg("address contains a NUL byte")))
            .transpose()?;
        let service_c =
            CString::new(service).map_err(|_| Error::msg("port contains a NUL byte"))?;
        let hints = sys::rdma_addrinfo {
            ai_port_space: sys::rdma_port_space::RDMA_PS_TCP as c_int,
            ai_flags: if passive {
                sys::RAI_PASSIVE as c_int
            } else {
                0
            },
            ..Default::default()
        };
        let mut rai: *mut sys::rdma_addrinfo = ptr::null_mut();
        // SAFETY: the strings and hints are valid for the call; rai is a
        // valid out-pointer, freed in Drop.
        let rc = unsafe {
            sys::rdma_getaddrinfo(
                node_c.as_ref().map_or(ptr::null(), |c| c.as_ptr()),
                service_c.as_ptr(),
                &hints,
                &mut rai,
            )
        };
        if rc != 0 {
            // -1 is librdmacm's own failure (errno set); anything else is the
            // getaddrinfo status, passed through unchanged.
            if rc == -1 {
                return Err(Error::last_os(&format!("rdma_getaddrinfo of {what}")));
            }
            // SAFETY: gai_strerror returns a static string for any code.
            let text = unsafe { CStr::from_ptr(libc::gai_strerror(rc)) }.to_string_lossy();
            return Err(Error::msg(format!(
                "rdma_getaddrinfo of {what} failed: {text}"
            )));
        }
        if rai.is_null() {
            return Err(Error::msg(format!(
                "rdma_getaddrinfo of {what} returned no address"
            )));
        }
        Ok(AddrInfo { rai, what })
    }

    /// The local address (set for a passive lookup with an address).
    pub fn src_addr(&self) -> Option<SocketAddr> {
        // SAFETY: rai is live; the address is ai_src_len bytes or NULL.
        unsafe { sockaddr_to_std((*self.rai).ai_src_addr, (*self.rai).ai_src_len) }
    }

    /// The remote address (set for an active lookup).
    pub fn dst_addr(&self) -> Option<SocketAddr> {
        // SAFETY: as above.
        unsafe { sockaddr_to_std((*self.rai).ai_dst_addr, (*self.rai).ai_dst_len) }
    }

    /// What was looked up, `address:port`, for messages.
    pub fn what(&self) -> &str {
        &self.what
    }

    /// The local address to bind, or why there is none.
    pub fn src(&self) -> Result<SocketAddr> {
        self.src_addr().ok_or_else(|| {
            Error::msg(format!(
                "rdma_getaddrinfo of {} gave no local address",
                self.what
            ))
        })
    }

    /// The remote address to resolve, or why there is none.
    pub fn dst(&self) -> Result<SocketAddr> {
        self.dst_addr().ok_or_else(|| {
            Error::msg(format!(
                "rdma_getaddrinfo of {} gave no remote address",
                self.what
            ))
        })
    }

    /// Whether the lookup was passive (`RAI_PASSIVE`: an address to bind).
    pub(super) fn passive(&self) -> bool {
        // SAFETY: rai is live.
        let flags = unsafe { (*self.rai).ai_flags };
        flags & sys::RAI_PASSIVE as c_int != 0
    }

    /// The raw list, for `rdma_create_ep`.
    pub(super) fn as_ptr(&self) -> *mut sys::rdma_addrinfo {
        self.rai
    }
}

impl Drop for AddrInfo {
    fn drop(&mut self) {
        // SAFETY: rai came from rdma_getaddrinfo and is freed once, with the
        // function that frees the whole list (the C example's free(rai) leaks it).
        unsafe { sys::rdma_freeaddrinfo(self.rai) };
    }
}

/// # Safety
/// `sa` must be NULL or point to `len` valid bytes of a sockaddr.
unsafe fn sockaddr_to_std(sa: *const libc::sockaddr, len: u32) -> Option<SocketAddr> {
    if sa.is_null() {
        return None;
    }
    // socket2 reads the family and swaps port and address; it only needs the
    // bytes copied into its storage (at most a sockaddr_storage of them).
    // SAFETY: the caller guarantees `len` valid bytes at `sa`; the copy is
    // bounded by the storage's size.
    let copied = unsafe {
        SockAddr::try_init(|storage, storage_len| {
            let n = (len as usize).min(*storage_len as usize);
            ptr::copy_nonoverlapping(sa.cast::<u8>(), storage.cast::<u8>(), n);
            *storage_len = n as libc::socklen_t;
            Ok(())
        })
    };
    copied.ok()?.1.as_socket()
}

#[cfg(test)]
mod tests;
