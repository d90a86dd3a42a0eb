/**
 * The page's only stylesheet, inline (no network). Colours are variables so `prefers-color-scheme`
 * swaps them in one place; print keeps the marks' colours (they carry the meaning) and drops the
 * scroll boxes and the toolbar. Failures are also taller marks, so the strip reads without colour;
 * verdicts are words as well as colours.
 */
export const HTML_STYLE = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --band: #f6f8fa;
  --fail: #cf222e; --pass: #818b98; --slow: #0969da; --proof: #1a7f37; --dot: #1f2328; --focus: #0969da;
  --flaky: #9a6700; --odd: #8250df; --code: #eff2f5; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --band: #151b23;
    --fail: #ff7b72; --pass: #6e7681; --slow: #58a6ff; --proof: #3fb950; --dot: #e6edf3; --focus: #58a6ff;
    --flaky: #d29922; --odd: #bc8cff; --code: #1f2630; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 72rem; padding: 1rem; background: var(--bg); color: var(--fg);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .5rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; }
h3 { font-size: 1rem; margin: 1.5rem 0 .5rem; overflow-wrap: anywhere; }
h4 { font-size: .95rem; margin: 1rem 0 .25rem; }
h2 .count { color: var(--muted); font-weight: normal; font-size: .9em; }
code, pre { font: .9em ui-monospace, SFMono-Regular, Menlo, monospace; }
code { overflow-wrap: anywhere; }
code.cmd { display: block; margin: .25rem 0; padding: .3rem .5rem; background: var(--code); border-radius: 4px; white-space: pre-wrap; }
pre { margin: .25rem 0; padding: .5rem; background: var(--code); border-radius: 4px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 24rem; overflow-y: auto; }
pre.error { border-left: 3px solid var(--fail); }
a { color: var(--focus); }
:focus-visible { outline: 2px solid var(--focus); outline-offset: 2px; }
.muted, figcaption, .note { color: var(--muted); }
.note { font-size: .9rem; }
.counts { display: flex; flex-wrap: wrap; gap: .5rem; padding: 0; margin: .5rem 0; list-style: none; }
.counts li { border: 1px solid var(--line); border-radius: 6px; padding: .25rem .6rem; background: var(--band); }
.counts b { font-size: 1.1rem; }
.warn { border-left: 4px solid var(--fail); padding: .25rem .75rem; background: var(--band); }
.verdict-badge { display: inline-block; padding: 0 .4em; border-radius: 1em; border: 1px solid currentColor; font-size: .85em; white-space: nowrap; }
.verdict-badge[data-verdict="broken"] { color: var(--fail); }
.verdict-badge[data-verdict="flaky"] { color: var(--flaky); }
.verdict-badge[data-verdict="non-idempotent"], .verdict-badge[data-verdict="undetermined"] { color: var(--odd); }
.verdict-badge[data-verdict="stable"] { color: var(--proof); }
.verdict-badge[data-verdict="partial"] { color: var(--muted); }
.tag { font-size: .8em; color: var(--odd); border: 1px dashed currentColor; border-radius: 4px; padding: 0 .3em; }
.toolbar { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; margin: 1rem 0; padding: .5rem .75rem; border: 1px solid var(--line); border-radius: 8px; background: var(--band); }
.toolbar[hidden] { display: none; }
.toolbar input, .toolbar select { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: .15rem .35rem; max-width: 100%; }
.toolbar output { color: var(--muted); font-size: .9rem; }
.where { margin: .25rem 0; font-size: .9rem; }
a.src code { color: inherit; }
details.rep { border: 1px solid var(--line); border-radius: 6px; margin: .3rem 0; background: var(--bg); }
details.rep > summary { cursor: pointer; padding: .3rem .5rem; list-style-position: inside; overflow-wrap: anywhere; }
details.rep > summary .first { color: var(--fail); }
details.rep[open] > summary { border-bottom: 1px solid var(--line); background: var(--band); }
details.rep > dl { padding: 0 .5rem; }
details.rep:has(:target), details.rep:focus-within { outline: 2px solid var(--focus); outline-offset: 1px; }
details.stable > summary { cursor: pointer; }
ul.stable-list { columns: 2 24rem; padding-left: 1.2rem; }
ul.stable-list li { break-inside: avoid; overflow-wrap: anywhere; }
ul.notes { font-size: .9rem; color: var(--muted); padding-left: 1.2rem; }
ul.notes li { overflow-wrap: anywhere; }
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
.hit { fill: transparent; }
a.marklink { cursor: pointer; }
a.marklink:hover .mark, a.marklink:focus .mark { fill: var(--fg); }
a.marklink:focus { outline: none; }
a.marklink:focus .hit { fill: var(--focus); fill-opacity: .35; }
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
  /* Other tables keep their columns and scroll sideways inside their own box, never the page; a
     name column keeps a readable width instead of one character per line. */
  .scroll table:not(.rates) { min-width: 30rem; }
  .scroll table:not(.rates) th[scope="row"] { min-width: 12rem; }
  /* A caption is as wide as its table; its words stay on the screen and wrap there, scrolled or not. */
  .scroll caption .cap { position: sticky; left: 0; display: inline-block; max-width: calc(100vw - 2.5rem); }
  dl.facts { grid-template-columns: 1fr; }
  dl.facts dd { margin-bottom: .3rem; }
}
@media print {
  body { max-width: none; padding: 0; }
  .toolbar { display: none; }
  pre { max-height: none; }
  * { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
  .scroll { overflow: visible; }
  article, figure, tr { break-inside: avoid; }
}
`
