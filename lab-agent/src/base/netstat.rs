//! The kernel's table of TCP sockets (`/proc/net/tcp`), which tells the
//! agent that a server listens and the host that a VM's QEMU does.

/// Whether /proc/net/tcp{,6} text shows `port` in LISTEN state (st 0A).
pub fn tcp_listening(proc_net_tcp: &str, port: u16) -> bool {
    proc_net_tcp.lines().skip(1).any(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        f.len() > 3
            && f[3] == "0A"
            && f[1]
                .rsplit_once(':')
                .and_then(|(_, p)| u16::from_str_radix(p, 16).ok())
                == Some(port)
    })
}
