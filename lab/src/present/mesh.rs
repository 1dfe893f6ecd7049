//! The mesh's page as Chromium renders it: the fabric writes the page
//! (`rdma_fabric::present::mesh`), the lab's tests look at it in a browser.

/// Opens a mesh's page in headless Chromium and looks at what it
/// rendered, as the handout's check does: the diagnosis first, a heatmap
/// of N x N cells (one per pair, a mark on the diagonal), and the pairs
/// by scenario. Every way it falls short.
pub fn check_in_chromium(html: &std::path::Path, hosts: usize) -> Vec<String> {
    let dom = match crate::base::browser::chromium(html, &["--dump-dom".into()]) {
        Ok(dom) => dom,
        Err(e) => return vec![e],
    };
    let mut failures = Vec::new();
    let (diagnosis, matrix) = (
        dom.find("class=\"diagnosis\""),
        dom.find("class=\"matrix\""),
    );
    if !matches!((diagnosis, matrix), (Some(d), Some(m)) if d < m) {
        failures.push("the page has no diagnosis above its matrix".to_string());
    }
    let own = dom.matches("class=\"self\"").count();
    if own < hosts {
        failures.push(format!("{own} diagonal cells rendered, {hosts} expected"));
    }
    if !dom.contains("class=\"scenarios\"") {
        failures.push("the page has no pairs-by-scenario heatmap".into());
    }
    failures
}
