import { relative } from 'node:path'
import {
  argsAfterSeparator,
  assignmentSeedOf,
  assignTestIds,
  cap,
  type EverydayResult,
  type FlakeproofVitestOptions,
  formatTestId,
  hintsFor,
  isFlakeproofError,
  type JournalTest,
  messageOf,
  oneLineError,
  type Repetition,
  type ReportedTest,
  resolveOutDir,
  resolveRunnerOptions,
  type ResolvedVitestOptions,
  type RunError,
  RUNNERS,
  selectProof,
  signatureOfText,
  stripAnsi,
  TestSession,
  VitestOptionsSchema,
} from '../../src/session/adapter.js'
import { ENVIRONMENT, isOurs, loadJest, SETUP } from './_jest-api.js'
import { REPEAT_ENV, type RepeatOptions } from './_protocol.js'
import { jestVersion } from './_version.js'

/** The slices of Jest's reporter arguments read here (Jest 29 and 30 alike). */
export interface JestGlobalConfig {
  rootDir: string
  seed?: number
  randomize?: boolean
  maxWorkers?: number
  watch?: boolean
  watchAll?: boolean
}
interface JestTest {
  path: string
  context?: { config?: { id?: string; displayName?: { name?: string } | string } }
}
interface AssertionResult {
  ancestorTitles: string[]
  title: string
  status: string
  duration?: number | null
  failureMessages: string[]
  /** Runs of the test in this run: more than 1 when `jest.retryTimes` retried it. */
  invocations?: number
  /** The failures of the attempts `jest.retryTimes` retried (Jest 29.5+), with their stacks. */
  retryReasons?: string[]
}
interface JestTestResult {
  testFilePath: string
  testResults: AssertionResult[]
  testExecError?: { message?: string } | null
  failureMessage?: string | null
}
interface AggregatedResult {
  wasInterrupted?: boolean
}

/** Options of the reporter: flakeproof's Jest options, and how the run was started. */
export interface JestReporterOptions extends FlakeproofVitestOptions {
  /** Set by `flakeproof jest`, for the files' `command`. */
  command?: string
}

/** What the last run concluded, for `flakeproof jest`'s exit code (read in the same process). */
export interface JestRunVerdict {
  /** Every test that failed a copy also passed one, and the run is whole: a measurement's failures are advisory. */
  advisory: boolean
  /** A proof ran and failed. */
  proofFailed: boolean
}
export const JEST_VERDICT = Symbol.for('flakeproof.jest.verdict')

/**
 * `reporters: ['default', ['flakeproof/jest/reporter', {...}]]` (docs/contracts.md §12): writes the
 * same files as the Vitest path. With a repeat count or a proof it asks the setup file
 * (`flakeproof/jest/setup`) for copies and takes each test's evidence from their journal; without,
 * the run is an everyday one, recorded in history only (docs/contracts.md §11): the measurement's
 * files stay as they were. Repetitions it cannot make (no setup file, flags after `--`) stop Jest
 * before any test. Errors outside tests (a file that throws at load, an `afterAll` that throws, a
 * worker that dies) are recorded against their file and make the run incomplete.
 */
export default class FlakeproofJestReporter {
  private readonly _rootDir: string
  private readonly _session: TestSession
  private readonly _proving: boolean
  private readonly _measuring: boolean
  private readonly _failOnFlaky: boolean
  private readonly _seed: number | null
  private readonly _started = new Set<string>()
  private readonly _finished = new Set<string>()
  private readonly _files = new Set<string>()
  /** The Jest project that ran each file: a second one is a run error (see _checkOneProject). */
  private readonly _projectOfFile = new Map<string, string>()
  private readonly _ids = new Set<string>()
  private readonly _runErrors: RunError[] = []
  /** Tests that failed every copy: their failures are not advisory. */
  private _allFailed = 0
  private readonly _version: string | undefined
  private readonly _settled: ResolvedVitestOptions
  /** Started in the reporter's config (not by `flakeproof jest`), where the setup may lack what repetitions need. */
  private readonly _configured: boolean
  /** An everyday run's tests, as Jest reported them. */
  private readonly _everyday: EverydayResult[] = []
  /** What the setup file is told to repeat (its journal set once the output folder is taken); unset in an everyday run. */
  private _repeat: RepeatOptions | undefined
  /** Jest runs the files in this process (`--runInBand`, or one file): one worker. */
  private _inBand = false
  /** An everyday run (no copies) keeps its history, unless it is watch mode's edit-and-rerun or history is off. */
  private readonly _keepsHistory: boolean

