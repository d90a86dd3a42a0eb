import * as z from '../_zod.js'
import { count, measured, milliseconds, probability } from './_common.js'

/** bisect.json (`flakeproof schema bisect`, docs/bisect.md): which commit changed the failure rate, how sure, and what it cost. */

const commitRef = z.object({ sha: z.string(), subject: z.string() })

const candidate = commitRef.extend({
  position: z.number().int().positive().describe('Place in the range: 1 is the first commit after --good, the last is --bad.'),
  probability: probability.describe('Posterior probability that this commit is the first with the new rate.'),
})

const side = z.object({
  ...measured,
  commits: count.describe('Commits of the range on this side of the culprit (the good one included before it).'),
})

export const BisectVisitSchema = z.object({
  visit: z.number().int().positive(),
  sha: z.string(),
  position: z.number().int().nonnegative().describe('0: --good; 1 … n: the commits after it, --bad last.'),
  executions: count.describe('Executions observed in this visit; each in-process repetition counts as one.'),
  failures: count,
  process_starts: count,
  duration_ms: milliseconds.describe('Wall time of the executions, start-ups included.'),
  setup_ms: milliseconds.nullable().describe('--setup, when it ran for this visit.'),
  error: z.string().nullable().describe('Why nothing was observed (setup failed, the tests did not run here): the commit is not visited again.'),
  top: z.array(z.object({ sha: z.string(), probability })).describe('The three most likely culprits after this visit.'),
})

export const BisectFileSchema = z.object({
  schema_version: z.literal(1).describe('Bumped only when a field is removed or changes meaning.'),
  subject: z.object({
    kind: z.enum(['cmd', 'vitest', 'jest']).describe('cmd: one process per execution; vitest, jest: batches of repetitions in one process.'),
    command: z.string().describe('--cmd, or the arguments of --vitest / --jest.'),
    setup: z.string().nullable(),
  }),
  good: commitRef,
  bad: commitRef,
  history: z.enum(['first-parent', 'merges']).describe('first-parent: every commit of the first-parent line; merges: only its merge commits.'),
  optimize: z.enum(['time', 'executions']).describe('time: batch sizes by expected information per measured cost alone; executions: a batch keeps at least 85% of the information per execution of the best single one.'),
  assumptions: z.array(z.string()),
  confidence: z.number().gt(0).lt(1),
  status: z
    .enum(['found', 'budget', 'interrupted', 'unobservable'])
    .describe('found: a commit reached the confidence; budget: --max-executions ran out first; interrupted: Ctrl-C or a signal; unobservable: no commit left that could be run.'),
  culprit: candidate.describe('The most likely culprit: the answer when status is found, the best guess otherwise.'),
  alternatives: z.array(candidate).describe('The next most likely commits, most likely first.'),
  rates: z.object({ before: side, after: side }).describe('Executions before and from the culprit, with Wilson intervals at the confidence.'),
  executions: count.describe('Executions in all, prior ones not included.'),
  process_starts: count,
  max_executions: z.number().int().positive(),
  prior: z
    .object({ from: z.string(), executions: count, failures: count })
    .nullable()
    .describe('Executions known before the bisection (--prior-from), counted at their commits.'),
  costs: z
    .object({
      start_ms: milliseconds.nullable().describe('Measured cost of one process start (--cmd: of one execution).'),
      repetition_ms: milliseconds.nullable().describe('Measured cost of one more repetition inside a started process.'),
      setup_ms: milliseconds.nullable().describe('Mean --setup time.'),
    })
    .describe('What the choice of the next commit and batch size used, measured from the runs themselves.'),
  model: z.string().describe('The change-point model, in one sentence.'),
  commits: z
    .array(commitRef.extend({ position: z.number().int().nonnegative(), trials: count, failures: count, probability }))
    .describe('Every commit of the range, --good first: what was observed there and its posterior probability.'),
  visits: z.array(BisectVisitSchema),
  started_at: z.iso.datetime(),
  duration_ms: milliseconds,
})
export type BisectFile = z.infer<typeof BisectFileSchema>
export type BisectVisit = z.infer<typeof BisectVisitSchema>
