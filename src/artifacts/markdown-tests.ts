import { countDistinct } from '../core/distinct.js'
import { stripAnsi } from '../core/ansi.js'
import { hintContextOf, hintsFor } from '../core/hints.js'
import { CONCERN } from '../core/verdict.js'
import { uncountedTests } from './counts-text.js'
import type { ReportBundle } from './bundle.js'
import type { RunStress } from './conditions-schema.js'
import { loadFlagOf } from './weakness-text.js'
import { brokenAsUsual, decideAdviceFor, nonIdempotentAdviceFor, plainAdviceFor } from './independence-text.js'
import { renderConditionsSection } from './markdown-conditions.js'
import type { Messages } from './report-messages.js'
import type { RateFile } from './schemas.js'
import { byCodeUnits } from '../core/text-order.js'

type TestRate = NonNullable<RateFile['tests']>[number]

/**
 * Test mode: the same four sections, with a row per test (flaky, non-idempotent and broken first),
 * and a line for each test whose repetitions were not independent: the cause and the command of
 * its rate in ordinary runs for a non-idempotent one, the clue for clustered or regular failures.
 */
export function renderTestSections(bundle: ReportBundle, t: Messages): string {
  const { rate } = bundle
  const tests = [...(rate.tests ?? [])].sort(byConcern)
  const failing = tests.filter((test) => test.failures > 0 || test.verdict === 'partial')
  const stable = tests.length - failing.length
  const lines = [
    `# ${t.testTitle}: \`${rate.command}\``,
    '',
    `## ${t.howOften}`,
    '',
    `- ${t.rounds(rate.failures, rate.trials, pct(rate.rate), pct(rate.ci_low), pct(rate.ci_high), uncountedTests(rate.tests))}`,
    ...(rate.complete ? [] : [`- ${t.testsIncomplete}`]),
    ...countDistinct(rate.run_errors ?? [], (e) => `${e.project}\0${e.file}\0${oneLine(e.error)}`).map(
      ({ item: e, times }) => `- ${t.runError(e.file === null ? t.nowhere : code(`${e.project ? `[${e.project}] ` : ''}${e.file}`), oneLine(e.error))}${times > 1 ? t.times(times) : ''}`,
    ),
    '',
    ...table(t.testHeader, failing.map((test) => [code(test.id), t.count(test.failures, test.trials), pct(test.rate), `${pct(test.ci_low)} – ${pct(test.ci_high)}`, t.verdictWord(headlineVerdict(test, bundle))])),
    ...(stable > 0 ? ['', `- ${t.stableHidden(stable)}`] : []),
    ...withBlankLine(failing.flatMap((test) => renderIndependence(bundle, test, t))),
    '',
    `## ${t.onlyWhenFails}`,
    '',
    ...renderFacts(bundle, failing, t),
    '',
    `## ${t.observation}`,
    '',
    ...renderObserver(bundle, t),
    '',
    ...renderConditionsSection(bundle.conditions, t),
    `## ${t.fixed}`,
    '',
    ...renderFixed(bundle, failing, t),
    '',
  ]
  return lines.join('\n')
}

// --- internal ---

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`
const oneLine = (text: string): string => text.split(/\r?\n/)[0] ?? ''

/** Inline code on one line: a newline in a test name must not break the row or the list item. */
export const code = (text: string): string => `\`${text.replace(/\r?\n/g, '\\n').replaceAll('|', '\\|').replaceAll('`', "'")}\``
const withBlankLine = (lines: string[]): string[] => (lines.length === 0 ? [] : ['', ...lines])

export function table(header: string[], rows: string[][]): string[] {
  if (rows.length === 0) return []
  return [`| ${header.join(' | ')} |`, `|${' --- |'.repeat(header.length)}`, ...rows.map((row) => `| ${row.join(' | ')} |`)]
}

