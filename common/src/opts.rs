//! Command-line value parsing shared by the examples.
//!
//! The C programs read numbers with `strtoul(optarg, NULL, 0)` or `atoi`, which
//! turn garbage into 0 and wrap negative values; here a value that is not a
//! whole number in range is rejected, so the caller can print its usage.

/// Parse a number the way `strtoul(s, NULL, 0)` reads a *valid* one: decimal,
/// `0x`/`0X` hexadecimal or leading-`0` octal. Anything else (empty, sign,
/// trailing junk, overflow) is `None`.
pub fn parse_c_ulong(s: &str) -> Option<u64> {
    let s = s.trim();
    if s.is_empty() || s.starts_with('-') || s.starts_with('+') {
        return None;
    }
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16).ok();
    }
    if s.len() > 1 && s.starts_with('0') {
        return u64::from_str_radix(&s[1..], 8).ok();
    }
    s.parse::<u64>().ok()
}

/// Parse a number the way `atoi` reads a *valid* one: decimal digits only,
/// so `010` is ten, as in the C programs that read their options with
/// `atoi`. Anything else (empty, sign, `0x`, junk, overflow) is `None`.
pub fn parse_decimal(s: &str) -> Option<u64> {
    let s = s.trim();
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<u64>().ok()
}

/// [`parse_c_ulong`] limited to `min..=max`.
pub fn parse_in_range(s: &str, min: u64, max: u64) -> Option<u64> {
    parse_c_ulong(s).filter(|v| (min..=max).contains(v))
}

/// The value of option `-opt`, which the C program reads with `atoi`, as a
/// decimal number in `min..=max`; `Err` is the one-line reason.
pub fn number_in_range(opt: &str, value: &str, min: u64, max: u64) -> Result<u64, String> {
    parse_decimal(value)
        .filter(|v| (min..=max).contains(v))
        .ok_or_else(|| format!("invalid value '{value}' for -{opt} (expected {min}..{max})"))
}

/// The value of option `opt`, declared with `optmulti`: as with C's getopt,
/// the last of repeated values counts.
pub fn last(m: &getopts::Matches, opt: &str) -> Option<String> {
    m.opt_strs(opt).pop()
}

/// [`number_in_range`] of option `opt` (declared with `optmulti`), when it
/// was given.
pub fn opt_number(
    m: &getopts::Matches,
    opt: &str,
    min: u64,
    max: u64,
) -> Result<Option<u64>, String> {
    last(m, opt)
        .map(|v| number_in_range(opt, &v, min, max))
        .transpose()
}

/// [`opt_number`] into `field` when option `opt` was given, converted to the
/// field's type (`min..=max` must fit it).
pub fn set_number<T: TryFrom<u64>>(
    m: &getopts::Matches,
    opt: &str,
    min: u64,
    max: u64,
    field: &mut T,
) -> Result<(), String> {
    if let Some(v) = opt_number(m, opt, min, max)? {
        *field = T::try_from(v).map_err(|_| format!("value {v} for -{opt} out of range"))?;
    }
    Ok(())
}

/// The options the manual's 8.1 (APM) and 8.3 (SRQ) programs share, the
/// first fields of their `struct context`: `-s`, `-a`, `-p`, `-c`, `-l`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExchangeOpts {
    /// `-s`: run the server side.
    pub server: bool,
    /// `-a`: the address to connect to (or bind to, for the server).
    pub server_name: Option<String>,
    /// `-p`: the rdma_cm port, as `rdma_getaddrinfo` takes it.
    pub server_port: String,
    /// `-c`: how many messages.
    pub msg_count: u32,
    /// `-l`: the length of each.
    pub msg_length: usize,
}

impl ExchangeOpts {
    /// Both originals' defaults, but the message length, which differs.
    pub fn defaults(msg_length: usize) -> ExchangeOpts {
        ExchangeOpts {
            server: false,
            server_name: None,
            server_port: "51216".to_string(),
            msg_count: 100,
            msg_length,
        }
    }

