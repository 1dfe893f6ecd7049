use super::*;

fn cli() -> Cli {
    Cli {
        name: "demo",
        head: vec!["usage: $0 -a server_address".to_string()],
        opts: vec![
            Opt::flag("s", "", "\t[-s server mode]"),
            Opt::value("a", "", ""),
            Opt::value("p", "port", "\t[-p port_number]"),
        ],
        operands: 1,
        on_error: UsageOnError::Stdout,
    }
}

fn args(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn usage_comes_from_the_declaration() {
    assert_eq!(
        cli().usage("./demo"),
        "usage: ./demo -a server_address\n\t[-s server mode]\n\t[-p port_number]\n"
    );
}

#[test]
fn options_are_read_from_the_declaration() {
    let m = cli()
        .parse(&args(&["-s", "-p", "1", "--port", "2", "host"]))
        .unwrap();
    assert!(m.opt_present("s"));
    assert_eq!(crate::opts::last(&m, "p").as_deref(), Some("2"));
    assert_eq!(m.free, ["host"]);
    let e = cli().parse(&args(&["a", "b"])).unwrap_err();
    assert_eq!(e, "unexpected argument 'b'");
    assert!(cli().parse(&args(&["-x"])).is_err());
    assert!(cli().parse(&args(&["-p"])).is_err());
}

#[test]
fn getopt_strings_declare_flags_and_values() {
    let c = Cli::getopt(
        "srq",
        "sa:p:",
        "usage: $0 -a server_address\n\t[-p port_number]",
    );
    let m = c.parse(&args(&["-s", "-a", "h", "-p1"])).unwrap();
    assert!(m.opt_present("s"));
    assert_eq!(crate::opts::last(&m, "a").as_deref(), Some("h"));
    assert_eq!(crate::opts::last(&m, "p").as_deref(), Some("1"));
    assert!(c.parse(&args(&["-a"])).is_err(), "-a takes a value");
    assert!(c.parse(&args(&["-sx"])).is_err(), "-s takes none");
    assert!(c.parse(&args(&["host"])).is_err(), "no operands");
    assert_eq!(
        c.usage("./srq"),
        "usage: ./srq -a server_address\n\t[-p port_number]\n"
    );
}
