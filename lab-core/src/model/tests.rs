use super::*;

#[test]
fn glob() {
    assert!(glob_match("abc", "abc"));
    assert!(!glob_match("abc", "abcd"));
    assert!(!glob_match("abc", "xabc"));
    assert!(glob_match("found * device(s)", "found 1 device(s)"));
    assert!(!glob_match("found * device(s)", "found 1 device(s) more"));
    assert!(glob_match("*", ""));
    assert!(glob_match("a*", "a"));
    assert!(glob_match(
        "*IB device x wasn't found*",
        "error: IB device x wasn't found!"
    ));
    assert!(glob_match(
        "MR was registered with addr=*, lkey=*, rkey=*, flags=0x7",
        "MR was registered with addr=0x55, lkey=0x1, rkey=0x2, flags=0x7"
    ));
    assert!(!glob_match("a*b*c", "acb"));
    assert!(
        !glob_match("ab*ba", "aba"),
        "prefix and suffix must not overlap"
    );
    assert!(glob_match("a**b", "ab"));
}

#[test]
fn lines_ignore_trailing_whitespace_only() {
    assert!(has_line("x\r\nRemote GID =00:01  \n", "Remote GID =*"));
    assert!(!has_line("  test result is 0", "test result is 0"));
}

/// The lab's addresses for a test.
pub(crate) fn addrs(server: &str, client: &str) -> Addrs {
    Addrs {
        server_ip: server.into(),
        client_ip: client.into(),
    }
}

#[test]
fn address_patterns_are_filled_per_mode_or_skipped() {
    let two = addrs("192.0.2.1", "192.0.2.2");
    assert_eq!(
        expand("remote gid: ::ffff:{client_ip}", Some(&two)).as_deref(),
        Some("remote gid: ::ffff:192.0.2.2")
    );
    assert_eq!(
        expand("GID =*ff:ff:{server_ip_hex}", Some(&two)).as_deref(),
        Some("GID =*ff:ff:c0:00:02:01")
    );
    assert_eq!(expand("x {client_ip}", None), None);
    assert_eq!(expand("no address", None).as_deref(), Some("no address"));
}

/// What `program -c script` prints, with `env` and `args` after it.
fn shell_out(program: &str, script: &str, args: &[String], env: &[(&str, String)]) -> String {
    let out = std::process::Command::new(program)
        .arg("-c")
        .arg(script)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{program} -c {script}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_script_reads_the_values_from_the_environment_and_means_the_same() {
    let p = Params {
        server_ip: "10.0.0.1".into(),
        client_ip: "fe80::1".into(),
        dev: "mlx5_0".into(),
        gid_idx: 3,
        ib_port: 2,
        tcp_shift: 0,
        qp_timeout: crate::model::params::PERFTEST_QP_TIMEOUT,
        cpus: String::new(),
        numa_node: String::new(),
    };
    // Each quoting a placeholder meets in the scenarios' scripts.
    for (program, script) in [
        (
            "sh",
            "echo {server_ip} -d {dev} -i {ib_port} -g {gid_idx} {client_ip}",
        ),
        (
            "sh",
            "echo \"{dev} added back on x\" /dev/tcp/{server_ip}/19875",
        ),
        (
            "sh",
            "echo 'state CONNECT .*src-addr {server_ip}:51288 dst-addr'",
        ),
        (
            "sh",
            "for a in '' '-M ff0e::1 -b {server_ip}'; do echo \"[$a]\"; done",
        ),
        (
            "sh",
            "echo \"$(echo '{dev}' \"{dev}\")\" $(echo {dev}) '(' {dev}",
        ),
        ("sh", "# it's {dev}\necho {dev} \\' \"\\\"{dev}\" '{dev}'"),
        (
            "bash",
            "IFS=. read -r a b c d <<< \"{server_ip}\"; echo $a $d",
        ),
    ] {
        let new = script_with_env_refs(script);
        assert!(!new.contains("mlx5_0"), "{new}");
        let pasted = shell_out(program, &substitute(script, &p), &[], &[]);
        assert_eq!(shell_out(program, &new, &[], &p.env()), pasted, "{script}");
    }
}

#[test]
fn a_hostile_value_is_never_shell_code() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = tmp.path().join("F");
    let evil = format!("x;touch {};:", marker.display());
    let quote = format!("x' ; touch {} ; '", marker.display());
    let p = Params {
        server_ip: quote.clone(),
        client_ip: format!("$(touch {})", marker.display()),
        dev: evil.clone(),
        gid_idx: 0,
        ib_port: 1,
        tcp_shift: 0,
        qp_timeout: crate::model::params::PERFTEST_QP_TIMEOUT,
        cpus: String::new(),
        numa_node: String::new(),
    };
    let cmd = Cmd::new(
        "sh",
        &[
            "-c",
            "echo {dev} \"{dev}\" '{server_ip}' {client_ip}; echo \"$1\"",
            "sh",
            "{dev}",
        ],
    );
    let args = cmd.args_with(&p);
    assert!(
        !args[1].contains(&evil) && !args[1].contains("touch"),
        "{}",
        args[1]
    );
    // A program's own argument (here the script's $1) keeps the value.
    assert_eq!(args[3], evil);
    let out = shell_out("sh", &args[1], &args[2..], &p.env());
    assert!(!marker.exists(), "the script ran a value: {out}");
    assert!(out.ends_with(&format!("{evil}\n")), "{out}");
    // The same script with the values pasted in, as before: it can fail.
    let _ = shell_out("sh", &substitute(&cmd.args[1], &p), &[], &[]);
    assert!(marker.exists());
}

