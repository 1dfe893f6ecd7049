//! The N x N grid every heatmap of a mesh's page is drawn on: a cell a
//! scheduled pair, linked to the pair's row of its rail's scenario
//! heatmap.

use crate::model::mesh::{MeshRun, PairCell};
use crate::present::xml::shown;
use maud::{html, Markup};

/// The anchor of a pair's row in its rail's scenario heatmap.
pub(super) fn anchor(c: &PairCell) -> String {
    match c.rail {
        0 => format!("pair-{}-{}", c.pair.server, c.pair.client),
        k => format!("pair-{}-{}-rail{k}", c.pair.server, c.pair.client),
    }
}

/// A heatmap cell: its CSS class, its tooltip and its text.
pub(super) type GridCell = (&'static str, String, String);

/// A heatmap of the pairs titled `title`: each scheduled pair's cell is
/// `cell`'s class, tooltip and text, linked to the pair's row of the
/// scenario heatmap (blank when `cell` has nothing to show).
pub(super) fn html_grid(
    run: &MeshRun,
    title: &str,
    cell: &dyn Fn(&PairCell) -> Option<GridCell>,
) -> Markup {
    let n = run.hosts.len();
    let grid = super::grid(run);
    html! {
        h2 { (title) }
        table.matrix {
            tr {
                th {}
                @for r in 0..n { th title=(shown(&run.name(r))) { (r) } }
            }
            @for a in 0..n {
                tr {
                    th { (a) " " (shown(&run.name(a))) }
                    @for b in 0..n {
                        @match grid[a * n + b].map(|c| (c, cell(c))) {
                            _ if a == b => td.self {},
                            Some((c, Some((class, tip, text)))) => td class=(class) {
                                a href={ "#" (anchor(c)) } title=(shown(&tip)) { (shown(&text)) }
                            },
                            _ => td.none {},
                        }
                    }
                }
            }
        }
    }
}
