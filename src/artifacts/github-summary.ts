import type { AttributionFile } from './attribution-schema.js'
import { attributionCell } from './attribution-text.js'
import type { ReportBundle } from './bundle.js'
import { countOf, proofRunsText, uncountedTests } from './counts-text.js'
import { brokenAsUsual } from './independence-text.js'
import { code, table } from './markdown-tests.js'
import type { ProofFile, RateFile } from './schemas.js'

/**
 * A test under quarantine, as the committed policy records it. The summary shows these in their own
 * table so a test that cannot turn the build red is never invisible.
 */
export interface QuarantinedTest {
  id: string
  /** When it entered quarantine (ISO date or datetime, as the policy holds it). */
  since: string
  reason: string
  failures: number
  trials: number
  /** What it did in this run, when it ran (an enforced run). */
  outcome?: 'passed' | 'failed'
}

/**
 * What `$GITHUB_STEP_SUMMARY` receives for one run (docs/contracts.md §8): flaky and broken tests with
 * their counts and intervals and the green runs a fix must pass, quarantined tests with their evidence,
 * and the proof's result. Any part of the bundle may be missing (`flakeproof proof` has only a proof).
 * Pure: the same input always renders the same text.
 */
export function renderGithubSummary(bundle: Partial<ReportBundle>, quarantined: readonly QuarantinedTest[] = []): string {
  const { rate, proof } = bundle
  const subject = rate?.command ?? proof?.command ?? ''
  const lines = [`## flakeproof: ${code(subject)}`, '']
  if (rate) lines.push(...(rate.tests === undefined ? renderCommand(rate, bundle) : renderTests(rate, bundle)))
  lines.push(...quarantineTable(quarantined))
  if (proof) lines.push(...renderProof(proof))
  return `${lines.join('\n')}\n`
}

/**
 * The step summary of an enforced run (docs/contracts.md §9): the quarantined tests that ran, with
 * what they did and why they are quarantined, listed tests that failed beyond their retry budget,
 * and the tests proposed for quarantine. Nothing when the run has none of these.
 */
export function renderEnforcementSummary(policyPath: string, quarantined: readonly QuarantinedTest[], overBudget: readonly string[], proposed: readonly string[], written: boolean): string {
  if (quarantined.length + overBudget.length + proposed.length === 0) return ''
  const failed = quarantined.filter((q) => q.outcome === 'failed').length
  const lines = [
    `## flakeproof: enforcing ${code(policyPath)}`,
    '',
    `**${quarantined.length} quarantined** (${failed} failed this run without failing it), **${overBudget.length} failed beyond their retry budget**`,
    '',
    ...quarantineTable(quarantined),
  ]
  if (overBudget.length > 0) lines.push('### Failed beyond their retry budget', '', ...overBudget.map((id) => `- ${code(id)}`), '')
  if (proposed.length > 0) {
    const how = written ? `quarantined in ${code(policyPath)} by this run` : 'write it with `--flaky-update-policy`'
    lines.push('### Proposed for quarantine', '', ...proposed.map((id) => `- ${code(id)}: ${how}`), '')
  }
  return `${lines.join('\n')}\n`
}

/** Rows per table: GitHub refuses a step summary above 1 MiB, and the report folder has every test. */
export const SUMMARY_ROWS = 100

// --- internal ---

type TestRate = NonNullable<RateFile['tests']>[number]

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`
const interval = (m: { ci_low: number; ci_high: number }): string => `${pct(m.ci_low)} – ${pct(m.ci_high)}`
/**
 * A red everyday run's step summary (docs/attribution.md): one run measures no rate, so no counts or
 * verdicts; per failed test whose failure it is, from the history and the committed policy.
 */
export function renderEverydaySummary(command: string, tests: number, attribution: AttributionFile): string {
  const rows = Object.entries(attribution.tests).map(([id, entry]) => [code(id), cell(attributionCell(entry))])
  return [
    `## flakeproof: ${code(command)}`,
    '',
    `**${rows.length} failed** of ${tests} tests in one everyday run; whose failure each is, against ${attribution.history_runs} past run(s) (docs/attribution.md):`,
    '',
    ...table(['Test', 'Whose failure'], rows),
    '',
    '',
  ].join('\n')
}

const cell = (text: string): string => text.replace(/\r?\n/g, ' ').replaceAll('|', '\\|')
const level = (confidence: number | undefined): string => `${+((confidence ?? 0.95) * 100).toFixed(4)}%`

