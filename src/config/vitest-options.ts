import { existsSync, realpathSync, statSync } from 'node:fs'
import { dirname, isAbsolute, relative, resolve } from 'node:path'
import * as z from '../_zod.js'
import { didYouMean } from '../core/did-you-mean.js'
import { parseDurationMs } from '../core/duration.js'
import { table } from '../core/text-layout.js'
import type { Capability } from './capabilities.js'
import { FlakeproofError } from '../errors.js'
import { MAX_TIMER_MS, MAX_TRIALS } from './flags.js'


/**
 * The Vitest adapter's options: one schema for all three ways of giving them — `flakeproof({...})`
 * in the config, `--flaky-*` flags after `--`, and FLAKEPROOF_REPEAT. Defaults live here only.
 */
export const VitestOptionsSchema = z
  .object({
    /** Repetitions of each selected test. Without it (and without `proof`) the plugin is inactive. */
    repeat: z.number().int().min(1).max(MAX_TRIALS).optional(),
    /** Rest before each gapped repetition when observing. @default 2000 */
    gapMs: z.number().int().min(0).max(MAX_TIMER_MS).default(2000),
    /** Also measure each test that failed with gaps, and write observer.json. @default false */
    observe: z.boolean().default(false),
    /** Gapped repetitions per observed test. @default 20 */
    slowRepeat: z.number().int().min(1).max(MAX_TRIALS).default(20),
    /** Confidence of intervals and plans. @default 0.95 */
    confidence: z.number().gt(0).lt(1).default(0.95),
    /** Where the files go, relative to the project root. @default '.flakeproof' */
    outDir: z.string().min(1).default('.flakeproof'),
    /** Let `outDir` lie outside the project root (it must be inside otherwise). @default false */
    outAnywhere: z.boolean().default(false),
    /** Fail a test that failed some repetitions; by default a measuring run is advisory. @default false */
    failOnFlaky: z.boolean().default(false),
    /** Repeat each test found flaky in the last policy.json `green_runs_required` times. @default false */
    proof: z.boolean().default(false),
    /** Shuffle the tests inside each file with this seed, so an order that fails can be replayed. */
    seed: z.number().int().min(0).max(MAX_TIMER_MS).optional(),
    /** Also write the measurement as JUnit XML here, relative to the project root (docs/contracts.md §8). */
    junit: z.string().min(1).optional(),
    /** Enforce the committed policy: listed tests get their retry budget, quarantined ones cannot fail the run. @default false */
    enforce: z.boolean().default(false),
    /** The committed policy, relative to the project root (docs/contracts.md §9); `flakeproof.policy.json` when not given. */
    policy: z.string().min(1).optional(),
    /** Write what an enforced run or a proof found into the committed policy (quarantine in, quarantine out). @default false */
    updatePolicy: z.boolean().default(false),
    /** A proof with nothing to prove fails instead of passing. @default false */
    proofRequired: z.boolean().default(false),
    /** A proof weaker than its measurement (fewer workers or concurrent runs, another pool or isolation, less load per CPU) fails instead of passing with a warning. @default false */
    proofStrict: z.boolean().default(false),
    /** `flakeproof vitest` only: time one run, then repeat to fill this many milliseconds (at least 100 for one test). */
    budget: z.number().int().min(1).max(MAX_TIMER_MS).optional(),
    /** Reporter alone, no repetitions: record each run in `<outDir>/history/` (docs/contracts.md §11); needs the `history` capability (no flag). @default true */
    history: z.boolean().default(true),
    /** Whole-run rounds: the selected files run this many times in one Vitest, each round with fresh module state. @default 1 */
    rounds: z.number().int().min(1).max(MAX_TRIALS).default(1),
    /** Also run each round serially (one worker), and compare with the parallel rounds. @default false */
    divergence: z.boolean().default(false),
    /** Also run each round with the machine kept busy, and compare with the idle rounds. @default false */
    load: z.boolean().default(false),
    /** Spinning processes that keep the machine busy: in load rounds (the number of CPUs when not given), else, given, for the whole run (a proof under the measured load). */
    loadProcs: z.number().int().min(1).max(256).optional(),
    /** Reseed the order of the tests inside each file every round (from `seed` when given), to find order-dependent tests. @default false */
    shuffle: z.boolean().default(false),
    /** The branch whose history attribution prefers (docs/attribution.md); else GITHUB_BASE_REF, else main, else master. */
    base: z.string().min(1).optional(),
    /** Count only failures whose signature matches (a regular expression, or a signature or part of one); the others are reported apart. */
    signature: z.string().min(1).optional(),
  })
  .strict()
