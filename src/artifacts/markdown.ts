import { flakeproofCommand, hintContextOf } from '../core/hints.js'
import { hasNoRate } from '../core/verdict.js'
import { loadFlagOf } from './weakness-text.js'
import type { ReportBundle } from './bundle.js'
import { decideAdviceFor, predicateP } from './independence-text.js'
import { renderTestSections } from './markdown-tests.js'
import { type Messages, MESSAGES } from './report-messages.js'
import type { ObserverFile, OnlyWhenFailFile, RateFile } from './schemas.js'

/**
 * flaky_report.md: exactly four `##` sections in the docs/contracts.md §3 order, each with its numbers.
 * Pure: the same bundle always renders the same text.
 */
export function renderReport(bundle: ReportBundle, lang: 'en' | 'ko'): string {
  const t = MESSAGES[lang]
  const { rate } = bundle
  if (rate.tests !== undefined) return renderTestSections(bundle, t)
  const lines = [
    `# ${t.title}: \`${rate.command}\``,
    '',
    `${t.verdict[rate.verdict]} ${t.trialsFailed(rate.failures, rate.trials)}`,
    '',
    `## ${t.howOften}`,
    '',
    `- ${t.measured(rate.failures, rate.trials, pct(rate.rate), pct(rate.ci_low), pct(rate.ci_high), rate.confidence)}`,
    `- ${t.conditions(rate.gap_ms, rate.jobs, rate.timed_out)}`,
    ...renderIndependence(rate, t),
    ...(rate.complete ? [] : [`- ${t.incomplete(rate.trials, rate.requested_trials)}`]),
    '',
    `## ${t.onlyWhenFails}`,
    '',
    ...renderFacts(bundle.onlyWhenFail, t),
    '',
    `## ${t.observation}`,
    '',
    ...(!bundle.observer && hasNoRate(rate.verdict) ? [`- ${t.notObserved}`] : renderObserver(bundle.observer, t)),
    '',
    `## ${t.fixed}`,
    '',
    ...renderFixed(bundle, t),
    '',
  ]
  return lines.join('\n')
}

// --- internal ---


const pct = (x: number): string => `${(x * 100).toFixed(1)}%`
const codes = (list: (number | null)[], t: Messages): string => (list.length === 0 ? '–' : list.map((c) => (c === null ? t.signal : String(c))).join(', '))

/** The runs test: a clue, the non-idempotent cause with how to measure it afresh, or why it was not run. */
function renderIndependence(rate: RateFile, t: Messages): string[] {
  const { independence } = rate
  if (independence === null && rate.jobs > 1) return [`- ${t.independence.notTested(rate.jobs)}`]
  if (!independence) return []
  if (rate.verdict === 'undetermined') return [`- ${t.independence.undetermined(independence, 'trial')}`, `- ${decideLine(rate, t)}`]
  const summary = `- ${t.independence.summary(independence, 'trial')}`
  return rate.verdict === 'non-idempotent' ? [summary, `- ${t.independence.freshEnvironment(rate.command)}`] : [summary]
}

function decideLine(rate: RateFile, t: Messages): string {
  return decideAdviceFor(t.independence, hintContextOf(rate), { command: rate.command, switchAt: rate.independence?.switch_at ?? null, trials: rate.trials })
}

function renderFacts(facts: OnlyWhenFailFile | undefined, t: Messages): string[] {
  if (!facts) return [`- ${t.notMeasured(`${flakeproofCommand('collect …')} && ${flakeproofCommand('facts …')}`)}`]
  const shown = facts.failure_trials.slice(0, 20).join(', ') + (facts.failure_trials.length > 20 ? ', …' : '')
  const lines = [
    `- ${t.exitCodes(codes(facts.exit_codes_on_failure, t), codes(facts.exit_codes_on_success, t))}`,
    `- ${facts.token === null ? t.noToken : t.token(facts.token, facts.failures)}`,
    `- ${t.failureTrials(facts.failures, facts.trials)}: ${shown || '–'}`,
  ]
  if (facts.predicates.length > 0) {
    lines.push('', `| ${t.predicateHeader.join(' | ')} |`, `|${' --- |'.repeat(t.predicateHeader.length)}`)
    for (const p of facts.predicates.slice(0, 8)) {
      lines.push(`| \`${p.predicate}\` | ${p.true_in_failures} | ${p.true_in_successes} | ${p.increase.toFixed(3)} | ${p.importance.toFixed(3)} | ${predicateP(p.p_value)} |`)
    }
  }
  return lines
}

function renderObserver(observer: ObserverFile | undefined, t: Messages): string[] {
  if (!observer) return [`- ${t.notMeasured(flakeproofCommand('observe …'))}`]
  const row = (name: string, o: ObserverFile['fast']): string =>
    `| ${name} | ${o.gap_ms} | ${t.count(o.failures, o.trials)} | ${pct(o.rate)} | ${pct(o.ci_low)} – ${pct(o.ci_high)} |`
  return [
    `| ${t.observerHeader.join(' | ')} |`,
    `|${' --- |'.repeat(t.observerHeader.length)}`,
    row(t.fast, observer.fast),
    row(t.slow, observer.slow),
    '',
    `- ${t.fisher(observer.p_value.toPrecision(3), observer.changed, Number((1 - observer.confidence).toPrecision(6)))}`,
    `- ${t.notes.observer(observer, observer.confidence)}`,
  ]
}

function renderFixed(bundle: ReportBundle, t: Messages): string[] {
  const { rate, runsNeeded, policy, proof } = bundle
  if (hasNoRate(rate.verdict) && !runsNeeded && !policy && !proof) {
    const how = rate.verdict === 'undetermined' ? decideLine(rate, t) : t.independence.freshEnvironment(rate.command)
    return [`- ${t.independence.noNumber('trial')}`, `- ${how}`]
  }
  const lines: string[] = []
  if (runsNeeded) {
    lines.push(`- ${t.runsTable(pct(runsNeeded.planned_rate))}: ${runsNeeded.table.map((r) => `${r.confidence} → ${r.runs}`).join(', ')}`)
    const note = t.notes.plan(runsNeeded, rate)
    if (note) lines.push(`- ${note}`)
  } else {
    lines.push(`- ${t.notMeasured('flakeproof plan --from rate.json …')}`)
  }
  if (policy) {
    lines.push(`- ${t.policy(policy.green_runs_required, policy.confidence, policy.retry_budget, policy.quarantine_after)}`)
  }
  if (proof) {
    lines.push(
      `- ${t.proof(proof.command, proof.trials, proof.required, proof.failures, proof.passed)}`,
      `- ${t.residual(pct(proof.ci_high))}`,
    )
    const weaker = proof.weaker ?? []
    if (weaker.length > 0) lines.push(`- ${t.proofWeaker(proof.strict === true)}`, ...weaker.map((w) => `  - ${t.weakness(w, proof.ran_under ?? {}, loadFlagOf(true))}`))
  } else {
    lines.push(`- ${t.notMeasured('flakeproof proof --cmd "<fixed command>" --plan runs_needed.json …')}`)
  }
  return lines
}
