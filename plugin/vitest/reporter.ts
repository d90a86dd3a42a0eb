import { availableParallelism } from 'node:os'
import { join, relative, resolve } from 'node:path'
import pc from 'picocolors'
import type { UserConsoleLog } from 'vitest'
import type { Reporter, TestCase, TestModule, TestRunEndReason, Vitest } from 'vitest/node'
import { freshRateText } from '../../src/artifacts/fresh-rate-text.js'
import { INDEPENDENCE_TEXT } from '../../src/artifacts/independence-text.js'
import { isProcessAlive } from '../../src/artifacts/_process.js'
import { JournalReader, type JournalTest } from '../../src/artifacts/journal.js'
import { acquireOutputLock, type OutputLock } from '../../src/artifacts/lock.js'
import type { RunError } from '../../src/artifacts/test-schemas.js'
import { prepareRunDir, runDirOf } from '../../src/artifacts/run-dir.js'
import type { ConditionsFile, RoundCondition } from '../../src/artifacts/conditions-schema.js'
import { type ResolvedVitestOptions, resolveOutDir, VitestOptionsSchema } from '../../src/config/vitest-options.js'
import { fractionFromNumber } from '../../src/core/fraction.js'
import { describeRate } from '../../src/core/rate.js'
import { measuringModeOf } from '../../src/core/repetition.js'
import { FlakeproofError } from '../../src/errors.js'
import { publishToGithub, writeJunit, writeProofJunit } from '../../src/pipeline/github.js'
import type { RepetitionMode, ReportedTest } from '../../src/pipeline/test-evidence.js'
import { recoverUnfinished, type Unfinished } from '../../src/pipeline/test-recovery.js'
import { type Collected, type TestOutcome, type TestRunResult, TestRunRecorder } from '../../src/pipeline/test-run.js'
import { clearProvenInPolicy, policyPathOf } from './_committed-policy.js'
import { recordVitestHistory, signatureOfTestCase } from './_history.js'
import { attributeVitestRun, signatureLines } from './_attribution.js'
import { revisionOf } from '../../src/pipeline/history-record.js'
import type { AttributionFile } from '../../src/artifacts/attribution-schema.js'
import type { FailedTest } from '../../src/pipeline/attribution.js'
import type { PlannedRound } from '../../src/pipeline/conditions.js'
import { ProgressPrinter } from './_progress.js'
import { moduleId, relativeFile, TestIds } from './_test-ids.js'
import { messageOf } from './_repetition.js'
// Vitest's TaskMeta carries our evidence (augmented there).
import type {} from './_protocol.js'
import { renderTable } from './_table.js'

/** Marks instances, so a second copy of this module (Vite's bundle of the config) recognises them. */
export const REPORTER_BRAND = Symbol.for('flakeproof.vitest.reporter')

/** Options of the reporter: the plugin's, plus what the plugin decided (mode, proof selection). */
export interface ReporterOptions extends Partial<ResolvedVitestOptions> {
  /** Set by the plugin: whether the recording runner is active, and in which mode. */
  runnerMode?: 'measure' | 'proof'
  /** Set by the plugin in proof mode: test id → repetitions required. */
  proofRuns?: Record<string, number>
  /** Set by the plugin in proof mode: the file the required counts came from. */
  proofFrom?: string
  /** How the run was started, for the files' `command`. */
  command?: string
  /** Set by the plugin for a proof from the committed policy with nothing quarantined: said at the end, nothing recorded. */
  nothingToProve?: string
  /** Set by the plugin in proof mode: the measurement's conditions this proof does not replay. */
  unreproduced?: string[]
}

/**
 * Writes flakeproof's files for a Vitest run (docs/contracts.md §4) and prints flaky and broken tests with
 * their counts, intervals and the runs a fix must pass. With the plugin's runner it sees every
 * repetition, and reads the workers' journal for progress and for tests whose worker died; used alone
 * (`reporters: ['default', 'flakeproof/reporter']`) it records one execution per test.
 */
