import * as z from '../_zod.js'
import { DIALECTS } from '../core/junit-dialect.js'
import { MeasuredUnderSchema, RunStressSchema, WeaknessSchema } from './conditions-schema.js'
import {
  RunErrorSchema,
  TestObserverSchema,
  TestOnlyWhenFailSchema,
  TestPlanSchema,
  TestPolicySchema,
  TestProofSchema,
  TestRateSchema,
  TestSummarySchema,
  testMap,
} from './test-schemas.js'
import {
  count,
  failuresWithinTrials,
  IndependenceSchema,
  measured,
  milliseconds,
  OtherFailuresSchema,
  OutcomeSchema,
  PlanningBasisSchema,
  probability,
  RankedPredicateSchema,
  VerdictSchema,
} from './_common.js'

export { IndependenceSchema, OutcomeSchema, RankedPredicateSchema, VerdictSchema }

/**
 * One schema per file flakeproof writes (docs/contracts.md §3). Every JSON object carries
 * `schema_version: 1`; facts.jsonl lines stay lean and carry none. Readers ignore unknown keys, so
 * later versions may add fields; removing or renaming one is a new schema_version.
 */

const schemaVersion = z.literal(1).describe('Bumped only when a field is removed or changes meaning.')

/** rate.json (docs/contracts.md §3): how often the command or each test failed, with its Wilson interval and verdict. */
export const RateFileSchema = z.object({
  schema_version: schemaVersion,
  command: z.string(),
  ...measured,
  gap_ms: milliseconds.describe('Rest before each trial, the first included.'),
  confidence: z.number().gt(0).lt(1).describe('Confidence of the interval.'),
  z: z.number().positive().describe('Normal quantile used: exactly 1.96 at 95%.'),
  verdict: VerdictSchema,
  timed_out: count.describe('Trials killed by --timeout-ms (counted as failures).'),
  timeout_ms: milliseconds.nullable(),
  jobs: z.number().int().positive().describe('Trials run at once; above 1, timing differs from a lone run.'),
  complete: z.boolean().describe('False when interrupted before every requested trial ran.'),
  requested_trials: count,
  started_at: z.iso.datetime(),
  duration_ms: milliseconds,
  tests: z.array(TestRateSchema).optional().describe('Test mode: one entry per test.'),
  independence: IndependenceSchema.nullable()
    .optional()
    .describe('Runs test on the trial order; null when trials overlapped (--jobs > 1), so their order is no sequence.'),
  run_errors: z.array(RunErrorSchema).optional().describe('Test mode: errors outside any test (import, hooks, unhandled); any makes `complete` false.'),
  signature_filter: z.string().optional().describe('--signature / --flaky-signature: only failures whose signature matched it were counted.'),
  other_failures: OtherFailuresSchema.optional().describe('Command mode with --signature: the failures left out.'),
  reports: z.enum(['junit', 'libtest']).optional().describe('Per-test results read from these reports (`flakeproof repeat`, `ingest`), not from a Vitest run.'),
  runner: z
    .object({ name: z.string().min(1), version: z.string().optional() })
    .optional()
    .describe('Test mode: what ran the tests (`vitest`, `jest`; for reports, their producer when known) and its version: suggested commands are in its syntax.'),
  producers: z
    .array(z.enum(DIALECTS))
    .optional()
    .describe('`repeat`/`ingest`: the producers the reports were recognised as written by (docs/other-runners.md), which decide what their attributes mean.'),
  run_id: z.string().optional().describe('The run that wrote this folder, new for each; a copy of the folder keeps it, so `merge` counts it once.'),
  merged_runs: z.array(z.string()).optional().describe('`merge`: the runs added up (run ids, or `sha256:` of a rate.json without one), so a later merge counts none twice.'),
  measured_under: MeasuredUnderSchema.optional().describe(
    'The conditions of the measurement and the stress it met (load per CPU, workers, concurrent runs, pool, isolation): policy.json and the committed policy keep them, and a proof under less is weaker.',
  ),
}).superRefine(failuresWithinTrials)
/** rate.json, as RateFileSchema reads it. */
export type RateFile = z.infer<typeof RateFileSchema>