  constructor(globalConfig: JestGlobalConfig, options: JestReporterOptions = {}) {
    const { command, ...rest } = options
    this._rootDir = globalConfig.rootDir
    this._seed = globalConfig.randomize ? (globalConfig.seed ?? null) : null
    // The gapped/fast coin: Jest's own --seed when it randomises, else drawn (observer.json records it).
    const assignmentSeed = assignmentSeedOf(this._seed)
    const version = jestVersion(this._rootDir)
    this._version = version
    this._configured = command === undefined
    const resolved = inOneLine(() => resolveRunnerOptions(RUNNERS.jest, rest, [], process.env, version))
    const settled = resolved ?? VitestOptionsSchema.parse(rest)
    this._settled = settled
    this._measuring = resolved !== undefined
    this._proving = resolved?.proof === true
    this._failOnFlaky = resolved?.failOnFlaky === true
    const host = {
      root: (): string => this._rootDir,
      log: (line: string): void => void process.stderr.write(`${line}\n`),
      runShape: () => ({ maxWorkers: this._inBand ? 1 : (globalConfig.maxWorkers ?? null), pool: this._inBand ? 'in-band' : 'workers', isolate: true }),
    }
    this._keepsHistory = resolved === undefined && settled.history && globalConfig.watch !== true && globalConfig.watchAll !== true
    const runner = RUNNERS.jest
    const base = {
      runner,
      version,
      options: settled,
      command: command ?? `jest ${process.argv.slice(2).join(' ')}`.trim(),
      lockLabel: `flakeproof/jest/reporter outDir ${settled.outDir}`,
      journal: resolved !== undefined,
      seed: this._seed,
      assignmentSeed,
      // Copies run fast first, gapped ones after (plugin/jest/_repeat.ts): a cut-short one counts as fast.
      modeOf: () => (this._proving ? ('proof' as const) : ('fast' as const)),
    }
    const outDir = inOneLine(() => resolveOutDir(this._rootDir, settled))
    const proof = this._proving ? inOneLine(() => selectProof(base, this._rootDir, outDir, settled)) : undefined
    this._session = new TestSession(host, { ...base, mode: !resolved ? 'single' : proof ? 'proof' : 'measure', proof })
    if (!resolved) return
    // Workers start after onRunStart (Jest's TestScheduler builds its runners then), and inherit this.
    this._repeat = {
      mode: proof ? 'proof' : 'measure',
      repeat: proof ? 1 : (resolved.repeat ?? 1),
      slowRepeat: resolved.observe && !proof ? resolved.slowRepeat : 0,
      gapMs: resolved.gapMs,
      assignmentSeed,
      proofRuns: proof?.runs ?? {},
      journalDir: '',
      rootDir: this._rootDir,
    }
  }

  /** Jest awaits this before any test file starts: what cannot be honoured stops the run here, in one line. */
  async onRunStart(_results: unknown, options?: { showStatus?: boolean }): Promise<void> {
    await this._refuseWhatCannotBeHonoured()
    // Only a run that goes ahead takes the output folder: a refused one leaves nothing behind.
    if (this._repeat) {
      const run = this._session.open()
      process.once('exit', () => this._session.release())
      process.env[REPEAT_ENV] = JSON.stringify({ ...this._repeat, journalDir: run.journal })
    }
    // Jest shows no status line exactly when it runs the files in band (its TestScheduler).
    this._inBand = options?.showStatus === false
    this._session.begin()
  }

  onTestFileStart(test: JestTest): void {
    this._started.add(test.path)
    this._session.files([test.path])
  }

  onTestFileResult(test: JestTest, result: JestTestResult): void {
    this._finished.add(test.path)
    const file = relative(this._rootDir, test.path).split('\\').join('/')
    this._files.add(file)
    this._checkOneProject(file, test)
    // An `afterAll` that throws leaves testExecError's message empty: Jest's own text then says it.
    const failure = result.testExecError ? result.testExecError.message || suiteFailure(result.failureMessage) : undefined
    if (failure) this._runErrors.push({ project: '', file, error: cap(messageOf({ message: failure })) })
    if (this._session.journal) this._fromJournal(file, result)
    else this._fromResults(file, result)
  }

