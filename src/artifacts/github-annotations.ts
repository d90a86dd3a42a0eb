import { stripAnsi } from '../core/ansi.js'
import type { Annotation } from '../core/workflow-command.js'
import type { ReportBundle } from './bundle.js'
import { brokenAsUsual } from './independence-text.js'
import type { TestRate } from './test-schemas.js'

/** Where a test is, for GitHub: its file relative to the repository root and, when known, its line. */
export interface TestLocation {
  file: string
  line?: number
}

/**
 * The annotations of one run (docs/contracts.md §8): a warning per flaky (or non-idempotent, or undetermined) test, an
 * error per broken test and per test whose proof failed, each at the test's file and line when
 * `locate` finds them; in a test-mode proof run, only the proof's. In command mode there is no file:
 * one annotation for the command. Stable and partial tests get none: a stable test has nothing to
 * say, and a partial one is in the summary.
 */
export function renderAnnotations(bundle: Partial<ReportBundle>, locate: (test: TestRate) => TestLocation | undefined): Annotation[] {
  const { rate, proof, policy, onlyWhenFail } = bundle
  const annotations: Annotation[] = []
  if (rate?.tests === undefined && rate && rate.failures > 0) {
    annotations.push({
      level: rate.verdict === 'broken' ? 'error' : 'warning',
      title: `flakeproof: ${rate.verdict} command`,
      message: `${rate.command} failed ${counts(rate)}`,
    })
  }
  const byId = new Map((rate?.tests ?? []).map((t) => [t.id, t]))
  // A test-mode proof run re-reads the last measurement: its annotations are the proof's alone.
  for (const test of proof?.tests ? [] : (rate?.tests ?? [])) {
    if (test.verdict !== 'flaky' && test.verdict !== 'non-idempotent' && test.verdict !== 'undetermined' && test.verdict !== 'broken') continue
    const whose = bundle.attribution?.tests[test.id]
    if (whose) {
      // A red everyday run: whose failure it is says more than "failed 1 of 1 times".
      annotations.push({ level: whose.call === 'known-flake' ? 'warning' : 'error', title: `flakeproof: ${whose.call} ${test.name}`, message: `${test.id}: ${whose.text}`, ...locate(test) })
      continue
    }
    const required = policy?.tests?.[test.id]?.green_runs_required
    const firstError = onlyWhenFail?.tests?.[test.id]?.errors_on_failure[0]
    const message = [
      `${test.id} failed ${counts(test)}.`,
      test.verdict === 'broken'
        ? brokenAsUsual(test.plain_evidence, rate?.measured_under)
          ? 'It failed every repetition, and every run of its file as usual: fix it as a normal bug.'
          : 'It failed every repetition: fix it as a normal bug, unless it passes when its file runs as usual (then the repetitions broke it).'
        : (test.plain_evidence?.note ?? (required === undefined ? '' : `A fix must pass ${required} runs in a row.`)),
      firstError === undefined ? '' : `First error: ${stripAnsi(firstError).split('\n')[0]?.slice(0, 300)}`,
    ]
    annotations.push({
      level: test.verdict === 'broken' ? 'error' : 'warning',
      title: `flakeproof: ${test.verdict} test ${test.name}`,
      message: message.filter((part) => part !== '').join(' '),
      ...locate(test),
    })
  }
  for (const [id, proven] of Object.entries(proof?.tests ?? {})) {
    if (proven.passed) continue
    const test = byId.get(id)
    const why = proven.status === 'ran' ? `${proven.failures} of ${proven.trials} runs failed (${proven.required} required)` : `the test was ${proven.status}`
    annotations.push({ level: 'error', title: `flakeproof: proof failed ${test?.name ?? id}`, message: `${id}: proof failed: ${why}.`, ...(test ? locate(test) : {}) })
  }
  if (proof && proof.tests === undefined && !proof.passed) {
    annotations.push({ level: 'error', title: 'flakeproof: proof failed', message: `${proof.command}: ${proof.failures} of ${proof.trials} runs failed (${proof.required} required).` })
  }
  return annotations
}

// --- internal ---

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`

function counts(m: { failures: number; trials: number; rate: number; ci_low: number; ci_high: number }): string {
  return `${m.failures} of ${m.trials} times (rate ${pct(m.rate)}, interval ${pct(m.ci_low)} – ${pct(m.ci_high)})`
}
