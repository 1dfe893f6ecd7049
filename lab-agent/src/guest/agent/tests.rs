use super::*;

const TCP: &str = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:4DA3 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1234 1 0000000000000000 100 0 0 10 0
   1: 0100007F:4853 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 1235 1 0000000000000000 20 4 30 10 -1
";
const TCP6: &str = "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:4853 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 99 1 0000000000000000 100 0 0 10 0
";

#[test]
fn proc_net_tcp() {
    assert!(tcp_listening(TCP, 19875), "0x4DA3 listens");
    assert!(
        !tcp_listening(TCP, 18515),
        "0x4853 is established, not listening"
    );
    assert!(tcp_listening(TCP6, 18515));
    assert!(!tcp_listening(TCP6, 19875));
    assert!(!tcp_listening("", 1));
    let header_only = TCP.lines().next().unwrap();
    assert!(!tcp_listening(header_only, 19875));
}

#[test]
fn rdma_cm_listen() {
    let out = "link rxe0/1 cm-idn 0 state LISTEN ps TCP pid 271 comm rping src-addr 192.0.2.1:7174 dst-addr 0.0.0.0:0 \n";
    assert!(cm_listening(out, 7174));
    assert!(!cm_listening(out, 717));
    assert!(!cm_listening(&out.replace("LISTEN", "CONNECT"), 7174));
}

#[test]
fn gid_spelling() {
    assert_eq!(
        ipv4_mapped_gid("192.0.2.1").unwrap(),
        "0000:0000:0000:0000:0000:ffff:c000:0201"
    );
    assert!(ipv4_mapped_gid("::1").is_none());
}

#[test]
fn hex_round_trips_any_text() {
    use crate::guest::control::{hex, unhex};
    let text = b"line one\nbegin x\n\x00\xff end";
    assert_eq!(unhex(&hex(text)).unwrap(), text);
    assert!(!hex(text).contains('\n'));
    assert!(unhex("abc").is_err());
    assert!(unhex("zz").is_err());
}

#[test]
fn config_round_trips() {
    let cfg = AgentConfig {
        role: Role::Client,
        ip: "192.0.2.2".into(),
        net: Net::Mac("52:54:00:12:34:02".into()),
        out: "/tmp/x y".into(),
        bin_dir: "/w/target/release".into(),
        params: Params {
            server_ip: "192.0.2.1".into(),
            client_ip: "192.0.2.2".into(),
            dev: "rxe0".into(),
            gid_idx: 3,
            ib_port: 2,
            tcp_shift: 0,
            qp_timeout: crate::model::params::PERFTEST_QP_TIMEOUT,
            cpus: String::new(),
            numa_node: String::new(),
        },
        scenarios: vec!["a".into(), "--b".into()],
        wait_secs: 7,
        port: 7472,
        auto_gid: true,
        secret_file: Some("/etc/lab secret".into()),
        secret: None,
        allow: vec!["192.0.2.2".parse().unwrap(), "::1".parse().unwrap()],
        doctor_only: true,
        queue: None,
        dir: None,
    };
    assert_eq!(AgentConfig::from_json(&cfg.to_json()).unwrap(), cfg);
    let bogus = cfg.to_json().replacen('{', "{\"bogus\": 1,", 1);
    assert!(AgentConfig::from_json(&bogus).is_err());
    // Through the file the lab writes, whatever the scenario list's length.
    let mut long = cfg.clone();
    long.scenarios = (0..200).map(|i| format!("scenario_{i}")).collect();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(CONFIG_FILE);
    fs::write(&file, long.to_json()).unwrap();
    assert_eq!(AgentConfig::from_file(&file).unwrap(), long);
    assert!(AgentConfig::from_file(&dir.path().join("none")).is_err());
}