export default class FlakeproofReporter implements Reporter {
  readonly [REPORTER_BRAND] = true
  private readonly _options: ResolvedVitestOptions & ReporterOptions
  private _vitest: Vitest | undefined
  private _recorder: TestRunRecorder | undefined
  private _journal: JournalReader | undefined
  private _progress: ProgressPrinter | undefined
  private _lock: OutputLock | undefined
  /** Test results that could not be recorded this run. */
  private _lost = 0
  /** An error of flakeproof's own was reported (once per reporter). */
  private _internalError = false
  private readonly _console = new Map<string, { stdout: string; stderr: string }>()
  /** Our ids of every test case whose result arrived, by Vitest's id. */
  private readonly _seen = new Set<string>()
  private readonly _ids = new TestIds()
  /** An everyday run's failed tests and their signatures, for attribution. */
  private readonly _failed: FailedTest[] = []
  /** Where Vitest says each test is (with `includeTaskLocation`), by our id: for GitHub annotations. */
  private readonly _locations = new Map<string, { file: string; line?: number | undefined }>()
  /** Whole-run round under way (1-based), of how many, and what earlier rounds left for the last one to report. */
  private _round = 0
  private _of = 1
  private _next: PlannedRound | undefined
  private _condition: RoundCondition = 'base'
  private _seedOfRound: number | null = null
  private _roundErrors: RunError[] = []
  private _roundsIncomplete = false

  constructor(options: ReporterOptions = {}) {
    const { runnerMode, proofRuns, proofFrom, command, nothingToProve, unreproduced, ...rest } = options
    const parsed = VitestOptionsSchema.safeParse(rest)
    if (!parsed.success) throw new FlakeproofError(`flakeproof/reporter: ${parsed.error.issues[0]?.message ?? 'invalid options'}`, 'E_USAGE')
    this._options = { ...parsed.data, runnerMode, proofRuns, proofFrom, command, nothingToProve, unreproduced }
  }

  onInit(vitest: Vitest): void {
    this._vitest = vitest
  }

  onTestRunStart(): void {
    this._guard('onTestRunStart', () => this._runStart())
  }

  onUserConsoleLog(log: UserConsoleLog): void {
    this._guard('onUserConsoleLog', () => this._consoleLog(log))
  }

  onTestCaseResult(testCase: TestCase): void {
    this._guard('onTestCaseResult', () => this._testResult(testCase))
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<unknown>, reason: TestRunEndReason): void {
    this._guard('onTestRunEnd', () => {
      const ended: Unfinished = reason === 'interrupted' ? { kind: 'interrupted' } : { kind: 'crashed', cause: describeCrash(errors), at: Date.now(), died: () => true }
      const runErrors = this._runErrors(modules, errors)
      if (reason !== 'interrupted' && this._round < this._of) this._endRound(ended, runErrors)
      else {
        this._end(this._collected(modules), ended, [...this._roundErrors, ...runErrors], reason !== 'interrupted' && !this._roundsIncomplete)
        // Everyday runs only (docs/contracts.md §11): not a measuring run's repetitions, nor watch mode's edit-and-rerun.
        if (!this._options.runnerMode && this._options.history && reason !== 'interrupted' && this._vitest?.config.watch !== true) {
          this._degradeGracefully(() => recordVitestHistory(this._outDir(), this._vitest?.config.root ?? process.cwd(), modules, (t) => this._ids.of(t)))
        }
      }
    })
  }

  /** Whole-run rounds: a measurement is under way, and more rounds may join it. */
  get roundsOpen(): boolean {
    return this._recorder !== undefined
  }

  /** The loop of rounds says what the next run is: its number, condition and seed, and how many runs there are. */
  planRound(round: PlannedRound, of: number): void {
    this._next = round
    this._of = of
  }

  /** Whole-run rounds stopped before the last one ran (an error of Vitest's between rounds): what ran is written, incomplete. */
  endRounds(): void {
    this._guard('endRounds', () => {
      if (this._recorder) this._end({ modules: new Set(), tests: new Set() }, { kind: 'interrupted' }, this._roundErrors, false)
    })
  }

  // --- internal ---

