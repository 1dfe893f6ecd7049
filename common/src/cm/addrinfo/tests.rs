use super::*;

#[test]
fn sockaddr_conversion() {
    for text in ["192.0.2.1:51216", "[fe80::1]:7"] {
        let want: SocketAddr = text.parse().unwrap();
        let sa = SockAddr::from(want);
        // SAFETY: sa holds a valid sockaddr of sa.len() bytes.
        let got = unsafe { sockaddr_to_std(sa.as_ptr().cast(), sa.len()) };
        assert_eq!(got, Some(want));
    }
    // SAFETY: NULL is allowed.
    assert_eq!(unsafe { sockaddr_to_std(ptr::null(), 0) }, None);
}

#[test]
fn getaddrinfo_of_a_bad_name_is_an_error() {
    // Without RDMA devices librdmacm fails first (ENODEV); with them the
    // name lookup fails. Either way it is a clear error, not a panic.
    let e = AddrInfo::new(Some("no-such-host.invalid"), "51216", false)
        .err()
        .expect("must fail")
        .to_string();
    assert!(
        e.starts_with("rdma_getaddrinfo of no-such-host.invalid:51216 failed"),
        "{e}"
    );
}