#[test]
fn a_device_or_address_that_is_not_one_is_refused() {
    let base = AgentConfig::from_json(
        r#"{"role": "Both", "ip": "192.0.2.1", "net": "Dummy", "out": "/o", "bin_dir": "/b",
                "params": {"server_ip": "192.0.2.1", "client_ip": "192.0.2.1", "dev": "rxe0",
                           "gid_idx": 1, "ib_port": 1},
                "scenarios": [], "wait_secs": 60, "port": 7471, "auto_gid": true,
                "secret_file": null, "allow": [], "doctor_only": false, "queue": null}"#,
    )
    .unwrap();
    type Spoil = fn(&mut AgentConfig);
    let bad: [(&str, Spoil); 7] = [
        ("agent configuration: QP timeout", |c| {
            c.params.qp_timeout = 0
        }),
        ("agent configuration: QP timeout", |c| {
            c.params.qp_timeout = 32
        }),
        ("--dev", |c| c.params.dev = "x;touch F;:".into()),
        ("--dev", |c| c.params.dev = String::new()),
        ("--ip", |c| c.ip = "1.2.3.4 x".into()),
        ("--server-ip", |c| c.params.server_ip = "$(reboot)".into()),
        ("--client-ip", |c| {
            c.params.client_ip = "host.example".into()
        }),
    ];
    for (opt, spoil) in bad {
        let mut c = base.clone();
        spoil(&mut c);
        let e = AgentConfig::from_json(&c.to_json()).unwrap_err();
        let typed = match (&e, opt) {
            (ConfigError::QpTimeout(_), "agent configuration: QP timeout") => true,
            (ConfigError::BadValue(model::BadValue::Dev { opt: o, .. }), "--dev") => o == opt,
            (ConfigError::BadValue(model::BadValue::Ip { opt: o, .. }), _) => {
                o == opt && opt.ends_with("ip")
            }
            _ => false,
        };
        assert!(typed, "{opt}: {e:?}");
        let e = e.to_string();
        assert!(e.starts_with(&format!("{opt} ")), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
    let mut good = base.clone();
    good.params.dev = "mlx5_0".into();
    good.params.client_ip = "fe80::1".into();
    let cfg = AgentConfig::from_json(&good.to_json()).unwrap();
    assert_eq!(
        (cfg.params.dev.as_str(), cfg.params.client_ip.as_str()),
        ("mlx5_0", "fe80::1")
    );
}

/// A serving host on a mesh's rail past 0 (its ports shifted) runs the
/// measurements only, whatever its peer asks for.
#[test]
fn a_rails_serving_host_refuses_what_is_not_a_measurement() {
    let mut cfg = AgentConfig {
        role: Role::Server,
        ip: "198.51.100.1".into(),
        net: Net::None,
        out: "/nonexistent".into(),
        bin_dir: "/nonexistent".into(),
        params: Params {
            tcp_shift: 10,
            qp_timeout: crate::model::params::PERFTEST_QP_TIMEOUT,
            ..Params::default()
        },
        scenarios: Vec::new(),
        wait_secs: 1,
        port: 7473,
        auto_gid: false,
        secret_file: None,
        secret: None,
        allow: Vec::new(),
        doctor_only: false,
        queue: None,
        dir: None,
    };
    let rc = crate::catalog::find("rc_example").unwrap();
    let why = refusal(&cfg, rc).expect("refused past rail 0");
    assert!(why.contains("past rail 0"), "{why}");
    let bw = crate::catalog::find(crate::catalog::perf::WRITE_BW).unwrap();
    assert!(refusal(&cfg, bw).is_none_or(|w| !w.contains("past rail 0")));
    cfg.params.tcp_shift = 0;
    assert!(refusal(&cfg, rc).is_none_or(|w| !w.contains("past rail 0")));
}

/// What a side wrote (a program prints what its peer sent it) is kept
/// escaped once it ended, and cut at a result file's size: a `cat` of it
/// obeys no escape sequence, and a flood of output costs no more memory.
#[test]
fn a_sides_output_is_escaped_and_bounded_once_it_ended() {
    use crate::guest::control::RESULT_MAX;
    let tmp = tempfile::tempdir().unwrap();
    let out = Dir::open(tmp.path()).unwrap();
    out.write(
        "a.stdout",
        b"Message is: \x1b]0;owned\x07 \xe2\x80\xae \x9b!\n\tok\n",
    )
    .unwrap();
    escape_file(&out, "a.stdout");
    let text = String::from_utf8(out.read("a.stdout").unwrap()).unwrap();
    assert_eq!(
        text,
        "Message is: \\x1b]0;owned\\x07 \\u{202e} \u{fffd}!\n\tok\n"
    );
    out.write("b.stdout", vec![b'x'; RESULT_MAX + 10]).unwrap();
    escape_file(&out, "b.stdout");
    let cut = out.read("b.stdout").unwrap();
    assert!(cut.len() < RESULT_MAX + 64, "{}", cut.len());
    assert!(String::from_utf8_lossy(&cut).ends_with("[cut at 4 MiB by this host]\n"));
    out.write("c.stdout", "plain\n").unwrap();
    escape_file(&out, "c.stdout");
    assert_eq!(out.read("c.stdout").unwrap(), b"plain\n");
}

/// A peer's findings reach the file one record a finding, each text on
/// one line and escaped: a newline cannot start a line of its own under
/// another host's label; what is not a record is dropped.
#[test]
fn a_peers_findings_stay_on_their_lines() {
    let forged = DoctorFinding::unstarted(
        "MTU 1024\nserver host: all is well\x1b[2J",
        "why\nbetween the hosts: fine",
    );
    let blob = findings_text(&[forged, DoctorFinding::said("ok")]) + "plain text\n";
    let kept = findings_of(&doctors::their_findings(blob.as_bytes()));
    assert_eq!(
        kept,
        [
            DoctorFinding::unstarted(
                "MTU 1024\\nserver host: all is well\\x1b[2J",
                "why\\nbetween the hosts: fine"
            ),
            DoctorFinding::said("ok"),
        ]
    );
    let long = DoctorFinding::said("y".repeat(100_000));
    let kept = findings_of(&doctors::their_findings(findings_text(&[long]).as_bytes()));
    assert!(kept[0].text.chars().count() <= 2001);
}
