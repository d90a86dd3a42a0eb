import { relative } from 'node:path'
import {
  argsAfterSeparator,
  assignmentSeedOf,
  assignTestIds,
  cap,
  type EverydayResult,
  type FlakeproofVitestOptions,
  FlakeproofError,
  formatTestId,
  hintsFor,
  inGithubActions,
  inOneLine,
  type JournalTest,
  logLine,
  messageOf,
  ONE_PARSE,
  oneLineError,
  type PlannedRound,
  type ProofSelection,
  type Repetition,
  type ReportedTest,
  type ResolvedVitestOptions,
  resolveOutDir,
  resolveRunnerOptions,
  type RunError,
  RUNNERS,
  selectProof,
  signatureOfText,
  stripAnsi,
  type TestLocation,
  TestSession,
  VitestOptionsSchema,
} from '../../src/session/adapter.js'
import { ENVIRONMENT, isOurs, loadJest, RUNNER, SETUP } from './_jest-load.js'
import { REPEAT_ENV, type RepeatOptions } from './_protocol.js'
import { JestEnforcedRun } from './_enforced-run.js'
import { cappedFailures } from './_failure-blocks.js'
import { annotateOncePerTest } from './_annotations.js'
import { idRootOf } from './_id-root.js'
import { jestModules } from './_jest-modules.js'
import { jestVersion } from './_version.js'

/** The slices of Jest's reporter arguments read here (Jest 29 and 30 alike). */
export interface JestGlobalConfig {
  rootDir: string
  seed?: number
  randomize?: boolean
  maxWorkers?: number
  watch?: boolean
  watchAll?: boolean
  verbose?: boolean
  silent?: boolean
  noStackTrace?: boolean
  /** As Jest normalised them: `[name or path, options]`. */
  reporters?: unknown[]
}
interface JestTest {
  path: string
  context?: { config?: { id?: string; displayName?: { name?: string } | string } }
}
interface AssertionResult {
  ancestorTitles: string[]
  fullName: string
  title: string
  status: string
  duration?: number | null
  failureMessages: string[]
  /** Runs of the test in this run: more than 1 when `jest.retryTimes` retried it. */
  invocations?: number
  /** The failures of the attempts `jest.retryTimes` retried (Jest 29.5+), with their stacks. */
  retryReasons?: string[]
  /** Set with Jest's `testLocationInResults`. */
  location?: { line: number } | null
}
interface JestTestResult {
  testFilePath: string
  testResults: AssertionResult[]
  testExecError?: { message?: string } | null
  failureMessage?: string | null
}
interface AggregatedResult {
  wasInterrupted?: boolean
  /** Files Jest meant to run, and the results of those it ran: fewer under `--bail`, which stops at a failed test. */
  numTotalTestSuites?: number
  testResults?: readonly unknown[]
}

