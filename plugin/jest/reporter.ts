import { relative } from 'node:path'
import pc from 'picocolors'
import { isProcessAlive } from '../../src/artifacts/_process.js'
import { JournalReader, type JournalTest } from '../../src/artifacts/journal.js'
import { acquireOutputLock, type OutputLock } from '../../src/artifacts/lock.js'
import { prepareRunDir, type RunDir, runDirOf } from '../../src/artifacts/run-dir.js'
import type { RunError } from '../../src/artifacts/test-schemas.js'
import { type FlakeproofJestOptions, JestOptionsSchema, type ResolvedJestOptions, resolveJestOptions } from '../../src/config/jest-options.js'
import { resolveOutDir } from '../../src/config/vitest-options.js'
import { stripAnsi } from '../../src/core/ansi.js'
import { fractionFromNumber } from '../../src/core/fraction.js'
import { signatureOfText } from '../../src/core/signature.js'
import type { Repetition } from '../../src/core/repetition.js'
import { assignTestIds, formatTestId } from '../../src/core/test-id.js'
import type { ReportedTest } from '../../src/pipeline/test-evidence.js'
import { readProofRuns } from '../../src/pipeline/proof-runs.js'
import { recoverUnfinished } from '../../src/pipeline/test-recovery.js'
import { type TestRunResult, TestRunRecorder } from '../../src/pipeline/test-run.js'
import { ProgressPrinter } from '../vitest/_progress.js'
import { cap, messageOf } from '../vitest/_repetition.js'
import { renderTable } from '../vitest/_table.js'
import { REPEAT_ENV, type RepeatOptions } from './_protocol.js'

/** The slices of Jest's reporter arguments read here (Jest 29 and 30 alike). */
export interface JestGlobalConfig {
  rootDir: string
  seed?: number
  randomize?: boolean
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
export interface JestReporterOptions extends FlakeproofJestOptions {
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
  private readonly _seed: number | null
  private readonly _options: (ResolvedJestOptions & { command: string }) | undefined
  private readonly _command: string
  private readonly _outDir: string
  private readonly _run: RunDir
  private readonly _lock: OutputLock
  private readonly _proof: { runs: Record<string, number>; from: string } | undefined
  private _recorder: TestRunRecorder | undefined
  private _journal: JournalReader | undefined
  private _progress: ProgressPrinter | undefined
  private readonly _started = new Set<string>()
  private readonly _finished = new Set<string>()
  private readonly _files = new Set<string>()
  /** The Jest project that ran each file: a second one is a run error (see _checkOneProject). */
  private readonly _projectOfFile = new Map<string, string>()
  private readonly _ids = new Set<string>()
  private readonly _runErrors: RunError[] = []
  /** Tests that failed every copy: their failures are not advisory. */
  private _allFailed = 0

  constructor(globalConfig: JestGlobalConfig, options: JestReporterOptions = {}) {
    const { command, ...rest } = options
    this._rootDir = globalConfig.rootDir
    this._seed = globalConfig.randomize ? (globalConfig.seed ?? null) : null
    this._command = command ?? `jest ${process.argv.slice(2).join(' ')}`.trim()
    const resolved = resolveJestOptions(rest, [], process.env)
    this._options = resolved && { ...resolved, command: this._command }
    const where = resolved ?? JestOptionsSchema.parse(rest)
    this._outDir = resolveOutDir(this._rootDir, where)
    this._lock = acquireOutputLock(this._outDir, `flakeproof/jest/reporter outDir ${where.outDir}`)
    process.once('exit', () => this._lock.release())
    this._run = runDirOf(this._outDir)
    prepareRunDir(this._run)
    this._proof = resolved?.proof ? readProofRuns(this._outDir, 'Measure first: `flakeproof jest --flaky-repeat 200`.') : undefined
    if (!resolved) return
    // Workers start after the reporters are built, and inherit this.
    const repeat: RepeatOptions = {
      mode: this._proof ? 'proof' : 'measure',
      repeat: this._proof ? 1 : (resolved.repeat ?? 1),
      slowRepeat: resolved.observe && !this._proof ? resolved.slowRepeat : 0,
      gapMs: resolved.gapMs,
      proofRuns: this._proof?.runs ?? {},
      journalDir: this._run.journal,
      rootDir: this._rootDir,
    }
    process.env[REPEAT_ENV] = JSON.stringify(repeat)
  }

  onRunStart(): void {
    const options = this._options
    this._journal = options ? new JournalReader(this._run.journal) : undefined
    this._recorder = new TestRunRecorder(this._outDir, this._run, {
      mode: !options ? 'single' : this._proof ? 'proof' : 'measure',
      command: this._command,
      repeat: options && !this._proof ? (options.repeat ?? 1) : 1,
      observe: options?.observe === true && !this._proof,
      confidence: { value: options?.confidence ?? 0.95, exact: fractionFromNumber(options?.confidence ?? 0.95) },
      proofRuns: this._proof?.runs ?? {},
      ...(this._proof ? { proofFrom: this._proof.from } : {}),
      lang: 'en',
    })
    if (this._journal) this._progress = new ProgressPrinter(this._journal, (line) => process.stderr.write(`${line}\n`), { tty: process.stderr.isTTY === true })
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
    if (this._journal) this._fromJournal(file, result)
    else this._fromResults(file, result)
  }

