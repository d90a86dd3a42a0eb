import { hintContextOf } from '../core/hints.js'
import { esc, escWithCode, ms, pct } from './_html.js'
import { binStrip, DURATION_POINTS, type ExecutionSummaries, type ExecutionSummary, STRIP_MARKS, type StripSegment } from './html-executions.js'
import { comparisonPlot, durationPlot, intervalPlot, rateAxis, rateAxisMax, repetitionStrip } from './html-plots.js'
import { HTML_STYLE } from './html-style.js'
import { concerningSubjects, DETAILED_SUBJECTS, detailedSubjects, type HtmlBundle, type Subject, TABLE_ROWS } from './html-subjects.js'
import { freshAdviceFor, INDEPENDENCE_TEXT } from './independence-text.js'

/**
 * report.html: the same bundle as flaky_report.md, drawn. One self-contained page: inline CSS and
 * SVG, no script, no request. Pure: the same bundle and summaries always give the same text. Sizes
 * stay bounded whatever the run (html-subjects.ts and html-executions.ts hold the limits), and the
 * page says where it summarised.
 */
export function renderHtmlReport(bundle: HtmlBundle, executions: ExecutionSummaries): string {
  const testMode = bundle.rate.tests !== undefined
  const title = `flakeproof report: ${bundle.rate.command}`
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // No request may leave the page, even one a future edit adds by mistake.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    `<title>${esc(title)}</title>`,
    `<style>${HTML_STYLE}</style>`,
    '</head>',
    '<body>',
    '<header>',
    `<h1>${testMode ? 'Flaky tests' : 'Flaky command'}</h1>`,
    `<p class="muted"><code>${esc(bundle.rate.command)}</code> · started ${esc(bundle.rate.started_at)} · ${ms(bundle.rate.duration_ms)}</p>`,
    '</header>',
    '<main>',
    renderHeadline(bundle),
    renderRateTable(bundle),
    renderDetails(bundle, executions),
    renderObserver(bundle),
    renderFixed(bundle),
    renderAbout(bundle, executions),
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n')
}

// --- internal ---

const VERDICTS = ['flaky', 'broken', 'non-idempotent', 'partial', 'stable'] as const
const MODE_NAMES: Record<StripSegment['mode'], string> = { fast: 'fast (no gap)', single: 'single run', slow: 'gapped', paired: 'fast, between gapped ones', proof: 'proof' }

/** Ids in the page are derived from position, never from user text. */
const anchor = (index: number): string => `s${index + 1}`

function renderHeadline(bundle: HtmlBundle): string {
  const { rate } = bundle
  const subjects = rate.tests ?? [{ verdict: rate.verdict }]
  const counts = VERDICTS.map((v) => `<li data-verdict="${v}"><b>${subjects.filter((s) => s.verdict === v).length}</b> ${v}</li>`)
  const unit = rate.tests === undefined ? 'trials' : 'rounds'
  const roundNote = rate.tests === undefined ? '' : ' (a round fails if any test failed its repetition)'
  const errors = rate.run_errors ?? []
  return [
    '<section aria-labelledby="h-headline">',
    '<h2 id="h-headline">Headline</h2>',
    `<ul class="counts" aria-label="verdicts">${counts.join('')}</ul>`,
    `<p data-headline="rate">Failed <b data-value="failures">${rate.failures}</b> of <b data-value="trials">${rate.trials}</b> ${unit}${roundNote}: rate ${pct(rate.rate)}, ${+(rate.confidence * 100).toFixed(4)}% interval [${pct(rate.ci_low)}, ${pct(rate.ci_high)}].</p>`,
    rate.complete
      ? `<p data-headline="complete">Complete: every ${rate.tests === undefined ? 'requested trial' : 'selected test ran every repetition'}${rate.tests === undefined ? ` ran (${rate.requested_trials})` : ''}.</p>`
      : `<p class="warn" data-headline="complete"><b>Incomplete</b>: ${rate.tests === undefined ? `${rate.trials} of ${rate.requested_trials} requested trials ran` : 'not every selected test ran all its repetitions, or Vitest reported errors outside any test'}; partial evidence is never called stable or broken.</p>`,
    errors.length === 0
      ? ''
      : `<div class="warn"><p><b>${errors.length} error(s) outside any test</b>:</p><ul>${errors
          .slice(0, 20)
          .map((e) => `<li><code>${esc(`${e.project ? `[${e.project}] ` : ''}${e.file ?? 'no file'}`)}</code>: ${esc(firstLine(e.error))}</li>`)
          .join('')}</ul>${errors.length > 20 ? `<p>${errors.length - 20} more in rate.json.</p>` : ''}</div>`,
    '</section>',
  ].join('\n')
}

