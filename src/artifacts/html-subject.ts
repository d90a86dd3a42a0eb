import { hintContextOf } from '../core/hints.js'
import { comparisonSides, orderSides } from './conditions-schema.js'
import { culpritsText, needsCulprit, tiedText } from './culprit-text.js'
import { esc, escWithCode, firstLine, ms } from './_html.js'
import { binStrip, DURATION_POINTS, type ExecutionSummaries, type ExecutionSummary, STRIP_MARKS, type StripMark, type StripSegment } from './html-executions.js'
import { failingId, headlineOf, renderFailing } from './html-failing.js'
import { comparisonPlot, durationPlot, type MarkLabel, repetitionStrip } from './html-plots.js'
import { sourceLink } from './html-source.js'
import { type HtmlBundle, type Subject, tagsOf } from './html-subjects.js'
import type { HtmlText } from './html-text.js'
import { brokenAsUsual, decideAdviceFor, nonIdempotentAdviceFor, plainAdviceFor, predicateP } from './independence-text.js'

/** Ids in the page are derived from position, never from user text. */
export const anchor = (index: number): string => `s${index + 1}`

/** Backquoted spans of a sentence (a command to run) as code, the rest as text; `text` is plain. */
export function withCode(text: string): string {
  const open = text.indexOf('`')
  const close = text.lastIndexOf('`')
  if (open === -1 || close === open) return esc(text)
  return `${esc(text.slice(0, open))}<code class="cmd">${esc(text.slice(open + 1, close))}</code>${esc(text.slice(close + 1))}`
}

/** A verdict in the page's words, with its own colour; an unknown verdict shows as itself. */
export function verdictBadge(verdict: string, t: HtmlText): string {
  return `<span class="verdict-badge" data-verdict="${esc(verdict)}">${t.verdicts[verdict] ?? `<code>${esc(verdict)}</code>`}</span>`
}

/**
 * One drawn subject: where it is declared, what its repetitions' order says, a strip per mode whose
 * failing marks open that repetition, its facts, its failing repetitions in full, the comparisons
 * of observation and of the conditions the rounds varied, and its durations.
 */
export function renderSubject(bundle: HtmlBundle, s: Subject, index: number, executions: ExecutionSummaries, t: HtmlText): string {
  const testMode = bundle.rate.tests !== undefined
  const id = anchor(index)
  const summary = executions.subjects.get(s.id)
  const proofSummary = executions.proof?.get(s.id)
  const facts = testMode ? bundle.onlyWhenFail?.tests?.[s.id] : bundle.onlyWhenFail
  const observed = bundle.observer?.tests?.[s.id]
  const measuredSegments = summary?.segments ?? []
  const strips = [
    ...measuredSegments.map((segment) => renderStrip(segment, s.id, labeller(id, 'measured', summary, t), t)),
    ...proofSegment(bundle, s.id).map((segment) => renderStrip(segment, s.id, labeller(id, 'proof', proofSummary, t), t)),
  ]
  const firstError = (testMode ? bundle.onlyWhenFail?.tests?.[s.id]?.errors_on_failure[0] : undefined) ?? summary?.firstError ?? null
  const predicates = facts?.predicates.slice(0, 3) ?? []
  const declared = executions.declared?.get(s.id)
  const tags = tagsOf(bundle, s.id)
  const proofFailed = proofRun(bundle, s.id)?.failures ?? 0
  return [
    `<article id="${id}" data-item data-id="${esc(s.id)}" data-verdict="${esc(s.verdict)}" data-tags="${esc(tags.join(' '))}" aria-labelledby="${id}-h">`,
    `<h3 id="${id}-h"><code>${esc(s.id)}</code> · ${verdictBadge(s.verdict, t)}${tags.map((tag) => ` <span class="tag">${esc(t.tags[tag] ?? tag)}</span>`).join('')}</h3>`,
    declared && executions.source ? `<p class="where">${t.declaredAt} ${sourceLink(declared, executions.source, t.linkTitle)}</p>` : '',
    independenceNote(bundle, s, t),
    orderNote(bundle, s.id, t),
    strips.length === 0 ? `<p class="note">${t.noFacts}</p>` : strips.join(''),
    '<dl class="facts">',
    `<dt>${t.token}</dt><dd>${facts ? (facts.token === null ? t.tokenNone : `<code>${esc(facts.token)}</code>`) : t.notAnalysed}</dd>`,
    `<dt>${t.firstError}</dt><dd>${firstError === null ? '–' : `<code>${esc(firstLine(firstError))}</code>`}</dd>`,
    '</dl>',
    measuredSegments.length === 0 ? '' : renderFailing(id, summary, 'measured', { facts: 'facts.jsonl', present: true }, executions.source, t),
    proofFailed === 0 ? '' : renderFailing(id, proofSummary, 'proof', { facts: 'proof_facts.jsonl', present: executions.proof !== undefined }, executions.source, t),
    predicates.length === 0
      ? ''
      : `<div class="scroll"><table class="predicates"><caption><span class="cap">${t.predicatesCaption}</span></caption><thead><tr>${t.predicateColumns
          .map((c, i) => `<th scope="col"${i === 0 ? '' : ' class="num"'}>${c}</th>`)
          .join('')}</tr></thead><tbody>${predicates
          .map((p) => `<tr><th scope="row"><code>${esc(p.predicate)}</code>${p.unit === 'round' ? t.notes.inRounds : ''}</th><td class="num">${p.true_in_failures}</td><td class="num">${p.true_in_successes}</td><td class="num">${p.increase.toFixed(3)}</td><td class="num">${p.importance.toFixed(3)}</td><td class="num">${predicateP(p.p_value)}</td></tr>`)
          .join('')}</tbody></table></div>`,
    // Command mode draws its one comparison in the observer section.
    observed && testMode
      ? `<figure>${comparisonPlot(observed.fast, observed.slow, s.id, t)}<figcaption>${t.compareCaption(t.count(observed.fast.failures, observed.fast.trials), t.count(observed.slow.failures, observed.slow.trials), `<span data-value="p_value">${observed.p_value.toPrecision(3)}</span>`, observed.changed)}</figcaption></figure>`
      : '',
    conditionsTable(bundle, s.id, t),
    summary && summary.durations.passed.count + summary.durations.failed.count > 0 ? durations(summary, s.id, t) : '',
    '</article>',
  ].join('\n')
}