export type FlakeproofVitestOptions = z.input<typeof VitestOptionsSchema>
export type ResolvedVitestOptions = z.output<typeof VitestOptionsSchema>

/** The arguments after `--` in an argv (Vitest ignores them; they are ours). */
export function argsAfterSeparator(argv: readonly string[]): string[] {
  const separator = argv.indexOf('--')
  return separator < 0 ? [] : argv.slice(separator + 1)
}

/**
 * Every `--flaky-*` flag of every test runner, declared once: the capability of the runner's adapter it
 * needs (src/config/capabilities.ts; null: every adapter takes it), the option it sets, its value's
 * kind, its placeholder and help. The flag parser below, each runner's `--help`, the refusal of a flag
 * an adapter lacks and the docs check (docs/vitest.md, test/e2e/schema-help.test.ts) all read this table; the defaults are the schema's.
 */
export const VITEST_FLAGS = {
  '--flaky-repeat': { group: 'measure', needs: 'repeat', key: 'repeat', kind: 'integer', placeholder: '<n>', help: 'repetitions of each selected test (or FLAKEPROOF_REPEAT)', example: '200' },
  '--flaky-observe': { group: 'observe', needs: 'gaps', key: 'observe', kind: 'boolean', placeholder: '', help: 'also repeat each test that failed, with gaps; writes observer.json', example: '' },
  '--flaky-slow-repeat': { group: 'observe', needs: 'gaps', key: 'slowRepeat', kind: 'integer', placeholder: '<n>', help: 'gapped repetitions per observed test', example: '20' },
  '--flaky-gap-ms': { group: 'observe', needs: 'gaps', key: 'gapMs', kind: 'integer', placeholder: '<ms>', help: 'rest before each gapped repetition, not counted toward the test timeout', example: '2000' },
  '--flaky-confidence': { group: 'measure', needs: null, key: 'confidence', kind: 'number', placeholder: '<c>', help: 'confidence of intervals and plans', example: '0.95' },
  '--flaky-out': { group: 'output', needs: null, key: 'outDir', kind: 'string', placeholder: '<dir>', help: 'where the files go, inside the project root', example: '.flakeproof' },
  '--flaky-out-anywhere': { group: 'output', needs: null, key: 'outAnywhere', kind: 'boolean', placeholder: '', help: 'let --flaky-out lie outside the project root, on purpose', example: '' },
  '--flaky-fail-on-flaky': { group: 'ci', needs: 'repeat', key: 'failOnFlaky', kind: 'boolean', placeholder: '', help: 'fail tests that failed some repetitions (a measuring run is advisory)', example: '' },
  '--flaky-proof': { group: 'prove', needs: 'proof', key: 'proof', kind: 'boolean', placeholder: '', help: 'repeat each test flaky in the last policy.json its green_runs_required times', example: '' },
  '--flaky-seed': { group: 'cause', needs: 'seed', key: 'seed', kind: 'integer', placeholder: '<n>', help: 'shuffle the tests inside each file with this seed (recorded in facts.jsonl); the same seed replays the same order', example: '42' },
  '--flaky-junit': { group: 'output', needs: 'junit', key: 'junit', kind: 'string', placeholder: '<file>', help: 'also write JUnit XML: counts per test, flakyFailure per failing repetition', example: 'flaky-junit.xml' },
  '--flaky-enforce': { group: 'ci', needs: 'enforce', key: 'enforce', kind: 'boolean', placeholder: '', help: 'enforce the committed policy: retry = budget for listed tests, 0 for others; quarantined tests run but cannot fail the run', example: '' },
  '--flaky-policy': { group: 'ci', needs: 'committedPolicy', key: 'policy', kind: 'string', placeholder: '<file>', help: 'the committed policy, relative to the project root', example: 'flakeproof.policy.json' },
  '--flaky-update-policy': { group: 'ci', needs: 'committedPolicy', key: 'updatePolicy', kind: 'boolean', placeholder: '', help: 'write quarantines (enforce) and cleared quarantines (proof) into the committed policy', example: '' },
  '--flaky-proof-required': { group: 'prove', needs: 'committedPolicy', key: 'proofRequired', kind: 'boolean', placeholder: '', help: 'fail a proof that has nothing to prove (by default it passes, saying so)', example: '' },
  '--flaky-proof-strict': { group: 'prove', needs: 'proof', key: 'proofStrict', kind: 'boolean', placeholder: '', help: 'fail a proof weaker than its measurement (fewer workers or concurrent runs, another pool or isolation, less load per CPU)', example: '' },
  '--flaky-budget': { group: 'measure', needs: 'budget', key: 'budget', kind: 'duration', placeholder: '<time>', help: 'wrapper only (flakeproof <runner>): time a calibration run, then repeat N = max(100, round(budget / one run)) (e.g. 5m, 300s)', example: '5m' },
  '--flaky-rounds': { group: 'cause', needs: 'rounds', key: 'rounds', kind: 'integer', placeholder: '<k>', help: 'run the selected files k times, fresh module state each round (in one Vitest or Jest process; whole Playwright runs) (k rounds x --flaky-repeat)', example: '10' },
  '--flaky-divergence': { group: 'cause', needs: 'serial', key: 'divergence', kind: 'boolean', placeholder: '', help: 'also run every round serially (one worker) and compare with the parallel rounds; writes conditions.json', example: '' },
  '--flaky-load': { group: 'cause', needs: 'load', key: 'load', kind: 'boolean', placeholder: '', help: 'also run every round with the machine kept busy and compare; writes conditions.json', example: '' },
  '--flaky-load-procs': { group: 'cause', needs: null, key: 'loadProcs', kind: 'integer', placeholder: '<n>', help: 'spinning processes in load rounds (default: the number of CPUs); without --flaky-load, for the whole run (a proof under the measured load)', example: '4' },
  '--flaky-shuffle': { group: 'cause', needs: 'shuffle', key: 'shuffle', kind: 'boolean', placeholder: '', help: 'reseed the order of the tests in each file every round (seeds printed and recorded); names order-dependent tests', example: '' },
  '--flaky-base': { group: 'ci', needs: 'attribution', key: 'base', kind: 'string', placeholder: '<branch>', help: 'the branch whose history attribution and comparisons prefer (default: GITHUB_BASE_REF, else main, else master)', example: 'main' },
  '--flaky-signature': { group: 'measure', needs: 'signature', key: 'signature', kind: 'string', placeholder: '<regex|signature>', help: 'count only failures whose signature matches; the others leave the trial count and are reported apart (a proof still fails on any)', example: '"STALE price cache"' },
} as const satisfies Record<string, { group: FlagGroup; needs: Capability | null; key: keyof ResolvedVitestOptions; kind: string; placeholder: string; help: string; example: string }>