function renderRateTable(bundle: HtmlBundle): string {
  const subjects = concerningSubjects(bundle)
  const shown = subjects.slice(0, TABLE_ROWS)
  const detailed = new Map(detailedSubjects(bundle).map((s, i) => [s.id, i]))
  const max = rateAxisMax(shown.map((s) => s.ci_high))
  const stable = (bundle.rate.tests?.length ?? 1) - subjects.length
  const head = [
    '<section aria-labelledby="h-rates">',
    '<h2 id="h-rates">Which fail, and how sure that is</h2>',
    '<p class="note">Dot: the measured rate. Whisker: its Wilson interval, where the true rate lies at the stated confidence. One axis for every row; sorted by the lower end, so the surest failures come first.</p>',
  ]
  if (shown.length === 0) return [...head, `<p data-empty="rates">Nothing failed${stable > 0 ? ` (${stable} stable)` : ''}.</p>`, '</section>'].join('\n')
  const rows = shown.map((s) => {
    const index = detailed.get(s.id)
    const name = index === undefined ? `<code>${esc(s.id)}</code>` : `<a href="#${anchor(index)}"><code>${esc(s.id)}</code></a>`
    return (
      `<tr data-id="${esc(s.id)}" data-trials="${s.trials}" data-failures="${s.failures}" data-rate="${s.rate}" data-ci-low="${s.ci_low}" data-ci-high="${s.ci_high}">` +
      `<th scope="row">${name}</th><td class="num failures">${s.failures}/${s.trials}</td><td class="num rate">${pct(s.rate)}</td>` +
      `<td class="num interval">[${pct(s.ci_low)}, ${pct(s.ci_high)}]</td><td class="verdict">${s.verdict}</td>` +
      `<td class="plotcol">${intervalPlot(s, max, s.id)}</td></tr>`
    )
  })
  const more = subjects.length - shown.length
  return [
    ...head,
    '<div class="scroll"><table class="rates">',
    `<caption>${subjects.length} ${subjects.length === 1 ? 'subject' : 'subjects'} not stable${stable > 0 ? `; ${stable} stable not listed` : ''}${more > 0 ? `; the first ${TABLE_ROWS} shown, ${more} more in rate.json` : ''}.</caption>`,
    `<thead><tr><th scope="col">${bundle.rate.tests === undefined ? 'Command' : 'Test'}</th><th scope="col" class="num">failed</th><th scope="col" class="num">rate</th><th scope="col" class="num">${+(bundle.rate.confidence * 100).toFixed(4)}% interval</th><th scope="col">verdict</th><th scope="col" class="plotcol">${rateAxis(max)}</th></tr></thead>`,
    `<tbody>${rows.join('\n')}</tbody>`,
    '</table></div>',
    '</section>',
  ].join('\n')
}

function renderDetails(bundle: HtmlBundle, executions: ExecutionSummaries): string {
  const subjects = detailedSubjects(bundle)
  const testMode = bundle.rate.tests !== undefined
  const candidates = testMode ? concerningSubjects(bundle).filter((s) => s.verdict === 'flaky' || s.verdict === 'non-idempotent').length : 1
  const articles = subjects.map((s, i) => renderSubject(bundle, s, i, executions.subjects.get(s.id)))
  return [
    '<section aria-labelledby="h-details">',
    `<h2 id="h-details">${testMode ? 'Each flaky test' : 'Every trial'}</h2>`,
    '<p class="note">Strip: one mark per execution, left to right in rows of 100; a tall red mark failed, a short one passed' +
      '<span class="key pass"></span>fast<span class="key slow"></span>gapped<span class="key proof"></span>proof<span class="key fail"></span>failed. ' +
      'Bursts, a regular period or failures only at the start show as shapes. Durations: each dot one execution, the bar its row\'s mean.</p>',
    articles.length === 0 ? '<p data-empty="details">No flaky or non-idempotent test.</p>' : articles.join('\n'),
    candidates > subjects.length ? `<p class="note">${candidates - subjects.length} more flaky test(s) not drawn: the page details the first ${DETAILED_SUBJECTS}.</p>` : '',
    '</section>',
  ].join('\n')
}

