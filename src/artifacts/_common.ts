import * as z from '../_zod.js'

/** Schemas shared by the command-mode and test-mode artifacts. */

export const count = z.number().int().nonnegative()
export const probability = z.number().min(0).max(1)
export const milliseconds = z.number().nonnegative()

/** A failure rate with the trial count beside it and its Wilson interval. */
export const measured = {
  trials: count,
  failures: count,
  rate: probability.describe('failures / trials'),
  ci_low: probability.describe('Wilson interval, lower end'),
  ci_high: probability.describe('Wilson interval, upper end; > 0 even with zero failures'),
}

/** `--flaky-signature` / `--signature`: failures of other signatures, left out of the counts. */
export const OtherFailuresSchema = z
  .object({
    count: count,
    signatures: z.array(z.object({ signature: z.string(), count: count })).describe('Most frequent first.'),
  })
  .describe('Failures whose signature did not match --flaky-signature: not trials of this measurement, reported apart.')

/** observed: the measured rate; ci_high when nothing failed; ci_low when everything failed. */
export const PlanningBasisSchema = z.enum(['observed', 'ci_high', 'ci_low'])

export const OutcomeSchema = z.enum(['passed', 'failed', 'skipped'])
export const VerdictSchema = z
  .enum(['stable', 'flaky', 'broken', 'partial', 'non-idempotent', 'undetermined'])
  .describe(
    'non-idempotent: failed some trials, but the outcome switched once and stayed, unlikely by chance (see independence), so the rate is no failure probability. ' +
      'undetermined: switched once and stayed, but chance explains that too well and no fresh-state evidence decided it: no rate, no cause; the report says what would decide it.',
  )

/** The Wald–Wolfowitz runs test on the trial order (src/core/independence.ts). */
export const IndependenceSchema = z
  .object({
    runs: count.describe('Maximal blocks of equal outcomes: PPFFP has 3.'),
    expected_runs: z.number().positive().describe('1 + 2·failures·passes/trials: the runs a random order averages.'),
    p_value: probability.describe('Two-sided: 2·min(P(R <= runs), P(R >= runs)), at most 1.'),
    method: z.enum(['exact', 'normal']).describe('exact: Swed & Eisenhart distribution; normal: continuity-corrected, above 1000 of each outcome.'),
    pattern: z
      .enum(['independent', 'clustered', 'regular', 'one-switch'])
      .describe('one-switch: passed then failed every later trial (or failed from trial 1, then passed every later one); clustered: failures in bursts; regular: too evenly spread.'),
    switch_at: z.number().int().positive().nullable().describe('one-switch: the first trial of the second block.'),
    switched_to: z.enum(['passed', 'failed']).nullable().describe('one-switch: what every trial from switch_at on did.'),
    period: z.number().int().min(2).nullable().describe('Failures fell exactly every `period` trials (at least three of them), and period_p_value < 1 - confidence.'),
    switch_p_value: probability
      .nullable()
      .optional()
      .describe('one-switch: the share of the C(trials, failures) equally likely orders (outcomes exchangeable) that are a single switch of this shape: 1/10 for FPPPPPPPPP.'),
    switch_significant: z.boolean().optional().describe('switch_p_value < 1 - confidence, exactly: the shape alone makes the verdict non-idempotent.'),
    period_p_value: probability.nullable().optional().describe('Failures exactly every d-th trial for some d: the share of the equally likely orders that are; null when they are not.'),
  })
  .describe('Are the trials independent, as the interval assumes? Runs test on the pass/fail order.')

/** A measurement's failures are some of its trials: one line naming both, never a stack trace. */
export function failuresWithinTrials(value: { trials: number; failures: number }, ctx: z.RefinementCtx): void {
  if (value.failures > value.trials) {
    ctx.addIssue({ code: 'custom', path: ['failures'], message: `${value.failures} is more than trials (${value.trials})` })
  }
}

export const RankedPredicateSchema = z.object({
  predicate: z.string(),
  true_in_failures: count,
  true_in_successes: count,
  observed_in: count,
  failure: probability,
  context: probability,
  increase: z.number().min(-1).max(1),
  importance: z.number().min(0).max(1),
  /**
   * One-sided Fisher p of the predicate holding in this many failures by chance, times the predicates
   * examined for the test (docs/contracts.md §2); listed only below 1 − confidence. Absent in files
   * written before it was.
   */
  p_value: probability.optional(),
  /** `round`: a fact of the whole round (its condition, a test that ran before it), its counts rounds, not executions. */
  unit: z.literal('round').optional().describe('round: a fact of the whole round, counted in rounds (docs/contracts.md §13.2).'),
})