// --- internal ---

function renderStrip(segment: StripSegment, label: string, labelOf: (mark: StripMark) => MarkLabel, t: HtmlText): string {
  const modeName = t.modes[segment.mode] ?? segment.mode
  const binned = segment.binSize > 1 ? t.binned(segment.binSize, STRIP_MARKS) : ''
  return (
    `<figure>${repetitionStrip(segment, t.plot.strip(`${label}, ${modeName}`, segment.executions, segment.failures, segment.binSize), labelOf)}` +
    `<figcaption>${t.stripCaption(segment.mode, esc(modeName), segment.failures, segment.executions)}${binned}.</figcaption></figure>`
  )
}

/** A mark's hover text, and for a failure shown in full its link: the first failing execution the mark covers. */
function labeller(id: string, kind: 'measured' | 'proof', summary: ExecutionSummary | undefined, t: HtmlText): (mark: StripMark) => MarkLabel {
  const inFull = new Map((summary?.failing ?? []).map((f) => [f.trial, f]))
  return (mark) => {
    const which = mark.count === 1 ? `#${mark.first}` : `#${mark.first}–${mark.last}`
    if (mark.failures === 0) return { title: mark.count === 1 ? t.markPassed(which) : t.markBin(which, 0, mark.count) }
    const shown = [...inFull.values()].find((f) => f.trial >= mark.first && f.trial <= mark.last)
    if (!shown) return { title: mark.count === 1 ? t.markFailed(which, t.markNotInFull) : `${t.markBin(which, mark.failures, mark.count)}${t.markNotInFull}` }
    const detail = ` (${t.modeShort[shown.mode] ?? shown.mode}, ${ms(shown.elapsedMs)}): ${headlineOf(shown)}`
    const title = mark.count === 1 ? t.markFailed(which, detail) : `${t.markBin(which, mark.failures, mark.count)}; ${t.markFailed(`#${shown.trial}`, detail)}`
    return { title, href: `#${failingId(id, kind, shown.trial)}` }
  }
}

/** The proof's executions, from proof.json (its trials and which failed). */
function proofSegment(bundle: HtmlBundle, id: string): StripSegment[] {
  const run = proofRun(bundle, id)
  if (!run || run.trials === 0) return []
  const trials = new Int32Array(run.trials).map((_, i) => i + 1)
  const failed = new Uint8Array(run.trials)
  for (const trial of run.failure_trials) if (trial >= 1 && trial <= run.trials) failed[trial - 1] = 1
  return [binStrip('proof', trials, failed, run.trials)]
}

function proofRun(bundle: HtmlBundle, id: string): { trials: number; failures: number; failure_trials: readonly number[] } | undefined {
  const { proof } = bundle
  if (!proof) return undefined
  const run = bundle.rate.tests === undefined ? proof : proof.tests?.[id]
  if (!run || ('status' in run && run.status !== 'ran')) return undefined
  return run
}

