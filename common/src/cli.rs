//! Every example's `main`: the same skeleton around its own options.
//!
//! A program declares its command line once, as a [`Cli`]: the lines its
//! usage text starts with, and each option with the line the original
//! prints for it. getopts reads the options from that declaration and the
//! usage text is printed from it, so the two cannot drift apart. [`main`]
//! does what every original's `main` does before its real work: SIGPIPE back
//! to its default, read the arguments, and on a refused one print the reason
//! and the usage and exit 1.

use std::process::ExitCode;

/// Parsed options, as getopts gives them.
pub use getopts::Matches;

/// One option: its letters, whether it takes a value, and its usage line.
#[derive(Clone, Debug)]
pub struct Opt {
    short: &'static str,
    long: &'static str,
    takes_value: bool,
    usage: String,
}

impl Opt {
    /// An option without a value; `usage` is its line of the usage text,
    /// as the original prints it (empty: it has none of its own).
    pub fn flag(short: &'static str, long: &'static str, usage: impl Into<String>) -> Opt {
        Opt {
            short,
            long,
            takes_value: false,
            usage: usage.into(),
        }
    }

    /// An option with a value; as [`Opt::flag`].
    pub fn value(short: &'static str, long: &'static str, usage: impl Into<String>) -> Opt {
        Opt {
            takes_value: true,
            ..Opt::flag(short, long, usage)
        }
    }
}

/// How a program shows its usage after a refused command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UsageOnError {
    /// The reason on stderr, then the whole usage text on stdout (the
    /// manual's programs).
    Stdout,
    /// The reason and the first usage line together on one stderr line
    /// (the Bedeir programs, which take operands only).
    SameLine,
}

/// A program's command line, declared once.
#[derive(Clone, Debug)]
pub struct Cli {
    /// The program's name when argv\[0\] has none.
    pub name: &'static str,
    /// The usage lines before the options'; `$0` stands for the program's
    /// name as it was invoked.
    pub head: Vec<String>,
    /// The options, in the order of their usage lines.
    pub opts: Vec<Opt>,
    /// How many operands (arguments that are not options) it takes.
    pub operands: usize,
    /// Where the usage goes after an error.
    pub on_error: UsageOnError,
}

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Parsed<C> {
    /// Run with this configuration.
    Run(C),
    /// Print the usage and exit 0 (`-h`).
    Help,
}

impl Cli {
    /// A program that takes at most `operands` operands and no options, and
    /// names its usage (`usage`, with `$0`) in its error line.
    pub fn operands_only(name: &'static str, usage: &str, operands: usize) -> Cli {
        Cli {
            name,
            head: vec![usage.to_string()],
            opts: Vec::new(),
            operands,
            on_error: UsageOnError::SameLine,
        }
    }

    /// A program whose command line is the original's `getopt` string
    /// (`"sa:p:"`: letters, `:` after those that take a value) and whose
    /// usage text is the original's, verbatim (`$0` for its name).
    pub fn getopt(name: &'static str, optstring: &'static str, usage: &str) -> Cli {
        let letters: Vec<(usize, char)> = optstring
            .char_indices()
            .filter(|(_, c)| *c != ':')
            .collect();
        let opts = letters
            .iter()
            .map(|&(i, c)| {
                let short = &optstring[i..i + c.len_utf8()];
                let long = if short == "h" { "help" } else { "" };
                if optstring[i + c.len_utf8()..].starts_with(':') {
                    Opt::value(short, long, "")
                } else {
                    Opt::flag(short, long, "")
                }
            })
            .collect();
        Cli {
            name,
            head: usage.lines().map(str::to_string).collect(),
            opts,
            operands: 0,
            on_error: UsageOnError::Stdout,
        }
    }

