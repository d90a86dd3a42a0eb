import * as z from '../_zod.js'
import { count, probability } from './_common.js'

/**
 * attribution.json (docs/attribution.md): whose failure each failed test of a red run is, with the
 * numbers behind each call, keyed by test id. Written beside the run's other files.
 */

/** Its name in the output folder. */
export const ATTRIBUTION_FILE = 'attribution.json'

export const AttributionCallSchema = z
  .enum(['known-flake', 'new-signature', 'new-failure', 'no-history'])
  .describe('known-flake: fails in history, this way before; new-signature: fails in history, never this way; new-failure: history makes a failure unlikely; no-history: too little history to tell.')

export const PastSignatureSchema = z.object({
  signature: z.string(),
  count: count.describe('Failed runs that showed it.'),
  first_commit: z.string().nullable(),
  last_commit: z.string().nullable(),
})

export const AttributionEntrySchema = z.object({
  call: AttributionCallSchema,
  basis: z
    .enum(['history', 'committed-policy', 'none'])
    .describe('history: everyday runs; committed-policy: the measurement in flakeproof.policy.json (no history of this test); none: neither knows it.'),
  branch: z.string().nullable().describe('The branch whose runs were counted; null: every branch but the one under test (no run of the base branch had it).'),
  runs: count.describe('Past runs of the test counted (committed-policy: its measured trials).'),
  failures: count.describe('Of those, runs in which it failed (a pass after a retry counts: a failed attempt).'),
  rate: probability,
  ci_low: probability.describe('Wilson interval of failures/runs, lower end'),
  ci_high: probability.describe('Wilson interval of failures/runs, upper end'),
  predictive: probability.describe("Jeffreys' predictive probability that a run fails: (failures + 0.5) / (runs + 1)."),
  runs_to_tell: z.number().int().positive().describe('Passing runs after which a failure of a never-failing test is called new: the smallest n with 0.5/(n + 1) < 1 - confidence.'),
  signature: z.string().nullable().describe('This failure\'s signature (null when its runner gave none).'),
  signature_seen: z.boolean().nullable().describe('Whether history showed this signature; null when there was nothing to compare.'),
  unseen_share: probability.nullable().describe('Good-Turing: share of past failures whose signature was seen once, the chance a failure shows a new one.'),
  signatures: z.array(PastSignatureSchema).describe('Past signatures of this test on that basis, most frequent first (at most 10).'),
  text: z.string().describe('The call in one line, as the terminal, the step summary and the annotation say it.'),
})
export type AttributionEntry = z.infer<typeof AttributionEntrySchema>

export const AttributionFileSchema = z.object({
  schema_version: z.literal(1),
  at: z.iso.datetime().describe('When the red run ended.'),
  confidence: z.number().gt(0).lt(1),
  base: z.object({
    branch: z.string().nullable().describe('The branch whose history is preferred; null when none was named and history has no main or master.'),
    from: z.enum(['--base', 'GITHUB_BASE_REF', 'default']).describe('default: main, else master, as found in history.'),
  }),
  current_branch: z.string().nullable().describe('The branch of the red run, whose own past runs are never counted unless it is the base.'),
  history_runs: count.describe('History files read.'),
  policy: z.string().nullable().describe('The committed policy read, if any.'),
  tests: z.record(z.string(), AttributionEntrySchema).describe('By test id: each failed test of the run.'),
})
export type AttributionFile = z.infer<typeof AttributionFileSchema>
