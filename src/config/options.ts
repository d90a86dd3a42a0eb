import * as z from '../_zod.js'
import { integer, oneOf, probability, TIMER_LIMIT, TRIALS_LIMIT, text } from './flags.js'

/**
 * Every command-line flag, declared once: its name, placeholder, help text and value schema, whose
 * `.prefault()` is the default as the user would type it. The argv parser, each command's option
 * schema, `--help` (src/cli/spec.ts) and the docs check (test/e2e/schema-help.test.ts) all come
 * from these declarations. Rules involving two flags are `superRefine`s that say how to fix them.
 */
export interface Flag {
  name: string
  /** Placeholder shown in help (`<ms>`); none for a boolean flag. */
  placeholder?: string
  description: string
  /** Raw string in, typed option out; `.prefault(text)` gives the default, `.optional()` none. */
  value: z.ZodType
  /**
   * Where the command writes: a file (its folder) or a folder. Before the command runs, the CLI
   * refuses a path that is not a regular file and locks the folder for the run.
   */
  output?: 'file' | 'folder'
}

/** The default a flag takes when absent, as typed (`'2000'`), or undefined when it has none. */
export function defaultOf(flag: Flag): string | undefined {
  const def = (flag.value as unknown as { _zod: { def: { type: string; defaultValue?: unknown } } })._zod.def
  return def.type === 'prefault' || def.type === 'default' ? String(def.defaultValue) : undefined
}

/** Whether a command cannot run without this flag. */
export function isRequired(flag: Flag): boolean {
  return !flag.value.safeParse(undefined).success
}

export const FLAG = {
  cmd: { name: 'cmd', placeholder: '"<shell command>"', description: 'command to run through the shell', value: text('--cmd', '"npm test"') },
  trials: { name: 'trials', placeholder: '<n>', description: 'how many trials', value: integer('--trials', 1, '200', TRIALS_LIMIT) },
  gapMs: { name: 'gap-ms', placeholder: '<ms>', description: 'rest before each trial, the first included', value: integer('--gap-ms', 0, '2000', TIMER_LIMIT).prefault('0') },
  timeoutMs: {
    name: 'timeout-ms',
    placeholder: '<ms>',
    description: "kill a trial's process group after this long; it counts as failed (default: none)",
    value: integer('--timeout-ms', 1, '60000', TIMER_LIMIT).optional(),
  },
  jobs: { name: 'jobs', placeholder: '<n>', description: 'trials at once; parallel trials change timing', value: integer('--jobs', 1, '4').prefault('1') },
  confidence: {
    name: 'confidence',
    placeholder: '<c>',
    description: 'confidence of intervals and plans, in (0, 1) (z = 1.96 at 0.95)',
    value: probability('--confidence', 'open', '0.95').prefault('0.95'),
  },
  lang: { name: 'lang', placeholder: '<en|ko>', description: 'language of flaky_report.md and report.html', value: oneOf('--lang', ['en', 'ko']).default('en') },
  seed: {
    name: 'seed',
    placeholder: '<n>',
    description: 'seed of the coin that orders each gapped/fast pair of trials (recorded in observer.json; drawn when not given)',
    value: integer('--seed', 0, '42', TIMER_LIMIT).optional(),
  },
} as const satisfies Record<string, Flag>

type Text = ReturnType<typeof text>
type Value<R extends boolean> = R extends true ? Text : z.ZodOptional<Text>

/** `--out <file>`, described for one command. */
function out<const R extends boolean = true>(what: string, example: string, required?: R) {
  const value = text('--out', example)
  return { name: 'out', placeholder: '<file>', description: `where to write ${what}`, value: (required === false ? value.optional() : value) as Value<R>, output: 'file' } as const
}

/** A flag naming a file or folder to read. */
function input<const N extends string, const R extends boolean = false>(name: N, placeholder: string, description: string, example: string, required?: R) {
  const value = text(`--${name}`, example)
  return { name, placeholder, description, value: (required === true ? value : value.optional()) as Value<R> }
}

/** A command's flags and the option schema built from them: the one place both come from. */
export interface CommandOptions<S extends z.ZodType = z.ZodType> {
  flags: Flag[]
  schema: S
}

function options<const F extends readonly Flag[]>(flags: F) {
  const shape = Object.fromEntries(flags.map((f) => [f.name, f.value])) as { [K in F[number] as K['name']]: K['value'] }
  return { flags: [...flags], schema: z.object(shape) }
}

