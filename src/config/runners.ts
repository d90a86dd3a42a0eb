import { CAPABILITIES, type Capability } from './capabilities.js'
import { hintContextOf, hintsFor } from '../core/hints.js'
import type { ShuffleRule } from '../core/shuffle-order.js'
import { FlakeproofError } from '../errors.js'
import {
  type FlakeproofVitestOptions,
  type ResolvedVitestOptions,
  renderVitestFlags,
  unknownOption,
  unknownVitestFlag,
  resolveVitestOptions,
  VITEST_FLAGS,
  VitestOptionsSchema,
} from './vitest-options.js'

/** A test runner flakeproof has an adapter for (plugin/<name>/). */
export type RunnerName = 'vitest' | 'jest' | 'playwright'

/** One runner's adapter as the core knows it without loading it: its name and what it can do. */
export interface RunnerInfo {
  readonly name: RunnerName
  /** As users write it: `Vitest`. */
  readonly title: string
  /** What its adapter does (src/config/capabilities.ts): a flag that needs a missing one is refused. */
  readonly can: Readonly<Record<Capability, boolean>>
  /** Where options are given in code, for errors: `flakeproof({...})`. */
  readonly optionsWhere: string
  /**
   * What the runner's own marks and counts mean during a measurement, said once at the top of
   * flakeproof's summary (Vitest's count each test once, however its repetitions went; Jest's count
   * every copy); by whether `--flaky-fail-on-flaky` is on.
   */
  readonly ticks?: { readonly advisory: string; readonly failOnFlaky: string }
  /** Why a capability it lacks cannot be had with this runner, when that is the runner's doing and not work still to do. */
  readonly cannot?: Readonly<Partial<Record<Capability, string>>>
  /** How its shuffle (`--flaky-shuffle`) orders a file's tests (src/core/shuffle-order.ts); absent when it has none. */
  readonly shuffle?: ShuffleRule
}

const ALL: Readonly<Record<Capability, boolean>> = Object.fromEntries(Object.keys(CAPABILITIES).map((c) => [c, true])) as Record<Capability, boolean>

/**
 * Every runner's capabilities, in one table: a new adapter is one entry here (and its hints in
 * src/core/hints.ts). Playwright's repeats, proves, budgets, runs rounds
 * under conditions and enforces; `cannot` says why it never observes.
 */
export const RUNNERS: Readonly<Record<RunnerName, RunnerInfo>> = {
  vitest: {
    name: 'vitest',
    title: 'Vitest',
    can: ALL,
    optionsWhere: 'flakeproof({...})',
    shuffle: 'blocks-apart-from-tests',
    // The recorder settles each test's state from its repetitions (plugin/vitest/_recorder.ts `_settle`).
    // Said without a place: Vitest 4 prints its summary before flakeproof's end, 3.2 after it.
    ticks: {
      advisory: "Vitest's ✓ and its Tests count are per test: ✓ passed at least one repetition, ✗ failed them all; flakeproof counts every repetition",
      failOnFlaky: "Vitest's ✓ and its Tests count are per test: ✓ passed every repetition, ✗ failed at least one; flakeproof counts every repetition",
    },
  },
  jest: {
    name: 'jest',
    title: 'Jest',
    can: ALL,
    optionsWhere: 'the flakeproof/jest/reporter options',
    shuffle: 'blocks',
    // Jest's summary counts each copy as a test of its own (a passed copy and a failed one of one test).
    // It follows flakeproof's, or precedes it when fresh-state runs come between: said without a place.
    ticks: {
      advisory: "Jest's own Tests count is of copies, each copy of a test counted as a test; flakeproof counts each test's copies, and a test that passed any copy does not fail the run",
      failOnFlaky: "Jest's own Tests count is of copies, each copy of a test counted as a test; flakeproof counts each test's copies, and any failed copy fails the run",
    },
  },
  playwright: {
    name: 'playwright',
    title: 'Playwright',
    can: { ...ALL, gaps: false, seed: false, shuffle: false },
    optionsWhere: "the flakeproof/playwright reporter's options",
    cannot: {
      gaps: 'every copy of --repeat-each runs in a worker of its own, and Playwright gives a reporter no pause between them, so there is no gap inside one process to observe; --flaky-rounds and --flaky-load compare whole runs instead',
    },
  },
}

/** How the runner named `name` shuffles a file's tests; undefined for a runner without a shuffle, or one flakeproof has no adapter for. */
export function shuffleRuleOf(name: string | undefined): ShuffleRule | undefined {
  return Object.values(RUNNERS).find((runner) => runner.name === name)?.shuffle
}

