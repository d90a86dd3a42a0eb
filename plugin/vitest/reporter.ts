import type { Reporter, TestCase, TestModule, TestRunEndReason, TestSpecification, Vitest } from 'vitest/node'
import {
  argsAfterSeparator,
  type Collected,
  FlakeproofError,
  hintsFor,
  type FreshRounds,
  messageOf,
  ONE_PARSE,
  oneLineError,
  type PlannedRound,
  type ProofSelection,
  type ReportedTest,
  resolveRunnerOptions,
  type ResolvedVitestOptions,
  type RoundsReporter,
  type RunError,
  RUNNERS,
  type RunShape,
  TestSession,
  VitestOptionsSchema,
} from '../../src/session/adapter.js'
import { workersOf } from './_workers.js'
import { signatureOfTestCase, vitestEverydayResults } from './_history.js'
import { moduleId, relativeFile, TestIds } from './_test-ids.js'
// Vitest's TaskMeta carries our evidence (augmented there).
import type {} from './_protocol.js'

/** Marks instances, so a second copy of this module (Vite's bundle of the config) recognises them. */
export const REPORTER_BRAND = Symbol.for('flakeproof.vitest.reporter')

/** Options of the reporter: the plugin's, plus what the plugin decided (mode, proof selection). */
export interface ReporterOptions extends Partial<ResolvedVitestOptions> {
  /** Set by the plugin: whether the recording runner is active, and in which mode. */
  runnerMode?: 'measure' | 'proof'
  /** Set by the plugin in proof mode: what is proved. */
  proving?: ProofSelection
  /** How the run was started, for the files' `command`. */
  command?: string
  /** Set by the plugin: the seed of the gapped/fast coin its runners use (recorded in observer.json). */
  assignmentSeed?: number
}

/**
 * Writes flakeproof's files for a Vitest run (docs/contracts.md §4) through the runner-neutral
 * session (src/session/test-session.ts), translating Vitest's events onto it. With the plugin's
 * runner it sees every repetition, and the session reads the workers' journal for progress and for
 * tests whose worker died; used alone (`reporters: ['default', 'flakeproof/reporter']`) it records
 * everyday runs in history and never touches a measurement's files (docs/contracts.md §11). Alone,
 * it cannot repeat: asked to, it stops Vitest before any test, saying how to add the runner.
 */
export default class FlakeproofReporter implements Reporter, RoundsReporter {
  readonly [REPORTER_BRAND] = true
  private readonly _options: ResolvedVitestOptions & ReporterOptions
  private readonly _session: TestSession
  private _vitest: Vitest | undefined
  /** Tests that ended with no evidence from the runner, by file: a place the runner did not reach, said as a run error. */
  private readonly _unrecorded = new Map<string, { project: string; file: string; count: number }>()
  private readonly _ids = new TestIds()

  constructor(options: ReporterOptions = {}) {
    const { runnerMode, proving, command, assignmentSeed, ...rest } = options
    const parsed = VitestOptionsSchema.safeParse(rest, ONE_PARSE)
    if (!parsed.success) throw new FlakeproofError(`flakeproof/reporter: ${parsed.error.issues[0]?.message ?? 'invalid options'}`, 'E_USAGE')
    this._options = { ...parsed.data, runnerMode, proving, command }
    if (!runnerMode && !measuringInThisProcess()) refuseRepetitionAlone(rest)
    const host = {
      root: (): string => this._vitest?.config.root ?? process.cwd(),
      log: (line: string, level: 'log' | 'warn' = 'log'): void => {
        if (this._vitest) this._vitest.logger[level](line)
        else console[level](line)
      },
      rootOf: (project: string): string | undefined => this._vitest?.projects.find((p) => p.name === project)?.config.root,
      runShape: (): RunShape => (this._vitest ? runShapeOf(this._vitest) : {}),
    }
    this._session = new TestSession(host, {
      runner: RUNNERS.vitest,
      version: undefined,
      options: parsed.data,
      mode: runnerMode ?? 'single',
      command: command ?? 'vitest run',
      proof: proving,
      // The plugin took the lock before any test; used alone, the reporter takes it on its first run.
      lockLabel: runnerMode ? undefined : `flakeproof/reporter outDir ${parsed.data.outDir}`,
      journal: runnerMode !== undefined,
      assignmentSeed,
      endOnExit: true,
    })
  }

  onInit(vitest: Vitest): void {
    this._vitest = vitest
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification> = []): void {
    this._session.guard('onTestRunStart', () => {
      this._unrecorded.clear()
      this._session.begin()
      this._session.files(specifications.map((s) => s.moduleId))
    })
  }