const measureFlags = [FLAG.cmd, FLAG.trials, FLAG.gapMs, FLAG.timeoutMs, FLAG.jobs, FLAG.confidence] as const

export const MEASURE = options([
  ...measureFlags,
  out('rate.json', 'rate.json'),
  {
    name: 'signature',
    placeholder: '<regex|signature>',
    description: "count only failed trials whose signature (stderr's first error line, normalised) matches; the others leave the count and are reported apart",
    value: text('--signature', '"STALE price cache"').optional(),
  },
])
export const COLLECT = options([...measureFlags, out('facts.jsonl', 'facts.jsonl')])

const rateOrFrom = (rate: string, from: string) =>
  [
    { name: 'rate', placeholder: '<p>', description: rate, value: probability('--rate', 'closed', '0.2').optional() },
    input('from', '<rate.json>', from, 'rate.json'),
  ] as const

const plan = options([
  ...rateOrFrom('failure rate in [0, 1]; prints {rate, confidence, runs}', 'plan from a measurement (uses its exact counts)'),
  FLAG.confidence,
  out('runs_needed.json (table for 0.9, 0.95, 0.99 and the chosen level)', 'runs_needed.json', false),
])
export const PLAN = { ...plan, schema: plan.schema.superRefine(exactlyOne(['--rate', '--from'], (o) => [o.rate, o.from], '--rate 0.2 or --from rate.json')) }

export const FACTS = options([input('in', '<facts.jsonl>', 'evidence written by `flakeproof collect`', 'facts.jsonl', true), out('only_when_fail.json', 'only_when_fail.json')])

export const OBSERVE = options([
  FLAG.cmd,
  { name: 'fast-trials', placeholder: '<n>', description: 'trials without gaps, when no --fast is given', value: integer('--fast-trials', 1, '200', TRIALS_LIMIT).prefault('200') },
  input('fast', '<rate.json>', 'use this measurement as the fast side instead of running one', 'rate.json'),
  { name: 'slow-trials', placeholder: '<n>', description: 'gapped trials (20 is enough for a 1-in-5 failure)', value: integer('--slow-trials', 1, '20', TRIALS_LIMIT) },
  { name: 'gap-ms', placeholder: '<ms>', description: 'rest before each slow trial (e.g. 2000)', value: integer('--gap-ms', 0, '2000', TIMER_LIMIT) },
  FLAG.timeoutMs,
  FLAG.confidence,
  FLAG.seed,
  out('observer.json', 'observer.json'),
])

const policy = options([
  ...rateOrFrom('decide from a bare rate in [0, 1]', 'decide from a measurement (its exact counts)'),
  FLAG.confidence,
  out('policy.json', 'policy.json', false),
  {
    name: 'write',
    placeholder: '<file>',
    description: 'update the committed policy (flakeproof.policy.json) from --from, at its confidence, keeping tests not measured',
    value: text('--write', 'flakeproof.policy.json').optional(),
    output: 'file',
  },
])
export const POLICY = {
  ...policy,
  schema: policy.schema
    .superRefine(exactlyOne(['--rate', '--from'], (o) => [o.rate, o.from], '--from rate.json or --rate 0.2'))
    .superRefine((o, ctx) => {
      // The committed policy lists tests, so it is written from a test-mode measurement only.
      if (o.out === undefined && o.write === undefined) ctx.addIssue({ code: 'custom', message: 'pass --out policy.json, --write flakeproof.policy.json, or both' })
      if (o.write !== undefined && o.from === undefined) ctx.addIssue({ code: 'custom', message: '--write needs --from <rate.json> (a Vitest measurement); e.g. --from .flakeproof/rate.json --write flakeproof.policy.json' })
    }),
}

