//! What the terminal shows of a benchmark: each run, the medians and
//! their ratio against the target.

use crate::catalog::bench::{ITERS, SIZE};
use crate::results::bench::{Mesh, Pingpong};

/// Prints `bench pingpong`'s runs and medians; whether the target was met.
pub fn print_pingpong(b: &Pingpong) -> bool {
    println!("run                          usec/iter (client)  Mbit/sec");
    for (name, usec, mbit) in &b.runs {
        println!("{name:28} {usec:>12.2}  {mbit:>14.2}");
    }
    println!(
        "{SIZE} bytes x {ITERS} iters, {} runs each ({}):",
        b.each, b.mode
    );
    println!("  ibv_rc_pingpong      median {:.2} usec/iter", b.theirs);
    println!("  ibv_sockets_pingpong median {:.2} usec/iter", b.ours);
    println!(
        "  ratio {:.3} (target <= {:.2}): {}",
        b.ratio(),
        b.target,
        if b.met() { "met" } else { "NOT met" }
    );
    b.met()
}

/// Prints `bench mesh`'s medians and their ratio; whether the parallel
/// rounds were faster.
pub fn print_mesh(b: &Mesh) -> bool {
    let ((p, pn), (s, sn)) = (b.parallel, b.serial);
    if b.rails {
        println!("four hosts of two NICs, all 6 pairs on two rails (--perf):");
        println!("  both rails at once (--rails):  median {p:.1} s of {pn}");
        println!("  one rail at a time (2 runs):   median {s:.1} s of {sn}");
        println!("  one at a time / at once: {:.2} (ideal 2.00)", s / p);
        return b.faster();
    }
    println!("four hosts, all 6 pairs of rc_example (and the doctor's probe):");
    println!("  parallel rounds (3 rounds of 2 pairs): median {p:.1} s of {pn}");
    println!("  one pair at a time (6 pairs):          median {s:.1} s of {sn}");
    println!("  one at a time / parallel: {:.2} (ideal 2.00)", s / p);
    b.faster()
}