  onRunComplete(_contexts: unknown, aggregated: AggregatedResult): void {
    for (const path of this._started) {
      if (this._finished.has(path)) continue
      const file = relative(this._rootDir, path).split('\\').join('/')
      this._runErrors.push({ project: '', file, error: 'Jest reported no result for this file (its worker may have died)' })
    }
    const collected = { modules: new Set([...this._files].map((file) => formatTestId({ project: '', file, path: [] }))), tests: this._ids }
    const result = this._session.end({ collected, ending: { kind: 'stopped', cause: 'the Jest worker stopped' }, runErrors: this._runErrors, complete: !aggregated.wasInterrupted })
    // Everyday runs only (docs/contracts.md §11): attributed, then recorded in the history they join.
    if (this._keepsHistory && !aggregated.wasInterrupted && this._everyday.length > 0) this._session.recordEveryday(this._everyday)
    const verdict: JestRunVerdict = {
      advisory: !this._proving && result?.bundle?.rate.complete === true && this._allFailed === 0 && !this._failOnFlaky,
      proofFailed: result?.proof?.passed === false,
    }
    ;(globalThis as Record<symbol, unknown>)[JEST_VERDICT] = verdict
  }

  // --- internal ---

  /**
   * Repetitions asked of the reporter that this setup cannot make stop the run before any test:
   * `--flaky-*` after `--` (Jest reads them as test path patterns), or a repeat count or proof with
   * a project that lacks flakeproof's setup file (each test would run once, and say so only after).
   */
  private async _refuseWhatCannotBeHonoured(): Promise<void> {
    const hints = hintsFor({ runner: 'jest', version: this._version })
    const flags = flakyArgs()
    if (flags.length > 0) {
      throw oneLineError(
        `flakeproof: Jest reads what follows -- as test path patterns, not as flags, so ${flags.join(' ')} would repeat nothing: run \`${hints.again(flags.join(' '))}\`, or set FLAKEPROOF_REPEAT with flakeproof's setup file in setupFilesAfterEnv`,
      )
    }
    if (!this._measuring || !this._configured) return
    const lacking = await lacksSetup(this._rootDir)
    if (lacking === undefined) return
    const repeat = this._proving ? '--flaky-proof' : `--flaky-repeat ${this._settled.repeat ?? '<n>'}`
    throw oneLineError(
      `flakeproof: repetitions need flakeproof's setup in every Jest project, and ${lacking}: add 'flakeproof/jest/setup' to setupFilesAfterEnv` +
        `${this._legacyEnvironment ? " and testEnvironment: 'flakeproof/jest/environment' (Jest 29)" : ''}, or run \`${hints.again(repeat)}\`, which adds them`,
    )
  }

  /** Jest 29 gives a setup file no circus handler list: the repetition rides on flakeproof's environment. */
  private get _legacyEnvironment(): boolean {
    return this._version !== undefined && Number.parseInt(this._version, 10) < 30
  }

  /**
   * Ids carry no Jest project yet: the same file run by two projects (node and jsdom, say) would put
   * both projects' copies under one id. Said as a run error: the run is incomplete, and its numbers
   * for that file are not to be acted on.
   */
  private _checkOneProject(file: string, test: JestTest): void {
    const config = test.context?.config
    const name = typeof config?.displayName === 'string' ? config.displayName : (config?.displayName?.name ?? config?.id ?? '')
    const earlier = this._projectOfFile.get(file)
    if (earlier === undefined) this._projectOfFile.set(file, name)
    else if (earlier !== name) {
      const both = [earlier || 'unnamed', name || 'unnamed'].sort().join(', ')
      const error = `this file ran in two Jest projects (${both}), whose copies flakeproof cannot tell apart yet: measure one project at a time (--selectProjects <name>)`
      this._runErrors.push({ project: '', file, error })
    }
  }

  /** Each test of the file whose copies all ended, from the journal; Jest's own count of copies is the check. */
  private _fromJournal(file: string, result: JestTestResult): void {
    let journaled = 0
    for (const [id, test] of [...(this._session.journal?.read().tests ?? [])]) {
      if (!test.identity || test.identity.file !== file || !test.ended) continue
      journaled += test.repetitions.length
      this._record(this._reported(id, test, test.repetitions as Repetition[]))
    }
    const ran = result.testResults.filter((r) => r.status === 'passed' || r.status === 'failed').length
    if (this._measuring && !this._proving && ran !== journaled) {
      this._runErrors.push({ project: '', file, error: `Jest reported ${ran} test execution(s) and the setup file recorded ${journaled}: is 'flakeproof/jest/setup' in setupFilesAfterEnv?` })
    }
  }