const proof = options([
  { ...FLAG.cmd, placeholder: '"<fixed command>"', description: 'the fixed command' },
  { name: 'runs', placeholder: '<n>', description: 'required runs, given directly', value: integer('--runs', 1, '14').optional() },
  input('plan', '<runs_needed.json>', 'required runs = its chosen.runs', 'runs_needed.json'),
  input('policy', '<policy.json>', 'required runs = its green_runs_required', 'policy.json'),
  FLAG.gapMs,
  FLAG.timeoutMs,
  FLAG.jobs,
  {
    name: 'confidence',
    placeholder: '<c>',
    description: "confidence of the proof's interval (default: that of --plan or --policy, else 0.95)",
    value: probability('--confidence', 'open', '0.95').optional(),
  },
  {
    name: 'load-procs',
    placeholder: '<n>',
    description: 'keep n processes spinning for the whole proof, to match the load per CPU the measurement met',
    value: integer('--load-procs', 1, '4', { max: 256, why: '(spinning processes)' }).optional(),
  },
  { name: 'strict', description: 'fail a proof weaker than its measurement (fewer --jobs or concurrent runs, less load per CPU)', value: z.boolean().default(false) },
  out('proof.json', 'proof.json'),
])
export const PROOF = {
  ...proof,
  schema: proof.schema.superRefine(exactlyOne(['--runs', '--plan', '--policy'], (o) => [o.runs, o.plan, o.policy], '--plan .flakeproof/runs_needed.json')),
}
export type ProofOptions = z.output<typeof PROOF.schema>

/** Where attribution and `explain` read a test's past (docs/attribution.md). */
const attributionFlags = [
  input('history', '"<glob>"', 'everyday runs to judge failures by (default .flakeproof/history/*.jsonl)', '".flakeproof/history/*.jsonl"'),
  input('policy', '<file>', 'the committed policy (default flakeproof.policy.json, when it exists)', 'flakeproof.policy.json'),
] as const

export const REPORT = options([
  input('dir', '<dir>', 'folder holding rate.json and any of the other files', '.flakeproof', true),
  ...attributionFlags,
  input('base', '<branch>', 'branch whose history attribution prefers (default GITHUB_BASE_REF, else main, else master)', 'main'),
  FLAG.lang,
  // report.html is always written; `--html` says so on the command line (docs/contracts.md §3).
  { name: 'html', description: 'write report.html (it is always written; the flag is accepted for scripts that ask for it)', value: z.boolean().default(false) },
  { name: 'open', description: 'open report.html in your browser (on a desktop; otherwise prints where it is)', value: z.boolean().default(false) },
  { name: 'junit', placeholder: '<file>', description: 'also write JUnit XML: counts per test, flakyFailure per failing repetition', value: text('--junit', 'flaky-junit.xml').optional(), output: 'file' },
])

const explain = options([input('dir', '<dir>', 'output folder with the last measurement and proof (default .flakeproof)', '.flakeproof'), ...attributionFlags, FLAG.confidence])
export const EXPLAIN = {
  ...explain,
  schema: explain.schema.extend({
    query: z.array(z.string()).length(1, 'name one test: its id or part of it, quoted; e.g. flakeproof explain "reads the cached price"'),
  }),
}

export const INVESTIGATE = options([
  FLAG.cmd,
  { name: 'fixed-cmd', placeholder: '"<fixed command>"', description: 'the fixed version, proven with the planned number of runs', value: text('--fixed-cmd', '"node job.js --fixed"') },
  { ...FLAG.trials, description: 'fast trials to measure and collect', value: integer('--trials', 1, '200', TRIALS_LIMIT).prefault('200') },
  { name: 'slow-trials', placeholder: '<n>', description: 'gapped trials for the observer comparison', value: integer('--slow-trials', 1, '20', TRIALS_LIMIT).prefault('20') },
  { name: 'gap-ms', placeholder: '<ms>', description: 'rest before each gapped trial', value: integer('--gap-ms', 0, '2000', TIMER_LIMIT).prefault('2000') },
  FLAG.timeoutMs,
  FLAG.jobs,
  FLAG.confidence,
  FLAG.seed,
  { name: 'out-dir', placeholder: '<dir>', description: 'where all files go; earlier results there are replaced', value: text('--out-dir', '.flakeproof').prefault('.flakeproof'), output: 'folder' },
  FLAG.lang,
])
export type InvestigateOptions = z.output<typeof INVESTIGATE.schema>

const outDir = (what: string) =>
  ({ name: 'out-dir', placeholder: '<dir>', description: `where ${what} and the other files go; earlier results there are replaced`, value: text('--out-dir', '.flakeproof').prefault('.flakeproof'), output: 'folder' }) as const

