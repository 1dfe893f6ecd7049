//! The values a scenario's placeholders take on a run, and how they reach
//! a command line or a script.

use crate::model::{Cmd, SERVER_IP};

/// Values for the placeholders of [`Cmd::args`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// `{server_ip}`.
    pub server_ip: String,
    /// `{client_ip}`: the client host's address (the server's, on one host).
    pub client_ip: String,
    /// `{dev}`.
    pub dev: String,
    /// `{gid_idx}`.
    pub gid_idx: u32,
    /// `{ib_port}`.
    pub ib_port: u32,
    /// What `{tcp_port:N}` adds to `N`: a rail's checks run beside the
    /// other rails' on the same host, each on TCP ports of its own
    /// ([`rail_shift`]); 0 everywhere else.
    #[serde(default)]
    pub tcp_shift: u16,
    /// `{qp_timeout}`: the QP timeout of `mesh --perf`'s measurements
    /// (perftest's `-u`).
    #[serde(default = "perftest_qp_timeout")]
    pub qp_timeout: u8,
    /// `{cpus}`: the CPUs `mesh --perf`'s measurements run on (`taskset
    /// -c`), the measuring NIC's local ones as sysfs lists them; empty:
    /// wherever the scheduler puts them.
    #[serde(default)]
    pub cpus: String,
    /// `{numa_node}`: the NUMA node of those CPUs, whose memory the
    /// measurements are bound to where `numactl` is installed; empty where
    /// the NIC is on no node or the measurements are not pinned.
    #[serde(default)]
    pub numa_node: String,
}

/// perftest's own QP timeout (`-u`): 4.096 usec x 2^14, about 67 ms.
pub const PERFTEST_QP_TIMEOUT: u8 = 14;

fn perftest_qp_timeout() -> u8 {
    PERFTEST_QP_TIMEOUT
}

/// The TCP port shift of rail `rail`'s checks (`mesh` with rails): rail 0
/// keeps the ports every lab run uses, rail `k` adds `10 k`.
pub fn rail_shift(rail: usize) -> u16 {
    u16::try_from(rail.saturating_mul(10)).unwrap_or(u16::MAX)
}

impl Default for Params {
    fn default() -> Self {
        Params {
            server_ip: SERVER_IP.into(),
            client_ip: SERVER_IP.into(),
            dev: "rxe0".into(),
            gid_idx: 1,
            ib_port: 1,
            tcp_shift: 0,
            qp_timeout: PERFTEST_QP_TIMEOUT,
            cpus: String::new(),
            numa_node: String::new(),
        }
    }
}

/// A value of an option that names a device or an address and is not
/// one; its message (one line) quotes the value as Rust's Debug does, so
/// that a newline in it shows as `\n`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadValue {
    /// Not a device name.
    #[error("{opt} {value:?}: a device name is 1 to 64 of A-Z a-z 0-9 _ . : -")]
    Dev {
        /// The option.
        opt: String,
        /// Its value.
        value: String,
    },
    /// Not an IP address.
    #[error("{opt} {value:?}: not an IPv4 or IPv6 address")]
    Ip {
        /// The option.
        opt: String,
        /// Its value.
        value: String,
    },
}

message_of!(BadValue);

/// Checks the value of `opt`, a device name: 1 to 64 characters of
/// `[A-Za-z0-9_.:-]`, as the kernel's RDMA and net device names are. The
/// name reaches command lines and scripts: nothing else gets that far.
pub fn check_dev(opt: &str, v: &str) -> Result<(), BadValue> {
    let allowed = |b: u8| b.is_ascii_alphanumeric() || b"_.:-".contains(&b);
    if (1..=64).contains(&v.len()) && v.bytes().all(allowed) {
        Ok(())
    } else {
        Err(BadValue::Dev {
            opt: opt.into(),
            value: v.into(),
        })
    }
}

/// Checks the value of `opt`, an IP address (v4 or v6).
pub fn check_ip(opt: &str, v: &str) -> Result<(), BadValue> {
    match v.parse::<std::net::IpAddr>() {
        Ok(_) => Ok(()),
        Err(_) => Err(BadValue::Ip {
            opt: opt.into(),
            value: v.into(),
        }),
    }
}

/// Replaces the placeholders in one argument. A whole argument
/// `{tcp_port:N}` is the TCP port `N` shifted by [`Params::tcp_shift`].
pub fn substitute(arg: &str, p: &Params) -> String {
    if let Some(port) = arg
        .strip_prefix("{tcp_port:")
        .and_then(|r| r.strip_suffix('}'))
        .and_then(|n| n.parse::<u16>().ok())
    {
        return port.saturating_add(p.tcp_shift).to_string();
    }
    arg.replace("{server_ip}", &p.server_ip)
        .replace("{client_ip}", &p.client_ip)
        .replace("{dev}", &p.dev)
        .replace("{gid_idx}", &p.gid_idx.to_string())
        .replace("{ib_port}", &p.ib_port.to_string())
        .replace("{qp_timeout}", &p.qp_timeout.to_string())
        .replace("{cpus}", &p.cpus)
        .replace("{numa_node}", &p.numa_node)
}

/// Each placeholder and the environment variable that carries its value
/// into a shell script ([`Cmd::args_with`], [`Params::env`]).
pub const PLACEHOLDER_VARS: &[(&str, &str)] = &[
    ("{server_ip}", "LAB_SERVER_IP"),
    ("{client_ip}", "LAB_CLIENT_IP"),
    ("{dev}", "LAB_DEV"),
    ("{gid_idx}", "LAB_GID_IDX"),
    ("{ib_port}", "LAB_IB_PORT"),
    ("{qp_timeout}", "LAB_QP_TIMEOUT"),
    ("{cpus}", "LAB_CPUS"),
    ("{numa_node}", "LAB_NUMA_NODE"),
];