    /// These defaults, with what the command line gives; `Err` is the
    /// one-line reason a value was refused.
    pub fn read(mut self, m: &getopts::Matches) -> Result<ExchangeOpts, String> {
        let int_max = i32::MAX as u64;
        self.server = m.opt_present("s");
        self.server_name = last(m, "a");
        if let Some(p) = opt_number(m, "p", 1, 65535)? {
            self.server_port = p.to_string();
        }
        set_number(m, "c", 1, int_max, &mut self.msg_count)?;
        set_number(m, "l", 1, int_max, &mut self.msg_length)?;
        Ok(self)
    }

    /// Whether this host has the memory for the two `-l` byte buffers both
    /// programs register: they are pinned whole, so a length the host
    /// cannot hold would get the program killed (by the OOM killer, after
    /// seconds of paging) instead of refused. `meminfo` is
    /// `/proc/meminfo`'s text; without a `MemAvailable` line nothing is
    /// checked.
    pub fn check_memory(&self, meminfo: &str) -> Result<(), String> {
        let available_kib = meminfo.lines().find_map(|l| {
            let rest = l.strip_prefix("MemAvailable:")?;
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        });
        let need = 2 * self.msg_length as u64;
        match available_kib {
            Some(kib) if need > kib.saturating_mul(1024) => Err(format!(
                "-l {} needs two buffers of that size, {} MiB of pinned memory, \
                 and this host has {} MiB available: give a smaller -l",
                self.msg_length,
                need >> 20,
                kib >> 10
            )),
            _ => Ok(()),
        }
    }

    /// Whether `ulimit -l` lets this process pin the two `-l` byte buffers
    /// (whole pages each), read from the process itself: its soft
    /// RLIMIT_MEMLOCK, and CAP_IPC_LOCK, which lifts the limit. Without
    /// this check the registration fails only after the device is open,
    /// with an errno that says less.
    pub fn check_memlock(&self) -> Result<(), String> {
        use nix::sys::resource::{getrlimit, Resource, RLIM_INFINITY};
        let limit = getrlimit(Resource::RLIMIT_MEMLOCK)
            .ok()
            .map(|(soft, _)| soft)
            .filter(|soft| *soft != RLIM_INFINITY);
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        self.check_memlock_with(limit, has_cap_ipc_lock(&status))
    }

    /// [`ExchangeOpts::check_memlock`] for a given soft limit in bytes
    /// (`None`: unlimited) and capability.
    pub fn check_memlock_with(&self, limit: Option<u64>, cap_ipc_lock: bool) -> Result<(), String> {
        const PAGE: u64 = 4096;
        let need = 2 * (self.msg_length as u64).div_ceil(PAGE) * PAGE;
        match limit {
            Some(limit) if !cap_ipc_lock && need > limit => Err(format!(
                "-l {} needs {} KiB of locked memory for its two buffers, and `ulimit -l` \
                 is {} KiB: raise it, grant CAP_IPC_LOCK, or give a smaller -l",
                self.msg_length,
                need >> 10,
                limit >> 10
            )),
            _ => Ok(()),
        }
    }

    /// Refuses a `-l` longer than the port carries in one message (its
    /// `max_msg_sz`: 1 GiB on many HCAs), which would otherwise fail only
    /// at the first send, after both sides had connected.
    pub fn check_max_msg(&self, max_msg_sz: u32) -> Result<(), String> {
        if self.msg_length as u64 > u64::from(max_msg_sz) {
            return Err(format!(
                "-l {} is longer than the largest message the port carries \
                 (max_msg_sz {max_msg_sz}): give a smaller -l",
                self.msg_length
            ));
        }
        Ok(())
    }
}

/// The options the verbs-only examples share, named as in the manual's
/// `config`: `-p/--port`, `-d/--ib-dev`, `-i/--ib-port`, `-g/--gid-idx`,
/// `-h/--help`, and the optional trailing server name that selects client mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnOpts {
    /// Server host; `Some` puts the program in client mode.
    pub server_name: Option<String>,
    /// TCP port of the side channel.
    pub tcp_port: u16,
    /// Device name; `None` means the first device.
    pub dev_name: Option<String>,
    /// Physical port of the device.
    pub ib_port: u8,
    /// GID index; `None` means none given.
    pub gid_idx: Option<u8>,
}

