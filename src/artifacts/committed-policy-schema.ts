import * as z from '../_zod.js'
import { count, failuresWithinTrials, measured, VerdictSchema } from './_common.js'
import { MeasuredUnderSchema } from './conditions-schema.js'

/**
 * flakeproof.policy.json (docs/contracts.md §9): the policy a team commits and CI enforces. Kept
 * reviewable: tests sorted by id, fields in this order, and nothing that changes without a cause
 * (no "written at"; `quarantine.since` is set once, when the test enters quarantine).
 */

export const QuarantineSchema = z.object({
  since: z.iso.date().describe('Day the test entered quarantine (UTC); unchanged while it stays there.'),
  reason: z.string().describe('Why: the runs that failed beyond the retry budget.'),
  evidence: z.array(z.string()).describe('First error of each run that failed beyond the budget, oldest first.'),
})
/** Why and since when a test is quarantined (a committed policy entry's `quarantine`). */
export type Quarantine = z.infer<typeof QuarantineSchema>

export const PolicyEntrySchema = z
  .object({
    project: z.string(),
    file: z.string(),
    name: z.string(),
    ...measured,
    verdict: VerdictSchema,
    retry_budget: count.nullable().describe("Vitest's `retry` for this test when enforced; null: no retry helps (fix it)."),
    quarantine_after: z.number().int().positive().nullable().describe('Consecutive enforced runs failing beyond the budget before quarantine.'),
    green_runs_required: z.number().int().positive().describe('Passing repetitions a proof must show to clear quarantine.'),
    failed_runs: count.describe('Consecutive enforced runs (recorded with --flaky-update-policy) in which it failed beyond its budget.'),
    quarantine: QuarantineSchema.nullable().describe('null: not quarantined. Cleared only by a passing proof.'),
    measured_under: MeasuredUnderSchema.optional().describe(
      'The conditions and stress of the measurement these numbers came from (rate.json measured_under): a proof under less is weaker and releases no quarantine.',
    ),
  })
  .superRefine(failuresWithinTrials)
/** One test of a committed policy: its measured counts, retry budget, proof runs and quarantine. */
export type PolicyEntry = z.infer<typeof PolicyEntrySchema>

/** The policy file a repository commits (`flakeproof policy --write`): per test id, what CI enforces. */
export const CommittedPolicySchema = z.object({
  schema_version: z.literal(1),
  confidence: z.number().gt(0).lt(1).describe('Confidence of the intervals and of the numbers derived from them.'),
  tests: z.record(z.string(), PolicyEntrySchema).describe('By test id (docs/contracts.md §4), sorted.'),
  proof_strict: z.boolean().optional().describe('true: a proof weaker than the measurement fails, as with --flaky-proof-strict.'),
})
/** A committed policy, as CommittedPolicySchema reads it. */
export type CommittedPolicy = z.infer<typeof CommittedPolicySchema>
