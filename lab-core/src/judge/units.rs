//! Figures as the reports write them.

/// A bandwidth with the digits that matter: emulated links move a
/// hundredth of a Gb/s.
pub fn gbps_text(v: f64) -> String {
    format!("{} Gb/s", gbps_number(v))
}

/// [`gbps_text`]'s number alone, as a heatmap's cell shows it.
pub fn gbps_number(v: f64) -> String {
    let digits = if v >= 1.0 || v <= 0.0 {
        2
    } else {
        // Three significant digits, at most six decimals.
        ((-v.log10()).floor() as usize + 3).min(6)
    };
    format!("{v:.digits$}")
}
