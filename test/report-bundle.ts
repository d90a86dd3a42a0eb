import type { ReportBundle } from '../src/artifacts/bundle.js'
import type { ConditionsFile } from '../src/artifacts/conditions-schema.js'
import { ExecutionCollector, type ExecutionSummaries } from '../src/artifacts/html-executions.js'
import type { TestRate } from '../src/artifacts/test-schemas.js'
import { proofFile, rateFile, testRate } from './rate-file.js'

/**
 * A test-mode bundle with every part a report can show: a test of each verdict (one the schema does
 * not know yet, read as JSON, as a newer flakeproof would write it), an order-dependent one,
 * conditions, observation with interleaved repetitions, policy and a proof with a failure, errors
 * outside any test. The numbers are only drawn, not checked here: Wilson intervals are hand
 * computations at 95% (4/20: [0.0807, 0.4160]; 5/20: [0.1119, 0.4687]; 19/20: [0.7639, 0.9911];
 * 20/20: [0.8389, 1]; 0/20: [0, 0.1611]; 0/0: [0, 1]).
 */
export const IDS = {
  flaky: 'tests/a.test.ts > cache > refreshes',
  order: 'tests/a.test.ts > reads the shared file',
  leaks: 'tests/a.test.ts > registers a plugin once',
  broken: 'tests/b.test.ts > always fails',
  partial: 'tests/b.test.ts > cut short',
  undetermined: 'tests/c.test.ts > maybe',
  unknown: 'tests/c.test.ts > from the future',
  stable: 'tests/c.test.ts > fine',
} as const

/** A verdict no flakeproof knows: shown as the word rate.json holds. */
export const UNKNOWN_VERDICT = 'mystery'

/** Two verdicts a newer schema might add: parsed from JSON, as `flakeproof report` reads a newer rate.json. */
const newerVerdicts: TestRate[] = JSON.parse(
  JSON.stringify([
    { ...testRate('maybe', 3, 0.0524, 0.3604, 'flaky'), id: IDS.undetermined, file: 'tests/c.test.ts', verdict: 'undetermined' },
    { ...testRate('from the future', 2, 0.0279, 0.3010, 'flaky'), id: IDS.unknown, file: 'tests/c.test.ts', verdict: UNKNOWN_VERDICT },
  ]),
)

const withId = (id: string, test: TestRate): TestRate => ({ ...test, id, file: id.split(' > ')[0] ?? test.file, name: id.split(' > ').slice(1).join(' > ') })