/** `repeat`: the command comes after `--` (or in --cmd); `{run}` in it and in --junit/--libtest becomes the run's number. */
const repeat = options([
  { name: 'runs', placeholder: '<n>', description: 'how many times to run the command', value: integer('--runs', 1, '20', TRIALS_LIMIT) },
  input('junit', '"<path>"', 'the JUnit XML report each run writes: {run} becomes the run number; a glob takes every file it matches, a folder every .xml below it; without {run} one fixed path, moved aside before each run and kept in run-reports/', '"reports/run-{run}.xml"'),
  input('libtest', '"<path>"', 'the saved `cargo test` log (stdout and stderr) each run writes, as --junit', '"logs/run-{run}.log"'),
  { ...FLAG.cmd, description: 'the command, as one string, when not given after --', value: text('--cmd', '"python3 -m pytest --junitxml=out/run-{run}.xml"').optional() },
  FLAG.gapMs,
  FLAG.jobs,
  FLAG.timeoutMs,
  FLAG.confidence,
  outDir('rate.json'),
  FLAG.lang,
])
export const REPEAT = {
  ...repeat,
  schema: repeat.schema.superRefine((o, ctx) => {
    exactlyOne(['--junit', '--libtest'], (v: typeof o) => [v.junit, v.libtest], '--junit "reports/run-{run}.xml"')(o, ctx)
    if (o.cmd === undefined) {
      ctx.addIssue({ code: 'custom', message: 'give the command to repeat after `--`; e.g. flakeproof repeat --runs 20 --junit "out/run-{run}.xml" -- python3 -m pytest --junitxml=out/run-{run}.xml' })
    }
  }),
}
export type RepeatOptions = z.output<typeof REPEAT.schema>

const ingest = options([
  input('junit', '"<glob>"', 'JUnit XML reports to read; each file is one run', '"reports/**/*.xml"'),
  input('libtest', '"<glob>"', 'saved `cargo test` logs (stdout and stderr) to read; each file is one run', '"logs/*.log"'),
  FLAG.confidence,
  outDir('rate.json'),
  FLAG.lang,
])
export const INGEST = { ...ingest, schema: ingest.schema.superRefine(exactlyOne(['--junit', '--libtest'], (o) => [o.junit, o.libtest], '--junit "reports/**/*.xml"')) }
export type IngestOptions = z.output<typeof INGEST.schema>
const merge = options([
  { name: 'out', placeholder: '<dir>', description: 'folder for the merged files; earlier results there are replaced', value: text('--out', 'merged'), output: 'folder' },
  FLAG.lang,
])
export const MERGE = {
  ...merge,
  schema: merge.schema.extend({
    inputs: z.array(z.string()).min(1, 'name the folders to merge, or a quoted glob; e.g. flakeproof merge "shards/*" --out merged'),
  }),
}

export const HISTORY = options([
  input('glob', '<pattern>', 'history files to read (fast-glob; quote it); e.g. files downloaded from CI jobs', '".flakeproof/history/*.jsonl"'),
  { name: 'since', placeholder: '<30d|12h|2w|date>', description: 'only runs that ended within this long, or since this ISO date (default: all)', value: since().optional() },
  input('branch', '<name>', 'only runs on this branch (default: every branch)', 'main'),
  FLAG.confidence,
  { name: 'out', placeholder: '<dir>', description: 'folder for rate.json, policy.json, history.json and the report; earlier results there are replaced', value: text('--out', '.flakeproof/from-history').prefault('.flakeproof/from-history'), output: 'folder' },
  FLAG.lang,
])
export type HistoryOptions = z.output<typeof HISTORY.schema>

