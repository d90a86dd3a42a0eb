/**
 * The page's only stylesheet, inline (no network). Colours are variables so `prefers-color-scheme`
 * swaps them in one place; print keeps the marks' colours (they carry the meaning) and drops the
 * scroll boxes. Failures are also taller marks, so the strip reads without colour.
 */
export const HTML_STYLE = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --band: #f6f8fa;
  --fail: #cf222e; --pass: #818b98; --slow: #0969da; --proof: #1a7f37; --dot: #1f2328; --focus: #0969da; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --band: #151b23;
    --fail: #ff7b72; --pass: #6e7681; --slow: #58a6ff; --proof: #3fb950; --dot: #e6edf3; --focus: #58a6ff; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 72rem; padding: 1rem; background: var(--bg); color: var(--fg);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .5rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; }
h3 { font-size: 1rem; margin: 1.5rem 0 .5rem; overflow-wrap: anywhere; }
code { font: .9em ui-monospace, SFMono-Regular, Menlo, monospace; overflow-wrap: anywhere; }
a { color: var(--focus); }
:focus-visible { outline: 2px solid var(--focus); outline-offset: 2px; }
.muted, figcaption, .note { color: var(--muted); }
.note { font-size: .9rem; }
.counts { display: flex; flex-wrap: wrap; gap: .5rem; padding: 0; margin: .5rem 0; list-style: none; }
.counts li { border: 1px solid var(--line); border-radius: 6px; padding: .25rem .6rem; background: var(--band); }
.counts b { font-size: 1.1rem; }
.warn { border-left: 4px solid var(--fail); padding: .25rem .75rem; background: var(--band); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
caption { text-align: left; color: var(--muted); padding: .25rem 0; }
th, td { border-bottom: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: middle; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th.plotcol, td.plotcol { width: 40%; min-width: 9rem; }
article { border: 1px solid var(--line); border-radius: 8px; padding: .25rem 1rem 1rem; margin: 1rem 0; }
figure { margin: .75rem 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: .5rem 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
svg.plot { display: block; width: 100%; height: auto; overflow: visible; }
svg.plot text { fill: var(--muted); font-size: 11px; font-family: system-ui, sans-serif; }
svg.plot text.label { fill: var(--fg); }
svg.strip, svg.durations, svg.compare { max-width: 40rem; }
.gridline { stroke: var(--line); stroke-width: 1; }
.whisker { stroke: var(--dot); stroke-width: 2; stroke-linecap: round; }
.dot { fill: var(--dot); }
.whisker.mode-slow { stroke: var(--slow); } .dot.mode-slow { fill: var(--slow); }
.mark.fail, .pt.fail { fill: var(--fail); }
.mark.pass, .pt.pass { fill: var(--pass); }
.mark.mode-slow { fill: var(--slow); }
.mark.mode-proof { fill: var(--proof); }
.mean { stroke: var(--fg); stroke-width: 2; }
.key { display: inline-block; width: .7em; height: .7em; vertical-align: baseline; margin: 0 .2em 0 .6em; }
.key.fail { background: var(--fail); } .key.pass { background: var(--pass); }
.key.slow { background: var(--slow); } .key.proof { background: var(--proof); }
@media (max-width: 40rem) {
  body { padding: .5rem; font-size: 14px; }
  th, td { padding: .25rem .3rem; }
  /* Narrow screens: each rate row becomes a card (name, numbers, then its plot full width). */
  table.rates, table.rates caption, table.rates thead, table.rates tbody { display: block; }
  table.rates tr { display: grid; grid-template-columns: auto auto 1fr auto; border-bottom: 1px solid var(--line); }
  table.rates th, table.rates td { border: 0; }
  table.rates th[scope="row"], table.rates thead th:first-child, table.rates .plotcol { grid-column: 1 / -1; width: auto; }
  /* Other tables keep their columns and scroll sideways in their box. */
  .scroll table:not(.rates) { min-width: 34rem; }
}
@media print {
  body { max-width: none; padding: 0; }
  * { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
  .scroll { overflow: visible; }
  article, figure, tr { break-inside: avoid; }
}
`
