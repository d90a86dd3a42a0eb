import { countDistinct } from '../core/distinct.js'
import { hasNoRate } from '../core/verdict.js'
import { esc, firstLine, ms, pageHead, pct } from './_html.js'
import { uncountedTests } from './counts-text.js'
import { DURATION_POINTS, type ExecutionSummaries, FAILURES_IN_FULL, STRIP_MARKS } from './html-executions.js'
import { comparisonPlot, intervalPlot, rateAxis, rateAxisMax } from './html-plots.js'
import { HTML_SCRIPT, HTML_SCRIPT_HASH } from './html-script.js'
import { HTML_STYLE } from './html-style.js'
import { anchor, renderSubject, verdictBadge } from './html-subject.js'
import { allSubjects, concerningSubjects, DETAILED_SUBJECTS, detailedSubjects, type HtmlBundle, sectionsOf, STABLE_LISTED, type Subject, TABLE_ROWS, tagsOf } from './html-subjects.js'
import { HTML_TEXT, type HtmlText } from './html-text.js'
import type { ReportLanguage } from './report-notes.js'
import { VerdictSchema } from './schemas.js'
import { loadFlagOf } from './weakness-text.js'
import { byCodeUnits } from '../core/text-order.js'

/**
 * report.html: the same bundle as flaky_report.md, drawn, in the report's language. One
 * self-contained page: inline CSS and SVG, one inline script allowed by its hash (search, filter,
 * sort, opening a repetition; the page reads whole without it), no request. Pure: the same bundle
 * and summaries always give the same text. Sizes stay bounded whatever the run (html-subjects.ts
 * and html-executions.ts hold the limits), and the page says where it summarised.
 */
