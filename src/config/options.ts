import { z } from 'zod'
import { integer, oneOf, probability, TIMER_LIMIT, TRIALS_LIMIT, text } from './flags.js'

/**
 * One schema per command: raw flag strings in, the options the pipeline runs on out. Defaults live
 * here and nowhere else. Rules involving two flags are `superRefine`s that say how to fix them.
 */

const command = text('--cmd', '"npm test"')
const gapMs = integer('--gap-ms', 0, '2000', TIMER_LIMIT).default(0)
const timeoutMs = integer('--timeout-ms', 1, '60000', TIMER_LIMIT).optional()
const jobs = integer('--jobs', 1, '4').default(1)
const confidence = probability('--confidence', 'open', '0.95').default({ value: 0.95, exact: { num: 19n, den: 20n } })

export const MeasureOptionsSchema = z.object({
  cmd: command,
  trials: integer('--trials', 1, '200', TRIALS_LIMIT),
  'gap-ms': gapMs,
  'timeout-ms': timeoutMs,
  jobs,
  confidence,
  out: text('--out', 'rate.json'),
})

export const CollectOptionsSchema = MeasureOptionsSchema.extend({ out: text('--out', 'facts.jsonl') })

export const PlanOptionsSchema = z
  .object({
    rate: probability('--rate', 'closed', '0.2').optional(),
    from: text('--from', 'rate.json').optional(),
    confidence,
    out: text('--out', 'runs_needed.json').optional(),
  })
  .superRefine(exactlyOne(['--rate', '--from'], (o) => [o.rate, o.from], '--rate 0.2 or --from rate.json'))

export const FactsOptionsSchema = z.object({
  in: text('--in', 'facts.jsonl'),
  out: text('--out', 'only_when_fail.json'),
})

export const ObserveOptionsSchema = z.object({
  cmd: command,
  'fast-trials': integer('--fast-trials', 1, '200', TRIALS_LIMIT).default(200),
  fast: text('--fast', 'rate.json').optional(),
  'slow-trials': integer('--slow-trials', 1, '20', TRIALS_LIMIT),
  'gap-ms': integer('--gap-ms', 0, '2000', TIMER_LIMIT),
  'timeout-ms': timeoutMs,
  confidence,
  out: text('--out', 'observer.json'),
})

export const PolicyOptionsSchema = z
  .object({
    rate: probability('--rate', 'closed', '0.2').optional(),
    from: text('--from', 'rate.json').optional(),
    confidence,
    out: text('--out', 'policy.json'),
  })
  .superRefine(exactlyOne(['--rate', '--from'], (o) => [o.rate, o.from], '--from rate.json or --rate 0.2'))

export const ProofOptionsSchema = z
  .object({
    cmd: text('--cmd', '"npm test"'),
    runs: integer('--runs', 1, '14').optional(),
    plan: text('--plan', 'runs_needed.json').optional(),
    policy: text('--policy', 'policy.json').optional(),
    'gap-ms': gapMs,
    'timeout-ms': timeoutMs,
    jobs,
    confidence: probability('--confidence', 'open', '0.95').optional(),
    out: text('--out', 'proof.json'),
  })
  .superRefine(exactlyOne(['--runs', '--plan', '--policy'], (o) => [o.runs, o.plan, o.policy], '--plan .flakeproof/runs_needed.json'))
export type ProofOptions = z.output<typeof ProofOptionsSchema>

export const ReportOptionsSchema = z.object({
  dir: text('--dir', '.flakeproof'),
  lang: oneOf('--lang', ['en', 'ko']).default('en'),
  /** report.html is always written; `--html` says so on the command line (docs/contracts.md §3). */
  html: z.boolean().default(false),
  /** Open report.html in the desktop's browser afterwards. */
  open: z.boolean().default(false),
})

export const InvestigateOptionsSchema = z.object({
  cmd: command,
  'fixed-cmd': text('--fixed-cmd', '"node job.js --fixed"'),
  trials: integer('--trials', 1, '200', TRIALS_LIMIT).default(200),
  'slow-trials': integer('--slow-trials', 1, '20', TRIALS_LIMIT).default(20),
  'gap-ms': integer('--gap-ms', 0, '2000', TIMER_LIMIT).default(2000),
  'timeout-ms': timeoutMs,
  jobs,
  confidence,
  'out-dir': text('--out-dir', '.flakeproof').default('.flakeproof'),
  lang: oneOf('--lang', ['en', 'ko']).default('en'),
})
export type InvestigateOptions = z.output<typeof InvestigateOptionsSchema>

// --- internal ---

function exactlyOne<T>(flags: string[], pick: (o: T) => unknown[], example: string) {
  return (o: T, ctx: z.RefinementCtx): void => {
    const given = pick(o).filter((v) => v !== undefined).length
    if (given !== 1) ctx.addIssue({ code: 'custom', message: `pass exactly one of ${flags.join(', ')} (got ${given}); e.g. ${example}` })
  }
}
