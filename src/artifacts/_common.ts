import { z } from 'zod'

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

/** observed: the measured rate; ci_high when nothing failed; ci_low when everything failed. */
export const PlanningBasisSchema = z.enum(['observed', 'ci_high', 'ci_low'])

export const OutcomeSchema = z.enum(['passed', 'failed', 'skipped'])
export const VerdictSchema = z.enum(['stable', 'flaky', 'broken', 'partial'])

export const RankedPredicateSchema = z.object({
  predicate: z.string(),
  true_in_failures: count,
  true_in_successes: count,
  observed_in: count,
  failure: probability,
  context: probability,
  increase: z.number().min(-1).max(1),
  importance: z.number().min(0).max(1),
})