  onRunComplete(_contexts: unknown, aggregated: AggregatedResult): void {
    this._progress?.stop()
    const recorder = this._recorder
    if (!recorder) return
    for (const path of this._started) {
      if (this._finished.has(path)) continue
      const file = relative(this._rootDir, path).split('\\').join('/')
      this._runErrors.push({ project: '', file, error: 'Jest reported no result for this file (its worker may have died)' })
    }
    const unfinished = this._unfinished()
    for (const test of unfinished) this._record(test)
    this._recorder = undefined
    const complete = !aggregated.wasInterrupted && unfinished.length === 0
    const collected = { modules: new Set([...this._files].map((file) => formatTestId({ project: '', file, path: [] }))), tests: this._ids }
    const result = recorder.finish(complete, collected, this._runErrors)
    const verdict: JestRunVerdict = {
      advisory: !this._proof && complete && this._runErrors.length === 0 && this._allFailed === 0 && !this._options?.failOnFlaky,
      proofFailed: result.proof?.passed === false,
    }
    ;(globalThis as Record<symbol, unknown>)[JEST_VERDICT] = verdict
    this._print(result)
    if (verdict.proofFailed) process.exitCode = 1
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
    const journal = this._journal as JournalReader
    let journaled = 0
    for (const [id, test] of [...journal.read().tests]) {
      if (!test.identity || test.identity.file !== file || !test.ended) continue
      journal.forget(id)
      journaled += test.repetitions.length
      this._record(this._reported(id, test, test.repetitions as Repetition[]))
    }
    const ran = result.testResults.filter((r) => r.status === 'passed' || r.status === 'failed').length
    if (this._options && !this._proof && ran !== journaled) {
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
      const failed = error ? { error: cap(messageOf({ message: error })), signature: signatureOfText(error, this._rootDir) } : {}
      const repetition: Repetition = { ok: r.status === 'passed', elapsedMs: r.duration ?? 0, ...failed, mode: 'single', gapMs: 0 }
      this._record({ project: '', file, name: identity.path.join(' > '), evidence: { id: ids[i] as string, path: identity.path, order: i + 1, previousTest: null, worker: 'main', seed: this._seed, repetitions: [repetition] } })
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
    this._recorder?.record(test)
  }

  /** Tests whose copies did not all end (a worker died, the run stopped): what they finished, cut short. */
  private _unfinished(): ReportedTest[] {
    if (!this._journal) return []
    const open = this._journal.read().tests
    if (open.size === 0) return []
    const died = (test: JournalTest): boolean => test.pid !== undefined && !isProcessAlive(test.pid)
    return recoverUnfinished(open, { kind: 'crashed', cause: 'the Jest worker stopped', at: Date.now(), died }, () => (this._proof ? 'proof' : 'fast')).map((test) => ({
      ...test,
      evidence: { ...test.evidence, seed: this._seed },
    }))
  }

  private _print(result: TestRunResult): void {
    const log = (line: string): void => {
      process.stderr.write(`${line}\n`)
    }
    const shown = relative(process.cwd(), result.dir) || '.'
    log('')
    if (result.unchanged) {
      log(pc.bold(pc.cyan(' flakeproof ')) + pc.dim(`no test ran: the files in ${shown} were left as they were`))
      return
    }
    log(pc.bold(pc.cyan(' flakeproof ')) + pc.dim(`${result.tests.length} test(s), files in ${shown}`))
    for (const { file, error } of this._runErrors) log(pc.red(`  ✗ ${file ?? 'outside any file'}: ${error.split('\n')[0]}`))
    if (result.proof) {
      for (const [id, p] of Object.entries(result.proof.tests ?? {})) {
        const status = p.status === 'ran' ? `${p.trials}/${p.required} runs, ${p.failures} failed` : p.status
        log(`  ${p.passed ? pc.green('✓') : pc.red('✗')} ${id}  ${pc.dim(status)}`)
      }
      log(result.proof.passed ? pc.green('  proof passed') : pc.red('  proof FAILED'))
      return
    }
    const concerning = result.tests.filter((o) => o.verdict !== 'stable')
    if (concerning.length > 0) for (const line of renderTable(concerning)) log(line)
    else log(pc.green('  no flaky or broken test'))
  }
}

// --- internal ---

/** Jest's text for a file that failed outside its tests, without its heading and indentation. */
function suiteFailure(text: string | null | undefined): string {
  const plain = stripAnsi(text ?? '').replace(/^\s*● Test suite failed to run\s*/, '')
  return plain.split('\n').map((line) => line.replace(/^ {4}/, '')).join('\n').trim() || 'the file failed outside its tests'
}