/**
 * The groups of `flakeproof <runner> --help`, in the order shown: each flag of VITEST_FLAGS names
 * its group, so a new flag lands under its heading and help never keeps a list of its own.
 */
export const FLAG_GROUPS = {
  measure: 'Measuring',
  observe: 'Observing (does slowing down hide it?)',
  cause: 'Finding the cause',
  prove: 'Proving a fix',
  ci: 'CI and policy',
  output: 'Output',
} as const
export type FlagGroup = keyof typeof FLAG_GROUPS

/**
 * The `--flaky-*` flags of `flakeproof <runner> --help` (all of them, or those named), by group,
 * each with the schema's default, laid out for `width` columns.
 */
export function renderVitestFlags(width: number, names: readonly string[] = Object.keys(VITEST_FLAGS)): string[] {
  const defaults = VitestOptionsSchema.parse({}, z.ONE_PARSE) as Record<string, unknown>
  const flags = Object.entries(VITEST_FLAGS).filter(([flag]) => names.includes(flag))
  const label = (flag: string, placeholder: string): string => (placeholder ? `${flag} ${placeholder}` : flag)
  // One label column for every group, so the help reads as one table under its headings.
  const labelWidth = Math.max(...flags.map(([flag, f]) => label(flag, f.placeholder).length))
  return (Object.entries(FLAG_GROUPS) as [FlagGroup, string][]).flatMap(([group, title]) => {
    const rows = flags
      .filter(([, f]) => f.group === group)
      .map(([flag, f]) => {
        const fallback = defaults[f.key]
        const shown = fallback === undefined || fallback === false ? '' : ` (default ${String(fallback)})`
        return { label: label(flag, f.placeholder), text: `${f.help}${shown}` }
      })
    return rows.length === 0 ? [] : [`${title}:`, ...table(rows, width, { labelWidth }), '']
  })
}