/** Options of the reporter: flakeproof's Jest options, and how the run was started. */
export interface JestReporterOptions extends FlakeproofVitestOptions {
  /** Set by `flakeproof jest`, for the files' `command`. */
  command?: string
  /** Set by `flakeproof jest`: each project's own test runner, which flakeproof's runner wraps (RepeatOptions.runners). */
  runners?: Record<string, string>
  /** Set by `flakeproof jest`: its flags, resolved already (a budget's runs set `repeat` beside `budget`); undefined: a plain run. */
  wrapped?: { options: ResolvedVitestOptions | undefined }
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
 * Set by `flakeproof jest` before each whole-run round: which round it is, of how many; the first
 * round's reporter leaves its session there for the later ones.
 */
export interface JestRounds {
  round: PlannedRound
  of: number
  /** An evidence round (1-based) after the planned ones, when the measurement asked for them; a plain one runs each test once. */
  fresh: { round: number; plain: boolean } | undefined
  shared?: { session: TestSession; journalDir: string; proof: ProofSelection | undefined }
}
export const JEST_ROUNDS = Symbol.for('flakeproof.jest.rounds')

/** Runs this process started (RepeatOptions.run). */
let runs = 0

/**
 * `reporters: [['flakeproof/jest/reporter', {...}], 'default']` (docs/contracts.md §12): writes the
 * same files as the Vitest path. With a repeat count, a proof or enforcement it asks flakeproof's
 * runner (`flakeproof/jest/runner`) for copies and takes each test's evidence from their journal;
 * without, the run is an everyday one, recorded in history only (docs/contracts.md §11): the
 * measurement's files stay as they were. `--flaky-*` after `--` (test path patterns to Jest) stop
 * Jest before any test. Errors outside tests (a file that throws at load, an `afterAll` that throws,
 * a worker that dies) are recorded against their file and make the run incomplete.
 */
export default class FlakeproofJestReporter {
  private readonly _rootDir: string
  /** What test files are named relative to in ids (_id-root.ts). */
  private readonly _idRoot: string
  private readonly _session: TestSession
  private readonly _proving: boolean
  private readonly _measuring: boolean
  private readonly _failOnFlaky: boolean
  private readonly _seed: number | null
  /** Files Jest started, by project config and path (a file may run in several projects). */
  private readonly _started = new Map<string, JestTest>()
  private readonly _finished = new Set<string>()
  /** Each file's module id (`[project] file`). */
  private readonly _files = new Set<string>()
  /** The Jest project config that ran each file of a project name: a second one is a run error (see _checkOneProject). */
  private readonly _configOfFile = new Map<string, string>()
  private readonly _ids = new Set<string>()
  private readonly _runErrors: RunError[] = []
  /** An everyday run's results (no repetitions), for history. */
  private readonly _everyday: EverydayResult[] = []
  private readonly _history: boolean
  /** `--flaky-enforce`: the run is judged against the committed policy instead of measured. */
  private readonly _enforced: JestEnforcedRun | undefined
  /** Copies whose console output was kept in facts and not printed (plugin/jest/_console.ts); not counted under --silent, which prints none. */
  private _unprinted = 0
  private readonly _buffered: boolean
  private readonly _noStackTrace: boolean
  private readonly _messageUtil: string | undefined
  /** Where the project's `@jest/core` is, when its `github-actions` reporter is listed: its annotations are made once per test (_annotations.ts). */
  private readonly _annotatingCore: string | undefined
  /** Puts Jest's annotations back as they were, at the run's end. */
  private _restoreAnnotations: (() => void) | undefined
  private readonly _watching: boolean
  /** Jest runs the files in this process (`--runInBand`, or one file): one worker. */
  private _inBand = false
  /** From the config: the copies asked for, told to the runner once onRunStart took the output folder. */
  private _deferred: RepeatOptions | undefined

