import { z } from 'zod'

/** Schemas shared by the command-mode and test-mode artifacts. */

const count = z.number().int().nonnegative()
const probability = z.number().min(0).max(1)

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