/** runs_needed.json: consecutive passes that prove a fix, per confidence, and the rate they were planned from. */
export const RunsNeededFileSchema = z.object({
  schema_version: schemaVersion,
  observed_rate: probability,
  trials: count.nullable().describe('null when planned from a bare --rate.'),
  failures: count.nullable(),
  basis: PlanningBasisSchema,
  planned_rate: probability.describe('The rate the runs were planned from (see basis).'),
  table: z.array(z.object({ confidence: z.number().gt(0).lt(1), runs: z.number().int().positive() })),
  chosen: z.object({ confidence: z.number().gt(0).lt(1), runs: z.number().int().positive() }),
  note: z.string().nullable(),
  tests: testMap(TestPlanSchema).optional(),
})
/** runs_needed.json, as RunsNeededFileSchema reads it. */
export type RunsNeededFile = z.infer<typeof RunsNeededFileSchema>

/** One line of facts.jsonl in command mode: one trial, its exit, output (capped) and timing. */
export const FactSchema = z.object({
  trial: z.number().int().positive(),
  exit_code: z.number().int().nullable().describe('null when the trial ended by a signal.'),
  outcome: OutcomeSchema,
  elapsed_ms: milliseconds,
  stderr: z.string().describe('Captured stderr, capped per trial (head and tail kept, a marker where cut).'),
  stdout: z.string(),
  signal: z.string().nullable(),
  timed_out: z.boolean(),
  started_at: z.iso.datetime(),
  offset_ms: milliseconds.describe('Start of this trial, ms after the run started.'),
  gap_ms: milliseconds,
  worker: z.number().int().positive().describe('Which of the --jobs slots ran it.'),
  concurrent: count.describe('Other trials still running when this one started.'),
  stdout_bytes: count.describe('Bytes printed, before capping.'),
  stderr_bytes: count,
  origin: z.string().optional().describe('`flakeproof merge`: the folder this trial was read from (its trial number there is renumbered here).'),
  excluded: z.literal(true).optional().describe('--signature: a failure of another signature, left out of the counts.'),
  signature: z.string().optional().describe('Failed trials: the first error-looking line of stderr, normalised, and its innermost user frame (docs/attribution.md).'),
})
/** One command-mode fact line, as FactSchema reads it. */
export type Fact = z.infer<typeof FactSchema>

/** only_when_fail.json: what is true in the failing trials and in no passing one (exit codes, token, predicates). */
export const OnlyWhenFailFileSchema = z.object({
  schema_version: schemaVersion,
  trials: count,
  failures: count,
  exit_codes_on_failure: z.array(z.number().int().nullable()),
  exit_codes_on_success: z.array(z.number().int().nullable()),
  token: z.string().nullable().describe('A word in the stderr of every failure and the output of no success.'),
  token_candidates: z.array(z.string()),
  failure_trials: z.array(z.number().int().positive()),
  predicates: z.array(RankedPredicateSchema).describe('Liblit et al. 2005 ranking, most important first.'),
  tests: testMap(TestOnlyWhenFailSchema).optional(),
})
/** only_when_fail.json, as OnlyWhenFailFileSchema reads it. */
export type OnlyWhenFailFile = z.infer<typeof OnlyWhenFailFileSchema>

const observation = z.object({ ...measured, gap_ms: milliseconds })