  constructor(globalConfig: JestGlobalConfig, options: JestReporterOptions = {}) {
    const { command, runners = {}, wrapped, ...rest } = options
    this._rootDir = globalConfig.rootDir
    this._idRoot = idRootOf(this._rootDir)
    this._seed = globalConfig.randomize ? (globalConfig.seed ?? null) : null
    // The gapped/fast coin: Jest's own --seed when it randomises, else drawn (observer.json records it).
    const assignmentSeed = assignmentSeedOf(this._seed)
    const version = jestVersion(this._rootDir)
    if (!wrapped) inOneLine(() => refuseFlagsAfterSeparator(version))
    const resolved = wrapped ? wrapped.options : inOneLine(() => resolveRunnerOptions(RUNNERS.jest, rest, [], process.env, version))
    if (!wrapped && resolved) inOneLine(() => refuseWrapperOnly(resolved))
    const settled = resolved ?? VitestOptionsSchema.parse(rest, ONE_PARSE)
    this._measuring = resolved !== undefined
    this._proving = resolved?.proof === true
    this._failOnFlaky = resolved?.failOnFlaky === true
    // Everyday runs only (docs/contracts.md §11): not a measurement's copies, nor watch mode's edit-and-rerun.
    this._watching = globalConfig.watch === true || globalConfig.watchAll === true
    this._buffered = globalConfig.silent !== true
    this._noStackTrace = globalConfig.noStackTrace === true
    const modules = jestModules(this._rootDir)
    this._messageUtil = modules?.messageUtil
    this._annotatingCore = (globalConfig.reporters ?? []).some((r) => (Array.isArray(r) ? r[0] : r) === 'github-actions') ? modules?.core : undefined
    this._history = !resolved && settled.history && !this._watching
    const host = {
      root: (): string => this._rootDir,
      // Ids name files relative to the id root: GitHub annotations resolve them from there.
      rootOf: (): string => this._idRoot,
      log: (line: string): void => void process.stderr.write(`${line}\n`),
      // How Jest runs the files, for a proof to match its measurement (docs/contracts.md §13.5).
      runShape: () => ({ maxWorkers: this._inBand ? 1 : (globalConfig.maxWorkers ?? null), pool: this._inBand ? 'in-band' : 'workers', isolate: true }),
    }
    const runner = RUNNERS.jest
    const base = {
      runner,
      version,
      options: settled,
      command: command ?? `jest ${process.argv.slice(2).join(' ')}`.trim(),
      lockLabel: `flakeproof/jest/reporter outDir ${settled.outDir}`,
      journal: resolved !== undefined,
      // A test calling process.exit() ends an in-band run (and this process) before onRunComplete.
      endOnExit: true,
      seed: this._seed,
      assignmentSeed,
      // Copies run fast first, gapped ones after (plugin/jest/_repeat.ts): a cut-short one counts as fast.
      modeOf: () => (this._proving ? ('proof' as const) : ('fast' as const)),
    }
    const common = { runners, circus: modules?.circus ?? '', idRoot: this._idRoot, run: `${process.pid}-${++runs}`, locate: inGithubActions(process.env) }
    if (resolved?.enforce) {
      // An enforced run records no measurement: the judgement and history are its files (plugin/jest/_enforced-run.ts).
      this._session = new TestSession(host, { ...base, mode: 'single', lockLabel: undefined, journal: false })
      this._enforced = new JestEnforcedRun(this._rootDir, resolved, base.command)
      const { retries, quarantined } = this._enforced.enforcement
      const enforcing: RepeatOptions = { ...common, mode: 'enforce', repeat: 1, slowRepeat: 0, gapMs: 0, assignmentSeed, proofRuns: {}, retries, quarantined, journalDir: this._enforced.journalDir }
      process.env[REPEAT_ENV] = JSON.stringify(enforcing)
      return
    }
    // Whole-run rounds (`flakeproof jest --flaky-rounds`): Jest builds its reporters anew for every
    // run, and every round's reporter feeds the one session the first round's made.
    const rounds = (globalThis as Record<symbol, JestRounds | undefined>)[JEST_ROUNDS]
    const proof = rounds?.shared?.proof ?? (this._proving ? inOneLine(() => selectProof(base, this._rootDir, resolveOutDir(this._rootDir, settled), settled)) : undefined)
    this._session = rounds?.shared?.session ?? new TestSession(host, { ...base, mode: !resolved ? 'single' : proof ? 'proof' : 'measure', proof })
    if (!resolved) return
    // From the config, the output folder is taken only once onRunStart found what repetitions need.
    const journalDir = rounds?.shared?.journalDir ?? (wrapped ? this._session.open().journal : '')
    if (rounds) {
      // The wrapper's loop of runs can run fresh-state rounds after the planned ones: the session says whether this run may ask.
      if (!rounds.shared) this._session.expectFreshEvidence()
      rounds.shared ??= { session: this._session, journalDir, proof }
      if (rounds.fresh) this._session.planFreshRound(rounds.fresh.round)
      else this._session.planRound(rounds.round, rounds.of)
    }
    process.once('exit', () => this._session.release())
    // Workers start after onRunStart (Jest's TestScheduler makes them then), and inherit this.
    const repeat: RepeatOptions = {
      mode: proof ? 'proof' : 'measure',
      repeat: proof || rounds?.fresh?.plain ? 1 : (resolved.repeat ?? 1),
      // Evidence rounds need the fast repetitions only: gapped ones would cost seconds each for nothing.
      slowRepeat: resolved.observe && !proof && !rounds?.fresh ? resolved.slowRepeat : 0,
      gapMs: resolved.gapMs,
      assignmentSeed,
      proofRuns: proof?.runs ?? {},
      retries: {},
      quarantined: [],
      journalDir,
      ...common,
    }
    if (wrapped) process.env[REPEAT_ENV] = JSON.stringify(repeat)
    else this._deferred = repeat
  }

  /** Jest awaits this before any test file starts: repetitions this config cannot make stop the run here, in one line. */
  async onRunStart(_results: unknown, options?: { showStatus?: boolean }): Promise<void> {
    // Jest shows no status line exactly when it runs the files in band (its TestScheduler).
    this._inBand = options?.showStatus === false
    const deferred = this._deferred
    if (deferred) {
      const lacking = await lacksRunner(this._rootDir)
      if (lacking !== undefined) {
        const asked = this._proving ? '--flaky-proof' : `--flaky-repeat ${deferred.repeat}`
        throw oneLineError(
          `flakeproof: repetitions need flakeproof's test runner in every Jest project, and ${lacking} has none: add testRunner: 'flakeproof/jest/runner' to its config, or run \`${hintsFor({ runner: 'jest', version: jestVersion(this._rootDir) }).again(asked)}\`, which sets it`,
        )
      }
      process.env[REPEAT_ENV] = JSON.stringify({ ...deferred, journalDir: this._session.open().journal })
    }
    if (!this._enforced) this._session.begin()
    if (this._measuring && !this._enforced && this._annotatingCore) this._restoreAnnotations = annotateOncePerTest(this._annotatingCore, { flaky: this._proving || this._failOnFlaky })
  }