export function renderHtmlReport(bundle: HtmlBundle, executions: ExecutionSummaries, lang: ReportLanguage = 'en'): string {
  const t = HTML_TEXT[lang]
  const testMode = bundle.rate.tests !== undefined
  return [
    ...pageHead(t.title(bundle.rate.command), HTML_STYLE, { lang: t.lang, scriptHash: HTML_SCRIPT_HASH }),
    '<header>',
    `<h1>${testMode ? t.h1Tests : t.h1Command}</h1>`,
    `<p class="muted"><code>${esc(bundle.rate.command)}</code> · ${t.started(esc(bundle.rate.started_at), ms(bundle.rate.duration_ms))}</p>`,
    '</header>',
    '<main>',
    renderHeadline(bundle, t),
    testMode ? renderToolbar(bundle, t) : '',
    renderRateTable(bundle, t),
    renderDetails(bundle, executions, t),
    testMode ? renderStable(bundle, t) : '',
    renderObserver(bundle, t),
    renderFixed(bundle, t),
    renderAbout(bundle, executions, t),
    '</main>',
    `<script>${HTML_SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n')
}

// --- internal ---

/** Every verdict the schema allows, the ones this page knows first: a newer verdict is counted too. */
const VERDICTS: readonly string[] = [...new Set(['flaky', 'broken', 'non-idempotent', 'undetermined', 'partial', 'stable', ...VerdictSchema.options])]

/** The verdicts to count and filter by: every one the schema allows, then any other the run holds. */
function verdictsOf(bundle: HtmlBundle): string[] {
  const present: string[] = (bundle.rate.tests ?? [bundle.rate]).map((s) => s.verdict)
  return [...new Set([...VERDICTS, ...present])]
}

function renderHeadline(bundle: HtmlBundle, t: HtmlText): string {
  const { rate } = bundle
  const testMode = rate.tests !== undefined
  const subjects: { verdict: string }[] = rate.tests ?? [{ verdict: rate.verdict }]
  const counts = verdictsOf(bundle).map((v) => `<li data-verdict="${esc(v)}"><b>${subjects.filter((s) => s.verdict === v).length}</b> ${t.verdicts[v] ?? `<code>${esc(v)}</code>`}</li>`)
  // Failures a round count leaves out (they follow the test's own repetitions), said beside the count.
  const uncounted = uncountedTests(rate.tests)
  const errors = rate.run_errors ?? []
  // The same error of each copy of a test (an unhandled rejection per repetition) once, counted.
  const distinctErrors = countDistinct(errors, (e) => `${e.project}\0${e.file}\0${firstLine(e.error)}`)
  const confidence = String(+(rate.confidence * 100).toFixed(4))
  return [
    '<section aria-labelledby="h-headline">',
    `<h2 id="h-headline">${t.headline}</h2>`,
    `<ul class="counts" aria-label="${esc(t.verdictsLabel)}">${counts.join('')}</ul>`,
    `<p data-headline="rate">${t.failedOf(`<b data-value="failures">${rate.failures}</b>`, `<b data-value="trials">${rate.trials}</b>`, testMode, pct(rate.rate), confidence, pct(rate.ci_low), pct(rate.ci_high), uncounted)}</p>`,
    rate.complete
      ? `<p data-headline="complete">${t.complete(testMode, rate.requested_trials)}</p>`
      : `<p class="warn" data-headline="complete">${t.incomplete(testMode, rate.trials, rate.requested_trials)}</p>`,
    errors.length === 0
      ? ''
      : `<div class="warn"><p>${t.runErrors(errors.length)}</p><ul>${distinctErrors
          .slice(0, 20)
          .map(({ item: e, times }) => `<li>${e.file === null ? t.noFile : `<code>${esc(`${e.project ? `[${e.project}] ` : ''}${e.file}`)}</code>`}: <code>${esc(firstLine(e.error))}</code>${times > 1 ? esc(t.times(times)) : ''}</li>`)
          .join('')}</ul>${distinctErrors.length > 20 ? `<p>${t.moreInRate(distinctErrors.length - 20)}</p>` : ''}</div>`,
    '</section>',
  ].join('\n')
}

/** Search, verdict filter and sort: `hidden` until the script shows them, so no dead control is left without it. */
function renderToolbar(bundle: HtmlBundle, t: HtmlText): string {
  const present = new Set<string>((bundle.rate.tests ?? []).map((s) => s.verdict))
  const tagged = (bundle.rate.tests ?? []).some((s) => tagsOf(bundle, s.id).includes('order-dependent'))
  const options = [
    `<option value="">${t.allVerdicts}</option>`,
    ...verdictsOf(bundle).filter((v) => present.has(v)).map((v) => `<option value="${esc(v)}">${t.verdicts[v] ?? esc(v)}</option>`),
    ...(tagged ? [`<option value="order-dependent">${t.tags['order-dependent']}</option>`] : []),
  ]
  const sorts = Object.entries(t.sorts).map(([value, label]) => `<option value="${value}">${label}</option>`)
  return [
    `<form id="find" class="toolbar" role="search" aria-label="${esc(t.toolbar)}" data-shown="${esc(t.shownTemplate)}" hidden>`,
    `<label>${t.search} <input id="q" type="search" placeholder="${esc(t.searchPlaceholder)}" autocomplete="off"></label>`,
    `<label>${t.verdictFilter} <select id="verdict">${options.join('')}</select></label>`,
    `<label>${t.sort} <select id="sort">${sorts.join('')}</select></label>`,
    '<output aria-live="polite"></output>',
    '</form>',
  ].join('\n')
}

function renderRateTable(bundle: HtmlBundle, t: HtmlText): string {
  const subjects = concerningSubjects(bundle)
  const shown = subjects.slice(0, TABLE_ROWS)
  const detailed = new Map(detailedSubjects(bundle).map((s, i) => [s.id, i]))
  const max = rateAxisMax(shown.map((s) => s.ci_high))
  const stable = (bundle.rate.tests?.length ?? 1) - subjects.length
  const confidence = String(+(bundle.rate.confidence * 100).toFixed(4))
  const head = ['<section aria-labelledby="h-rates">', `<h2 id="h-rates">${t.ratesTitle}</h2>`, `<p class="note">${t.ratesNote}</p>`]
  if (shown.length === 0) return [...head, `<p data-empty="rates">${t.nothingFailed(stable)}</p>`, '</section>'].join('\n')
  const rows = shown.map((s) => {
    const index = detailed.get(s.id)
    const name = index === undefined ? `<code>${esc(s.id)}</code>` : `<a href="#${anchor(index)}"><code>${esc(s.id)}</code></a>`
    return (
      `<tr data-item data-count data-id="${esc(s.id)}" data-verdict="${esc(s.verdict)}" data-tags="${esc(tagsOf(bundle, s.id).join(' '))}" data-trials="${s.trials}" data-failures="${s.failures}" data-rate="${s.rate}" data-ci-low="${s.ci_low}" data-ci-high="${s.ci_high}">` +
      `<th scope="row">${name}</th><td class="num failures">${t.count(s.failures, s.trials)}</td><td class="num rate">${pct(s.rate)}</td>` +
      `<td class="num interval">[${pct(s.ci_low)}, ${pct(s.ci_high)}]</td><td class="verdict">${verdictBadge(s.verdict, t)}</td>` +
      `<td class="plotcol">${intervalPlot(s, max, s.id, t.plot)}</td></tr>`
    )
  })
  const testMode = bundle.rate.tests !== undefined
  return [
    ...head,
    '<div class="scroll"><table class="rates">',
    `<caption><span class="cap">${t.ratesCaption(subjects.length, stable, TABLE_ROWS, subjects.length - shown.length)}</span></caption>`,
    `<thead><tr><th scope="col">${testMode ? t.columns.test : t.columns.command}</th><th scope="col" class="num">${t.columns.failed}</th><th scope="col" class="num">${t.columns.rate}</th><th scope="col" class="num">${t.columns.interval(confidence)}</th><th scope="col">${t.columns.verdict}</th><th scope="col" class="plotcol">${rateAxis(max, t.plot)}</th></tr></thead>`,
    `<tbody>${rows.join('\n')}</tbody>`,
    '</table></div>',
    '</section>',
  ].join('\n')
}

/**
 * Command mode: its one subject under "Every trial". Test mode: a section per verdict (and one for
 * order-dependent tests), each with its drawn tests and, when the page's budget of drawings is
 * spent, a table of the others with their numbers and first error.
 */
function renderDetails(bundle: HtmlBundle, executions: ExecutionSummaries, t: HtmlText): string {
  const detailed = detailedSubjects(bundle)
  const index = new Map(detailed.map((s, i) => [s.id, i]))
  const article = (s: Subject): string => renderSubject(bundle, s, index.get(s.id) ?? 0, executions, t)
  const key = `<p class="note">${t.stripNote}</p>`
  if (bundle.rate.tests === undefined) {
    return ['<section aria-labelledby="h-details">', `<h2 id="h-details">${t.everyTrial}</h2>`, key, ...detailed.map(article), '</section>'].join('\n')
  }
  return sectionsOf(bundle)
    .map(({ key: section, subjects }) => {
      const words = t.sections[section] ?? t.otherVerdict(esc(section))
      const drawn = subjects.filter((s) => index.has(s.id))
      const rest = subjects.filter((s) => !index.has(s.id))
      const id = `h-${section.replace(/[^a-z-]/g, '')}`
      return [
        `<section aria-labelledby="${id}" data-group data-section="${esc(section)}">`,
        `<h2 id="${id}">${words.title} <span class="count">${subjects.length}</span></h2>`,
        `<p class="note">${words.about}</p>`,
        drawn.length > 0 ? key : '',
        ...drawn.map(article),
        rest.length === 0 ? '' : undrawnTable(bundle, rest, t),
        '</section>',
      ].join('\n')
    })
    .join('\n')
}

/** Tests of a section the page does not draw: their numbers and first error, bounded like the rate table. */
function undrawnTable(bundle: HtmlBundle, rest: Subject[], t: HtmlText): string {
  const rows = rest.slice(0, TABLE_ROWS).map((s) => {
    const error = bundle.onlyWhenFail?.tests?.[s.id]?.errors_on_failure[0]
    return `<tr data-item data-id="${esc(s.id)}" data-verdict="${esc(s.verdict)}" data-tags="${esc(tagsOf(bundle, s.id).join(' '))}"><th scope="row"><code>${esc(s.id)}</code></th><td class="num">${t.count(s.failures, s.trials)}</td><td class="num">${pct(s.rate)}</td><td>${error === undefined ? '–' : `<code>${esc(firstLine(error))}</code>`}</td></tr>`
  })
  const more = rest.length - rows.length
  return `<div class="scroll"><table class="undrawn"><caption><span class="cap">${t.notDrawn(rest.length, DETAILED_SUBJECTS)}${more > 0 ? ` ${t.moreInRate(more)}` : ''}</span></caption><thead><tr><th scope="col">${t.columns.test}</th><th scope="col" class="num">${t.columns.failed}</th><th scope="col" class="num">${t.columns.rate}</th><th scope="col">${t.firstErrorColumn}</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`
}

/** The stable tests by name, collapsed: they are what most of a suite is, and rarely what a reader wants first. */
function renderStable(bundle: HtmlBundle, t: HtmlText): string {
  const stable = allSubjects(bundle)
    .filter((s) => s.verdict === 'stable')
    .sort((a, b) => byCodeUnits(a.id, b.id))
  const head = ['<section aria-labelledby="h-stable">', `<h2 id="h-stable">${t.stableTitle} <span class="count">${stable.length}</span></h2>`]
  if (stable.length === 0) return [...head, `<p data-empty="stable">${t.noStable}</p>`, '</section>'].join('\n')
  const items = stable.slice(0, STABLE_LISTED).map((s) => `<li data-item data-count data-id="${esc(s.id)}" data-verdict="stable"><code>${esc(s.id)}</code> <span class="muted">${s.trials}</span></li>`)
  const more = stable.length - items.length
  return [
    ...head,
    `<details class="stable" data-group><summary>${t.stableSummary(stable.length)}</summary><ul class="stable-list">${items.join('')}</ul>${more > 0 ? `<p class="note">${t.moreInRate(more)}</p>` : ''}</details>`,
    '</section>',
  ].join('\n')
}

function renderObserver(bundle: HtmlBundle, t: HtmlText): string {
  const { observer, rate } = bundle
  const head = ['<section aria-labelledby="h-observer">', `<h2 id="h-observer">${t.observerTitle}</h2>`]
  if (!observer) {
    return [...head, `<p data-empty="observer">${hasNoRate(rate.verdict) ? t.notObservedNonIdempotent : t.notObservedFile}</p>`, '</section>'].join('\n')
  }
  const alpha = Number((1 - observer.confidence).toPrecision(6))
  const side = (o: { failures: number; trials: number; ci_low: number; ci_high: number }): string => `${t.count(o.failures, o.trials)} [${pct(o.ci_low)}, ${pct(o.ci_high)}]`
  if (rate.tests === undefined) {
    return [
      ...head,
      `<figure>${comparisonPlot(observer.fast, observer.slow, observer.command, t)}<figcaption>${t.observerCommandCaption(side(observer.fast), side(observer.slow), observer.slow.gap_ms)}</figcaption></figure>`,
      `<p data-headline="observer">${t.fisherLine(`<span data-value="p_value">${observer.p_value.toPrecision(3)}</span>`, observer.changed, alpha)}</p>`,
      `<p class="note">${esc(t.notes.observer(observer, observer.confidence))}</p>`,
      '</section>',
    ].join('\n')
  }
  const entries = Object.entries(observer.tests ?? {})
  const shown = entries.slice(0, TABLE_ROWS)
  const rows = shown.map(
    ([id, o]) =>
      `<tr data-item data-id="${esc(id)}"><th scope="row"><code>${esc(id)}</code></th><td class="num">${side(o.fast)}</td><td class="num">${side(o.slow)} (${o.slow.gap_ms} ms)</td><td class="num">${o.p_value.toPrecision(3)}</td><td>${o.changed ? t.changed : t.notChanged}</td></tr>`,
  )
  // Notes below the table, not in it: a sentence in a table that scrolls sideways is hard to read.
  const notes = shown.map(([id, o]) => `<li data-item data-id="${esc(id)}"><code>${esc(id)}</code>: ${esc(t.notes.observer(o, observer.confidence))}</li>`)
  const c = t.observerColumns
  return [
    ...head,
    entries.length === 0
      ? `<p data-empty="observer">${t.noneObserved}</p>`
      : `<div class="scroll"><table class="observed"><caption><span class="cap">${t.observerCaption(alpha, shown.length, entries.length)}</span></caption><thead><tr><th scope="col">${c.test}</th><th scope="col" class="num">${c.fast}</th><th scope="col" class="num">${c.gapped}</th><th scope="col" class="num">${c.p}</th><th scope="col">${c.result}</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`,
    notes.length === 0 ? '' : `<ul class="notes">${notes.join('')}</ul>`,
    // The run's sum over every observed test: a sentence of its own only when it is not the one test's.
    entries.length > 1 ? `<p class="note">${esc(t.notes.observer(observer, observer.confidence))}</p>` : '',
    '</section>',
  ].join('\n')
}

function renderFixed(bundle: HtmlBundle, t: HtmlText): string {
  const { rate, runsNeeded, policy, proof } = bundle
  const head = ['<section aria-labelledby="h-fixed">', `<h2 id="h-fixed">${t.fixedTitle}</h2>`]
  const proofLine = proof
    ? `<p data-headline="proof">${t.proofLine(`<code>${esc(proof.command)}</code>`, proof.trials, proof.required, proof.failures, proof.passed, rate.tests === undefined ? pct(proof.ci_high) : null)}</p>`
    : `<p data-empty="proof">${t.noProof}</p>`
  const weaker = proof?.weaker ?? []
  const weakerLine =
    weaker.length === 0
      ? ''
      : `<p data-headline="proof-weaker">${t.proofWeaker(proof?.strict === true)}</p><ul>${weaker.map((w) => `<li>${esc(t.weakness(w, proof?.ran_under ?? {}, loadFlagOf(rate.tests === undefined)))}</li>`).join('')}</ul>`
  if (rate.tests === undefined) {
    const note = runsNeeded ? t.notes.plan(runsNeeded, rate) : null
    const planned = runsNeeded
      ? `<div class="scroll"><table class="plan"><caption><span class="cap">${t.planCaption(pct(runsNeeded.planned_rate), t.basis[runsNeeded.basis] ?? esc(runsNeeded.basis))}</span></caption><thead><tr><th scope="col">${t.planColumns.confidence}</th><th scope="col" class="num">${t.planColumns.runs}</th></tr></thead><tbody>${runsNeeded.table.map((r) => `<tr><th scope="row">${r.confidence}</th><td class="num">${r.runs}</td></tr>`).join('')}</tbody></table></div>${note ? `<p class="note">${esc(note)}</p>` : ''}`
      : hasNoRate(rate.verdict)
        ? `<p>${esc(rate.verdict === 'undetermined' && rate.independence ? t.independence.undetermined(rate.independence, 'trial') : t.independence.noNumber('trial'))}</p>`
        : `<p data-empty="plan">${t.notPlanned}</p>`
    const decided = policy
      ? `<dl class="facts" data-headline="policy"><dt>${t.greenRuns}</dt><dd>${t.greenRunsValue(policy.green_runs_required, policy.confidence)}</dd><dt>${t.retryBudget}</dt><dd>${policy.retry_budget ?? t.retryNone}</dd><dt>${t.quarantineAfter}</dt><dd>${t.quarantineValue(String(policy.quarantine_after ?? '–'))}</dd></dl>`
      : ''
    return [...head, planned, decided, proofLine + weakerLine, '</section>'].join('\n')
  }
  const subjects = concerningSubjects(bundle).slice(0, TABLE_ROWS)
  const rows = subjects.map((s) => {
    const decided = policy?.tests?.[s.id]
    const proven = proof?.tests?.[s.id]
    const proofCell = !proven ? '–' : proven.status === 'ran' ? t.proofCell(proven.trials, proven.required, proven.failures, proven.passed) : (t.proofStatus[proven.status] ?? esc(proven.status))
    const runs = decided ? String(decided.green_runs_required) : s.verdict === 'non-idempotent' ? t.noNumberShort : s.verdict === 'undetermined' ? t.noNumberUndetermined : '–'
    return `<tr data-item data-id="${esc(s.id)}" data-verdict="${esc(s.verdict)}"><th scope="row"><code>${esc(s.id)}</code></th><td class="num">${runs}</td><td class="num">${decided?.retry_budget ?? '–'}</td><td class="num">${decided?.quarantine_after ?? '–'}</td><td>${proofCell}</td></tr>`
  })
  const c = t.policyColumns
  return [
    ...head,
    rows.length === 0
      ? `<p data-empty="plan">${t.nothingToPlan}</p>`
      : `<div class="scroll"><table class="plan"><caption><span class="cap">${t.policyCaption(policy ? policy.confidence : null)}</span></caption><thead><tr><th scope="col">${c.test}</th><th scope="col" class="num">${c.runs}</th><th scope="col" class="num">${c.retry}</th><th scope="col" class="num">${c.quarantine}</th><th scope="col">${c.proof}</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`,
    proofLine + weakerLine,
    '</section>',
  ].join('\n')
}

function renderAbout(bundle: HtmlBundle, executions: ExecutionSummaries, t: HtmlText): string {
  return [
    '<footer aria-labelledby="h-about">',
    `<h2 id="h-about">${t.aboutTitle}</h2>`,
    `<p class="note">${t.about(TABLE_ROWS, DETAILED_SUBJECTS, STRIP_MARKS, DURATION_POINTS, FAILURES_IN_FULL, STABLE_LISTED)}</p>`,
    executions.unreadableLines > 0 ? `<p class="warn">${t.unreadable(executions.unreadableLines)}</p>` : '',
    bundle.rate.tests === undefined ? '' : `<p class="note">${t.testsMeasured(bundle.rate.tests.length)}</p>`,
    '</footer>',
  ].join('\n')
}

