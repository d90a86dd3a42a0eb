import * as z from '../_zod.js'
import { count, measured, probability } from './_common.js'

/**
 * conditions.json (docs/contracts.md §13): each test that failed at least once, measured under the
 * conditions the rounds varied, every pair compared by Fisher's exact test and written in full.
 */

export const RoundConditionSchema = z
  .enum(['base', 'serial', 'load'])
  .describe('base: as configured (parallel files); serial: one worker, files one after another; load: as configured, with the machine kept busy.')

const side = z.object({ label: z.string(), ...measured })

export const ComparisonSchema = z.object({
  kind: z.enum(['divergence', 'load', 'gap']).describe('divergence: parallel (base) rounds vs serial ones; load: loaded vs base; gap: fast vs gapped repetitions.'),
  a: side.describe('The condition suspected: parallel, loaded, or fast; the aggregate of all its rounds.'),
  b: side.describe('The condition compared against: serial, base, or gapped; the aggregate of all its rounds.'),
  rounds: z
    .object({ a: z.object({ trials: count, failures: count }), b: z.object({ trials: count, failures: count }) })
    .optional()
    .describe('divergence and load: the rounds of each side, and those in which some execution failed. A condition holds for a whole round, so p_value compares rounds.'),
  p_value: probability.describe("Fisher's exact test, two-sided: on the rounds when `rounds` is given, else on the two sides' failures and passes."),
  significant: z.boolean().describe('p < 1 - confidence, decided exactly.'),
  tag: z.enum(['parallel-only', 'load-only']).nullable().describe('Given only when significant and side b never failed.'),
  trials_to_see: count.nullable().describe('Not significant: rounds (with `rounds`; else executions) per side at which these rates would be; null if equal or beyond 2000.'),
  note: z.string(),
})

const order = z.object({ round: z.number().int().positive(), seed: z.number().nullable() })

export const OrderFindingSchema = z.object({
  culprit: z.string().describe('The test whose running earlier (same file, same worker, same round) the failures follow most closely.'),
  tied: z
    .array(z.string())
    .optional()
    .describe(
      'Other tests with the very counts of the culprit (rounds after it and otherwise, failed and passed alike): these rounds support each as much as the culprit, so any of them may be the one; more shuffled rounds may tell them apart, and `together` says when none can.',
    ),
  together: z
    .object({ kind: z.enum(['block', 'blocks', 'tests']), scope: z.array(z.string()) })
    .optional()
    .describe(
      "Present when the culprit and `tied` run on the same side of this test in every order the runner's shuffle can draw, so no number of rounds tells them apart: `block`, all in the describe block `scope` (suite names from the outside in), which a shuffle keeps whole; `blocks`, in the describe blocks directly in `scope`, which Vitest runs apart from the tests beside them; `tests`, the tests directly in `scope` ([] is the file's top level), which Vitest runs apart from the blocks beside them.",
    ),
  direction: z
    .enum(['fails-after', 'needs'])
    .optional()
    .describe(
      '`fails-after`: this test failed more often in rounds where the culprit ran before it (state the culprit leaves breaks it); `needs`: more often in rounds where it did not (it needs state the culprit leaves). Files written before this field: `fails-after`.',
    ),
  after_culprit: z.object({ trials: count, failures: count }).describe('Executions of this test in rounds where the culprit ran before it.'),
  otherwise: z.object({ trials: count, failures: count }),
  after_culprit_rounds: z
    .object({ trials: count, failures: count })
    .optional()
    .describe('Rounds in which this test ran with the culprit before it, and those in which some execution failed: the order is drawn once per round, so p_value compares rounds.'),
  otherwise_rounds: z.object({ trials: count, failures: count }).optional().describe('The other rounds in which this test ran, and those in which it failed.'),
  p_value: probability.describe("Fisher's exact test, two-sided, after_culprit_rounds against otherwise_rounds (files written before those fields: the executions)."),
  significant: z.boolean().describe('p_value < (1 - confidence) / hypotheses, exactly (Bonferroni over the whole run).'),
  hypotheses: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Culprits tried over the whole run (every test that failed, each earlier test that ran before it in some rounds and not in others): the chance of naming any innocent culprit in the run stays below 1 - confidence.'),
  adjusted_p_value: probability.optional().describe('min(1, p_value × hypotheses): compared with 1 - confidence.'),
  tag: z.literal('order-dependent').nullable(),
  failing_order: order
    .nullable()
    .describe('A round where this test failed with the culprit before it (`needs`: without it): replay with --flaky-seed <seed>.'),
  passing_order: order.nullable().describe('A round where this test passed without the culprit before it (`needs`: with it).'),
  note: z.string(),
})

export const ConditionsTestSchema = z.object({
  comparisons: z.array(ComparisonSchema),
  order: OrderFindingSchema.nullable().describe('Only with --flaky-shuffle; null when no other test ever ran before it in its file.'),
  tags: z.array(z.enum(['parallel-only', 'load-only', 'order-dependent'])),
})

