//! The handout's style sheet: the screen's, and print's rules that keep
//! blocks whole and a sentence with what it introduces.

/// Every edition's CSS, for screen and print.
pub(super) const STYLE: &str = "
body { font-family: 'DejaVu Sans', sans-serif; max-width: 60em; margin: 2em auto; line-height: 1.4; color: #222; }
h1 { font-size: 1.8em; } h2 { border-bottom: 2px solid #1f4e9c; padding-bottom: .2em; }
code, pre { font-family: 'DejaVu Sans Mono', monospace; font-size: 0.85em; }
pre code, td code, th code { font-size: 1em; } code.cmd span { white-space: nowrap; } /* already in a smaller box: 0.85 twice printed at 7.2 pt */
pre { background: #f4f4f4; padding: .6em; white-space: pre-wrap; overflow-wrap: break-word; text-indent: 1.5em each-line hanging; } /* a line too long for the page goes on indented */
.gap { font-style: italic; color: #555; }
table { border-collapse: collapse; font-size: 0.85em; margin: 1em 0; }
td, th { border: 1px solid #bbb; padding: .2em .4em; vertical-align: top; }
figure { margin: 1em 0; overflow-x: auto; } figure svg { max-width: 100%; height: auto; }
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: .8em; }
.exercise { border-left: 3px solid #1f4e9c; padding-left: .8em; margin: 1em 0; }
.rule { height: 0.32in; border-bottom: 1px solid #777; } /* writing room: five lines (1.6 in.) a box, rules that print */
.observed { margin-bottom: 1em; }
details.answer > summary { cursor: pointer; color: #1f4e9c; }
table.anatomy { font-size: 0.8em; break-inside: auto; } table.anatomy td:nth-child(5) { font-family: 'DejaVu Sans Mono', monospace; }
.anatomy.print { display: none; }
@media print { .anatomy.print { display: block; } .anatomy.screen { display: none; } }
aside.manual { border: 1px solid #c9a400; background: #fffbe6; padding: 0 1em; margin: 1.5em 0; }
section.primer, section.appendix { break-before: page; }
.facts .holds b { color: #2a602a; } .facts .fails b, .missing { color: #a00; }
nav li { margin: .1em 0; }
@media print {
  body { max-width: none; margin: 0; font-size: 10pt; }
  section.chapter { break-before: page; }
  h2, h3, h4 { break-after: avoid; }
  figure, .keep, .prediction, .room, .observed, nav { break-inside: avoid; }
  .exercise > h4, .exercise > p { break-after: avoid; break-inside: avoid; } /* an exercise may break only before its check, never between a question and its room */
  p.check { break-after: avoid; }
  ol:has(+ .room), p:has(+ .room) { break-after: avoid; }
  p:has(+ .sides), p:has(+ pre), p:has(+ table), p:has(+ figure) { break-after: avoid; } /* a sentence stays with what it introduces */
  p > code.short, li > code.short { white-space: nowrap; } /* an option never breaks after its dash */
  .anatomy.print > p, p.facts-intro { break-after: avoid; }
  details { break-before: avoid; }
  .wire > h4, .wire > p { break-after: avoid; }
  pre { break-inside: avoid; orphans: 3; widows: 3; } /* one longer than a page still breaks, between lines */
  table:not(.anatomy), .sides, aside { break-inside: avoid; } /* the arrows' table may go on, its header repeated */
  tr, tbody.lead { break-inside: avoid; } thead { display: table-header-group; }
  a { color: inherit; text-decoration: none; } /* an underline hides a file name's underscores */
}
";