function independenceNote(bundle: HtmlBundle, s: Subject, t: HtmlText): string {
  const testMode = bundle.rate.tests !== undefined
  const unit = testMode ? 'repetition' : 'trial'
  const { independence } = s
  // Failed every repetition; plain runs of its file decided what that means (docs/contracts.md §5).
  const tested = s.verdict === 'broken' || s.verdict === 'non-idempotent' || s.verdict === 'undetermined' ? bundle.rate.tests?.find((x) => x.id === s.id) : undefined
  const plain = tested?.plain_evidence
  if (tested && plain && s.verdict !== 'broken') {
    const measure = escWithCode((code) => plainAdviceFor(t.independence, hintContextOf(bundle.rate), tested, code))
    return `<p class="warn">${esc(t.independence.plain(plain))} ${measure}</p>`
  }
  if (plain && brokenAsUsual(plain)) return `<p class="note">${esc(t.independence.plain(plain))}</p>`
  if (!independence) return ''
  if (s.verdict === 'non-idempotent') {
    const test = bundle.rate.tests?.find((x) => x.id === s.id)
    // The command is marked where it is made (escWithCode), never found again by its backquotes.
    const measure = test?.fresh
      ? withCode(t.notes.fresh(test.fresh))
      : escWithCode((code) =>
          test ? nonIdempotentAdviceFor(t.independence, hintContextOf(bundle.rate), test, bundle.conditions?.tests[test.id]?.tags, code) : t.independence.freshEnvironment(s.id, code),
        )
    return `<p class="warn">${esc(t.independence.cause(independence, unit))} ${measure}</p>`
  }
  if (s.verdict === 'undetermined') {
    // The run that would decide it, in its runner's syntax: a test of the run, or the command measured.
    const test = bundle.rate.tests?.find((x) => x.id === s.id)
    const subject = test ? { test, switchAt: independence.switch_at, trials: s.trials } : { command: bundle.rate.command, switchAt: independence.switch_at, trials: s.trials }
    const decide = escWithCode((code) => decideAdviceFor(t.independence, hintContextOf(bundle.rate), subject, code))
    return `<p class="warn">${esc(t.independence.undetermined(independence, unit))} ${decide}</p>`
  }
  const clue = t.independence.clue(independence, unit)
  return clue === null ? '' : `<p class="note">${esc(clue)}</p>`
}

/** What shuffled rounds found about the order (conditions.json), from its numbers. */
function orderNote(bundle: HtmlBundle, id: string, t: HtmlText): string {
  const order = bundle.conditions?.tests[id]?.order
  if (!order) return ''
  const { after, otherwise, unit } = orderSides(order)
  const counts = (c: { failures: number; trials: number }): string => t.notes.countIn(c.failures, c.trials, unit)
  const culprit = culpritsText(order, t.lang === 'ko' ? 'ko' : 'en', (name) => `<code>${esc(name)}</code>`)
  const p = order.p_value.toPrecision(3)
  const seed = (o: typeof order.failing_order): string => (o === null || o.seed === null ? '' : `<code>--flaky-seed ${o.seed}</code>`)
  const text = order.significant
    ? `${(needsCulprit(order) ? t.orderNeeded : t.orderFound)(culprit, counts(after), counts(otherwise), p)}${t.orderTied(tiedText(order, t.lang === 'ko' ? 'ko' : 'en', (name) => `<code>${esc(name)}</code>`))}${t.replay(seed(order.failing_order), seed(order.passing_order))}`
    : t.orderNotFound(culprit, counts(after), counts(otherwise), p)
  return `<p class="${order.significant ? 'warn' : 'note'}" data-order="${order.significant ? 'dependent' : 'not-found'}">${text}</p>`
}

/** Each comparison conditions.json holds for this test: both sides' counts, the p-value and the tag. */
function conditionsTable(bundle: HtmlBundle, id: string, t: HtmlText): string {
  const comparisons = bundle.conditions?.tests[id]?.comparisons ?? []
  if (comparisons.length === 0) return ''
  const rows = comparisons.map((c) => {
    const { a, b, unit } = comparisonSides(c)
    const side = (label: string, counts: { failures: number; trials: number }): string => `${esc(t.notes.side(label))} ${t.notes.countIn(counts.failures, counts.trials, unit)}`
    return `<tr><th scope="row">${esc(t.comparisonKinds[c.kind] ?? c.kind)}</th><td>${side(c.a.label, a)}</td><td>${side(c.b.label, b)}</td><td class="num">${c.p_value.toPrecision(3)}</td><td>${c.tag ? esc(t.tags[c.tag] ?? c.tag) : '–'}</td></tr>`
  })
  const notes = comparisons.map((c) => `<li>${esc(t.notes.comparison(c))}</li>`)
  return `<div class="scroll"><table class="conditions"><caption><span class="cap">${t.conditionsCaption}</span></caption><thead><tr>${t.conditionColumns.map((c) => `<th scope="col">${c}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div><ul class="notes">${notes.join('')}</ul>`
}

function durations(summary: ExecutionSummary, label: string, t: HtmlText): string {
  const { passed, failed } = summary.durations
  const range = (d: typeof passed): string => `${ms(d.minMs)} – ${ms(d.maxMs)}`
  const strides = [passed.stride, failed.stride].filter((k) => k > 1)
  const thinned = strides.length === 0 ? '' : t.thinned(DURATION_POINTS, Math.max(...strides))
  return `<figure>${durationPlot(summary.durations, label, t.plot)}<figcaption>${t.durationsCaption(passed.count, ms(passed.meanMs), range(passed), failed.count, ms(failed.meanMs), range(failed))}${thinned}.</figcaption></figure>`
}