    /// Read `args` (without argv\[0\]) against the declared options. As with
    /// C's getopt, a repeated option's last value counts
    /// ([`crate::opts::last`]).
    pub fn parse(&self, args: &[String]) -> Result<getopts::Matches, String> {
        let mut o = getopts::Options::new();
        // Every program answers -h/--help, whether its original did or not.
        if !self.opts.iter().any(|opt| opt.short == "h") {
            o.optflagmulti("h", "help", "");
        }
        for opt in &self.opts {
            if opt.takes_value {
                o.optmulti(opt.short, opt.long, "", "VALUE");
            } else {
                o.optflagmulti(opt.short, opt.long, "");
            }
        }
        let m = o.parse(args).map_err(|e| e.to_string())?;
        if let Some(extra) = m.free.get(self.operands) {
            return Err(format!("unexpected argument '{extra}'"));
        }
        Ok(m)
    }

    /// [`Cli::parse`], then `read` for the program's configuration; `-h`
    /// or `--help` anywhere asks for the usage instead.
    pub fn read<C>(
        &self,
        args: &[String],
        read: impl FnOnce(&getopts::Matches) -> Result<Parsed<C>, String>,
    ) -> Result<Parsed<C>, String> {
        let m = self.parse(args)?;
        if m.opt_present("h") {
            return Ok(Parsed::Help);
        }
        read(&m)
    }

    /// The configuration `main` would run with for `args` (without
    /// argv\[0\]), or the reason it would refuse them (`-h` reads as
    /// "help"): what the programs' unit tests check.
    pub fn config_of<C>(
        &self,
        args: &[&str],
        read: impl FnOnce(&getopts::Matches) -> Result<Parsed<C>, String>,
    ) -> Result<C, String> {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        match self.read(&args, read)? {
            Parsed::Run(c) => Ok(c),
            Parsed::Help => Err("help".to_string()),
        }
    }

    /// The usage text, one `\n`-terminated line each.
    pub fn usage(&self, argv0: &str) -> String {
        let lines = self.head.iter().map(String::as_str).chain(
            self.opts
                .iter()
                .map(|o| o.usage.as_str())
                .filter(|u| !u.is_empty()),
        );
        lines.map(|l| l.replace("$0", argv0) + "\n").collect()
    }
}

/// The `main` of a program that takes at most `operands` operands and no
/// options (the Bedeir programs): `parse` reads the operands, and a refused
/// line names the usage (`usage`, with `$0`) in its one error line.
pub fn main_operands<C>(
    name: &'static str,
    usage: &str,
    operands: usize,
    parse: impl FnOnce(&[String]) -> Result<C, String>,
    run: impl FnOnce(C) -> ExitCode,
) -> ExitCode {
    let cli = Cli::operands_only(name, usage, operands);
    main(&cli, |m| parse(&m.free).map(Parsed::Run), run)
}

/// The `main` of an example: `read` turns the parsed options into its
/// configuration (or a one-line reason to refuse them), and `run` is the
/// program proper, whose exit code is the process's.
pub fn main<C>(
    cli: &Cli,
    read: impl FnOnce(&getopts::Matches) -> Result<Parsed<C>, String>,
    run: impl FnOnce(C) -> ExitCode,
) -> ExitCode {
    crate::signals::default_sigpipe();
    let args = crate::args();
    let argv0 = crate::program_name(&args, cli.name);
    match cli.read(&args[1.min(args.len())..], read) {
        Ok(Parsed::Run(c)) => run(c),
        Ok(Parsed::Help) => {
            crate::print!("{}", cli.usage(&argv0));
            ExitCode::SUCCESS
        }
        Err(e) => {
            match cli.on_error {
                UsageOnError::Stdout => {
                    eprintln!("{argv0}: {e}");
                    crate::print!("{}", cli.usage(&argv0));
                }
                UsageOnError::SameLine => {
                    let usage = cli.usage(&argv0);
                    eprintln!("{argv0}: {e}; {}", usage.lines().next().unwrap_or(""));
                }
            }
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests;
