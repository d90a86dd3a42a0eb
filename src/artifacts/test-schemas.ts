import * as z from '../_zod.js'
import {
  count,
  failuresWithinTrials,
  IndependenceSchema,
  measured,
  milliseconds,
  OtherFailuresSchema,
  PlanningBasisSchema,
  probability,
  RankedPredicateSchema,
  VerdictSchema,
} from './_common.js'
import { RoundConditionSchema, WeaknessSchema } from './conditions-schema.js'

/**
 * A local measurement against the history of everyday runs (docs/attribution.md): whether its
 * failures are plausibly the same bug as the history's — the same signatures, and a rate Fisher's
 * exact test does not tell apart.
 */
export const HistoryComparisonSchema = z.object({
  branch: z.string().nullable().describe('The branch whose runs were compared; null: every branch.'),
  runs: count,
  failures: count,
  p_value: probability.describe("Fisher's exact test, two-sided: this measurement's failures/passes against history's failed/passed runs."),
  rate_consistent: z.boolean().describe('p_value >= 1 - confidence: the rates are not told apart.'),
  shared_signatures: z.array(z.string()).describe('Signatures of this measurement history has seen too.'),
  new_signatures: z.array(z.string()).describe('Signatures of this measurement history has never seen.'),
  same_bug: z.boolean().describe('Plausibly the same bug: every local signature seen in history, and the rates consistent.'),
})

/**
 * Test mode (docs/contracts.md §4): the per-test parts of each file. Every JSON file gains an optional
 * `tests` field; the top-level counts of rate.json, runs_needed.json and policy.json are per round
 * (a round fails if any test failed in it).
 */


export const TestModeSchema = z
  .enum(['fast', 'slow', 'proof', 'single', 'paired'])
  .describe('paired: a fast repetition interleaved with the gapped (slow) ones while observing.')

const counts = z.object({ trials: count, failures: count })

export const FreshEvidenceSchema = z
  .object({
    rounds: count.describe('Fresh-state rounds that ran the test, after the measurement.'),
    budget: count.describe('Fresh rounds planned: the fewest whose exact repetition of the switch would be significant.'),
    fresh_first: counts.describe('The first execution in each fresh process.'),
    in_process: counts.describe('The executions after it in the same processes.'),
    p_value: probability.describe("Fisher's exact test, two-sided, fresh_first against in_process."),
    decided: z.enum(['non-idempotent', 'flaky', 'undetermined']),
    note: z.string(),
  })
  .describe('A single switch too likely by chance to decide alone (independence.switch_significant false), decided from fresh processes (docs/contracts.md §5).')
export type FreshEvidence = z.infer<typeof FreshEvidenceSchema>

export const PlainEvidenceSchema = z
  .object({
    rounds: count.describe('Plain runs of its file (each test once, new workers each run) after the measurement.'),
    budget: count.describe('Plain runs planned: the fewest (at least 3) whose passing every time would be significant against the measured copies.'),
    plain: counts.describe('Its execution in each plain run.'),
    control: counts.describe('Its copies in the control: its file run once more with the measured repetitions, under the conditions of the plain runs.'),
    measured: counts.describe('Its measured copies (fast repetitions), every one failed.'),
    p_value: probability.describe("Fisher's exact test, two-sided, plain against measured."),
    decided: z.enum(['non-idempotent', 'broken', 'undetermined']).describe('non-idempotent: significant, every plain run passed and every control copy failed.'),
    note: z.string(),
  })
  .describe('A test that failed every repetition, run again as usual to tell a broken test from one the repetitions break (docs/contracts.md §5).')
export type PlainEvidence = z.infer<typeof PlainEvidenceSchema>

export const GroupSplitSchema = z
  .object({
    by: z.enum(['origin', 'commit']).describe('origin: the merged folders; commit: the commits of its history.'),
    failing: z.array(z.string()),
    passing: z.array(z.string()),
    p_value: probability.describe('The share of the equally likely choices of its failing executions that leave every group all failed or all passed.'),
  })
  .describe('Every group failed all its executions or none, unlikely by chance: the count is no flake rate, so the verdict is partial.')

export const TestRateSchema = z.object({
  id: z.string().describe('[project] [typecheck] relative/file.test.ts > Suite > test (project when named, typecheck for a type test): stable across runs and machines.'),
  project: z.string(),
  file: z.string(),
  name: z.string(),
  ...measured,
  verdict: VerdictSchema,
  independence: IndependenceSchema.optional().describe('Runs test on the order of the fast repetitions.'),
  fresh: z
    .object({ ...measured, failure_rounds: z.array(z.number().int().positive()) })
    .superRefine(failuresWithinTrials)
    .optional()
    .describe('Whole-run rounds only: the first execution of the test in each round, with fresh module state (what one ordinary run sees); failure_rounds are 1-based.'),
  fresh_evidence: FreshEvidenceSchema.optional(),
  plain_evidence: PlainEvidenceSchema.optional(),
  split: GroupSplitSchema.optional(),
  other_failures: OtherFailuresSchema.optional(),
  compared_with_history: HistoryComparisonSchema.optional(),
}).superRefine(failuresWithinTrials)
export type TestRate = z.infer<typeof TestRateSchema>

/**
 * An error Vitest reported outside any test: a file that throws at import, a failing `beforeAll` or
 * `afterAll`, an unhandled error, a typecheck error. It makes the run incomplete: tests it stopped
 * have no numbers, and a report must never call such a run clean.
 */