impl Params {
    /// The placeholders' values as the environment variables that
    /// [`Cmd::args_with`]'s scripts read; the agent runs every command with
    /// them.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        PLACEHOLDER_VARS
            .iter()
            .map(|(placeholder, var)| (*var, substitute(placeholder, self)))
            .collect()
    }
}

/// Where the shell is in a script, as far as expanding `${VAR}` goes.
#[derive(Clone, Copy, PartialEq)]
enum Quote {
    /// Unquoted: code, at the top or in `$(...)`, with its open `(`s.
    Code(usize),
    /// In `'...'`: nothing expands.
    Single,
    /// In `"..."`: `${VAR}` expands.
    Double,
}

/// `script` (a `sh -c`/`bash -c` script) with each placeholder replaced by
/// a reference to its variable ([`PLACEHOLDER_VARS`]), so no value is ever
/// parsed as shell code: `${LAB_DEV}` where the shell expands it, and
/// `'"${LAB_DEV}"'` inside single quotes, closed and reopened around it,
/// so that the script means what the pasted value meant. The quoting is
/// followed as far as the scenarios' scripts need: quotes, backslashes,
/// `$(...)` and comments (a heredoc's body, `$'...'` and backquotes are
/// taken as code; the table's test checks that every script ends unquoted).
pub fn script_with_env_refs(script: &str) -> String {
    script_refs(script).0
}

/// [`script_with_env_refs`], and whether the script ended unquoted.
pub(crate) fn script_refs(script: &str) -> (String, bool) {
    let mut out = String::with_capacity(script.len());
    let mut stack = vec![Quote::Code(0)];
    let mut rest = script;
    while let Some(c) = rest.chars().next() {
        let top = *stack.last().expect("the script's own level stays");
        if let Some((placeholder, var)) = PLACEHOLDER_VARS.iter().find(|(p, _)| rest.starts_with(p))
        {
            if top == Quote::Single {
                out += &format!("'\"${{{var}}}\"'");
            } else {
                out += &format!("${{{var}}}");
            }
            rest = &rest[placeholder.len()..];
            continue;
        }
        let mut take = c.len_utf8();
        match (top, c) {
            (Quote::Single, '\'') => {
                stack.pop();
            }
            (Quote::Single, _) => {}
            (Quote::Code(_) | Quote::Double, '\\') => {
                // The escaped character is taken with it.
                take += rest[1..].chars().next().map_or(0, char::len_utf8);
            }
            (Quote::Code(_) | Quote::Double, '$') if rest[1..].starts_with('(') => {
                take += 1;
                stack.push(Quote::Code(0));
            }
            (Quote::Double, '"') => {
                stack.pop();
            }
            (Quote::Double, _) => {}
            (Quote::Code(_), '\'') => stack.push(Quote::Single),
            (Quote::Code(_), '"') => stack.push(Quote::Double),
            (Quote::Code(n), '(') => *stack.last_mut().expect("not empty") = Quote::Code(n + 1),
            (Quote::Code(0), ')') if stack.len() > 1 => {
                stack.pop();
            }
            (Quote::Code(n), ')') => {
                *stack.last_mut().expect("not empty") = Quote::Code(n.saturating_sub(1));
            }
            (Quote::Code(_), '#')
                if out.ends_with(|p: char| p.is_whitespace() || p == ';') || out.is_empty() =>
            {
                // A comment, to the end of its line.
                take = rest.find('\n').unwrap_or(rest.len());
            }
            (Quote::Code(_), _) => {}
        }
        out += &rest[..take];
        rest = &rest[take..];
    }
    (out, stack == [Quote::Code(0)])
}

impl Cmd {
    /// The arguments with placeholders replaced, to run: the values pasted
    /// into a program's own arguments, but a `sh -c`/`bash -c` script (run
    /// directly or by a wrapper such as `setpriv ... sh -c`) gets
    /// references to the variables of [`Params::env`] instead, so a value
    /// is never shell code.
    pub fn args_with(&self, p: &Params) -> Vec<String> {
        let is_shell = |w: &str| matches!(w, "sh" | "bash");
        // The shell may be the program, or run by a wrapper (setpriv,
        // timeout): its script is the word after its `-c` either way.
        let shell_from = if is_shell(self.program) {
            Some(0)
        } else {
            self.args.iter().position(|a| is_shell(a)).map(|i| i + 1)
        };
        let script = shell_from.and_then(|from| {
            self.args[from..]
                .iter()
                .position(|a| *a == "-c")
                .map(|c| from + c + 1)
        });
        self.args
            .iter()
            .enumerate()
            .map(|(i, a)| {
                if Some(i) == script {
                    script_with_env_refs(a)
                } else {
                    substitute(a, p)
                }
            })
            .collect()
    }

    /// The arguments with every placeholder replaced by its value, scripts
    /// too: what a reader would type (the handout), never run.
    pub fn args_shown(&self, p: &Params) -> Vec<String> {
        self.args.iter().map(|a| substitute(a, p)).collect()
    }
}

/// The lab's addresses, for expected lines that name a side's address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Addrs {
    /// The server side's address (`{server_ip}`, `{server_ip_hex}`).
    pub server_ip: String,
    /// The client side's address (`{client_ip}`, `{client_ip_hex}`).
    pub client_ip: String,
}