/** `unknown option \`confidense\` in flakeproof({...}); did you mean \`confidence\`?`, or every option when none is close. */
export function unknownOption(key: string, where: string, options: readonly string[]): string {
  const hint = didYouMean(key, options, (o) => `\`${o}\``)
  return `unknown option \`${key}\` in ${where}${hint !== '' ? hint : `; options are ${options.join(', ')}`}`
}

/**
 * `unknown flag --flaky-repet; did you mean --flaky-repeat?`: the flags `runner` takes, named when
 * none is close, so the one line still says what to type.
 */
export function unknownVitestFlag(name: string, title: string, taken: readonly string[]): string {
  const hint = didYouMean(name, taken)
  return hint !== '' ? `unknown flag ${name}${hint}` : `unknown flag ${name}; flakeproof's ${title} flags are ${taken.join(', ')}`
}

type FlagName = keyof typeof VITEST_FLAGS

/**
 * Splits our `--flaky-*` flags (and their values) from other arguments. Unknown `--flaky-*` flags and
 * bad values are errors here, before any test runs.
 */
export function extractVitestFlags(args: readonly string[]): { options: Record<string, unknown>; sources: Record<string, string>; rest: string[] } {
  const options: Record<string, unknown> = {}
  const sources: Record<string, string> = {}
  const rest: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    if (!arg.startsWith('--flaky-')) {
      rest.push(arg)
      continue
    }
    const [name, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined]
    const flag = VITEST_FLAGS[name as FlagName]
    if (!flag) {
      throw new FlakeproofError(unknownVitestFlag(name, 'Vitest', Object.keys(VITEST_FLAGS)), 'E_USAGE')
    }
    let raw = inline
    if (flag.kind !== 'boolean' && raw === undefined) {
      raw = args[i + 1]
      if (raw === undefined) throw new FlakeproofError(`${name} needs a value; e.g. ${name} ${flag.example}`, 'E_USAGE')
      i++
    }
    if (sources[flag.key] !== undefined) {
      throw new FlakeproofError(`${name} given twice (${JSON.stringify(options[flag.key])} and ${JSON.stringify(convert(flag.kind, raw))}); give it once`, 'E_USAGE')
    }
    options[flag.key] = convert(flag.kind, raw)
    sources[flag.key] = name
  }
  return { options, sources, rest }
}

/**
 * Resolves the options from the config object, FLAKEPROOF_REPEAT and our flags among `args` (the
 * arguments after `--`, or the wrapper's), later winning. Returns undefined when nothing asks for a
 * repetition or a proof: the plugin then stays out of the way entirely.
 */