export const RunErrorSchema = z.object({
  project: z.string().nullable(),
  file: z.string().nullable().describe('Relative to the project root; null for an error no file owns.'),
  error: z.string(),
})
export type RunError = z.infer<typeof RunErrorSchema>

/** One line of facts.jsonl in test mode: one execution of one test. */
export const TestFactSchema = z.object({
  trial: z.number().int().positive().describe('Execution number of this test in this run, from 1.'),
  test_id: z.string(),
  project: z.string().optional().describe("The test's project name; '' when the run has no named project."),
  file: z.string(),
  name: z.string(),
  outcome: z.enum(['passed', 'failed', 'skipped']),
  elapsed_ms: milliseconds,
  error: z.string().nullable(),
  stack: z.string().optional().describe("The failing execution's stack trace as the runner gave it (Vitest), capped; absent when it gave none (Jest puts it in error)."),
  attachments: z
    .array(z.object({ name: z.string(), path: z.string() }))
    .optional()
    .describe("Files the runner kept of this execution (Playwright's trace, screenshot), absolute paths; absent when none."),
  stdout: z.string(),
  stderr: z.string(),
  repeat: count.describe('Repetition index within the run (0-based).'),
  order: z.number().int().positive().describe("Position of the test in its worker's run."),
  previous_test: z.string().nullable(),
  worker: z.string(),
  seed: z.number().nullable(),
  gap_ms: milliseconds,
  mode: TestModeSchema,
  origin: z.string().optional().describe('`flakeproof merge`: the folder this execution was read from (trial and repeat are renumbered here).'),
  round: z.number().int().positive().optional().describe('Whole-run round of this execution (--flaky-rounds), from 1; `repeat` counts within it.'),
  previous_file: z.string().nullable().optional().describe("File of previous_test, relative to its project root: with isolation off, another file's state reaches this one through the worker."),
  condition: RoundConditionSchema.optional().describe('Whole-run rounds only: the condition of its round (conditions.json).'),
  attempt: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('`repeat`/`ingest`: the attempt of the test within its run, from 1 (a report that records retries or repetitions gives several; each attempt is a line and a trial).'),
  excluded: z.literal(true).optional().describe('--flaky-signature: a failure of another signature, left out of the counts.'),
  signature: z.string().optional().describe('Failed executions: the error name and message normalised, and its innermost frame in the user\'s code (docs/attribution.md).'),
})
export type TestFact = z.infer<typeof TestFactSchema>

export const TestPlanSchema = z.object({
  observed_rate: probability,
  trials: count,
  failures: count,
  basis: PlanningBasisSchema,
  planned_rate: probability,
  runs: z.number().int().positive(),
  verdict: VerdictSchema,
})

export const TestOnlyWhenFailSchema = z.object({
  trials: count,
  failures: count,
  token: z.string().nullable(),
  token_candidates: z.array(z.string()),
  failure_trials: z.array(z.number().int().positive()),
  errors_on_failure: z.array(z.string()).describe('Distinct first error messages of failing executions (at most 5).'),
  predicates: z.array(RankedPredicateSchema),
  exact_predicates: z
    .array(z.string())
    .optional()
    .describe('Among the predicates: those true in every failing execution and in no passing one (true_in_failures = failures, true_in_successes = 0).'),
})

const observation = z.object({ ...measured, gap_ms: milliseconds })

export const TestObserverSchema = z.object({
  fast: observation,
  slow: observation,
  p_value: probability,
  changed: z.boolean().describe('p < 1 - confidence: paired_p_value when there are paired repetitions (the randomised comparison), else p_value.'),
  note: z.string(),
  paired: observation.optional().describe('The fast repetitions interleaved with the gapped ones: the same time span and machine load as `slow`.'),
  paired_p_value: probability.optional().describe("Fisher's exact test, paired fast against slow: the gap's effect with time held alike."),
  drift_p_value: probability.optional().describe('Fisher, first fast block against paired fast: a change here is time or load, not the gap.'),
})

export type TestObserver = z.infer<typeof TestObserverSchema>

export const TestPolicySchema = z.object({
  observed_rate: probability,
  trials: count,
  failures: count,
  verdict: VerdictSchema,
  green_runs_required: z.number().int().positive(),
  retry_budget: count.nullable(),
  quarantine_after: z.number().int().positive().nullable(),
})

export const TestProofSchema = z.object({
  required: z.number().int().positive(),
  trials: count,
  failures: count,
  passed: z.boolean(),
  failure_trials: z.array(z.number().int().positive()),
  status: z.enum(['ran', 'not-selected', 'missing']).describe('not-selected: filtered out of this run; missing: its file ran but the test is gone.'),
  weaker: z.array(WeaknessSchema).optional().describe("How this test's proof was easier than its own measurement: it stays quarantined."),
})

export type TestProof = z.infer<typeof TestProofSchema>

export const TestSummarySchema = z.object({
  ...measured,
  verdict: VerdictSchema,
  token: z.string().nullable(),
  green_runs_required: z.number().int().positive().nullable(),
  observer_changed: z.boolean().nullable(),
  proof_trials: count.nullable(),
  proof_failures: count.nullable(),
  proof_passed: z.boolean().nullable(),
})

/** Maps keyed by test id. */
export const testMap = <T extends z.ZodType>(schema: T) => z.record(z.string(), schema)