/// The usage lines of [`ConnOpts`]' options, each as its program words it.
#[derive(Debug, Clone, Default)]
pub struct ConnUsage {
    /// `-p, --port`.
    pub port: String,
    /// `-d, --ib-dev`.
    pub ib_dev: String,
    /// `-i, --ib-port`.
    pub ib_port: String,
    /// `-g, --gid-idx`.
    pub gid_idx: String,
    /// `-h, --help`.
    pub help: String,
}

impl ConnOpts {
    /// The defaults: server mode on `tcp_port`, the first device, port 1,
    /// no GID index.
    pub fn new(tcp_port: u16) -> ConnOpts {
        ConnOpts {
            server_name: None,
            tcp_port,
            dev_name: None,
            ib_port: 1,
            gid_idx: None,
        }
    }

    /// The command line of a verbs-only example: the shared options
    /// (`-p/--port`, `-d/--ib-dev`, `-i/--ib-port`, `-g/--gid-idx`), then
    /// the program's own `more`, then `-h/--help`, each with its line of
    /// `usage`, after the usage head both originals print, indented by
    /// `indent`; one optional operand, the server's name.
    pub fn cli(
        name: &'static str,
        indent: &str,
        usage: ConnUsage,
        more: Vec<crate::cli::Opt>,
    ) -> crate::cli::Cli {
        use crate::cli::Opt;
        let mut opts = vec![
            Opt::value("p", "port", usage.port),
            Opt::value("d", "ib-dev", usage.ib_dev),
            Opt::value("i", "ib-port", usage.ib_port),
            Opt::value("g", "gid-idx", usage.gid_idx),
        ];
        opts.extend(more);
        opts.push(Opt::flag("h", "help", usage.help));
        crate::cli::Cli {
            name,
            head: vec![
                "Usage:".to_string(),
                format!("{indent}$0            start a server and wait for connection"),
                format!("{indent}$0 <host>     connect to server at <host>"),
                String::new(),
                "Options:".to_string(),
            ],
            opts,
            operands: 1,
            on_error: crate::cli::UsageOnError::Stdout,
        }
    }

    /// Read the shared options and the trailing server name from parsed
    /// arguments; `Err` is the one-line reason a value was refused.
    pub fn read(m: &getopts::Matches, default_port: u16) -> Result<ConnOpts, String> {
        let mut c = ConnOpts::new(default_port);
        if let Some(v) = last(m, "p") {
            c.tcp_port = parse_in_range(&v, 1, 65535)
                .ok_or_else(|| format!("invalid TCP port '{v}' for -p (expected 1..65535)"))?
                as u16;
        }
        if let Some(v) = last(m, "d") {
            if v.is_empty() {
                return Err("empty device name for -d".to_string());
            }
            c.dev_name = Some(v);
        }
        if let Some(v) = last(m, "i") {
            c.ib_port = parse_in_range(&v, 1, 255)
                .ok_or_else(|| format!("invalid IB port '{v}' for -i (expected 1..255)"))?
                as u8;
        }
        if let Some(v) = last(m, "g") {
            c.gid_idx = Some(
                parse_in_range(&v, 0, 255)
                    .ok_or_else(|| format!("invalid GID index '{v}' for -g (expected 0..255)"))?
                    as u8,
            );
        }
        match m.free.len() {
            0 => {}
            1 => c.server_name = Some(m.free[0].clone()),
            _ => return Err(format!("unexpected argument '{}'", m.free[1])),
        }
        Ok(c)
    }
}

/// Whether `/proc/self/status` (given) grants CAP_IPC_LOCK (bit 14 of
/// CapEff).
fn has_cap_ipc_lock(status: &str) -> bool {
    status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .is_some_and(|caps| caps & (1 << 14) != 0)
}

#[cfg(test)]
mod tests;