  /**
   * Every hook runs through here: an error of flakeproof's own is reported once, and never takes
   * Vitest's run down with it (Playwright's reporter multiplexer does the same). Files already written
   * stay; a proof that could not record its verdict still fails the run.
   */
  private _guard(hook: string, run: () => void): void {
    try {
      run()
    } catch (error) {
      if (this._internalError) return
      this._internalError = true
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error)
      this._log(pc.yellow(`[flakeproof] internal error in ${hook}; this run's flakeproof files may be incomplete. Please report it:\n${detail}`), 'warn')
      if (this._options.runnerMode === 'proof') process.exitCode = 1
    }
  }

  private _runStart(): void {
    this._console.clear()
    this._seen.clear()
    this._locations.clear()
    this._failed.length = 0
    const next = this._next
    this._next = undefined
    this._condition = next?.condition ?? 'base'
    this._seedOfRound = next?.seed ?? null
    if (this._recorder && this._round < this._of) {
      this._round++
      this._journal?.nextRound()
      if (next) this._recorder.noteRound(next)
      return
    }
    // Watch mode starts several runs: each gets its own files.
    this._round = 1
    if (!next) this._of = 1
    this._roundErrors = []
    this._roundsIncomplete = false
    this._lost = 0
    if (this._options.nothingToProve) return
    const { runnerMode, repeat, observe, confidence, proofRuns, proofFrom, command } = this._options
    this._recorder = this._degradeGracefully(() => {
      // The plugin took the lock before any test; used alone, the reporter takes it on its first run.
      const outDir = this._outDir()
      if (!runnerMode) this._lock ??= acquireOutputLock(outDir, `flakeproof/reporter outDir ${this._options.outDir}`)
      const run = runDirOf(outDir)
      prepareRunDir(run)
      this._journal = runnerMode ? new JournalReader(run.journal) : undefined
      return new TestRunRecorder(outDir, run, {
        mode: runnerMode ?? 'single',
        command: command ?? 'vitest run',
        repeat: runnerMode === 'measure' ? (repeat ?? 1) * this._of : 1,
        ...(this._of > 1 ? { wholeRuns: this._of, shuffle: this._options.shuffle, loadProcs: this._options.loadProcs ?? availableParallelism() } : {}),
        observe: runnerMode === 'measure' && observe,
        confidence: { value: confidence, exact: fractionFromNumber(confidence) },
        proofRuns: proofRuns ?? {},
        ...(proofFrom ? { proofFrom } : {}),
        ...(this._options.unreproduced?.length ? { unreproduced: this._options.unreproduced } : {}),
        ...(this._options.seed === undefined ? {} : { seed: this._options.seed }),
        gapMs: this._options.gapMs,
        lang: 'en',
        ...(this._options.signature === undefined ? {} : { signature: this._options.signature }),
        // A measurement is compared with the everyday runs in its output folder's history (docs/attribution.md).
        ...(runnerMode === 'measure' ? { history: { base: this._options.base, env: process.env, currentBranch: revisionOf(process.env, this._vitest?.config.root ?? process.cwd()).branch } } : {}),
      })
    })
    if (next) this._recorder?.noteRound(next)
    if (this._recorder && this._journal) {
      this._progress = new ProgressPrinter(this._journal, (line) => this._log(line), { tty: process.stderr.isTTY === true })
      // First in line: Vitest's own 'exit' listener calls process.exit() again, which ends the process
      // before any listener added after it runs.
      process.prependOnceListener('exit', this._onExit)
    }
  }

  private _consoleLog(log: UserConsoleLog): void {
    if (this._options.runnerMode || !log.taskId) return
    const buffer = this._console.get(log.taskId) ?? { stdout: '', stderr: '' }
    buffer[log.type] = (buffer[log.type] + log.content).slice(0, 8 * 1024)
    this._console.set(log.taskId, buffer)
  }

  private _testResult(testCase: TestCase): void {
    // The runner's id when it sent one: the journal knows the test by that id.
    const id = testCase.meta().flakeproof?.id ?? this._ids.of(testCase).id
    this._seen.add(id)
    this._locations.set(id, { file: testCase.module.moduleId, line: testCase.location?.line })
    this._journal?.forget(id)
    const test = this._toReported(testCase)
    if (!test) return
    if (!this._options.runnerMode) for (const r of test.evidence.repetitions) if (!r.ok) this._failed.push({ id: test.evidence.id, signature: r.signature ?? null })
    if (this._degradeGracefully(() => this._recorder?.record(test, this._round, this._condition) ?? true) === undefined) this._lost++
  }

  /**
   * Vitest itself can die before the run ends (3.2 exits on the unhandled rejection a killed worker
   * causes): what the journal holds is written then, synchronously, marked incomplete.
   */
  private readonly _onExit = (code: number): void => {
    this._guard('exit', () => this._endAbruptly(code))
  }

  private _endAbruptly(code: number): void {
    const stopped = `Vitest stopped before the run ended (exit code ${code})`
    // Only a test whose own worker is gone failed with it; the others were merely stopped.
    const died = (test: JournalTest): boolean => test.pid !== undefined && !isProcessAlive(test.pid)
    this._end({ modules: new Set(), tests: new Set() }, { kind: 'crashed', cause: stopped, at: Date.now(), died }, [{ project: null, file: null, error: stopped }], false)
  }

  /** A whole-run round that is not the last ended: tests its crash cut short are recorded for this round, and its errors kept. */
  private _endRound(ended: Unfinished, runErrors: RunError[]): void {
    const recorder = this._recorder
    if (!recorder) return
    const unfinished = this._recoverUnfinished(ended)
    for (const test of unfinished) this._degradeGracefully(() => recorder.record(test, this._round, this._condition))
    this._roundErrors.push(...runErrors.map((e) => ({ ...e, error: `round ${this._round}: ${e.error}` })))
    if (unfinished.length > 0) this._roundsIncomplete = true
    this._log(pc.dim(`[flakeproof] round ${this._round} of ${this._of}${describeRound(this._condition, this._seedOfRound)} done${unfinished.length + runErrors.length > 0 ? ' (incomplete: see the end)' : ''}`))
  }

  private _end(collected: Collected, ended: Unfinished, runErrors: RunError[], complete: boolean): void {
    process.removeListener('exit', this._onExit)
    this._progress?.stop()
    this._progress = undefined
    if (this._options.nothingToProve) this._log(pc.green(this._options.nothingToProve))
    if (!this._recorder) return
    const recorder = this._recorder
    this._recorder = undefined
    const unfinished = this._recoverUnfinished(ended)
    for (const test of unfinished) this._degradeGracefully(() => recorder.record(test, this._round, this._condition))
    // A test whose results could not be recorded makes the run incomplete, never silently smaller.
    const whole = complete && unfinished.length === 0 && this._lost === 0
    const result = this._degradeGracefully(() => recorder.finish(whole, collected, runErrors))
    if (!result) return
    this._print(result, unfinished, runErrors)
    // An everyday run is judged against its history before it joins it (docs/attribution.md).
    const root = this._vitest?.config.root ?? process.cwd()
    const attribution = this._options.runnerMode ? undefined : this._degradeGracefully(() => attributeVitestRun(this._failed, { outDir: this._outDir(), root, policyPath: policyPathOf(root, this._options).path, options: this._options }, (line) => this._log(line)))
    // A budget's calibration (three repetitions, `budget` still set) is no measurement to publish.
    if (this._options.budget === undefined) this._publishForCi(result, attribution)
    if (result.proof && !result.proof.passed) process.exitCode = 1
    if (result.proof && this._options.updatePolicy) this._clearQuarantines(result.proof.tests ?? {})
  }

  /** Under GitHub Actions the step summary and annotations; with `junit` the JUnit file (docs/contracts.md §8). */
  private _publishForCi(result: TestRunResult, attribution?: AttributionFile): void {
    const bundle = result.bundle ? { ...result.bundle, attribution } : result.proof ? { proof: result.proof } : undefined
    if (!bundle) return
    const root = this._vitest?.config.root ?? process.cwd()
    const roots = new Map((this._vitest?.projects ?? []).map((p) => [p.name, p.config.root]))
    const github = { env: process.env, rootOf: (test: { project: string }) => roots.get(test.project) ?? root, locations: this._locations }
    for (const line of this._degradeGracefully(() => publishToGithub(bundle, github)) ?? []) this._log(line)
    const { junit } = this._options
    if (!junit) return
    const path = resolve(root, junit)
    const measured = result.proof ? undefined : result.bundle
    if (measured) this._degradeGracefully(() => writeJunit(path, measured, join(result.dir, 'facts.jsonl')))
    else this._degradeGracefully(() => writeProofJunit(path, bundle, join(result.dir, 'proof_facts.jsonl')))
  }

  /**
   * A reporter does not break the test run over its own files: it warns and writes nothing. A proof
   * that cannot record its verdict still fails the run.
   */
  private _degradeGracefully<T>(run: () => T): T | undefined {
    try {
      return run()
    } catch (error) {
      if (!(error instanceof FlakeproofError)) throw error
      this._log(pc.yellow(`[flakeproof] no files written: ${error.message}`), 'warn')
      if (this._options.runnerMode === 'proof') process.exitCode = 1
      return undefined
    }
  }

  /** `--flaky-update-policy` after a proof from the committed policy: tests proven fixed leave quarantine. */
  private _clearQuarantines(proven: Readonly<Record<string, { passed: boolean; status: string }>>): void {
    const { path, shown } = policyPathOf(this._vitest?.config.root ?? process.cwd(), this._options)
    if (this._options.proofFrom !== path) return
    const cleared = this._degradeGracefully(() => clearProvenInPolicy(path, proven)) ?? []
    for (const id of cleared) this._log(pc.green(`  ${id}: proof passed, out of quarantine in ${shown}`))
  }

  private _log(line: string, level: 'log' | 'warn' = 'log'): void {
    if (this._vitest) this._vitest.logger[level](line)
    else console[level](line)
  }

  private _outDir(): string {
    return resolveOutDir(this._vitest?.config.root ?? process.cwd(), this._options)
  }

  /**
   * Tests whose worker died (or whose run was stopped) before their results arrived, from the
   * journal: what they finished is kept, and a crash counts against the repetition it cut short.
   */
  private _recoverUnfinished(ended: Unfinished): ReportedTest[] {
    if (!this._journal) return []
    const open = new Map([...this._journal.read().tests].filter(([id]) => !this._seen.has(id)))
    if (open.size === 0) return []
    return recoverUnfinished(open, ended, (index) => this._modeOf(index))
  }

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
    for (const error of unhandled) found.push({ project: null, file: null, error: messageOf(error) })
    return found
  }

  private _modeOf(index: number): RepetitionMode {
    if (this._options.runnerMode === 'proof') return 'proof'
    return measuringModeOf(index, this._options.repeat ?? 1)
  }

  private _toReported(testCase: TestCase): ReportedTest | undefined {
    const { id, identity } = this._ids.of(testCase)
    const name = testCase.fullName
    const recorded = testCase.meta().flakeproof
    if (recorded) return { project: identity.project, file: identity.file, name, evidence: recorded }
    const result = testCase.result()
    // Typecheck tests never pass through the runner: recorded once, as what they are.
    const once = !this._options.runnerMode || testCase.meta().typecheck === true
    if (!once || result.state === 'skipped' || result.state === 'pending') return undefined
    const output = this._console.get(testCase.id)
    this._console.delete(testCase.id)
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
            ...(output ? { stdout: output.stdout, stderr: output.stderr } : {}),
            mode: 'single',
            gapMs: 0,
          },
        ],
      },
    }
  }

  private _print(result: TestRunResult, unfinished: readonly ReportedTest[], runErrors: readonly RunError[]): void {
    const log = (line: string): void => this._log(line)
    log('')
    const shown = relative(process.cwd(), result.dir)
    const where = shown === '' ? '.' : shown.startsWith('..') ? result.dir : shown
    if (result.unchanged) {
      log(pc.bold(pc.cyan(' flakeproof ')) + pc.dim(`no test ran: the files in ${where} were left as they were`))
      return
    }
    // `flakeproof vitest --flaky-budget` runs a calibration with `budget` still set: three repetitions
    // time the selection, and verdicts on so few are not shown (the measurement after it has its own).
    if (this._options.budget !== undefined) {
      log(pc.bold(pc.cyan(' flakeproof ')) + pc.dim(`calibration: ${result.tests.length} test(s), ${this._options.repeat ?? 1} runs each`))
      return
    }
    log(pc.bold(pc.cyan(' flakeproof ')) + pc.dim(`${result.tests.length} test(s), files in ${where}`))
    if (result.summary) log(pc.dim(`  report: ${join(where, 'report.html')}`))
    for (const test of unfinished) {
      const last = test.evidence.repetitions.at(-1)
      log(pc.red(`  ✗ ${test.evidence.id}: ${last?.ok === false && last.error?.startsWith('the worker') ? last.error : 'stopped before all its repetitions ran'}`))
    }
    if (result.proof) {
      const proven = Object.entries(result.proof.tests ?? {})
      for (const [id, p] of proven) {
        const status = p.status === 'ran' ? `${p.trials}/${p.required} runs, ${p.failures} failed` : p.status
        log(`  ${p.passed ? pc.green('✓') : pc.red('✗')} ${id}  ${pc.dim(status)}`)
      }
      for (const missing of result.proof.unreproduced ?? []) log(pc.red(`  ✗ not replayed: ${missing}`))
      const unreplayed = result.proof.unreproduced?.length ? ': the flake was measured under conditions this proof did not replay (above); add those flags' : ''
      log(result.proof.passed ? pc.green('  proof passed') : pc.red(`  proof FAILED${proven.length === 0 ? ': no test was flaky in the last policy.json' : unreplayed}`))
      return
    }
    for (const { project, file, error } of runErrors) {
      log(pc.red(`  ✗ ${file === null ? 'outside any file' : `${project ? `[${project}] ` : ''}${file}`}: ${error.split('\n')[0]}`))
    }
    const once = result.tests.filter((o) => o.tally.once).length
    if (once > 0 && this._options.runnerMode) log(pc.dim(`  ${once} typecheck test(s) ran once: typecheck is not repeated`))
    const concerning = result.tests.filter((o: TestOutcome) => o.verdict !== 'stable')
    if (concerning.length > 0) for (const line of renderTable(concerning)) log(line)
    else if (runErrors.length > 0 || unfinished.length > 0) log(pc.red('  no flaky or broken test among those that ran, but the run is incomplete (above)'))
    else log(pc.green('  no flaky or broken test'))
    for (const line of conditionLines(result.conditions)) log(line)
    for (const line of signatureLines(result.bundle)) log(line)
    for (const { tally, verdict } of concerning) {
      if (verdict !== 'non-idempotent') continue
      log(pc.dim(`  ${tally.id}: ${INDEPENDENCE_TEXT.en.cause(tally.independence, 'repetition')}`))
      const fresh = tally.fresh
      if (fresh) log(pc.dim(`    ${freshRateText({ ...describeRate(fresh.failures, fresh.trials, this._options.confidence), failure_rounds: fresh.failureTrials })}`))
      else log(pc.dim(`    ${INDEPENDENCE_TEXT.en.freshRun({ project: tally.project, file: tally.file, name: tally.name })}`))
    }
  }
}