type FlagName = keyof typeof VITEST_FLAGS
type OptionKey = keyof ResolvedVitestOptions

/** The capability each option needs: its flag's, or for an option without a flag, declared here. */
const NEEDS_WITHOUT_FLAG: Partial<Record<OptionKey, Capability>> = { history: 'history' }

function needsOf(key: string): Capability | null {
  const flag = Object.values(VITEST_FLAGS).find((f) => f.key === key)
  return flag ? flag.needs : (NEEDS_WITHOUT_FLAG[key as OptionKey] ?? null)
}

/** Whether `runner`'s adapter takes this option (or flag, by its option). */
export function takesOption(runner: RunnerInfo, key: string): boolean {
  const needs = needsOf(key)
  return needs === null || runner.can[needs]
}

/** The options `runner`'s adapter takes, of these (to hand on to its reporter, which refuses the others). */
export function takenOptions(runner: RunnerInfo, options: ResolvedVitestOptions): FlakeproofVitestOptions {
  return Object.fromEntries(Object.entries(options).filter(([key]) => takesOption(runner, key)))
}

/** The `--flaky-*` flags `runner`'s adapter takes: the entries of VITEST_FLAGS whose capability it has. */
export function runnerFlags(runner: RunnerInfo): Partial<typeof VITEST_FLAGS> {
  return Object.fromEntries(Object.entries(VITEST_FLAGS).filter(([, flag]) => flag.needs === null || runner.can[flag.needs])) as Partial<typeof VITEST_FLAGS>
}

/** The `--flaky-*` lines of `flakeproof <runner> --help` for `width` columns: those of the flags it takes, by group. */
export function renderRunnerFlags(runner: RunnerInfo, width: number): string[] {
  return renderVitestFlags(width, Object.keys(runnerFlags(runner)))
}

/**
 * Resolves a runner's options from its configured options, FLAKEPROOF_REPEAT and our flags among
 * `args`, later winning; undefined when nothing asks for a run of flakeproof's. A flag or option
 * whose capability the runner's adapter lacks is refused here, before any test runs, with one line
 * naming the runner and what the flag needs: a flag that would do nothing is never ignored.
 */
export function resolveRunnerOptions(
  runner: RunnerInfo,
  configured: FlakeproofVitestOptions,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  /** The runner's version in the project, when known: what it offers instead depends on it. */
  version?: string,
): ResolvedVitestOptions | undefined {
  const taken = runnerFlags(runner)
  for (const arg of args) {
    const name = arg.split('=')[0] as string
    if (!name.startsWith('--flaky-') || name in taken) continue
    const flag = VITEST_FLAGS[name as FlagName]
    if (!flag) throw new FlakeproofError(unknownVitestFlag(name, runner.title, Object.keys(taken)), 'E_USAGE')
    throw new FlakeproofError(`${name} ${missing(runner, flag.needs as Capability, version)}`, 'E_USAGE')
  }
  for (const key of Object.keys(configured)) {
    if (!(key in VitestOptionsSchema.shape)) {
      const options = Object.keys(VitestOptionsSchema.shape).filter((k) => takesOption(runner, k))
      throw new FlakeproofError(unknownOption(key, runner.optionsWhere, options), 'E_USAGE')
    }
    if (!takesOption(runner, key)) throw new FlakeproofError(`option \`${key}\` in ${runner.optionsWhere} ${missing(runner, needsOf(key) as Capability, version)}`, 'E_USAGE')
  }
  return resolveVitestOptions(configured, args, env)
}

// --- internal ---

/** `is not available with Jest: it needs an adapter that …, which flakeproof's Jest adapter does not do yet`. */
function missing(runner: RunnerInfo, capability: Capability, version: string | undefined): string {
  const why = `is not available with ${runner.title}: it needs an adapter that ${CAPABILITIES[capability]}, which flakeproof's ${runner.title} adapter does not`
  const cannot = runner.cannot?.[capability]
  if (cannot !== undefined) return `${why} do: ${cannot}`
  if (capability !== 'seed') return `${why} do yet`
  // Ordering by a seed is the runner's own business where it has an option for it (src/core/hints.ts).
  const own = hintsFor(hintContextOf({ command: `flakeproof ${runner.name}`, tests: [], runner: { name: runner.name, version } })).seededOrder('<n>')
  if (own === null) return `${why}, and ${runner.title}${version === undefined ? '' : ` ${version}`} has no option of its own for it`
  return `${why}; pass ${runner.title}'s own \`${own}\` instead`
}
