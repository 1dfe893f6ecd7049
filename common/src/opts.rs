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

/// [`parse_c_ulong`] limited to `min..=max`.
pub fn parse_in_range(s: &str, min: u64, max: u64) -> Option<u64> {
    parse_c_ulong(s).filter(|v| (min..=max).contains(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_what_strtoul_base_0_accepts() {
        assert_eq!(parse_c_ulong("19875"), Some(19875));
        assert_eq!(parse_c_ulong("0x10"), Some(16));
        assert_eq!(parse_c_ulong("0X1f"), Some(31));
        assert_eq!(parse_c_ulong("010"), Some(8));
        assert_eq!(parse_c_ulong("0"), Some(0));
    }

    #[test]
    fn rejects_what_strtoul_would_silently_mangle() {
        for bad in [
            "",
            "abc",
            "12abc",
            "-1",
            "+3",
            "0x",
            "09",
            "99999999999999999999999",
            " ",
        ] {
            assert_eq!(parse_c_ulong(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn range_is_inclusive() {
        assert_eq!(parse_in_range("1", 1, 255), Some(1));
        assert_eq!(parse_in_range("255", 1, 255), Some(255));
        assert_eq!(parse_in_range("0", 1, 255), None);
        assert_eq!(parse_in_range("256", 1, 255), None);
    }
}
