import { esc, n, pageHead, pct } from './_html.js'
import { headline } from './bisect-report.js'
import type { BisectFile } from './bisect-schema.js'
import { HTML_STYLE } from './html-style.js'

/**
 * bisect.html: the bisection drawn, in report.html's style (html-style.ts): one self-contained page,
 * inline CSS and SVG, no script, no request. The plot is the posterior over the commits of the
 * range (a bar per commit, the culprit's in the failure colour) above what was observed at each
 * (a mark per visited commit, its height the share that failed). Pure.
 */
export function renderBisectHtml(file: BisectFile): string {
  const title = `flakeproof bisect: ${file.subject.command}`
  return [
    ...pageHead(title, `${HTML_STYLE}${BISECT_STYLE}`),
    '<header>',
    '<h1>Which commit changed the failure rate</h1>',
    `<p class="muted"><code>${esc(file.subject.kind === 'cmd' ? file.subject.command : `flakeproof ${file.subject.kind} ${file.subject.command}`)}</code> · ${esc(short(file.good.sha))} (good) → ${esc(short(file.bad.sha))} (bad) · started ${esc(file.started_at)}</p>`,
    '</header>',
    '<main>',
    '<section aria-labelledby="h-answer">',
    '<h2 id="h-answer">Answer</h2>',
    `<p data-status="${file.status}" class="${file.status === 'found' ? '' : 'warn'}">${esc(headline(file).replaceAll('`', ''))}</p>`,
    rateTable(file),
    `<p class="note">${file.executions} executions in ${file.process_starts} process starts (budget ${file.max_executions}).</p>`,
    '</section>',
    '<section aria-labelledby="h-posterior">',
    '<h2 id="h-posterior">Posterior over the commits</h2>',
    '<p class="note">Bars: the probability that each commit is the first with the new rate (the culprit\'s in red). Marks below: the commits visited, their height the share of executions that failed there.</p>',
    `<figure>${posteriorPlot(file)}</figure>`,
    '</section>',
    '<section aria-labelledby="h-visits">',
    '<h2 id="h-visits">Visits</h2>',
    visitTable(file),
    '</section>',
    '<section aria-labelledby="h-assumed">',
    '<h2 id="h-assumed">What was assumed</h2>',
    `<ul>${[...file.assumptions, file.model].map((a) => `<li>${esc(a)}</li>`).join('')}</ul>`,
    '</section>',
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n')
}

// --- internal ---

const WIDTH = 400
const BARS_HEIGHT = 120
const MARKS_HEIGHT = 30
/** Beyond this many commits, neighbours share a bar (their probabilities summed), so the page stays small. */
const MAX_BARS = 800

const BISECT_STYLE = `
.bar { fill: var(--pass); } .bar.culprit { fill: var(--fail); }
svg.posterior { max-width: 60rem; }
`

function posteriorPlot(file: BisectFile): string {
  const commits = file.commits.slice(1)
  const size = Math.max(1, Math.ceil(commits.length / MAX_BARS))
  const bins: { first: (typeof commits)[number]; last: (typeof commits)[number]; probability: number; trials: number; failures: number; culprit: boolean }[] = []
  for (let i = 0; i < commits.length; i += size) {
    const group = commits.slice(i, i + size)
    bins.push({
      first: group[0] as (typeof commits)[number],
      last: group.at(-1) as (typeof commits)[number],
      probability: group.reduce((s, c) => s + c.probability, 0),
      trials: group.reduce((s, c) => s + c.trials, 0),
      failures: group.reduce((s, c) => s + c.failures, 0),
      culprit: group.some((c) => c.sha === file.culprit.sha),
    })
  }
  const pitch = WIDTH / Math.max(1, bins.length)
  const top = Math.max(...bins.map((b) => b.probability), 1e-9)
  const name = (b: (typeof bins)[number]): string => (size === 1 ? `${short(b.first.sha)} (${b.first.position})` : `${short(b.first.sha)}…${short(b.last.sha)} (${b.first.position}–${b.last.position})`)
  const bars = bins.map((b, i) => {
    const h = (b.probability / top) * (BARS_HEIGHT - 4)
    return `<rect class="bar${b.culprit ? ' culprit' : ''}" x="${n(i * pitch)}" y="${n(BARS_HEIGHT - h)}" width="${n(Math.max(0.5, pitch * 0.85))}" height="${n(h)}"><title>${esc(name(b))}: ${pct(b.probability)}</title></rect>`
  })
  const marks = bins
    .filter((b) => b.trials > 0)
    .map((b) => {
      const i = bins.indexOf(b)
      const share = b.failures / b.trials
      const h = 3 + share * (MARKS_HEIGHT - 8)
      return `<rect class="mark ${b.failures > 0 ? 'fail' : 'pass'}" x="${n(i * pitch)}" y="${n(BARS_HEIGHT + MARKS_HEIGHT - h)}" width="${n(Math.max(1, pitch * 0.85))}" height="${n(h)}"><title>${esc(name(b))}: ${b.failures} of ${b.trials} failed</title></rect>`
    })
  const label = `posterior over ${commits.length} commits: ${short(file.culprit.sha)} at ${pct(file.culprit.probability)}`
  return [
    `<svg class="plot posterior" viewBox="0 0 ${WIDTH} ${BARS_HEIGHT + MARKS_HEIGHT + 14}" role="img" aria-label="${esc(label)}" tabindex="0"><title>${esc(label)}</title>`,
    `<line class="gridline" x1="0" x2="${WIDTH}" y1="${BARS_HEIGHT}" y2="${BARS_HEIGHT}"/>`,
    bars.join(''),
    marks.join(''),
    `<text x="0" y="${BARS_HEIGHT + MARKS_HEIGHT + 12}" text-anchor="start">${esc(short(commits[0]?.sha ?? ''))} (oldest after good)</text>`,
    `<text x="${WIDTH}" y="${BARS_HEIGHT + MARKS_HEIGHT + 12}" text-anchor="end">${esc(short(file.bad.sha))} (bad)</text>`,
    '</svg>',
  ].join('')
}

function rateTable(file: BisectFile): string {
  const row = (label: string, s: BisectFile['rates']['before']): string =>
    `<tr><th scope="row">${esc(label)}</th><td class="num">${s.commits}</td><td class="num">${s.failures}/${s.trials}</td><td class="num">${pct(s.rate)}</td><td class="num">[${pct(s.ci_low)}, ${pct(s.ci_high)}]</td></tr>`
  return [
    '<div class="scroll"><table>',
    `<thead><tr><th scope="col">side</th><th scope="col" class="num">commits</th><th scope="col" class="num">failed</th><th scope="col" class="num">rate</th><th scope="col" class="num">${+(file.confidence * 100).toFixed(4)}% interval</th></tr></thead>`,
    `<tbody>${row(`before ${short(file.culprit.sha)}`, file.rates.before)}${row(`from ${short(file.culprit.sha)} on`, file.rates.after)}</tbody>`,
    '</table></div>',
  ].join('\n')
}

function visitTable(file: BisectFile): string {
  const rows = file.visits.map(
    (v) =>
      `<tr><td class="num">${v.visit}</td><td><code>${esc(short(v.sha))}</code> (${v.position})</td><td class="num">${v.failures}/${v.executions}</td><td class="num">${v.process_starts}</td><td>${v.error ? `not observed: ${esc(v.error)}` : v.top.map((t) => `<code>${esc(short(t.sha))}</code> ${pct(t.probability)}`).join(', ')}</td></tr>`,
  )
  return [
    '<div class="scroll"><table>',
    '<thead><tr><th scope="col" class="num">#</th><th scope="col">commit</th><th scope="col" class="num">failed</th><th scope="col" class="num">starts</th><th scope="col">top three after it</th></tr></thead>',
    `<tbody>${rows.join('\n')}</tbody>`,
    '</table></div>',
  ].join('\n')
}

function short(sha: string): string {
  return sha.slice(0, 12)
}
