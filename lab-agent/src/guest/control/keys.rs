//! Whether a key of 64 hex digits is one: the format alone lets through a
//! row of zeros someone typed and the lab's own test key, compiled into
//! every binary, either of which gives the handshake's protection away
//! (one connection yields a proof to test guesses against offline).

/// The key the lab's own VM scenarios share (their scripts in
/// `catalog::lab` and `catalog::doctor` carry it): public, since it is in
/// every `rdma-lab` binary, so it is taken only inside a VM the lab
/// booted ([`in_lab_vm`]).
pub const VM_TEST_KEY: &str = "5ec2e7ce11000000000000000000000000000000000000000000000000000001";

/// The word the lab adds to the kernel command line of the VMs it boots
/// (`vng --append`): only there is [`VM_TEST_KEY`] a key. A host's kernel
/// command line is its administrator's; nobody else can put it there.
pub const VM_MARK: &str = "rdma_lab.vm=1";

/// The fewest different digits a key may have: 64 random hex digits have
/// 15.8 on average, fewer than 8 about once in 10^19 keys.
const DIGITS_MIN: usize = 8;

/// The longest run a key may have of digits that stay the same, count up
/// or count down by one (`0000...`, `0123...`, `fedc...`): one of 12 comes
/// about once in 10^11 random keys.
const RUN_MAX: usize = 11;

/// Whether this process runs in a VM the lab booted: its kernel command
/// line holds [`VM_MARK`].
pub fn in_lab_vm() -> bool {
    std::fs::read_to_string("/proc/cmdline")
        .is_ok_and(|c| c.split_whitespace().any(|w| w == VM_MARK))
}

/// Why `key` (64 lowercase hex digits) is no key of random bits, if it is
/// not one: the test key outside the lab's VMs, too few different digits
/// (all one digit among them), a long run, or a short pattern repeated.
pub fn not_random(key: &str) -> Option<String> {
    if key == VM_TEST_KEY {
        return (!in_lab_vm()).then(|| {
            "it is the lab's test key, which every rdma-lab binary holds: it is for the lab's \
             own VMs"
                .to_string()
        });
    }
    let digits: Vec<u8> = key
        .bytes()
        .map(|b| char::from(b).to_digit(16).unwrap_or(0) as u8)
        .collect();
    let mut seen = digits.clone();
    seen.sort_unstable();
    seen.dedup();
    if seen.len() == 1 {
        return Some(format!(
            "it is one digit, {}, {} times",
            &key[..1],
            key.len()
        ));
    }
    if seen.len() < DIGITS_MIN {
        return Some(format!("it has only {} different digits", seen.len()));
    }
    if let Some(p) =
        (1..=key.len() / 2).find(|&p| digits.iter().zip(&digits[p..]).all(|(a, b)| a == b))
    {
        return Some(format!("it repeats a pattern of {p} digits"));
    }
    let run = longest_run(&digits);
    (run > RUN_MAX).then(|| format!("it has a run of {run} digits in a row"))
}

/// The longest run of digits each the one before, or one more, or one less
/// (modulo 16).
fn longest_run(digits: &[u8]) -> usize {
    [0u8, 1, 15]
        .iter()
        .map(|&step| {
            let (mut best, mut now) = (1, 1);
            for w in digits.windows(2) {
                now = if w[1] == (w[0] + step) % 16 {
                    now + 1
                } else {
                    1
                };
                best = best.max(now);
            }
            best
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests;
