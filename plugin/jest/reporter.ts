import { relative } from 'node:path'
import {
  assignmentSeedOf,
  assignTestIds,
  cap,
  type FlakeproofVitestOptions,
  formatTestId,
  isFlakeproofError,
  type JournalTest,
  messageOf,
  oneLineError,
  type Repetition,
  type EverydayResult,
  type ReportedTest,
  resolveOutDir,
  resolveRunnerOptions,
  type RunError,
  RUNNERS,
  selectProof,
  signatureOfText,
  stripAnsi,
  TestSession,
  VitestOptionsSchema,
} from '../../src/session/adapter.js'
import { REPEAT_ENV, type RepeatOptions } from './_protocol.js'
import { jestVersion } from './_version.js'

/** The slices of Jest's reporter arguments read here (Jest 29 and 30 alike). */
export interface JestGlobalConfig {
  rootDir: string
  seed?: number
  randomize?: boolean
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
 * it records one execution per test from Jest's results. Errors outside tests (a file that throws
 * at load, an `afterAll` that throws, a worker that dies) are recorded against their file and make
 * the run incomplete.
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
  /** An everyday run (no copies) keeps its history, unless it is watch mode's edit-and-rerun or history is off. */
  private readonly _keepsHistory: boolean
  private readonly _everyday: EverydayResult[] = []

  constructor(globalConfig: JestGlobalConfig, options: JestReporterOptions = {}) {
    const { command, ...rest } = options
    this._rootDir = globalConfig.rootDir
    this._seed = globalConfig.randomize ? (globalConfig.seed ?? null) : null
    // The gapped/fast coin: Jest's own --seed when it randomises, else drawn (observer.json records it).
    const assignmentSeed = assignmentSeedOf(this._seed)
    const version = jestVersion(this._rootDir)
    const resolved = inOneLine(() => resolveRunnerOptions(RUNNERS.jest, rest, [], process.env, version))
    const settled = resolved ?? VitestOptionsSchema.parse(rest)
    this._measuring = resolved !== undefined
    this._proving = resolved?.proof === true
    this._failOnFlaky = resolved?.failOnFlaky === true
    this._keepsHistory = resolved === undefined && settled.history && globalConfig.watch !== true && globalConfig.watchAll !== true
    const host = { root: (): string => this._rootDir, log: (line: string): void => void process.stderr.write(`${line}\n`) }
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
    const run = this._session.open()
    process.once('exit', () => this._session.release())
    if (!resolved) return
    // Workers start after the reporters are built, and inherit this.
    const repeat: RepeatOptions = {
      mode: proof ? 'proof' : 'measure',
      repeat: proof ? 1 : (resolved.repeat ?? 1),
      slowRepeat: resolved.observe && !proof ? resolved.slowRepeat : 0,
      gapMs: resolved.gapMs,
      assignmentSeed,
      proofRuns: proof?.runs ?? {},
      journalDir: run.journal,
      rootDir: this._rootDir,
    }
    process.env[REPEAT_ENV] = JSON.stringify(repeat)
  }

  onRunStart(): void {
    this._session.begin()
  }

  onTestFileStart(test: JestTest): void {
    this._started.add(test.path)
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
    // Everyday runs only (docs/contracts.md §11), after the session judged their failures against the history they join.
    if (this._keepsHistory && !aggregated.wasInterrupted) this._session.recordEveryday(this._everyday)
    const verdict: JestRunVerdict = {
      advisory: !this._proving && result?.bundle?.rate.complete === true && this._allFailed === 0 && !this._failOnFlaky,
      proofFailed: result?.proof?.passed === false,
    }
    ;(globalThis as Record<symbol, unknown>)[JEST_VERDICT] = verdict
  }

  // --- internal ---

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

  /** Without repetition: one execution per test, as Jest reported it. */
  private _fromResults(file: string, result: JestTestResult): void {
    const identities = result.testResults.map((r) => ({ project: '', file, path: [...r.ancestorTitles, r.title] }))
    const ids = assignTestIds(identities)
    result.testResults.forEach((r, i) => {
      if (r.status !== 'passed' && r.status !== 'failed') return
      const identity = identities[i] as (typeof identities)[number]
      const error = r.failureMessages[0]
      // Jest's failure message holds its stack: the signature is read from it, files relative to the root.
      const signature = error ? signatureOfText(error, this._rootDir) : undefined
      const failed = error ? { error: cap(messageOf({ message: error })), signature } : {}
      const repetition: Repetition = { ok: r.status === 'passed', elapsedMs: r.duration ?? 0, ...failed, mode: 'single', gapMs: 0 }
      const name = identity.path.join(' > ')
      const id = ids[i] as string
      this._record({ project: '', file, name, evidence: { id, path: identity.path, order: i + 1, previousTest: null, worker: 'main', seed: this._seed, repetitions: [repetition] } })
      // jest.retryTimes: a test that passed on a retry hid a failure, the way its first retried attempt failed.
      const retries = Math.max(0, (r.invocations ?? 1) - 1)
      const firstFailure = r.retryReasons?.[0] ?? error
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