/// A script a wrapper runs (`setpriv ... sh -c SCRIPT`, as the
/// locked-memory cell does) gets variable references too, never the value
/// pasted (before, only a script whose program was the shell itself did).
#[test]
fn a_wrapped_shells_script_never_holds_a_value() {
    let p = Params {
        server_ip: "10.0.0.1".into(),
        client_ip: "10.0.0.2".into(),
        dev: "rxe0;touch /tmp/owned".into(),
        gid_idx: 1,
        ib_port: 1,
        tcp_shift: 0,
        qp_timeout: crate::model::params::PERFTEST_QP_TIMEOUT,
        cpus: String::new(),
        numa_node: String::new(),
    };
    for wrapped in [
        Cmd::new(
            "setpriv",
            &[
                "--inh-caps=-ipc_lock",
                "sh",
                "-c",
                "ulimit -l 64 && exec x -d {dev}",
            ],
        ),
        Cmd::new("timeout", &["5", "bash", "-c", "echo {dev}"]),
        Cmd::new("sh", &["-c", "echo {dev}"]),
    ] {
        let args = wrapped.args_with(&p);
        assert!(!args.iter().any(|a| a.contains("touch")), "{args:?}");
    }
    // A program's own argument keeps the value: it is no shell's code.
    let plain = Cmd::new("rc_example", &["-d", "{dev}", "-c", "{dev}"]).args_with(&p);
    assert_eq!(plain[1], p.dev);
    assert_eq!(plain[3], p.dev);
}

#[test]
fn placeholders() {
    let p = Params {
        server_ip: "10.0.0.1".into(),
        client_ip: "10.0.0.2".into(),
        dev: "mlx5_0".into(),
        gid_idx: 3,
        ib_port: 2,
        tcp_shift: 0,
        qp_timeout: crate::model::params::PERFTEST_QP_TIMEOUT,
        cpus: String::new(),
        numa_node: String::new(),
    };
    assert_eq!(
        Cmd::new(
            "rc_example",
            &["-d", "{dev}", "-g", "{gid_idx}", "{server_ip}"]
        )
        .args_with(&p),
        ["-d", "mlx5_0", "-g", "3", "10.0.0.1"]
    );
    assert_eq!(
        substitute("/dev/tcp/{server_ip}/1 -i {ib_port}", &p),
        "/dev/tcp/10.0.0.1/1 -i 2"
    );
    assert_eq!(substitute("{unknown}", &p), "{unknown}");
}

/// A side that ended with `exit` and printed these, for a test.
pub(crate) fn side(exit: i32, stdout: &str, stderr: &str) -> SideOutcome {
    SideOutcome {
        exit: Some(exit),
        elapsed_ms: Some(10),
        stdout: stdout.into(),
        stderr: stderr.into(),
        cannot_start: None,
    }
}

#[test]
fn a_wire_fact_reads_as_a_sentence() {
    let count = PacketFact::Count {
        from: Side::Client,
        what: "RC RDMA Read Request",
        n: 1,
        len: Some(21),
    };
    assert_eq!(
        count.to_string(),
        "the client sends exactly 1 `RC RDMA Read Request` packet, each for 21 bytes of message \
         (distinct PSNs: a packet sent again counts once)"
    );
    let order = PacketFact::InOrder(&[(Side::Server, "RC Send Only"), (Side::Client, "RC RDMA *")]);
    assert_eq!(
        order.to_string(),
        "in this order: the server's `RC Send Only`, then the client's `RC RDMA *`"
    );
}

/// A rail's checks take TCP ports of their own: `{tcp_port:N}` is `N`
/// shifted by the rail's ten, and so is the server's readiness port.
#[test]
fn a_rails_ports_are_shifted_ten_a_rail() {
    let p = Params {
        tcp_shift: crate::model::params::rail_shift(2),
        qp_timeout: crate::model::params::PERFTEST_QP_TIMEOUT,
        cpus: String::new(),
        numa_node: String::new(),
        ..Params::default()
    };
    assert_eq!(substitute("{tcp_port:6543}", &p), "6563");
    assert_eq!(substitute("{tcp_port:6543}", &Params::default()), "6543");
    // Only a whole argument, and only a port.
    assert_eq!(substitute("x{tcp_port:6543}", &p), "x{tcp_port:6543}");
    assert_eq!(substitute("{tcp_port:70000}", &p), "{tcp_port:70000}");
    assert_eq!(Ready::TcpListen(18516).shifted(20), Ready::TcpListen(18536));
    assert_eq!(
        Ready::RdmaCmListen(7471).shifted(20),
        Ready::RdmaCmListen(7471)
    );
    assert_eq!(crate::model::params::rail_shift(15), 150);
}
