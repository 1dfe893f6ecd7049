//! A handout's front matter: its introduction, which labs it holds, the
//! contents and the primer.

use super::*;

/// What the handout is and where its run came from.
pub(super) fn intro(report: &LabReport, ed: Edition) -> String {
    let kernel = report
        .vms
        .as_ref()
        .map_or("this host's".to_string(), |v| v.kernel.clone());
    let run = format!(
        "Everything in it comes from one run of the lab: two throwaway virtual machines (kernel {kernel}), each with a Soft-RoCE device (`rdma_rxe`: software RoCE, the kernel doing an RDMA NIC's work) on a virtual NIC, joined by one wire. Host A (192.0.2.1) runs the servers, host B (192.0.2.2) the clients, and the wire between them was recorded. All of it is real RoCE v2: UDP port 4791, the InfiniBand transport inside. The captures are in `pcaps/` and the programs' whole output in `transcripts/`, beside this file.\n\n"
    );
    let text = match ed {
        Edition::Student => format!(
            "The labs use the example programs of the Mellanox *RDMA Aware Networks Programming User Manual* (Rev 1.4) and two classic tutorials, in a port that keeps each program's options, steps and printed lines (the manual's C programs, rewritten in Rust; each chapter's table names the manual's C calls beside each step): what each demonstrates, how to run it on two hosts, what it printed, and what went over the wire.\n\n{run}\
Each exercise asks for a prediction: write it in its box first. Then check it as the exercise's last step says, with `tshark` (Wireshark's command-line tool) run in the directory of this file, and with the programs' output.\n"
        ),
        Edition::Teacher => format!(
            "This handout walks through the example programs of the Mellanox *RDMA Aware Networks Programming User Manual* (Rev 1.4) and two classic tutorials, ported to Rust: what each demonstrates, how to run it on two hosts, what it printed, and what went over the wire.\n\n{run}\
To make it yourself, on a Debian or Ubuntu machine with this repository:\n\n\
```\ncargo xtask handout          # HTML, with the captures beside it\ncargo xtask handout --pdf    # and a PDF, printed by headless Chromium\n```\n\n\
To run one pair and see its packets: `cargo xtask lab --two-hosts --capture rc_example`. On two real hosts, each chapter says which commands to type.\n"
        ),
    };
    markdown(&text)
}

/// The lab's time (`time` says it) and goals, or (the combined file) the
/// three labs'.
pub(super) fn labs_text(lab: Option<&Lab>, time: &dyn Fn(&Lab) -> String) -> String {
    let one = |l: &Lab| {
        format!(
            "<p class=\"lab\"><b>Lab {}: {}.</b> {}. Goals: {}.</p>\n",
            l.n,
            escape(l.title),
            escape(&time(l)),
            escape(l.goals)
        )
    };
    match lab {
        Some(l) => {
            let primer = if l.primer {
                ""
            } else {
                "<p>The primer and its glossary open lab 1: read them first.</p>\n"
            };
            one(l) + primer
        }
        None => LABS.iter().map(one).collect(),
    }
}

/// A chapter's number in the whole handout, which each lab keeps, so that
/// "Exercise 3.1" is the same exercise in every file.
pub(super) fn chapter_number(package: &str) -> usize {
    catalog::chapters()
        .iter()
        .position(|p| *p == package)
        .unwrap_or(0)
        + 1
}

/// The table of contents: the primer, then each chapter's title.
pub(super) fn contents(root: &Path, chapters: &[&str], primer: bool) -> String {
    let mut h = String::from("<nav><h2>Contents</h2>");
    if primer {
        let md = fs::read_to_string(root.join(PRIMER)).unwrap_or_default();
        h += &format!(
            "<p><a href=\"#primer\">{}</a></p>",
            inline(&read_readme(&md, &[]).title)
        );
    }
    h += "<ol>\n";
    for p in chapters {
        let md = fs::read_to_string(root.join(p).join("README.md")).unwrap_or_default();
        // Numbered as in the whole handout, as the exercises are.
        h += &format!(
            "<li value=\"{}\"><a href=\"#{p}\">{}</a></li>\n",
            chapter_number(p),
            inline(&read_readme(&md, &[]).title)
        );
    }
    h + "</ol></nav>\n"
}

/// The primer, whole.
pub(super) fn primer_section(root: &Path) -> String {
    let md = fs::read_to_string(root.join(PRIMER)).unwrap_or_default();
    let title = read_readme(&md, &[]).title;
    let body: Vec<&str> = md.lines().skip(1).collect();
    format!(
        "<section class=\"primer\" id=\"primer\">\n<h2>{}</h2>\n{}</section>\n",
        inline(&title),
        markdown(&body.join("\n"))
    )
}