function renderSubject(bundle: HtmlBundle, s: Subject, index: number, summary: ExecutionSummary | undefined): string {
  const testMode = bundle.rate.tests !== undefined
  const facts = testMode ? bundle.onlyWhenFail?.tests?.[s.id] : bundle.onlyWhenFail
  const observed = bundle.observer?.tests?.[s.id]
  const segments = [...(summary?.segments ?? []), ...proofSegment(bundle, s.id)]
  const strips = segments.map((segment) => {
    const binned = segment.binSize > 1 ? `; ${segment.binSize} executions per mark (more than ${STRIP_MARKS}), red if any of them failed` : ''
    return (
      `<figure>${repetitionStrip(segment, `${s.id}, ${MODE_NAMES[segment.mode]}`)}` +
      `<figcaption>${MODE_NAMES[segment.mode]}: <span data-strip="${segment.mode}">${segment.failures} of ${segment.executions}</span> failed${binned}.</figcaption></figure>`
    )
  })
  const firstError = (testMode ? bundle.onlyWhenFail?.tests?.[s.id]?.errors_on_failure[0] : undefined) ?? summary?.firstError ?? null
  const predicates = facts?.predicates.slice(0, 3) ?? []
  const unit = testMode ? 'repetition' : 'trial'
  const independence = s.independence
  const note =
    independence && s.verdict === 'non-idempotent'
      ? `<p class="warn">${esc(INDEPENDENCE_TEXT.en.cause(independence, unit))} ${escWithCode((code) => freshRunAdvice(bundle, s, code))}</p>`
      : independence
        ? (() => {
            const clue = INDEPENDENCE_TEXT.en.clue(independence, unit)
            return clue === null ? '' : `<p class="note">${esc(clue)}</p>`
          })()
        : ''
  return [
    `<article id="${anchor(index)}" data-id="${esc(s.id)}" aria-labelledby="${anchor(index)}-h">`,
    `<h3 id="${anchor(index)}-h"><code>${esc(s.id)}</code> · ${s.verdict}</h3>`,
    note,
    strips.length === 0 ? '<p class="note">No facts.jsonl for this run: no per-execution strip.</p>' : strips.join(''),
    '<dl class="facts">',
    `<dt>token</dt><dd>${facts ? (facts.token === null ? 'none (no word is in every failure and in no success)' : `<code>${esc(facts.token)}</code>`) : 'not analysed'}</dd>`,
    `<dt>first error</dt><dd>${firstError === null ? '–' : `<code>${esc(firstLine(firstError))}</code>`}</dd>`,
    '</dl>',
    predicates.length === 0
      ? ''
      : `<div class="scroll"><table class="predicates"><caption>Strongest predicates (Liblit et al. 2005)</caption><thead><tr><th scope="col">predicate</th><th scope="col" class="num">true in failures</th><th scope="col" class="num">true in successes</th><th scope="col" class="num">Increase</th><th scope="col" class="num">Importance</th></tr></thead><tbody>${predicates
          .map((p) => `<tr><th scope="row"><code>${esc(p.predicate)}</code></th><td class="num">${p.true_in_failures}</td><td class="num">${p.true_in_successes}</td><td class="num">${p.increase.toFixed(3)}</td><td class="num">${p.importance.toFixed(3)}</td></tr>`)
          .join('')}</tbody></table></div>`,
    // Command mode draws its one comparison in the observer section below.
    observed && testMode
      ? `<figure>${comparisonPlot(observed.fast, observed.slow, s.id)}<figcaption>Fast ${observed.fast.failures}/${observed.fast.trials} vs gapped ${observed.slow.failures}/${observed.slow.trials}: Fisher's exact p = <span data-value="p_value">${observed.p_value.toPrecision(3)}</span>, ${observed.changed ? '<b>changed</b>' : 'not changed'}.</figcaption></figure>`
      : '',
    summary && summary.durations.passed.count + summary.durations.failed.count > 0
      ? `<figure>${durationPlot(summary.durations, s.id)}<figcaption>Durations: passed (${summary.durations.passed.count}) mean ${ms(summary.durations.passed.meanMs)} (${ms(summary.durations.passed.minMs)} – ${ms(summary.durations.passed.maxMs)}), failed (${summary.durations.failed.count}) mean ${ms(summary.durations.failed.meanMs)} (${ms(summary.durations.failed.minMs)} – ${ms(summary.durations.failed.maxMs)})${thinned(summary)}.</figcaption></figure>`
      : '',
    '</article>',
  ].join('\n')
}

/** The proof's executions, from proof.json (its trials and which failed). */
function proofSegment(bundle: HtmlBundle, id: string): StripSegment[] {
  const { proof } = bundle
  if (!proof) return []
  const run = bundle.rate.tests === undefined ? proof : proof.tests?.[id]
  if (!run || ('status' in run && run.status !== 'ran') || run.trials === 0) return []
  const trials = new Int32Array(run.trials).map((_, i) => i + 1)
  const failed = new Uint8Array(run.trials)
  for (const t of run.failure_trials) if (t >= 1 && t <= run.trials) failed[t - 1] = 1
  return [binStrip('proof', trials, failed, run.trials)]
}