const bisect = options([
  { name: 'good', placeholder: '<rev>', description: 'a commit with the old failure rate (tag, branch, sha)', value: text('--good', 'v1.4.0') },
  { name: 'bad', placeholder: '<rev>', description: 'a later commit with the new rate; --good must be on its first-parent line', value: text('--bad', 'HEAD').prefault('HEAD') },
  { ...FLAG.cmd, description: 'observe a shell command: one process per execution, failed on a non-zero exit', value: text('--cmd', '"npm test"').optional() },
  { name: 'vitest', placeholder: '"<vitest args>"', description: 'observe tests with `flakeproof vitest`: a batch of repetitions in one process', value: text('--vitest', '"src/cache.test.ts -t refresh"').optional() },
  { name: 'jest', placeholder: '"<jest args>"', description: 'observe tests with `flakeproof jest`: a batch of repetitions in one process', value: text('--jest', '"test/cache.test.js"').optional() },
  { name: 'setup', placeholder: '"<command>"', description: 'run in each visited checkout before it is observed (e.g. npm ci); reused across commits with the same lockfile', value: text('--setup', '"npm ci"').optional() },
  {
    name: 'prior-from',
    placeholder: '<rate.json|history dir>',
    description: 'executions seen before: a rate.json measured at --bad, or a .flakeproof/history folder (counted at their commits)',
    value: text('--prior-from', '.flakeproof/rate.json').optional(),
  },
  {
    name: 'optimize',
    placeholder: '<executions|time>',
    description: 'time: batch sizes by expected information per measured cost (start-up against repetition); executions: a batch only where each repetition still tells 85% of what one execution could',
    value: oneOf('--optimize', ['time', 'executions']).default('time'),
  },
  { name: 'merges', description: 'visit only the merge commits of the first-parent line, so the culprit named is a merged pull request', value: z.boolean().default(false) },
  { ...FLAG.confidence, description: 'stop when one commit is the culprit with this posterior probability, in (0, 1)' },
  { name: 'max-executions', placeholder: '<n>', description: 'budget: executions in all (each repetition counts as one)', value: integer('--max-executions', 1, '2000', TRIALS_LIMIT).prefault('2000') },
  { ...FLAG.timeoutMs, description: "with --cmd: kill an execution's process group after this long; it counts as failed (default: none)" },
  {
    name: 'out-dir',
    placeholder: '<dir>',
    description: 'where bisect.json, bisect.md and bisect.html go; earlier results there are replaced',
    value: text('--out-dir', '.flakeproof/bisect').prefault('.flakeproof/bisect'),
    output: 'folder',
  },
])
export const BISECT = {
  ...bisect,
  schema: bisect.schema
    .superRefine(exactlyOne(['--cmd', '--vitest', '--jest'], (o) => [o.cmd, o.vitest, o.jest], '--cmd "node test/race.js"'))
    .superRefine((o, ctx) => {
      // A batch of repetitions shares one process; Vitest's and Jest's own timeouts bound each test.
      if (o['timeout-ms'] !== undefined && o.cmd === undefined) ctx.addIssue({ code: 'custom', message: '--timeout-ms applies to --cmd only; with --vitest or --jest, use their own --testTimeout' })
    }),
}
export type BisectOptions = z.output<typeof BISECT.schema>

// --- internal ---

/**
 * `--since 30d` (h, d, w) or an ISO date: the earliest end of a run to keep, from now. Bounded both
 * ways: a span of at most 100 years (`999999999999d` once made an invalid date and a stack trace), a
 * date from 1970 on (no run is older) and not in the future (it would keep no run, silently).
 */
function since() {
  return z.string().transform((value, ctx): Date => {
    const at = sinceOf(value)
    if (at instanceof Date) return at
    ctx.issues.push({ code: 'custom', message: at, input: value })
    return z.NEVER
  })
}

/** The earliest end `--since <value>` keeps, or why it keeps none. */
function sinceOf(value: string): Date | string {
  const example = `(got ${JSON.stringify(value)}); e.g. --since 30d`
  const unitMs = { h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const
  const maxDays = 36_500
  const maxOf = { h: maxDays * 24, d: maxDays, w: Math.floor(maxDays / 7) } as const
  const span = /^(\d+)([hdw])$/.exec(value.trim())
  if (span) {
    const unit = span[2] as keyof typeof unitMs
    if (Number(span[1]) > maxOf[unit]) return `--since must be a span of at most 100 years (${maxOf.d}d, ${maxOf.h}h or ${maxOf.w}w) ${example}`
    return new Date(Date.now() - Number(span[1]) * unitMs[unit])
  }
  const at = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN
  if (Number.isNaN(at)) return `--since must be a span like 30d, 12h or 2w, or an ISO date like 2026-01-31 ${example}`
  if (at < 0) return `--since must be 1970-01-01 or later (got ${JSON.stringify(value)}); e.g. --since 2026-01-31`
  if (at > Date.now()) return `--since must not be in the future ${example}`
  return new Date(at)
}

function exactlyOne<T>(flags: string[], pick: (o: T) => unknown[], example: string) {
  return (o: T, ctx: z.RefinementCtx): void => {
    const given = pick(o).filter((v) => v !== undefined).length
    if (given !== 1) ctx.addIssue({ code: 'custom', message: `pass exactly one of ${flags.join(', ')} (got ${given}); e.g. ${example}` })
  }
}