export function resolveVitestOptions(
  configured: FlakeproofVitestOptions,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ResolvedVitestOptions | undefined {
  const sources: Record<string, string> = Object.fromEntries(Object.keys(configured).map((k) => [k, `flakeproof({ ${k} })`]))
  const merged: Record<string, unknown> = { ...configured }
  if (env.FLAKEPROOF_REPEAT !== undefined && env.FLAKEPROOF_REPEAT !== '') {
    merged.repeat = convert('integer', env.FLAKEPROOF_REPEAT)
    sources.repeat = 'FLAKEPROOF_REPEAT'
  }
  const flags = extractVitestFlags(args)
  Object.assign(merged, flags.options)
  Object.assign(sources, flags.sources)
  const result = VitestOptionsSchema.safeParse(merged, z.ONE_PARSE)
  if (!result.success) throw explain(result.error, merged, sources)
  const options = withOneKindOfRun(result.data, sources)
  // Shuffling reseeds each round: with one round it would compare nothing, and measure as a plain run.
  if (options.shuffle && options.rounds < 2) {
    throw new FlakeproofError(`${sources.shuffle ?? 'shuffle'} reseeds the order every whole-run round, so it needs --flaky-rounds 2 or more; e.g. --flaky-shuffle --flaky-rounds 10`, 'E_USAGE')
  }
  const measures = options.repeat !== undefined || options.rounds > 1 || options.divergence || options.load || options.shuffle
  return measures || options.proof || options.enforce || options.budget !== undefined ? options : undefined
}

/**
 * The output folder, absolute. It must resolve (symlinks followed) inside the project root unless
 * `outAnywhere` says otherwise, and must not be an existing file: checked before any test runs, so a
 * mistyped path never costs a measurement.
 */
export function resolveOutDir(root: string, options: Pick<ResolvedVitestOptions, 'outDir' | 'outAnywhere'>): string {
  const outDir = resolve(root, options.outDir)
  const where = `outDir (--flaky-out) ${JSON.stringify(options.outDir)}`
  if (existsSync(outDir) && !statSync(outDir).isDirectory()) {
    throw new FlakeproofError(`${where} is a file, not a folder; choose a folder, e.g. --flaky-out .flakeproof`, 'E_USAGE')
  }
  if (!options.outAnywhere) assertInsideRoot(root, outDir, where, 'a folder inside it (default .flakeproof)')
  return outDir
}

/**
 * The JUnit file (`junit` / `--flaky-junit`), absolute: like the output folder, inside the project
 * root (symlinks followed) unless `outAnywhere` says otherwise, so `../../x.xml` is refused as
 * `--flaky-out ../../x` is. Checked before any test runs.
 */
export function resolveJunitPath(root: string, options: Pick<ResolvedVitestOptions, 'junit' | 'outAnywhere'>): string | undefined {
  if (options.junit === undefined) return undefined
  const path = resolve(root, options.junit)
  if (!options.outAnywhere) assertInsideRoot(root, path, `junit (--flaky-junit) ${JSON.stringify(options.junit)}`, 'a file inside it')
  return path
}

// --- internal ---

/**
 * Enforcing and budgeting are runs of their own. `enforce: true` in the config is what CI runs, so a
 * measurement or proof asked for on the command line sets it aside; asked for together on the
 * command line, or a budget with a repeat count or proof, they are refused. (A proof already wins
 * over a repeat count, as before.)
 */
function withOneKindOfRun(options: ResolvedVitestOptions, sources: Record<string, string>): ResolvedVitestOptions {
  const others = (['repeat', 'proof', 'budget'] as const).filter((k) => options[k] !== undefined && options[k] !== false)
  // Whole-run rounds and their conditions measure too: an enforced run is one ordinary run.
  const rounds = (['rounds', 'divergence', 'load', 'shuffle'] as const).filter((k) => (k === 'rounds' ? options.rounds > 1 : options[k]))
  const configured = (k: string): boolean => sources[k]?.startsWith('flakeproof(') === true
  const yields = options.enforce && configured('enforce') && [...others, ...rounds].some((k) => !configured(k))
  const resolved = yields ? { ...options, enforce: false } : options
  const measuring = [...others, ...rounds]
  // A budget picks the repetitions from one timed run of the selection: rounds would multiply both.
  const clashing = resolved.enforce ? (measuring.length > 0 ? ['enforce', ...measuring] : []) : resolved.budget !== undefined && measuring.length > 1 ? measuring : []
  if (clashing.length === 0) return resolved
  throw new FlakeproofError(`${clashing.map((k) => sources[k] ?? k).join(' and ')} ask for different runs (measure, proof, enforce, budget); give one of them`, 'E_USAGE')
}

/** The real path of `path`, or of its nearest existing ancestor with the rest appended. */
function assertInsideRoot(root: string, path: string, where: string, choose: string): void {
  const real = realpathOfNearest(path)
  const inside = relative(realpathOfNearest(root), real)
  if (inside.startsWith('..') || isAbsolute(inside)) {
    throw new FlakeproofError(`${where} resolves to ${real}, outside the project root ${root}; choose ${choose}, or add --flaky-out-anywhere (outAnywhere: true) to write there on purpose`, 'E_USAGE')
  }
}

function realpathOfNearest(path: string): string {
  if (existsSync(path)) return realpathSync(path)
  const parent = dirname(path)
  return parent === path ? path : resolve(realpathOfNearest(parent), relative(parent, path))
}

const RULES: Record<string, string> = {
  repeat: `a whole number from 1 to ${MAX_TRIALS}`,
  gapMs: `a whole number of milliseconds from 0 to ${MAX_TIMER_MS} (about 24.9 days)`,
  slowRepeat: `a whole number from 1 to ${MAX_TRIALS}`,
  confidence: 'a number strictly between 0 and 1',
  outDir: 'a non-empty path',
  outAnywhere: 'true or false',
  observe: 'true or false',
  failOnFlaky: 'true or false',
  proof: 'true or false',
  seed: `a whole number from 0 to ${MAX_TIMER_MS}`,
  junit: 'a non-empty file path',
  enforce: 'true or false',
  policy: 'a non-empty path',
  updatePolicy: 'true or false',
  proofRequired: 'true or false',
  proofStrict: 'true or false',
  budget: `a duration such as 5m, 300s or 1h (at most ${MAX_TIMER_MS} ms)`,
  rounds: `a whole number from 1 to ${MAX_TRIALS}`,
  divergence: 'true or false',
  load: 'true or false',
  loadProcs: 'a whole number from 1 to 256',
  shuffle: 'true or false',
}

/**
 * Text from a flag or FLAKEPROOF_REPEAT to a value, by the CLI's rules: counts are plain decimal
 * integers (`1e3` and `0x10` stay text, and are refused), numbers are plain decimals.
 */
function convert(kind: string, raw: string | undefined): unknown {
  if (kind === 'boolean') return raw === undefined ? true : raw === 'true' ? true : raw === 'false' ? false : raw
  if (kind === 'string' || raw === undefined) return raw
  if (kind === 'duration') return parseDurationMs(raw) ?? raw
  const trimmed = raw.trim()
  const plain = kind === 'integer' ? /^\+?\d+$/ : /^[+-]?(\d+\.?\d*|\.\d+)$/
  return plain.test(trimmed) ? Number(trimmed) : raw
}

function explain(error: z.ZodError, input: Record<string, unknown>, sources: Record<string, string>): FlakeproofError {
  const [issue] = error.issues
  if (issue?.code === 'unrecognized_keys') {
    return new FlakeproofError(unknownOption(issue.keys.join('`, `'), 'flakeproof({...})', Object.keys(RULES)), 'E_USAGE')
  }
  const key = String(issue?.path[0] ?? '')
  const where = sources[key] ?? key
  return new FlakeproofError(`${where} must be ${RULES[key] ?? 'valid'} (got ${JSON.stringify(input[key])})`, 'E_USAGE')
}