function thinned(summary: ExecutionSummary): string {
  const strides = [summary.durations.passed.stride, summary.durations.failed.stride].filter((k) => k > 1)
  return strides.length === 0 ? '' : `; above ${DURATION_POINTS} executions per row only every ${Math.max(...strides)}th (or fewer) is drawn, the mean and range are of all`
}

function renderObserver(bundle: HtmlBundle): string {
  const { observer, rate } = bundle
  const head = ['<section aria-labelledby="h-observer">', '<h2 id="h-observer">Did slowing down change it?</h2>']
  if (!observer) {
    const why = rate.verdict === 'non-idempotent' ? 'the trials are not independent, so a gapped run would measure the state they leave, not their timing' : 'no observer.json in this folder'
    return [...head, `<p data-empty="observer">Not observed: ${why}.</p>`, '</section>'].join('\n')
  }
  const alpha = Number((1 - observer.confidence).toPrecision(6))
  if (rate.tests === undefined) {
    return [
      ...head,
      `<figure>${comparisonPlot(observer.fast, observer.slow, observer.command)}<figcaption>Fast ${observer.fast.failures}/${observer.fast.trials} [${pct(observer.fast.ci_low)}, ${pct(observer.fast.ci_high)}] vs gapped (${observer.slow.gap_ms} ms) ${observer.slow.failures}/${observer.slow.trials} [${pct(observer.slow.ci_low)}, ${pct(observer.slow.ci_high)}].</figcaption></figure>`,
      `<p data-headline="observer">Fisher's exact test, two-sided: p = <span data-value="p_value">${observer.p_value.toPrecision(3)}</span>; ${observer.changed ? `<b>changed</b> (p &lt; ${alpha})` : `not changed (p ≥ ${alpha})`}.</p>`,
      `<p class="note">${esc(observer.note)}</p>`,
      '</section>',
    ].join('\n')
  }
  const entries = Object.entries(observer.tests ?? {})
  const rows = entries.slice(0, TABLE_ROWS).map(
    ([id, o]) =>
      `<tr data-id="${esc(id)}"><th scope="row"><code>${esc(id)}</code></th><td class="num">${o.fast.failures}/${o.fast.trials} [${pct(o.fast.ci_low)}, ${pct(o.fast.ci_high)}]</td><td class="num">${o.slow.failures}/${o.slow.trials} [${pct(o.slow.ci_low)}, ${pct(o.slow.ci_high)}] (${o.slow.gap_ms} ms)</td><td class="num">${o.p_value.toPrecision(3)}</td><td>${o.changed ? 'changed' : 'not changed'}</td></tr>`,
  )
  return [
    ...head,
    entries.length === 0
      ? '<p data-empty="observer">No test was observed.</p>'
      : `<div class="scroll"><table><caption>Fisher's exact test, two-sided; changed when p &lt; ${alpha}${entries.length > TABLE_ROWS ? `; first ${TABLE_ROWS} of ${entries.length}` : ''}. Each flaky test's plot is in its section above.</caption><thead><tr><th scope="col">Test</th><th scope="col" class="num">fast</th><th scope="col" class="num">gapped</th><th scope="col" class="num">p</th><th scope="col">result</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`,
    `<p class="note">${esc(observer.note)}</p>`,
    '</section>',
  ].join('\n')
}

