use super::*;

/// What `REPORTED` prints on a side: perftest's table, then its report.
const STDOUT: &str = "\
---------------------------------------------------------------------------------------
                    RDMA_Write BW Test
 Dual-port       : OFF\t\tDevice         : rxe0
 #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
 65536      915              0.00               0.24   \t\t   0.000457
---------------------------------------------------------------------------------------
{
\"results\": {
MsgSize: 65536,
n_iterations: 915,
BW_peak: 0.00,
BW_average: 0.24,
MsgRate: 0.000457
}
}
";

#[test]
fn a_sides_report_keeps_its_figures_and_not_its_table() {
    let report = report_lines(STDOUT);
    assert!(
        report.starts_with("\"results\": {\nMsgSize: 65536,\n"),
        "{report}"
    );
    assert!(!report.contains("#bytes"), "{report}");
    assert_eq!(
        crate::catalog::perf::bandwidth(&report),
        crate::catalog::perf::bandwidth(STDOUT)
    );
    // A report of many lines keeps its last, where the results are.
    let long = format!("{}{STDOUT}", "Key: value,\n".repeat(2000));
    let kept = report_lines(&long);
    assert!(
        kept.len() <= REPORT_MAX && kept.ends_with("MsgRate: 0.000457\n"),
        "{kept}"
    );
}