/** The verdict a row shows: `order-dependent` when the order search tagged it (conditions.json). */
function headlineVerdict(test: TestRate, { conditions }: ReportBundle): string {
  return conditions?.tests[test.id]?.order?.tag === 'order-dependent' ? 'order-dependent' : test.verdict
}

function byConcern(a: TestRate, b: TestRate): number {
  const rank = (test: TestRate): number => CONCERN[test.verdict]
  return rank(a) - rank(b) || b.failures - a.failures || byCodeUnits(a.id, b.id)
}

function renderIndependence({ rate, conditions }: ReportBundle, test: TestRate, t: Messages): string[] {
  const { independence, plain_evidence: plain } = test
  // Failed every repetition; plain runs of its file decided what that means (docs/contracts.md §5).
  if (plain && test.verdict !== 'broken') {
    const measure = plainAdviceFor(t.independence, hintContextOf(rate), test)
    return [`- ${code(test.id)}: **${test.verdict === 'non-idempotent' ? t.nonIdempotent : t.undetermined}**. ${t.independence.plain(plain)} ${measure}`]
  }
  if (plain && brokenAsUsual(plain)) return [`- ${code(test.id)}: ${t.independence.plain(plain)}`]
  if (!independence) return []
  const evidence = test.fresh_evidence ? ` ${test.fresh_evidence.note}` : ''
  if (test.verdict === 'non-idempotent') {
    const measure = test.fresh ? t.notes.fresh(test.fresh) : nonIdempotentAdviceFor(t.independence, hintContextOf(rate), test, conditions?.tests[test.id]?.tags)
    return [`- ${code(test.id)}: **${t.nonIdempotent}**. ${t.independence.cause(independence, 'repetition')}${evidence} ${measure}`]
  }
  if (test.verdict === 'undetermined') {
    return [`- ${code(test.id)}: **${t.undetermined}**. ${t.independence.undetermined(independence, 'repetition')}${evidence} ${decideLine(rate, test, t)}`]
  }
  const clue = t.independence.clue(independence, 'repetition')
  return clue === null ? [] : [`- ${code(test.id)}: ${clue}`]
}

/** The run that would decide an undetermined test, in its runner's syntax (src/core/hints.ts `decide`). */
function decideLine(rate: RateFile, test: TestRate, t: Messages): string {
  return decideAdviceFor(t.independence, hintContextOf(rate), { test, switchAt: test.independence?.switch_at ?? null, trials: test.trials })
}

/** The command that runs the missing step, in the runner's syntax and the form the user started this run with. */
function nextRun(rate: RateFile, flags: string): string {
  return hintsFor(hintContextOf(rate)).again(flags)
}

function renderFacts({ rate, onlyWhenFail }: ReportBundle, failing: TestRate[], t: Messages): string[] {
  if (!onlyWhenFail) return [`- ${t.notMeasured(nextRun(rate, '--flaky-repeat 200'))}`]
  if (failing.length === 0) return [`- ${t.noFlaky}`]
  return failing.flatMap((test) => {
    const facts = onlyWhenFail.tests?.[test.id]
    if (!facts) return []
    const trials = facts.failure_trials.slice(0, 15).join(', ') + (facts.failure_trials.length > 15 ? ', …' : '')
    const [predicate] = facts.predicates
    return [
      `- ${code(test.id)}: ${t.testToken(facts.token)}; ${t.failingRepetitions} (${t.count(facts.failures, facts.trials)}): ${trials || '–'}`,
      ...(facts.errors_on_failure[0] ? [`  - ${t.firstError}: ${code(stripAnsi(facts.errors_on_failure[0]).split('\n')[0]?.slice(0, 200) ?? '')}`] : []),
      ...(predicate ? [`  - ${t.topPredicate}: ${code(predicate.predicate)}${predicate.unit === 'round' ? t.notes.inRounds : ''} (${t.predicateHeader[3]} ${predicate.increase.toFixed(3)})`] : []),
    ]
  })
}