  onTestFileStart(test: JestTest): void {
    this._started.set(startKey(test), test)
    // Other flakeproof runs of the same files count as running at once with this one.
    this._session.files([test.path])
  }

  onTestFileResult(test: JestTest, result: JestTestResult): void {
    this._finished.add(startKey(test))
    const where = this._whereOf(test)
    this._files.add(formatTestId({ ...where, path: [] }))
    this._checkOneProject(where, test)
    if (this._enforced) {
      this._enforced.fileEnded(where)
      return
    }
    // An `afterAll` that throws leaves testExecError's message empty: Jest's own text then says it.
    const failure = result.testExecError ? result.testExecError.message || suiteFailure(result.failureMessage) : undefined
    if (failure) this._runErrors.push({ ...where, error: cap(messageOf({ message: failure })) })
    // Our reporter comes first in the list: the default reporter prints the capped text.
    if (this._session.journal && !result.testExecError && this._messageUtil) {
      const capped = cappedFailures(this._messageUtil, result.testResults, test.context?.config, this._noStackTrace, test.path)
      if (capped !== undefined) result.failureMessage = capped
    }
    if (this._session.journal) this._fromJournal(where, test.path, result)
    else this._fromResults(where, test.path, result)
  }

  onRunComplete(_contexts: unknown, aggregated: AggregatedResult): void {
    // Under --bail Jest reports the run here and then exits the process: the files it never ran are
    // missing, not stable, and the run ended early as an interrupted one did.
    const interrupted = aggregated.wasInterrupted === true || (aggregated.testResults?.length ?? 0) < (aggregated.numTotalTestSuites ?? 0)
    this._restoreAnnotations?.()
    this._restoreAnnotations = undefined
    if (this._enforced) {
      // finishEnforcedRun's lines are escaped for GitHub Actions already, its annotations left as commands.
      for (const line of this._enforced.end(interrupted)) process.stdout.write(`${line}\n`)
      return
    }
    for (const [key, test] of this._started) {
      if (this._finished.has(key)) continue
      this._runErrors.push({ ...this._whereOf(test), error: 'Jest reported no result for this file (its worker may have died)' })
    }
    const collected = { modules: this._files, tests: new Set([...this._ids, ...(this._session.journal?.read().collected ?? [])]) }
    const ending = interrupted ? ({ kind: 'interrupted' } as const) : ({ kind: 'stopped', cause: 'the Jest worker stopped' } as const)
    const result = this._session.end({ collected, ending, runErrors: this._runErrors, complete: !interrupted })
    if (this._buffered && this._unprinted > 0) {
      const line = `[flakeproof] console output of ${this._unprinted} cop${this._unprinted === 1 ? 'y' : 'ies'} kept in facts.jsonl, not printed: a test prints the output of its first failing copy only`
      process.stderr.write(`${logLine(line, process.env)}\n`)
    }
    this._unprinted = 0
    const rate = result?.bundle?.rate
    const verdict: JestRunVerdict = {
      // Over every round: no test failed all its copies.
      advisory: !this._proving && rate?.complete === true && (rate.tests ?? []).every((t) => t.failures < t.trials) && !this._failOnFlaky,
      proofFailed: result?.proof?.passed === false,
    }
    ;(globalThis as Record<symbol, unknown>)[JEST_VERDICT] = verdict
    if (this._history && !interrupted && this._everyday.length > 0) this._session.recordEveryday(this._everyday)
    // The run is over: `flakeproof jest` may start another in this process (a budget's).
    if (!this._watching && !this._session.roundsOpen) this._session.release()
  }

  // --- internal ---

  /** The Jest project (its displayName, '' when unnamed) and the file relative to the root: a test's place. */
  private _whereOf(test: JestTest): { project: string; file: string } {
    return { project: projectOf(test), file: relative(this._idRoot, test.path).split('\\').join('/') }
  }