function renderFixed(bundle: HtmlBundle): string {
  const { rate, runsNeeded, policy, proof } = bundle
  const head = ['<section aria-labelledby="h-fixed">', '<h2 id="h-fixed">What it takes to say it is fixed</h2>']
  const proofLine = proof
    ? `<p data-headline="proof">Proof: <code>${esc(proof.command)}</code> ran <b>${proof.trials}</b> of ${proof.required} required times with <b>${proof.failures}</b> failure(s): <b>${proof.passed ? 'PASSED' : 'FAILED'}</b>.${rate.tests === undefined ? ` A rate up to ${pct(proof.ci_high)} is still consistent with it (Wilson upper end).` : ''}</p>`
    : '<p data-empty="proof">No proof run yet.</p>'
  const weaker = proof?.weaker ?? []
  const weakerLine =
    weaker.length === 0
      ? ''
      : `<p data-headline="proof-weaker">The proof ran under less stress than the measurement, so it releases no quarantine${proof?.strict ? ' and, being strict, FAILED' : ''}:</p><ul>${weaker.map((w) => `<li>${esc(w.note)}</li>`).join('')}</ul>`
  if (rate.tests === undefined) {
    const planned = runsNeeded
      ? `<div class="scroll"><table class="plan"><caption>Consecutive passes needed at rate ${pct(runsNeeded.planned_rate)} (${runsNeeded.basis})</caption><thead><tr><th scope="col">confidence</th><th scope="col" class="num">runs</th></tr></thead><tbody>${runsNeeded.table.map((r) => `<tr><th scope="row">${r.confidence}</th><td class="num">${r.runs}</td></tr>`).join('')}</tbody></table></div>${runsNeeded.note ? `<p class="note">${esc(runsNeeded.note)}</p>` : ''}`
      : rate.verdict === 'non-idempotent'
        ? `<p>${esc(INDEPENDENCE_TEXT.en.noNumber('trial'))}</p>`
        : '<p data-empty="plan">Not planned yet (no runs_needed.json).</p>'
    const decided = policy
      ? `<dl class="facts" data-headline="policy"><dt>green runs required</dt><dd>${policy.green_runs_required} (confidence ${policy.confidence})</dd><dt>retry budget</dt><dd>${policy.retry_budget ?? 'none: it fails every time'}</dd><dt>quarantine after</dt><dd>${policy.quarantine_after ?? '–'} consecutive failure(s) with retries</dd></dl>`
      : ''
    return [...head, planned, decided, proofLine + weakerLine, '</section>'].join('\n')
  }
  const subjects = concerningSubjects(bundle).slice(0, TABLE_ROWS)
  const rows = subjects.map((s) => {
    const decided = policy?.tests?.[s.id]
    const proven = proof?.tests?.[s.id]
    const proofCell = !proven ? '–' : proven.status === 'ran' ? `${proven.trials}/${proven.required} runs, ${proven.failures} failed: ${proven.passed ? 'PASSED' : 'FAILED'}` : proven.status
    const runs = decided ? String(decided.green_runs_required) : s.verdict === 'non-idempotent' ? 'no number: not independent' : '–'
    return `<tr data-id="${esc(s.id)}"><th scope="row"><code>${esc(s.id)}</code></th><td class="num">${runs}</td><td class="num">${decided?.retry_budget ?? '–'}</td><td class="num">${decided?.quarantine_after ?? '–'}</td><td>${esc(proofCell)}</td></tr>`
  })
  return [
    ...head,
    rows.length === 0
      ? '<p data-empty="plan">Nothing failed: nothing to plan.</p>'
      : `<div class="scroll"><table class="plan"><caption>Policy per test${policy ? ` at confidence ${policy.confidence}` : ' (no policy.json yet)'}</caption><thead><tr><th scope="col">Test</th><th scope="col" class="num">green runs required</th><th scope="col" class="num">retry budget</th><th scope="col" class="num">quarantine after</th><th scope="col">proof</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`,
    proofLine + weakerLine,
    '</section>',
  ].join('\n')
}

function renderAbout(bundle: HtmlBundle, executions: ExecutionSummaries): string {
  return [
    '<footer aria-labelledby="h-about">',
    '<h2 id="h-about">About this page</h2>',
    `<p class="note">Made by flakeproof from the files beside it (rate.json, facts.jsonl and the others), like flaky_report.md. No script, no request: it reads the same printed or offline. ` +
      `To stay small for any run it lists at most ${TABLE_ROWS} subjects per table, draws at most ${DETAILED_SUBJECTS} in detail, at most ${STRIP_MARKS} marks per strip (more executions share a mark, as said under the strip) and at most ${DURATION_POINTS} duration points per row (every k-th execution, as said under the plot). The JSON files hold every number.</p>`,
    executions.unreadableLines > 0 ? `<p class="warn">${executions.unreadableLines} line(s) of facts.jsonl were not readable facts and were skipped.</p>` : '',
    bundle.rate.tests === undefined ? '' : `<p class="note">${bundle.rate.tests.length} test(s) measured.</p>`,
    '</footer>',
  ].join('\n')
}

/** How to measure a non-idempotent subject afresh: its runner's fresh-run command (test mode), or a fresh environment per trial. */
function freshRunAdvice(bundle: HtmlBundle, s: Subject, code: (command: string) => string): string {
  const test = bundle.rate.tests?.find((t) => t.id === s.id)
  if (!test) return INDEPENDENCE_TEXT.en.freshEnvironment(s.id, code)
  return freshAdviceFor(INDEPENDENCE_TEXT.en, hintContextOf(bundle.rate), test, bundle.conditions?.tests[test.id]?.tags, code)
}

function firstLine(text: string): string {
  return (text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '').slice(0, 300)
}