export const ConditionsFileSchema = z.object({
  schema_version: z.literal(1),
  command: z.string(),
  confidence: probability,
  rounds: z
    .array(z.object({ round: z.number().int().positive(), condition: RoundConditionSchema, seed: z.number().nullable() }))
    .describe('Every round that ran, in order: conditions alternate round by round, so a change of machine load over time is spread over all of them.'),
  load_procs: count.nullable().describe('Spinning processes during load rounds.'),
  tests: z.record(z.string(), ConditionsTestSchema),
})
export type ConditionsFile = z.infer<typeof ConditionsFileSchema>
export type RoundCondition = z.infer<typeof RoundConditionSchema>
export type Comparison = z.infer<typeof ComparisonSchema>
export type OrderFinding = z.infer<typeof OrderFindingSchema>

/**
 * The conditions a run met, including those flakeproof did not create (docs/contracts.md §13.5):
 * what a proof compares with its measurement's, to say whether it was *weaker*.
 */
export const RunStressSchema = z.object({
  load_per_cpu: z
    .number()
    .nonnegative()
    .nullable()
    .optional()
    .describe("Tasks ready to run per CPU available, the mean of samples every half second over the run (the run's own processes left out, those it spins on purpose counted); null: not readable here."),
  cpus: z.number().positive().optional().describe('CPUs available to the run: the limit of the cgroup that sets one (cpu.max, cpu.cfs_quota_us), else the machine\'s.'),
  load_source: z
    .enum(['cgroup', 'proc', 'loadavg'])
    .optional()
    .describe('cgroup: the tasks of the cgroup that limits the CPUs; proc: the whole system (/proc/loadavg); loadavg: the one-minute load average (no /proc).'),
  load_samples: count.optional().describe('Samples the load per CPU is the mean of.'),
  workers: z.number().int().positive().nullable().optional().describe("Test workers at once: the runner's maximum, at most one per file run."),
  concurrent_runs: z
    .number()
    .int()
    .positive()
    .nullable()
    .optional()
    .describe('flakeproof runs of the same files at once, this one included, the most seen (markers in <root>/.flakeproof/running/); null: the marker could not be written.'),
  pool: z.string().nullable().optional().describe("How the runner ran the files: Vitest's pool (forks, threads, vmThreads, …), Jest's workers or in-band."),
  isolate: z.boolean().nullable().optional().describe('Each test file in a fresh module environment.'),
  spinning: count.optional().describe('Processes flakeproof kept spinning for the whole run (--flaky-load-procs without load rounds).'),
  throttled: z
    .number()
    .min(0)
    .max(1)
    .nullable()
    .optional()
    .describe("Where a cgroup limits the CPUs: the share of its quota periods over the run in which it was throttled (cpu.stat's nr_throttled of nr_periods, two decimals); null: no period elapsed or not readable."),
})
export type RunStress = z.infer<typeof RunStressSchema>

/** One way a proof was easier than the measurement it proves, with both values and how to match it. */
export const WeaknessSchema = z.object({
  condition: z.enum(['workers', 'concurrent_runs', 'pool', 'isolate', 'load_per_cpu']),
  measured: z.union([z.number(), z.string(), z.boolean()]),
  proof: z.union([z.number(), z.string(), z.boolean()]),
  note: z.string(),
})
export type Weakness = z.infer<typeof WeaknessSchema>

/**
 * policy.json `measured_under`: the conditions of the measurement the policy came from, so a proof
 * can replay them (`--flaky-proof`), or say it did not and fail; and the stress it met, so a proof
 * under less says it is weaker.
 */
export const MeasuredUnderSchema = z.object({
  rounds: z.number().int().positive().describe('Whole-run rounds per condition (1: one run).'),
  repeat: z.number().int().positive().describe('Repetitions of each test per round.'),
  conditions: z.array(RoundConditionSchema).describe('Conditions the rounds alternated.'),
  load_procs: count.nullable(),
  shuffle: z.boolean().describe('The order of tests was reseeded every round.'),
  seeds: z.array(z.number()).describe('Seeds the order of tests ran with (one per round when shuffled).'),
  gap_ms: count.nullable().describe('Rest before each gapped repetition when observed; null when not observed.'),
  ...RunStressSchema.shape,
})
export type MeasuredUnder = z.infer<typeof MeasuredUnderSchema>

/** Every test an order finding names: the culprit first, then those the rounds cannot tell from it. */
export function culpritsOf(order: Pick<OrderFinding, 'culprit' | 'tied'>): string[] {
  return [order.culprit, ...(order.tied ?? [])]
}

/** What a side of a comparison counts: rounds (a condition or an order holds for a whole round) or executions. */
export type CountUnit = 'rounds' | 'executions'

/**
 * The two sides an order finding compares, and what they count: rounds (the order is drawn once per
 * round), or executions in files written before the rounds were kept.
 */
export function orderSides(order: OrderFinding): { after: { trials: number; failures: number }; otherwise: { trials: number; failures: number }; unit: CountUnit } {
  if (order.after_culprit_rounds && order.otherwise_rounds) return { after: order.after_culprit_rounds, otherwise: order.otherwise_rounds, unit: 'rounds' }
  return { after: order.after_culprit, otherwise: order.otherwise, unit: 'executions' }
}

/** The two sides a comparison tested, and what they count: rounds for a condition of whole rounds, else executions. */
export function comparisonSides(comparison: Comparison): { a: { trials: number; failures: number }; b: { trials: number; failures: number }; unit: CountUnit } {
  return comparison.rounds ? { ...comparison.rounds, unit: 'rounds' } : { a: comparison.a, b: comparison.b, unit: 'executions' }
}