  /** An everyday run: each test that passed or failed, as Jest reported it, for history (a passed test with more than one attempt was retried). */
  private _fromResults(file: string, result: JestTestResult): void {
    const identities = result.testResults.map((r) => ({ project: '', file, path: [...r.ancestorTitles, r.title] }))
    const ids = assignTestIds(identities)
    result.testResults.forEach((r, i) => {
      if (r.status !== 'passed' && r.status !== 'failed') return
      const identity = identities[i] as (typeof identities)[number]
      const error = r.failureMessages[0]
      const name = identity.path.join(' > ')
      const id = ids[i] as string
      this._ids.add(id)
      // jest.retryTimes: a test that passed on a retry hid a failure, the way its first retried attempt failed.
      const retries = Math.max(0, (r.invocations ?? 1) - 1)
      const firstFailure = r.retryReasons?.[0] ?? error
      // Jest's failure message holds its stack: the signature is read from it, files relative to the root.
      const failedWay = firstFailure ? signatureOfText(firstFailure, this._rootDir) : undefined
      this._everyday.push({ id, project: '', file, name, failed: r.status === 'failed', retries, flaky: false, durationMs: r.duration ?? 0, ...(failedWay === undefined ? {} : { signature: failedWay }) })
    })
  }

  private _reported(id: string, test: JournalTest, repetitions: Repetition[]): ReportedTest {
    const identity = test.identity as NonNullable<JournalTest['identity']>
    return {
      project: identity.project,
      file: identity.file,
      name: identity.path.join(' > '),
      evidence: { id, path: identity.path, order: test.order, previousTest: null, worker: test.worker, seed: this._seed, repetitions },
    }
  }

  private _record(test: ReportedTest): void {
    this._ids.add(test.evidence.id)
    if (test.evidence.repetitions.every((r) => !r.ok)) this._allFailed++
    this._session.record(test.evidence.id, test)
  }
}

// --- internal ---

/** `--flaky-*` arguments after `--` in Jest's own command line: flakeproof's flags, where Jest takes test path patterns. */
function flakyArgs(): string[] {
  const after = argsAfterSeparator(process.argv)
  return after.some((a) => a.startsWith('--flaky-')) ? after : []
}

/**
 * Which Jest project lacks flakeproof's setup file (or, on Jest 29, its environment), read as Jest's
 * CLI reads the configs of this very run; undefined when every one has them, or the configs cannot
 * be read again (the run then goes on, and its copies' count says the rest).
 */
async function lacksSetup(rootDir: string): Promise<string | undefined> {
  try {
    const { jest, config } = loadJest(rootDir)
    const argv = await jest.buildArgv(process.argv.slice(2))
    const projects = argv.projects && argv.projects.length > 0 ? argv.projects : [process.cwd()]
    const { configs } = await config.readConfigs(argv, projects)
    const legacy = Number.parseInt(jest.getVersion(), 10) < 30
    const index = configs.findIndex((c) => !c.setupFilesAfterEnv.some((f) => isOurs(f, SETUP)) || (legacy && !isOurs(c.testEnvironment, ENVIRONMENT)))
    if (index < 0) return undefined
    const which = configs.length > 1 ? `project ${index + 1} of ${configs.length}` : 'this project'
    const lacking = configs[index] as (typeof configs)[number]
    return lacking.setupFilesAfterEnv.some((f) => isOurs(f, SETUP)) ? `${which} runs in another testEnvironment` : `${which} has no 'flakeproof/jest/setup' in setupFilesAfterEnv`
  } catch {
    return undefined
  }
}

/**
 * Jest prints a reporter's error as its stack under "An error occurred while adding the reporter";
 * a user's mistake reads better as its one line, which already names the option, the value and the fix.
 */
function inOneLine<T>(run: () => T): T {
  try {
    return run()
  } catch (error) {
    if (!isFlakeproofError(error)) throw error
    throw oneLineError(`flakeproof: ${error.message}`, error)
  }
}

/** Jest's text for a file that failed outside its tests, without its heading and indentation. */
function suiteFailure(text: string | null | undefined): string {
  const plain = stripAnsi(text ?? '').replace(/^\s*● Test suite failed to run\s*/, '')
  return plain.split('\n').map((line) => line.replace(/^ {4}/, '')).join('\n').trim() || 'the file failed outside its tests'
}