/** observer.json: fast against gapped trials, Fisher's exact test on their failures, and whether slowing down changed it. */
export const ObserverFileSchema = z.object({
  schema_version: schemaVersion,
  command: z.string(),
  fast: observation,
  slow: observation,
  confidence: z.number().gt(0).lt(1),
  p_value: probability.describe("Fisher's exact test, two-sided, fast vs slow."),
  changed: z.boolean().describe('p_value < 1 - confidence; with interleaved repetitions, paired_p_value < 1 - confidence.'),
  note: z.string(),
  paired: observation.optional().describe('The fast trials interleaved with the gapped ones, a seeded coin deciding which of each pair is gapped.'),
  paired_p_value: probability.optional().describe("Fisher's exact test, paired fast against slow: the gap's effect with time held alike (what `changed` says)."),
  drift_p_value: probability.optional().describe('Fisher, the first fast block against paired fast: a change here is time or load, not the gap.'),
  assignment_seed: z.number().int().nonnegative().optional().describe('Seed of the coin that made each gapped/fast pair: --flaky-seed when given, else drawn and recorded here.'),
  tests: testMap(TestObserverSchema).optional(),
})
/** observer.json, as ObserverFileSchema reads it. */
export type ObserverFile = z.infer<typeof ObserverFileSchema>

/** policy.json: green runs a fix must pass, the retry budget and the quarantine threshold, from the measured rate. */
export const PolicyFileSchema = z.object({
  schema_version: schemaVersion,
  observed_rate: probability,
  trials: count.nullable().describe('null when decided from a bare --rate.'),
  failures: count.nullable(),
  basis: PlanningBasisSchema,
  confidence: z.number().gt(0).lt(1),
  green_runs_required: z.number().int().positive(),
  retry_budget: count.nullable().describe('null: the test fails every time and no retry helps.'),
  quarantine_after: z.number().int().positive().nullable(),
  notes: z.array(z.string()),
  tests: testMap(TestPolicySchema).optional(),
  measured_under: MeasuredUnderSchema.optional().describe('The conditions of the measurement, which --flaky-proof replays, and the stress it met, which a proof must match.'),
})
/** policy.json, as PolicyFileSchema reads it. */
export type PolicyFile = z.infer<typeof PolicyFileSchema>

/** proof.json: the runs of the fixed command or tests, and whether they prove the fix. */
export const ProofFileSchema = z.object({
  schema_version: schemaVersion,
  command: z.string(),
  required: z.number().int().positive(),
  required_from: z.string().describe('--runs, or the plan or policy file it was read from.'),
  ...measured,
  confidence: z.number().gt(0).lt(1).optional().describe('Confidence of the interval (ci_low, ci_high).'),
  passed: z.boolean().describe('failures = 0 and trials >= required.'),
  failure_trials: z.array(z.number().int().positive()),
  complete: z.boolean(),
  tests: testMap(TestProofSchema).optional(),
  unreproduced: z
    .array(z.string())
    .optional()
    .describe('Conditions of the measurement this proof did not replay (policy.json measured_under): a proof that leaves any out fails.'),
  ran_under: RunStressSchema.optional().describe("The stress this proof met, compared with the measurement's measured_under."),
  weaker: z
    .array(WeaknessSchema)
    .optional()
    .describe('How this proof was easier than the measurement (fewer workers or concurrent runs, another pool or isolation, load per CPU lower by more than 0.5): it releases no quarantine, and fails when strict.'),
  strict: z.boolean().optional().describe('--flaky-proof-strict or the committed policy\'s proof_strict: a weaker proof fails.'),
})
/** proof.json, as ProofFileSchema reads it. */
export type ProofFile = z.infer<typeof ProofFileSchema>

/** summary.json: the headline numbers of every file in one place, null where a step has not run. */
export const SummaryFileSchema = z.object({
  schema_version: schemaVersion,
  command: z.string(),
  ...measured,
  verdict: VerdictSchema,
  token: z.string().nullable(),
  green_runs_required: z.number().int().positive().nullable(),
  retry_budget: count.nullable(),
  quarantine_after: z.number().int().positive().nullable(),
  observer_changed: z.boolean().nullable(),
  observer_p_value: probability.nullable(),
  proof_command: z.string().nullable(),
  proof_trials: count.nullable(),
  proof_failures: count.nullable(),
  proof_passed: z.boolean().nullable(),
  tests: testMap(TestSummarySchema).optional(),
})
/** summary.json, as SummaryFileSchema reads it. */
export type SummaryFile = z.infer<typeof SummaryFileSchema>