function renderTests(rate: RateFile, { policy, runsNeeded, attribution }: Partial<ReportBundle>): string[] {
  const tests = rate.tests ?? []
  const flaky = tests.filter((t) => t.verdict === 'flaky' || t.verdict === 'non-idempotent' || t.verdict === 'undetermined')
  const broken = tests.filter((t) => t.verdict === 'broken')
  const partial = tests.filter((t) => t.verdict === 'partial')
  const required = (t: TestRate): string => String(policy?.tests?.[t.id]?.green_runs_required ?? runsNeeded?.tests?.[t.id]?.runs ?? '–')
  // A red everyday run's attribution is one more column: whose failure each failed test is.
  const whose = (t: TestRate): string[] => {
    if (!attribution) return []
    const entry = attribution.tests[t.id]
    return [entry ? cell(attributionCell(entry)) : '–']
  }
  const row = (t: TestRate): string[] => [code(t.id), countOf(t.failures, t.trials), pct(t.rate), interval(t), ...whose(t)]
  const header = ['Test', 'Failed', 'Rate', `${level(rate.confidence)} interval`, ...(attribution ? ['Whose failure'] : [])]
  const lines = [
    `**${flaky.length} flaky, ${broken.length} broken** of ${tests.length} tests, ${rate.trials} rounds` +
      (uncountedTests(tests) > 0 ? ` (${uncountedTests(tests)} non-idempotent or undetermined, not counted in the rounds)` : '') +
      (rate.complete ? '' : ' — **incomplete run**: some tests have no numbers'),
    '',
  ]
  if (flaky.length > 0) {
    lines.push(`### Flaky (${flaky.length})`, '', ...capped(flaky, (rows) => table([...header, 'Verdict', 'Runs a fix must pass'], rows.map((t) => [...row(t), t.verdict, required(t)]))), '')
  }
  if (broken.length > 0) {
    // An everyday run's failure is one execution: whose it is, not "every repetition", is what it says.
    const confirmed = broken.every((t) => brokenAsUsual(t.plain_evidence, rate.measured_under))
    const advice = attribution
      ? 'One run: the last column says whose failure each one is (docs/attribution.md).'
      : confirmed
        ? 'Broken tests failed every repetition, and every run of their files as usual: fix them as normal bugs.'
        : 'Broken tests failed every repetition: fix them as normal bugs. One that passes when its file runs as usual was broken by the repetitions, with state they leave.'
    lines.push(`### Broken (${broken.length})`, '', ...capped(broken, (rows) => table(header, rows.map(row))), '', advice, '')
  }
  if (partial.length > 0) lines.push(`### Stopped before all repetitions ran (${partial.length})`, '', ...capped(partial, (rows) => table(header, rows.map(row))), '')
  return lines
}

function quarantineTable(quarantined: readonly QuarantinedTest[]): string[] {
  if (quarantined.length === 0) return []
  const ran = quarantined.some((q) => q.outcome !== undefined)
  const rows = quarantined.map((q) => [code(q.id), ...(ran ? [q.outcome ?? '–'] : []), q.since, cell(q.reason), countOf(q.failures, q.trials)])
  return [`### Quarantined (${quarantined.length})`, '', ...capped(rows, (shown) => table(['Test', ...(ran ? ['This run'] : []), 'Since', 'Reason', 'Failed'], [...shown])), '']
}

/** The first SUMMARY_ROWS of a table, and a line saying how many more the report folder holds. */
function capped<T>(items: readonly T[], render: (rows: readonly T[]) => string[]): string[] {
  const more = items.length - SUMMARY_ROWS
  return [...render(items.slice(0, SUMMARY_ROWS)), ...(more > 0 ? ['', `… and ${more} more: see flaky_report.md in the uploaded folder.`] : [])]
}

function renderCommand(rate: RateFile, { policy, runsNeeded }: Partial<ReportBundle>): string[] {
  const required = policy?.green_runs_required ?? runsNeeded?.chosen.runs
  return [
    ...table(
      ['Verdict', 'Failed', 'Rate', `${level(rate.confidence)} interval`, 'Runs a fix must pass'],
      [[rate.verdict, countOf(rate.failures, rate.trials), pct(rate.rate), interval(rate), required === undefined ? '–' : String(required)]],
    ),
    ...(rate.complete ? [] : ['', `**Incomplete**: ${rate.trials} of ${rate.requested_trials} trials ran.`]),
    '',
  ]
}

function renderProof(proof: ProofFile): string[] {
  const verdict = proof.passed ? '**passed**' : '**FAILED**'
  const tests = Object.entries(proof.tests ?? {})
  if (tests.length === 0) {
    return [`### Proof: ${verdict}`, '', `${proof.trials} of ${proof.required} required runs, ${proof.failures} failed (required from ${code(proof.required_from)}).`, '']
  }
  const rows = tests.map(([id, p]) => [code(id), p.status === 'ran' ? proofRunsText(p.trials, p.required) : p.status, String(p.failures), p.passed ? 'passed' : 'FAILED'])
  return [`### Proof: ${verdict}`, '', ...table(['Test', 'Runs', 'Failed', 'Result'], rows), '', `Required runs from ${code(proof.required_from)}.`, '']
}