  onTestCaseResult(testCase: TestCase): void {
    this._session.guard('onTestCaseResult', () => {
      // The runner's id when it sent one: the journal knows the test by that id.
      const id = testCase.meta().flakeproof?.id ?? this._ids.of(testCase).id
      this._session.record(id, this._toReported(testCase), { file: testCase.module.moduleId, line: testCase.location?.line })
    })
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<unknown>, reason: TestRunEndReason): void {
    this._session.guard('onTestRunEnd', () => {
      const interrupted = reason === 'interrupted'
      const ending = interrupted ? ({ kind: 'interrupted' } as const) : ({ kind: 'crashed', cause: describeCrash(errors) } as const)
      this._session.end({ collected: this._collected(modules), ending, runErrors: this._runErrors(modules, errors), complete: !interrupted })
      // Everyday runs only (docs/contracts.md §11): not a measuring run's repetitions, nor watch mode's edit-and-rerun.
      if (!this._options.runnerMode && this._options.history && !interrupted && this._vitest?.config.watch !== true) {
        const results = vitestEverydayResults(modules, (t) => this._ids.of(t))
        if (results) this._session.recordEveryday(results)
      }
    })
  }

  /** Whole-run rounds: a measurement is under way, and more rounds may join it. */
  get roundsOpen(): boolean {
    return this._session.roundsOpen
  }

  /** The loop of rounds says what the next run is: its number, condition and seed, and how many runs there are. */
  planRound(round: PlannedRound, of: number): void {
    this._session.planRound(round, of)
  }

  /** Whole-run rounds stopped before the last one ran (an error of Vitest's between rounds): what ran is written, incomplete. */
  endRounds(): void {
    this._session.endRounds()
  }

  /** The loop can run fresh-state rounds (src/pipeline/fresh-evidence.ts): the session says whether this run may ask for them. */
  expectFreshEvidence(): boolean {
    return this._session.expectFreshEvidence()
  }

  freshEvidence(): FreshRounds | undefined {
    return this._session.freshEvidence()
  }

  planFreshRound(round: number): void {
    this._session.planFreshRound(round)
  }

  // --- internal ---

  /** What this run collected: each module's id prefix (`[project] file`), and the id of every test in them, filtered ones included. */
  private _collected(modules: ReadonlyArray<TestModule>): Collected {
    const tests = new Set<string>()
    for (const module of modules) for (const testCase of module.children.allTests()) tests.add(this._ids.of(testCase).id)
    const prefixes = modules.map(moduleId)
    return { modules: new Set(prefixes), tests }
  }

  /** Errors outside any test, by file: import and hook errors on modules and suites, then unhandled ones. */
  private _runErrors(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<unknown>): RunError[] {
    const found: RunError[] = []
    for (const module of modules) {
      const where = { project: module.project.name, file: relativeFile(module.project.config.root, module.moduleId) }
      for (const error of module.errors()) found.push({ ...where, error: messageOf(error) })
      for (const suite of module.children.allSuites()) {
        for (const error of suite.errors()) found.push({ ...where, error: `${suite.fullName}: ${messageOf(error)}` })
      }
    }
    for (const error of unhandled) found.push(unhandledError(error, modules))
    for (const { count, ...where } of this._unrecorded.values()) {
      found.push({ ...where, error: `${count} test(s) ran without flakeproof's runner, once each, so no file counts them; please report it to flakeproof with your Vitest version and config` })
    }
    return found
  }

  private _toReported(testCase: TestCase): ReportedTest | undefined {
    const { id, identity } = this._ids.of(testCase)
    const name = testCase.fullName
    const recorded = testCase.meta().flakeproof
    if (recorded) return { project: identity.project, file: identity.file, name, evidence: recorded }
    const result = testCase.result()
    // Typecheck tests never pass through the runner: recorded once, as what they are.
    if (result.state === 'skipped' || result.state === 'pending') return undefined
    if (testCase.meta().typecheck !== true) {
      // It ran, and the runner never saw it: never left out in silence (an everyday run records none).
      if (!this._options.runnerMode) return undefined
      const key = moduleId(testCase.module)
      const known = this._unrecorded.get(key)
      if (known) known.count++
      else this._unrecorded.set(key, { project: identity.project, file: identity.file, count: 1 })
      return undefined
    }
    const error = result.errors?.[0]?.message
    const signature = result.state === 'failed' ? signatureOfTestCase(testCase) : undefined
    return {
      project: identity.project,
      file: identity.file,
      name,
      evidence: {
        id,
        path: identity.path,
        order: 1,
        previousTest: null,
        worker: 'main',
        seed: null,
        repetitions: [
          {
            ok: result.state === 'passed',
            elapsedMs: Math.round((testCase.diagnostic()?.duration ?? 0) * 100) / 100,
            ...(error === undefined ? {} : { error }),
            ...(signature === undefined ? {} : { signature }),
            mode: 'single',
            gapMs: 0,
          },
        ],
      },
    }
  }
}