// --- internal ---

/** Each test's findings from conditions.json: the tags first, then what was compared and found no difference. */
function conditionLines(conditions: ConditionsFile | undefined): string[] {
  if (!conditions) return []
  const lines: string[] = []
  for (const [id, { comparisons, order, tags }] of Object.entries(conditions.tests)) {
    lines.push(`  ${tags.length > 0 ? pc.yellow(tags.join(', ').toUpperCase()) : pc.dim('no condition found')}  ${id}`)
    const notes = [...comparisons.map((c) => ({ tagged: c.tag !== null, note: c.note })), ...(order ? [{ tagged: order.tag !== null, note: order.note }] : [])]
    for (const { tagged, note } of notes.sort((a, b) => Number(b.tagged) - Number(a.tagged))) lines.push(`    ${tagged ? note : pc.dim(note)}`)
  }
  return lines
}

/** ` (serial, seed 43)`: a round's condition and seed, when there is something to say. */
function describeRound(condition: RoundCondition, seed: number | null): string {
  const parts = [...(condition === 'base' ? [] : [condition === 'load' ? 'under load' : condition]), ...(seed === null ? [] : [`seed ${seed}`])]
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`
}

/** What Vitest said about the worker that died: the unhandled error naming a worker, else the first, with its cause. */
function describeCrash(errors: ReadonlyArray<unknown>): string {
  const worker = errors.find((e) => /worker/i.test(`${(e as { message?: unknown })?.message}`))
  const first = (worker ?? errors[0]) as { message?: unknown; cause?: { message?: unknown } } | undefined
  const message = typeof first?.message === 'string' ? first.message : 'the worker stopped'
  const cause = typeof first?.cause?.message === 'string' ? ` (${first.cause.message})` : ''
  return `${message}${cause}`
}