function renderObserver({ rate, observer }: ReportBundle, t: Messages): string[] {
  if (!observer?.tests) return [`- ${t.notMeasured(nextRun(rate, '--flaky-repeat 200 --flaky-observe'))}`]
  const rows = Object.entries(observer.tests).map(([id, o]) => [
    code(id),
    t.count(o.fast.failures, o.fast.trials),
    `${t.count(o.slow.failures, o.slow.trials)} (${o.slow.gap_ms} ms)`,
    o.p_value.toPrecision(3),
    o.changed ? t.yes : t.no,
  ])
  const notes = Object.entries(observer.tests).map(([id, o]) => `- ${code(id)}: ${t.notes.observer(o, observer.confidence)}`)
  return [...table(t.observerTestHeader, rows), '', ...(notes.length === 1 ? [] : [`- ${t.notes.observer(observer, observer.confidence)}`]), ...notes]
}

function renderFixed({ rate, policy, proof }: ReportBundle, failing: TestRate[], t: Messages): string[] {
  if (!policy?.tests) return [`- ${t.notMeasured(nextRun(rate, '--flaky-repeat 200'))}`]
  const rows = failing.flatMap((test) => {
    const decided = policy.tests?.[test.id]
    if (!decided) return []
    const proven = proof?.tests?.[test.id]
    const proofCell =
      proven === undefined
        ? '–'
        : proven.status === 'ran'
          ? t.proofCell(proven.trials, proven.required, proven.failures, proven.passed)
          : t.proofStatus[proven.status]
    const runs = test.verdict === 'broken' ? t.brokenRuns : String(decided.green_runs_required)
    return [[code(test.id), runs, String(decided.retry_budget ?? '–'), String(decided.quarantine_after ?? '–'), proofCell]]
  })
  const weaker = proof?.weaker ?? []
  const overall = proof
    ? [
        `- ${t.proofOverall(proof.passed, Object.values(proof.tests ?? {}).filter((p) => p.status === 'ran').length)}`,
        ...(weaker.length > 0 ? [`- ${t.proofWeaker(proof.strict === true)}`, ...weaker.map((w) => `  - ${t.weakness(w, proof.ran_under ?? {}, loadFlagOf(false))}`)] : []),
      ]
    : [`- ${t.notMeasured(nextRun(rate, '--flaky-proof'))}`]
  const under = stressParts(policy.measured_under, t)
  const unplanned = failing.flatMap((test) => {
    if (test.verdict === 'non-idempotent') return [`- ${code(test.id)}: ${t.independence.noNumber('repetition')}`]
    if (test.verdict !== 'undetermined') return []
    // Decided by plain runs of its file: measuring its rate in ordinary runs decides it, not more repetitions.
    const decide = test.plain_evidence ? plainAdviceFor(t.independence, hintContextOf(rate), test) : decideLine(rate, test, t)
    return [`- ${code(test.id)}: **${t.undetermined}**. ${decide}`]
  })
  const body = [...table(t.fixTestHeader, rows), ...(rows.length > 0 && unplanned.length > 0 ? [''] : []), ...unplanned]
  return [...(body.length > 0 ? body : [`- ${t.noFlaky}`]), '', ...(under.length > 0 ? [`- ${t.measuredUnder(under)}`] : []), ...overall]
}

/** The stress a measurement met, in words, for what a proof must match; what was not recorded is left out. */
function stressParts(under: RunStress | undefined, t: Messages): string[] {
  if (!under) return []
  const parts: string[] = []
  if (typeof under.load_per_cpu === 'number' && under.cpus !== undefined) parts.push(t.stress.load(under.load_per_cpu.toFixed(2), under.cpus, under.load_source ?? 'proc'))
  if (typeof under.workers === 'number') parts.push(t.stress.workers(under.workers))
  if (typeof under.concurrent_runs === 'number') parts.push(t.stress.concurrent(under.concurrent_runs))
  if (typeof under.pool === 'string') parts.push(t.stress.pool(under.pool))
  if (typeof under.isolate === 'boolean') parts.push(t.stress.isolate(under.isolate))
  return parts
}