// --- internal ---

/** The plugin's runner measures in this process (the plugin is active, or `flakeproof vitest` runs it): this reporter is no everyday one. */
function measuringInThisProcess(): boolean {
  const global = globalThis as Record<symbol, unknown>
  return global[Symbol.for('flakeproof.vitest.installed')] !== undefined || global[Symbol.for('flakeproof.vitest.options')] !== undefined
}

/**
 * The reporter alone records everyday runs: a repeat count, a proof or an enforced run asked of it
 * (after `--`, by FLAKEPROOF_REPEAT or in its options) would be silently one plain run,
 * so Vitest stops before any test, with the line that says how to get the recording runner.
 */
function refuseRepetitionAlone(options: Record<string, unknown>): void {
  const args = argsAfterSeparator(process.argv)
  if (!resolveRunnerOptions(RUNNERS.vitest, options, args, process.env)) return
  const repeat = process.env.FLAKEPROOF_REPEAT
  const flags = args.length > 0 ? args.join(' ') : repeat ? `--flaky-repeat ${repeat}` : '--flaky-repeat <n>'
  const asked = args.length > 0 ? args.join(' ') : repeat ? `FLAKEPROOF_REPEAT=${repeat}` : `the reporter's options (${Object.keys(options).join(', ')})`
  throw oneLineError(
    `flakeproof: ${asked} asks for repetitions, which flakeproof/reporter alone cannot make (it records everyday runs): ` +
      `add the plugin to the config (import flakeproof from 'flakeproof/vitest'; plugins: [flakeproof()]), or run \`${hintsFor({ runner: 'vitest', form: 'wrapper' }).again(flags)}\``,
  )
}

/** The workers, pool and isolation of the run, over its projects: the most workers any project may use, the pool and isolation they share (joined when they differ). */
function runShapeOf(vitest: Vitest): RunShape {
  const configs = vitest.projects.length > 0 ? vitest.projects.map((p) => p.config) : [vitest.config]
  const maxWorkers = Math.max(...configs.map((c) => workersOf(vitest, c)))
  const pools = [...new Set(configs.map((c) => String(c.pool)))].sort()
  const isolation = [...new Set(configs.map((c) => (c as { isolate?: boolean }).isolate !== false))]
  return { maxWorkers, pool: pools.join('+'), isolate: isolation.length === 1 ? (isolation[0] as boolean) : null }
}

/**
 * An unhandled error where Vitest says it arose: the test file its worker was running
 * (`VITEST_TEST_PATH`) and the test it was in (`VITEST_TEST_NAME`), which Vitest calls the latest
 * that might have caused it (a promise a test left behind rejects during a later one). Outside any
 * file when Vitest does not say, or names no file of this run.
 */
function unhandledError(error: unknown, modules: ReadonlyArray<TestModule>): RunError {
  const { VITEST_TEST_PATH: path, VITEST_TEST_NAME: name } = (typeof error === 'object' && error !== null ? error : {}) as { VITEST_TEST_PATH?: unknown; VITEST_TEST_NAME?: unknown }
  const matching = typeof path === 'string' ? modules.filter((m) => m.moduleId === path) : []
  const module = matching[0]
  // Vitest gives the test's own name: its describe names too where one test of the file has it.
  const [only, ...others] = typeof name === 'string' && module ? [...module.children.allTests()].filter((t) => t.name === name) : []
  const during = only && others.length === 0 ? only.fullName : name
  const text = `${typeof during === 'string' ? `unhandled during "${during}": ` : 'unhandled: '}${messageOf(error)}`
  if (!module) return { project: null, file: null, error: text }
  // A file two projects run: Vitest does not say which of them it arose in.
  return { project: matching.length === 1 ? module.project.name : null, file: relativeFile(module.project.config.root, module.moduleId), error: text }
}

/** What Vitest said about the worker that died: the unhandled error naming a worker, else the first, with its cause. */
function describeCrash(errors: ReadonlyArray<unknown>): string {
  const worker = errors.find((e) => /worker/i.test(`${(e as { message?: unknown })?.message}`))
  const first = (worker ?? errors[0]) as { message?: unknown; cause?: { message?: unknown } } | undefined
  const message = typeof first?.message === 'string' ? first.message : 'the worker stopped'
  const cause = typeof first?.cause?.message === 'string' ? ` (${first.cause.message})` : ''
  return `${message}${cause}`
}
