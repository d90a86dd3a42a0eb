import * as z from '../_zod.js'
import { count, measured, milliseconds, probability, VerdictSchema } from './_common.js'

/** More retries than any runner makes (Vitest's and Jest's are a handful; a retry budget for p = 0.999 is 4603). */
export const MAX_RETRIES = 10_000
/** Longer than any test runs: 31 days. */
export const MAX_TEST_MS = 31 * 86_400_000

/** History from everyday runs (docs/contracts.md §11): a history file's lines, and history.json. */

/** One test of one ordinary run. `flaky`: failed, then passed on a retry (a flake the retry hid). */
export const HistoryRecordSchema = z.object({
  test_id: z.string(),
  project: z.string(),
  file: z.string(),
  name: z.string(),
  outcome: z.enum(['passed', 'failed', 'flaky']).describe('flaky: passed only after a retry; counted as a failure of the run.'),
  // Bounded at read: a damaged line with 10^9 retries once made `history` build 10^9 attempts and die.
  retries: count
    .max(MAX_RETRIES, { error: (issue) => `${issue.input} is more than ${MAX_RETRIES}, more retries than any runner makes: the line is damaged` })
    .describe('Retries the runner used on it in this run.'),
  duration_ms: milliseconds.max(MAX_TEST_MS, { error: (issue) => `${issue.input} is more than ${MAX_TEST_MS} ms (31 days), longer than any test runs: the line is damaged` }),
  commit: z.string().nullable().describe('From the CI environment, else `git rev-parse HEAD`; null when unknown.'),
  branch: z.string().nullable(),
  os: z.string().describe('process.platform of the machine that ran it.'),
  at: z.iso.datetime().describe('When the run ended.'),
  run_id: z.string().optional().describe('The run that wrote this file (every line alike): a copied file is counted once.'),
  signature: z.string().optional().describe('failed and flaky: the signature of its first failed attempt (docs/attribution.md).'),
  runner: z.string().optional().describe('The test runner that ran it (`vitest`, `jest`): commands suggested for the test are in its syntax.'),
})
export type HistoryRecord = z.infer<typeof HistoryRecordSchema>

/** A rate change found in a test's history: before and after a commit, Fisher's exact test. */
export const HistoryChangeSchema = z.object({
  test_id: z.string(),
  commit: z.string().describe('The first commit of the "after" side.'),
  before: z.object({ runs: count, failures: count }),
  after: z.object({ runs: count, failures: count }),
  p_value: probability.describe(
    "The chance, were its runs exchangeable (one rate throughout), that some commit boundary splits them with a Fisher's exact p-value as small as this one's: the exact permutation distribution of the smallest p over its boundaries.",
  ),
  split_p_value: probability.optional().describe("Fisher's exact test, two-sided, at this boundary alone."),
  change_point: z
    .object({
      commit: z.string().describe('The most likely first commit of the new rate, by the change-point posterior.'),
      probability: probability.describe('Its posterior probability.'),
      no_change: probability.describe('Posterior probability that the rate did not change (prior ½).'),
    })
    .optional()
    .describe("Where the rate changed by `flakeproof bisect`'s change-point model over the same runs (Beta-Binomial marginals, Jeffreys priors). The p-value decides whether it changed; this says where."),
})

/** history.json: what `flakeproof history` read and found, flakiest first. */
export const HistoryFileSchema = z.object({
  schema_version: z.literal(1),
  runs: count.describe('History files read after the --since and --branch filters.'),
  first_at: z.iso.datetime().nullable(),
  last_at: z.iso.datetime().nullable(),
  branch: z.string().nullable(),
  since: z.iso.datetime().nullable(),
  confidence: z.number().gt(0).lt(1),
  tests: z.array(
    z.object({
      id: z.string(),
      runs: count.describe('Runs it was in.'),
      ...measured,
      flakes: count.describe('Runs it passed only after a retry (its failed attempts are counted in failures).'),
      verdict: VerdictSchema,
      change_p_value: probability
        .nullable()
        .optional()
        .describe('The p-value of its most likely rate change at a commit (see changes); null when its runs cross no commit boundary or never failed.'),
      split: z
        .object({ failing: z.array(z.string()), passing: z.array(z.string()), p_value: probability })
        .optional()
        .describe('Failed every attempt at these commits and none at those, unlikely by chance: partial, not flaky.'),
    }),
  ),
  changes: z.array(HistoryChangeSchema).describe('Tests whose rate changed at a commit (p_value < 1 - confidence).'),
})
export type HistoryFile = z.infer<typeof HistoryFileSchema>