  /**
   * Ids carry the project's displayName: two projects of the same name (or both unnamed) running the
   * same file would put both projects' copies under one id. Said as a run error: the run is
   * incomplete, and its numbers for that file are not to be acted on.
   */
  private _checkOneProject(where: { project: string; file: string }, test: JestTest): void {
    const key = formatTestId({ ...where, path: [] })
    const config = test.context?.config?.id ?? ''
    const earlier = this._configOfFile.get(key)
    if (earlier === undefined) this._configOfFile.set(key, config)
    else if (earlier !== config) {
      const name = where.project === '' ? 'unnamed' : `named ${JSON.stringify(where.project)}`
      const error = `this file ran in two Jest projects both ${name}, whose tests flakeproof cannot tell apart: give each project its own displayName`
      this._runErrors.push({ ...where, error })
    }
  }

  /** Each test of the file whose copies all ended, from the journal; Jest's own count of copies is the check. */
  private _fromJournal(where: { project: string; file: string }, path: string, result: JestTestResult): void {
    let journaled = 0
    let failed = 0
    for (const [id, test] of [...(this._session.journal?.read().tests ?? [])]) {
      if (!test.identity || test.identity.file !== where.file || test.identity.project !== where.project || !test.ended) continue
      journaled += test.repetitions.length
      failed += test.repetitions.filter((r) => !r.ok).length
      this._record(this._reported(id, test, test.repetitions as Repetition[]), { file: path, line: test.line })
    }
    const ran = result.testResults.filter((r) => r.status === 'passed' || r.status === 'failed').length
    const jestFailed = result.testResults.filter((r) => r.status === 'failed').length
    if (!this._proving && ran !== journaled) this._runErrors.push({ ...where, error: `Jest reported ${ran} test execution(s) and flakeproof recorded ${journaled}: ${NOT_INSTALLED}` })
    // A failure Jest counts and flakeproof does not would make a broken test stable, or a proof pass: the
    // file's counts are not trusted. A proof's other tests are skipped, so its failures are its copies'.
    else if (jestFailed !== failed) this._runErrors.push({ ...where, error: `Jest reported ${jestFailed} failed test execution(s) and flakeproof recorded ${failed} failed: this file's counts are not Jest's (a flakeproof bug: please report it)` })
  }

  /** An everyday run: each test that passed or failed, as Jest reported it, for history (a passed test with more than one attempt was retried). */
  private _fromResults(where: { project: string; file: string }, path: string, result: JestTestResult): void {
    const identities = result.testResults.map((r) => ({ ...where, path: [...r.ancestorTitles, r.title] }))
    const ids = assignTestIds(identities)
    result.testResults.forEach((r, i) => {
      if (r.status !== 'passed' && r.status !== 'failed') return
      const identity = identities[i] as (typeof identities)[number]
      const error = r.failureMessages[0]
      const id = ids[i] as string
      // No evidence to record (an everyday run writes history only): where the test is, for its annotation.
      this._ids.add(id)
      this._session.record(id, undefined, { file: path, line: r.location?.line })
      // Jest's own retryTimes may have retried it: a pass after a retry hid a failure (history's `flaky`), the way its first retried attempt failed.
      const retries = Math.max(0, (r.invocations ?? 1) - 1)
      const firstFailure = r.retryReasons?.[0] ?? error
      // Jest's failure message holds its stack: the signature is read from it, files relative to the root.
      const failedWay = firstFailure ? signatureOfText(firstFailure, this._idRoot) : undefined
      this._everyday.push({ id, ...where, name: identity.path.join(' > '), failed: r.status === 'failed', retries, flaky: false, durationMs: r.duration ?? 0, ...(failedWay === undefined ? {} : { signature: failedWay }) })
    })
  }

  private _reported(id: string, test: JournalTest, repetitions: Repetition[]): ReportedTest {
    const identity = test.identity as NonNullable<JournalTest['identity']>
    return {
      project: identity.project,
      file: identity.file,
      name: identity.path.join(' > '),
      evidence: { id, path: identity.path, order: test.order, previousTest: test.previousTest ?? null, previousFile: test.previousFile ?? null, worker: test.worker, seed: this._seed, repetitions },
    }
  }