export function fullTestBundle(): ReportBundle {
  const tests: TestRate[] = [
    {
      ...withId(IDS.flaky, testRate('x', 4, 0.0807, 0.416, 'flaky')),
      independence: { runs: 9, expected_runs: 7.4, p_value: 0.0433, method: 'exact', pattern: 'regular', switch_at: null, switched_to: null, period: 5 },
    },
    withId(IDS.order, testRate('x', 5, 0.1119, 0.4687, 'flaky')),
    {
      ...withId(IDS.leaks, testRate('x', 19, 0.7639, 0.9911, 'non-idempotent')),
      independence: { runs: 2, expected_runs: 2.9, p_value: 0.1, method: 'exact', pattern: 'one-switch', switch_at: 2, switched_to: 'failed', period: null },
    },
    withId(IDS.broken, testRate('x', 20, 0.8389, 1, 'broken')),
    { ...withId(IDS.partial, testRate('x', 0, 0, 1, 'partial', 0)), rate: 0 },
    ...newerVerdicts,
    withId(IDS.stable, testRate('x', 0, 0, 0.1611, 'stable')),
  ]
  const conditions: ConditionsFile = {
    schema_version: 1,
    command: 'vitest run -- --flaky-rounds 4 --flaky-shuffle',
    confidence: 0.95,
    rounds: [1, 2, 3, 4].map((round) => ({ round, condition: round % 2 ? 'base' : 'serial', seed: 100 + round })),
    load_procs: null,
    tests: {
      [IDS.order]: {
        comparisons: [
          {
            kind: 'divergence',
            a: { label: 'parallel (as configured)', trials: 10, failures: 3, rate: 0.3, ci_low: 0.1078, ci_high: 0.6032 },
            b: { label: 'serial', trials: 10, failures: 2, rate: 0.2, ci_low: 0.0567, ci_high: 0.5098 },
            rounds: { a: { trials: 2, failures: 1 }, b: { trials: 2, failures: 1 } },
            p_value: 1,
            significant: false,
            tag: null,
            trials_to_see: null,
            note: 'No difference found with these counts (parallel (as configured) failed in 1 of 2 rounds, serial in 1 of 2, p = 1.00); at these rates no practical number of rounds would show one.',
          },
        ],
        order: {
          culprit: 'tests/a.test.ts > writes the shared file',
          after_culprit: { trials: 10, failures: 5 },
          otherwise: { trials: 10, failures: 0 },
          after_culprit_rounds: { trials: 10, failures: 5 },
          otherwise_rounds: { trials: 10, failures: 0 },
          p_value: 0.0325,
          significant: true,
          tag: 'order-dependent',
          failing_order: { round: 2, seed: 102 },
          passing_order: { round: 1, seed: 101 },
          note: 'Fails when tests/a.test.ts > writes the shared file runs before it (failed in 5/10 rounds after it, 0/10 otherwise, p = 0.0325): state it leaves (module, global, mock, timer) breaks this test. Replay a failing order: --flaky-seed 102. A passing order: --flaky-seed 101.',
        },
        tags: ['order-dependent'],
      },
    },
  }
  const fast = { trials: 20, failures: 4, rate: 0.2, ci_low: 0.0807, ci_high: 0.416, gap_ms: 0 }
  const slow = { trials: 5, failures: 0, rate: 0, ci_low: 0, ci_high: 0.4345, gap_ms: 50 }
  return {
    rate: rateFile(
      { trials: 20, failures: 20, rate: 1, ci_low: 0.8389, ci_high: 1 },
      { command: 'vitest run -- --flaky-repeat 20', verdict: 'broken', complete: false, tests, run_errors: [{ project: null, file: 'tests/d.test.ts', error: 'SyntaxError: Unexpected token' }] },
    ),
    onlyWhenFail: {
      schema_version: 1,
      trials: 20,
      failures: 20,
      exit_codes_on_failure: [],
      exit_codes_on_success: [],
      token: null,
      token_candidates: [],
      failure_trials: [],
      predicates: [],
      tests: {
        [IDS.flaky]: {
          trials: 20,
          failures: 4,
          token: 'STALE',
          token_candidates: ['STALE'],
          failure_trials: [5, 10, 15, 20],
          errors_on_failure: ['STALE cache entry on call 5'],
          predicates: [{ predicate: 'output contains STALE', true_in_failures: 4, true_in_successes: 0, observed_in: 20, failure: 1, context: 0.2, increase: 0.8, importance: 0.889 }],
        },
      },
    },
    observer: {
      schema_version: 1,
      command: 'vitest run (1 observed test)',
      fast,
      slow,
      confidence: 0.95,
      p_value: 0.553,
      changed: false,
      note: 'The slow run saw no failure, but 5 slow trials are too few to tell it from the fast rate (fast 20.0% (4/20) at 0 ms gaps, slow 0.0% (0/5) at 50 ms gaps, p = 0.553); run more slow trials before drawing a conclusion.',
      tests: {
        [IDS.flaky]: {
          fast,
          slow,
          p_value: 0.553,
          changed: false,
          note: 'The slow run saw no failure, but 5 slow trials are too few (…). With time held alike (interleaved fast 1/5 against gapped 0/5, p = 1.00): no difference found with these counts.',
          paired: { trials: 5, failures: 1, rate: 0.2, ci_low: 0.0362, ci_high: 0.6245, gap_ms: 0 },
          paired_p_value: 1,
          drift_p_value: 1,
        },
      },
    },
    policy: {
      schema_version: 1,
      observed_rate: 1,
      trials: 20,
      failures: 20,
      basis: 'ci_low',
      confidence: 0.95,
      green_runs_required: 14,
      retry_budget: 2,
      quarantine_after: 1,
      notes: [],
      tests: { [IDS.flaky]: { observed_rate: 0.2, trials: 20, failures: 4, verdict: 'flaky', green_runs_required: 14, retry_budget: 2, quarantine_after: 1 } },
    },
    proof: proofFile(
      { required: 14, trials: 14, failures: 1, ci_low: 0.0127, ci_high: 0.3147, passed: false, failure_trials: [3] },
      { [IDS.flaky]: { required: 14, trials: 14, failures: 1, passed: false, failure_trials: [3], status: 'ran' }, [IDS.broken]: { required: 3, trials: 0, failures: 0, passed: false, failure_trials: [], status: 'not-selected' } },
    ),
    conditions,
  }
}

/**
 * facts.jsonl of that bundle, as the page reads it: every test that failed, failing the trials
 * listed, with an error, a stack through the test file and node_modules, and output.
 */
export function fullExecutions(bundle: ReportBundle, wanted: readonly string[]): ExecutionSummaries {
  const collector = new ExecutionCollector(wanted)
  const failing: Record<string, (trial: number) => boolean> = {
    [IDS.flaky]: (trial) => trial % 5 === 0,
    [IDS.order]: (trial) => trial > 10 && trial % 2 === 0,
    [IDS.leaks]: (trial) => trial > 1,
    [IDS.broken]: () => true,
    [IDS.undetermined]: (trial) => trial % 7 === 0,
    [IDS.unknown]: (trial) => trial % 10 === 0,
  }
  for (const test of bundle.rate.tests ?? []) {
    const fails = failing[test.id] ?? (() => false)
    for (let trial = 1; trial <= test.trials; trial++) {
      const failed = fails(trial)
      const error = failed ? `STALE cache entry on call ${trial}` : null
      const stack = `Error: STALE cache entry on call ${trial}\n    at /proj/${test.file}:7:11\n    at runTest (/proj/node_modules/@vitest/runner/dist/index.js:1:1)`
      const fact = { trial, test_id: test.id, error, ...(failed ? { stack } : {}), stdout: `call ${trial}\n`, stderr: '', worker: '1', order: 2, repeat: trial - 1, previous_test: null }
      collector.add({ subject: test.id, trial, failed, elapsedMs: trial, mode: 'fast', error, fact })
    }
  }
  const summaries = collector.summarise()
  const proof = new ExecutionCollector(wanted)
  const error = 'STALE cache entry on call 3'
  proof.add({ subject: IDS.flaky, trial: 3, failed: true, elapsedMs: 2, mode: 'proof', error, fact: { trial: 3, error, stdout: '', stderr: 'warning: retrying\n', worker: '1', order: 2 } })
  return {
    ...summaries,
    proof: proof.summarise().subjects,
    source: { reportDir: '/proj/.flakeproof', cwd: '/proj' },
    declared: new Map([[IDS.flaky, { file: '/proj/tests/a.test.ts', line: 6 }]]),
  }
}