  private _record(test: ReportedTest, location: TestLocation): void {
    this._ids.add(test.evidence.id)
    const { repetitions } = test.evidence
    if (repetitions.length > 1) {
      const withOutput = repetitions.filter((r) => r.stdout || r.stderr)
      const printed = withOutput.some((r) => !r.ok) ? 1 : 0
      this._unprinted += withOutput.length - printed
    }
    this._session.record(test.evidence.id, test, location)
  }
}

// --- internal ---

/** `--flaky-*` arguments after `--` in Jest's own command line: flakeproof's flags, where Jest takes test path patterns. */
/**
 * `--flaky-*` after `--` (`npx jest -- --flaky-repeat 5`): Jest reads them as test path patterns, so
 * they would repeat nothing and select nothing. Refused before any test, with the command that does it.
 */
function refuseFlagsAfterSeparator(version: string | undefined): void {
  const flags = flakyArgs()
  if (flags.length === 0) return
  throw new FlakeproofError(`Jest reads what follows -- as test path patterns, not as flags, so ${flags.join(' ')} would repeat nothing: run \`${hintsFor({ runner: 'jest', version }).again(flags.join(' '))}\``, 'E_USAGE')
}

/**
 * Which Jest project of this run cannot make copies: none of flakeproof's runner, its setup file
 * (Jest 30) or its environment (Jest 29), read as Jest's CLI reads the configs of this very run;
 * undefined when every one can, or the configs cannot be read again (the copies' count then says it).
 */
async function lacksRunner(rootDir: string): Promise<string | undefined> {
  try {
    const { jest, config } = loadJest(rootDir)
    const argv = await jest.buildArgv(process.argv.slice(2))
    const projects = argv.projects && argv.projects.length > 0 ? argv.projects : [process.cwd()]
    const { configs } = await config.readConfigs(argv, projects)
    const legacy = Number.parseInt(jest.getVersion(), 10) < 30
    const copies = (c: (typeof configs)[number]): boolean =>
      isOurs(c.testRunner, RUNNER) || (legacy ? isOurs(c.testEnvironment ?? '', ENVIRONMENT) : (c.setupFilesAfterEnv ?? []).some((f) => isOurs(f, SETUP)))
    const index = configs.findIndex((c) => !copies(c))
    if (index < 0) return undefined
    return configs.length > 1 ? `project ${index + 1} of ${configs.length}` : 'this project'
  } catch {
    return undefined
  }
}

function flakyArgs(): string[] {
  const after = argsAfterSeparator(process.argv)
  return after.some((a) => a.startsWith('--flaky-')) ? after : []
}

/**
 * Why copies were not recorded in a file Jest ran: flakeproof's repetition is not in that file's
 * runner (a config naming the reporter alone, or a runner other than circus).
 */
const NOT_INSTALLED = "is testRunner: 'flakeproof/jest/runner' in this project's config (or `npx flakeproof jest`, which sets it)?"

/**
 * Rounds, conditions, a seed and a budget run Jest more than once or with its own arguments, which
 * only `flakeproof jest` does: a reporter in a config cannot, and never ignores them.
 */
function refuseWrapperOnly(options: ResolvedVitestOptions): void {
  const asked = [
    options.rounds > 1 && '--flaky-rounds',
    options.divergence && '--flaky-divergence',
    options.load && '--flaky-load',
    options.shuffle && '--flaky-shuffle',
    options.seed !== undefined && '--flaky-seed',
    options.budget !== undefined && '--flaky-budget',
  ].filter((flag): flag is string => typeof flag === 'string')
  if (asked.length === 0) return
  throw new FlakeproofError(`flakeproof/jest/reporter: ${asked.join(', ')} run Jest again or with its own arguments, which only \`npx flakeproof jest ${asked[0]} …\` can do`, 'E_USAGE')
}

/** Files are started and reported per project config: the same path may run in two. */
function startKey(test: JestTest): string {
  return `${test.context?.config?.id ?? ''}\n${test.path}`
}

/** A Jest project's name as Jest shows it (`displayName`, a string or `{ name, color }`); '' when unnamed. */
function projectOf(test: JestTest): string {
  const name = test.context?.config?.displayName
  return (typeof name === 'string' ? name : name?.name) ?? ''
}

/** Jest's text for a file that failed outside its tests, without its heading and indentation. */
function suiteFailure(text: string | null | undefined): string {
  const plain = stripAnsi(text ?? '').replace(/^\s*● Test suite failed to run\s*/, '')
  return plain.split('\n').map((line) => line.replace(/^ {4}/, '')).join('\n').trim() || 'the file failed outside its tests'
}

