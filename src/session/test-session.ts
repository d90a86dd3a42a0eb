import { availableParallelism } from 'node:os'
import { basename } from 'node:path'
import pc from 'picocolors'
import { isProcessAlive } from '../artifacts/_process.js'
import type { AttributionFile } from '../artifacts/attribution-schema.js'
import { JournalReader, type JournalTest } from '../artifacts/journal.js'
import { acquireOutputLock, type OutputLock } from '../artifacts/lock.js'
import { discardRunDir, prepareRunDir, type RunDir, runDirOf } from '../artifacts/run-dir.js'
import type { RoundCondition } from '../artifacts/conditions-schema.js'
import type { RunError } from '../artifacts/test-schemas.js'
import { PartialWriteError, WriteLog } from '../artifacts/write.js'
import type { RunnerInfo } from '../config/runners.js'
import { type ResolvedVitestOptions, resolveJunitPath, resolveOutDir } from '../config/vitest-options.js'
import { fractionFromNumber } from '../core/fraction.js'
import { countDistinct } from '../core/distinct.js'
import type { Hints } from '../core/hints.js'
import { measuringModeOf, pairOrder } from '../core/repetition.js'
import { terminalWidth } from '../core/text-layout.js'
import { logLine } from '../core/workflow-command.js'
import { FlakeproofError } from '../errors.js'
import { policyPathOf, releaseProvenInPolicy } from '../pipeline/committed-policy-file.js'
import type { PlannedRound } from '../pipeline/conditions.js'
import type { RepetitionMode, ReportedTest } from '../pipeline/test-evidence.js'
import { recoverUnfinished, type Unfinished } from '../pipeline/test-recovery.js'
import { type Collected, type TestRunResult, TestRunRecorder } from '../pipeline/test-run.js'
import { ProgressPrinter } from './_progress.js'
import { attributeRedRun, failedOf } from './attribution-run.js'
import { type EverydayResult, recordEverydayRun } from './everyday-history.js'
import type { ProofSelection } from './proof-selection.js'
import { hintsOf } from './hints.js'
import { publishEverydayToGithub } from '../pipeline/github.js'
import { publishRun } from './publish.js'
import type { FreshRound, FreshRounds, RoundsReporter } from './rounds.js'
import { describeRound, renderRunEnd, runErrorLine } from './run-end-text.js'
import type { RunStress } from '../artifacts/conditions-schema.js'
import type { ProofFile } from '../artifacts/schemas.js'
import { RunConditionsSampler } from '../pipeline/run-conditions.js'
import { startLoad } from '../runner/load.js'

/** Where the adapter's runner lives and prints: what only the adapter knows of it. */
export interface SessionHost {
  /** The project root: the output folder, the committed policy and the JUnit path resolve from it. */
  root(): string
  /** The runner's log (Vitest's logger, Jest's stderr). */
  log(line: string, level?: 'log' | 'warn'): void
  /** The root a project's test files are relative to, for GitHub annotations; the root when not known. */
  rootOf?(project: string): string | undefined
  /** How the runner runs the files: the stress a proof must match (docs/contracts.md §13.5). */
  runShape?(): RunShape
}

/** How a runner runs the files, as far as a proof must match it; null or absent where the runner does not say. */
export interface RunShape {
  /** Workers the runner may use at once (Vitest's maxWorkers as it resolves it, Jest's; 1 in band). */
  maxWorkers?: number | null
  /** Vitest's pool (`forks`, `threads`, …), Jest's `workers` or `in-band`. */
  pool?: string | null
  isolate?: boolean | null
}

/** What the adapter decided before the run: the runner, its options, and which kind of run this is. */
export interface SessionSettings {
  runner: RunnerInfo
  /** The runner's version (`29.4.3`), when known: its hints depend on it. */
  version?: string | undefined
  options: ResolvedVitestOptions
  /** measure: repetitions by the recording runner; proof: the proof's tests; single: one run, no recording runner. */
  mode: 'measure' | 'proof' | 'single'
  /** How the run was started, for the files' `command`. */
  command: string
  /** Proof mode: what is proved (src/session/proof-selection.ts). */
  proof?: ProofSelection | undefined
  /** The session takes the output folder's lock with this label; unset when the adapter holds it already. */
  lockLabel?: string | undefined
  /** The recording runner writes a journal: progress comes from it, and tests a crash cut short. */
  journal: boolean
  /** The order seed of the run, for tests recovered from the journal (null or unset: none known). */
  seed?: number | null | undefined
  /** How the runner lays out a test's repetitions (fast, gapped, proof), for recovered ones. */
  modeOf?: ((index: number, id: string) => RepetitionMode) | undefined
  /**
   * Seed of the coin that orders each gapped/fast pair while observing (src/core/repetition.ts
   * pairOrder; observer.json `assignment_seed`): the one the recording runner was given.
   */
  assignmentSeed?: number | undefined
  /**
   * The runner may exit before it reports the end of the run (Vitest 3.2 on a killed worker): the
   * session then writes what the journal holds, synchronously, from the process's 'exit'.
   */
  endOnExit?: boolean | undefined
}

/** How a run ended, for tests whose results never arrived. */
export type RunEnding =
  /** The user stopped the run: the repetition under way is neither passed nor failed. */
  | { kind: 'interrupted' }
  /** The run ended with tests still open: each ended with its worker, for this cause. */
  | { kind: 'crashed'; cause: string }
  /** The runner stopped: a test still open failed only if its worker process is gone. */
  | { kind: 'stopped'; cause: string }

/** What the adapter says when a run (or its last whole-run round) ends. */
export interface RunEnd {
  collected: Collected
  ending: RunEnding
  runErrors: readonly RunError[]
  /** The runner finished every test it meant to (not interrupted, no round cut short). */
  complete: boolean
}

/** Where a test is, as the runner says (absolute file, line): for GitHub annotations. */
export interface TestLocation {
  file: string
  line?: number | undefined
}

/**
 * One measurement, proof or plain run, the same for every runner: the adapter's reporter feeds it
 * translated events — a run (or whole-run round) begins, a test's result with its evidence, the end
 * with how it ended — and the session records them (facts, rate, policy, report), shows progress
 * from the journal, recovers tests a crash cut short, prints the end of the run, publishes to GitHub
 * and JUnit, fails the run for a failed proof, releases proven quarantines and records everyday runs
 * in history. When the adapter's loop can run evidence rounds, it asks for them for tests whose
 * single switch chance explains too well (fresh-state rounds) and for tests that failed every
 * repetition (a control and plain runs), and decides those tests from them before writing. Its own
 * errors never take the runner's run down: each hook runs through `guard`.
 */
export class TestSession implements RoundsReporter {
  private readonly _host: SessionHost
  private readonly _settings: SessionSettings
  private _recorder: TestRunRecorder | undefined
  private _journal: JournalReader | undefined
  private _progress: ProgressPrinter | undefined
  private _lock: OutputLock | undefined
  private _run: RunDir | undefined
  /** Test results that could not be recorded this run. */
  private _lost = 0
  /** The first error recording a test's results, told once at the end. */
  private _recordError: FlakeproofError | undefined
  /** An error of flakeproof's own was reported (once per session). */
  private _internalError = false
  /** Ids of every test whose result arrived: the journal's other open tests are recovered at the end. */
  private readonly _seen = new Set<string>()
  private readonly _locations = new Map<string, TestLocation>()
  /** Whole-run round under way (1-based), of how many, and what earlier rounds left for the last one to report. */
  private _round = 0
  private _of = 1
  private _next: PlannedRound | undefined
  private _condition: RoundCondition = 'base'
  private _seedOfRound: number | null = null
  private _roundErrors: RunError[] = []
  private _roundsIncomplete = false
  /** The load per CPU and the concurrent runs of a measurement or proof, sampled while it runs. */
  private _sampler: RunConditionsSampler | undefined
  /** Processes spinning for the whole run (`--flaky-load-procs` without load rounds). */
  private _spinning: { stop(): void } | undefined
  /**
   * Evidence rounds (src/pipeline/fresh-evidence.ts, plain-evidence.ts): whether the adapter's loop
   * can run them, what the measurement asked for, the round under way (1-based; 0: none), and the
   * measurement's end, held while they run.
   */
  private _freshExpected = false
  private _fresh: FreshRounds | undefined
  private _freshRound = 0
  private _pending: { end: RunEnd; unfinished: ReportedTest[] } | undefined
  /** This process is exiting: a repetition running in it (an in-band runner's) ends with it. */
  private _exiting = false

  constructor(host: SessionHost, settings: SessionSettings) {
    this._host = host
    this._settings = settings
  }

  get settings(): SessionSettings {
    return this._settings
  }

  /** The journal of the recording runner, while a run is under way (adapters whose evidence comes through it read it). */
  get journal(): JournalReader | undefined {
    return this._journal
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

  /** Whole-run rounds stopped before the last one ran: what ran is written, incomplete. */
  endRounds(): void {
    this.guard('endRounds', () => {
      // Fresh-state rounds cut short, or never run: the measurement is whole, its suspects undecided.
      if (this._pending) this._finishPending()
      else if (this._recorder) this._finish({ collected: { modules: new Set(), tests: new Set() }, ending: { kind: 'interrupted' }, runErrors: [], complete: false })
    })
  }

  /**
   * The adapter's loop can run evidence rounds after the measurement (new workers, the files
   * asked for): whether this run may ask for them — a measurement, not a proof, nor a budget's
   * calibration (three timing repetitions).
   */
  expectFreshEvidence(): boolean {
    this._freshExpected = this._settings.mode === 'measure' && this._settings.options.budget === undefined
    return this._freshExpected
  }

  /** After the planned rounds: the evidence rounds the measurement asks for, each with its kind and files; undefined when none. */
  freshEvidence(): FreshRounds | undefined {
    return this._fresh
  }

  /** The loop says evidence round `round` (1-based, of those freshEvidence() asked for) begins. */
  planFreshRound(round: number): void {
    this._freshRound = round
    this._log(pc.dim(`[flakeproof] ${this._freshRoundName(round)}${this._fresh?.rounds[round - 1]?.kind === 'plain' ? ' (each test once)' : ''}`))
  }

  /** An evidence round as the terminal names it, numbered within its kind: `fresh-state round 2 of 2`, `plain run 1 of 3`. */
  private _freshRoundName(round: number): string {
    const rounds = this._fresh?.rounds ?? []
    const kind = rounds[round - 1]?.kind ?? 'fresh'
    const nth = rounds.slice(0, round).filter((r) => r.kind === kind).length
    const of = rounds.filter((r) => r.kind === kind).length
    return kind === 'control' ? 'control run with repetitions' : `${kind === 'plain' ? 'plain run' : 'fresh-state round'} ${nth} of ${of}`
  }

  /**
   * Takes the output folder — its lock, when the session holds it, and a fresh run folder — and
   * returns the run folder, whose journal the recording runner's workers write. `begin` does it;
   * an adapter whose workers must be told the journal before the run starts calls it first.
   */
  open(): RunDir {
    const outDir = this.outDir()
    if (this._settings.lockLabel !== undefined) this._lock ??= acquireOutputLock(outDir, this._settings.lockLabel)
    if (!this._run) {
      this._run = runDirOf(outDir)
      // A proof with nothing to prove records nothing: no run folder is left behind.
      if (!this._settings.proof?.nothingToProve) prepareRunDir(this._run)
    }
    return this._run
  }

  /** The output folder, absolute (checked: inside the project root unless `outAnywhere`). */
  outDir(): string {
    return resolveOutDir(this._host.root(), this._settings.options)
  }

  /** The output folder's lock is let go (at the end of the process, for an adapter that holds no other). */
  release(): void {
    this._lock?.release()
  }

  /** The commands this run suggests, in its runner's syntax and the form it was started in (src/core/hints.ts). */
  hints(): Hints {
    const { runner, version, command } = this._settings
    return hintsOf(runner, command, version)
  }

  /** A run begins: a new measurement, or the next whole-run round of the one under way. */
  begin(): void {
    this._seen.clear()
    this._locations.clear()
    const next = this._next
    this._next = undefined
    this._condition = next?.condition ?? 'base'
    this._seedOfRound = next?.seed ?? null
    if (this._recorder && this._freshRound > 0) {
      this._journal?.nextRound()
      return
    }
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
    this._recordError = undefined
    this._fresh = undefined
    this._pending = undefined
    // An everyday run (no recording runner) writes history only: the measurement's files stay as it left them.
    if (this._settings.proof?.nothingToProve || this._settings.mode === 'single') return
    const { mode, command, options, proof } = this._settings
    this._recorder = this.degradeGracefully(() => {
      const outDir = this.outDir()
      const run = this._run ?? this.open()
      this._run = undefined
      this._journal = this._settings.journal ? new JournalReader(run.journal) : undefined
      const wholeRuns = this._of > 1 ? { wholeRuns: this._of, shuffle: options.shuffle, loadProcs: options.loadProcs ?? availableParallelism() } : {}
      return discardingOnError(run, () => new TestRunRecorder(outDir, run, {
        mode: mode === 'proof' ? 'proof' : 'measure',
        command,
        runner: { name: this._settings.runner.name, version: this._settings.version },
        repeat: mode === 'measure' ? (options.repeat ?? 1) * this._of : 1,
        ...wholeRuns,
        observe: mode === 'measure' && options.observe,
        confidence: { value: options.confidence, exact: fractionFromNumber(options.confidence) },
        proofRuns: proof?.runs ?? {},
        ...(proof ? { proofFrom: proof.from } : {}),
        ...(proof?.unreproduced.length ? { unreproduced: proof.unreproduced } : {}),
        ...(proof ? { proofMeasured: proof.measured, proofStrict: proof.strict } : {}),
        ...(options.seed === undefined ? {} : { seed: options.seed }),
        ...(this._settings.assignmentSeed === undefined ? {} : { assignmentSeed: this._settings.assignmentSeed }),
        gapMs: options.gapMs,
        lang: 'en',
        ...(options.signature === undefined ? {} : { signature: options.signature }),
        // A measurement is compared with the everyday runs in its output folder's history (docs/attribution.md).
        ...(mode === 'measure' ? { history: { base: options.base, env: process.env, root: this._host.root() } } : {}),
      }))
    })
    if (next) this._recorder?.noteRound(next)
    if (this._recorder) this._startSampling()
    if (this._recorder && this._journal) {
      this._progress = new ProgressPrinter(this._journal, (line) => this._log(line), { tty: process.stderr.isTTY === true })
      // First in line: Vitest's own 'exit' listener calls process.exit() again, which ends the process
      // before any listener added after it runs.
      if (this._settings.endOnExit) process.prependOnceListener('exit', this._onExit)
    }
  }

  /**
   * The files this run runs (absolute paths), as the runner learns them: other flakeproof runs of the
   * same files are counted as running at once with this one.
   */
  files(paths: readonly string[]): void {
    this.guard('files', () => this._sampler?.addFiles(paths))
  }

  /** A test's result arrived (`id`, the id the journal knows it by), with its evidence when there is any to record. */
  record(id: string, test: ReportedTest | undefined, location?: TestLocation): void {
    this._seen.add(id)
    if (location) this._locations.set(id, location)
    this._journal?.forget(id)
    if (!test) return
    if (this._freshRound > 0) this._recordQuietly(() => this._recorder?.recordFreshEvidence(test, this._freshRound))
    else this._recordQuietly(() => this._recorder?.record(test, this._round, this._condition))
  }

  /**
   * The run, or a whole-run round, ended. The last round writes the files (or, when fresh-state
   * rounds follow, holds them until the last of those ended); an earlier one keeps its errors for it.
   */
  end(end: RunEnd): TestRunResult | undefined {
    if (this._freshRound > 0) {
      // The runner's reporters are the measured run's: what went wrong outside a test in a fresh-state round is said here.
      // Each distinct error once, with its count: one unhandled rejection per copy would repeat it per copy.
      for (const { item: line, times } of countDistinct(end.runErrors.map(runErrorLine), (l) => l)) {
        this._log(pc.yellow(`[flakeproof] ${this._freshRoundName(this._freshRound)}: ${line}${times > 1 ? ` (${times} times)` : ''}`), 'warn')
      }
      return this._endFreshRound(end.ending.kind === 'interrupted')
    }
    if (end.ending.kind !== 'interrupted' && this._round < this._of) {
      this._endRound(end)
      return undefined
    }
    return this._finish({ ...end, runErrors: [...this._roundErrors, ...this._ofRound(end.runErrors)], complete: end.complete && !this._roundsIncomplete }, end.ending.kind !== 'interrupted')
  }

  /**
   * The runner itself dies before the run ends (Vitest 3.2 exits on the unhandled rejection a killed
   * worker causes): what the journal holds is written then, synchronously, marked incomplete.
   */
  private readonly _onExit = (code: number): void => {
    this.guard('exit', () => this._endAbruptly(code))
  }

  private _endAbruptly(code: number): void {
    // A run that ended before its end (a test's process.exit(0), say) is never a silent 0.
    if (code === 0) process.exitCode = 1
    const stopped = `${this._settings.runner.title} stopped before the run ended (exit code ${code}${code === 0 ? ', raised to 1' : ''})`
    this._exiting = true
    if (this._pending) {
      this._finishPending()
      return
    }
    this._finish({ collected: { modules: new Set(), tests: new Set() }, ending: { kind: 'stopped', cause: stopped }, runErrors: [{ project: null, file: null, error: stopped }], complete: false })
  }

  /**
   * An everyday run (no repetitions) into `<outDir>/history/` (docs/contracts.md §11), when the
   * runner's adapter keeps history. A red one is first judged against the history it joins and the
   * committed policy (docs/attribution.md): attribution.json and one line per failed test; the
   * measurement's files stay as they are.
   */
  recordEveryday(results: readonly EverydayResult[]): void {
    const attribution = this._attribute(results)
    if (attribution && this._settings.runner.can.github) {
      const options = { env: process.env, rootOf: (test: { project: string }) => this._host.rootOf?.(test.project) ?? this._host.root(), locations: this._locations }
      // Annotations are workflow commands, escaped where they were made: printed as they are.
      for (const line of this.degradeGracefully(() => publishEverydayToGithub(this._settings.command, results, attribution, options)) ?? []) this._host.log(line)
    }
    this.degradeGracefully(() => recordEverydayRun(this._settings.runner, this.outDir(), this._host.root(), results), 'history not recorded')
  }

  /** Whose failure each failed test of an everyday run is, before the run joins its history. */
  private _attribute(results: readonly EverydayResult[]): AttributionFile | undefined {
    const { options, runner } = this._settings
    const root = this._host.root()
    const run = { runner, outDir: this.outDir(), root, policyPath: policyPathOf(root, options).path, confidence: options.confidence, base: options.base }
    const attributed = this.degradeGracefully(() => attributeRedRun(failedOf(results), run))
    for (const line of attributed?.lines ?? []) this._log(line)
    return attributed?.file
  }

  /**
   * Every hook runs through here: an error of flakeproof's own is reported once, and never takes
   * the runner's run down with it (Playwright's reporter multiplexer does the same). Files already
   * written stay; a proof that could not record its verdict still fails the run.
   */
  guard(hook: string, run: () => void): void {
    try {
      run()
    } catch (error) {
      if (this._internalError) return
      this._internalError = true
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error)
      this._log(pc.yellow(`[flakeproof] internal error in ${hook}; this run's flakeproof files may be incomplete. Please report it:\n${detail}`), 'warn')
      if (this._settings.mode === 'proof') process.exitCode = 1
    }
  }

  /**
   * A reporter does not break the test run over its own files: it warns and writes nothing. A proof
   * that cannot record its verdict still fails the run.
   */
  degradeGracefully<T>(run: () => T, what = 'no files written'): T | undefined {
    try {
      return run()
    } catch (error) {
      if (!(error instanceof FlakeproofError)) throw error
      this._log(pc.yellow(`[flakeproof] ${what}: ${error.message}`), 'warn')
      if (this._settings.mode === 'proof') process.exitCode = 1
      return undefined
    }
  }

  // --- internal ---

  /** Every line the session prints, escaped under GitHub Actions so no test name or error starts a workflow command. */
  private _log(line: string, level: 'log' | 'warn' = 'log'): void {
    this._host.log(logLine(line, process.env), level)
  }

  /**
   * One test's results into the recorder. A failure (a full disk) is told once, at the end, with what
   * was and was not written, not once per test; the test is left out and the run marked incomplete.
   */
  private _recordQuietly(record: () => void): void {
    try {
      record()
    } catch (error) {
      if (!(error instanceof FlakeproofError)) throw error
      this._lost++
      this._recordError ??= error
    }
  }

  /** The one line a run prints when its files are not all written: why, which are on disk, which are not. */
  private _describeUnwritten(failure: FlakeproofError | undefined, written: readonly string[]): string {
    const first = failure ?? this._recordError
    const cause = first?.cause as NodeJS.ErrnoException | undefined
    const reason = failure instanceof PartialWriteError ? failure.reason : (cause?.code ?? 'a write failed')
    const lost = this._lost > 0 ? `${this._lost} test(s) could not be recorded (${this._recordError?.message}); ` : ''
    const names = written.map((path) => basename(path))
    const notWritten = failure instanceof PartialWriteError ? failure.notWritten.join(', ') : failure ? failure.message : 'their results (the files say the run is incomplete)'
    return `[flakeproof] not all results were written (${reason}): ${lost}written: ${names.join(', ') || 'nothing'}; not written: ${notWritten}`
  }

  /** A whole-run round that is not the last ended: tests its crash cut short are recorded for this round, and its errors kept. */
  private _endRound({ ending, runErrors }: RunEnd): void {
    const recorder = this._recorder
    if (!recorder) return
    const unfinished = this._recoverUnfinished(ending)
    for (const test of unfinished) this._recordQuietly(() => recorder.record(test, this._round, this._condition))
    this._roundErrors.push(...this._ofRound(runErrors))
    if (unfinished.length > 0) this._roundsIncomplete = true
    this._log(pc.dim(`[flakeproof] round ${this._round} of ${this._of}${describeRound(this._condition, this._seedOfRound)} done${unfinished.length + runErrors.length > 0 ? ' (incomplete: see the end)' : ''}`))
  }

  /**
   * The measurement ended (its last round, or a stop): tests a crash cut short are recovered. When it
   * ended normally (`fresh`) and the adapter's loop can run evidence rounds, tests whose single
   * switch chance explains too well, or that failed every repetition, hold the files back until
   * those rounds ran; else they are written.
   */
  private _finish(end: RunEnd, fresh = false): TestRunResult | undefined {
    const recorder = this._recorder
    const unfinished = recorder ? this._recoverUnfinished(end.ending) : []
    for (const test of unfinished) this._recordQuietly(() => recorder?.record(test, this._round, this._condition))
    const request = recorder && fresh && this._freshExpected ? this.degradeGracefully(() => recorder.freshEvidenceRequest()) : undefined
    if (!request) return this._write(end, unfinished)
    const filesOf = (tests: readonly { project: string; file: string }[]): FreshRound['files'] => [
      ...new Map(tests.map((t) => [JSON.stringify([t.project, t.file]), { project: t.project, file: t.file }])).values(),
    ]
    const [switched, plain] = [filesOf(request.tests), filesOf(request.plainTests)]
    const times = (n: number, round: FreshRound): FreshRound[] => Array.from({ length: n }, () => round)
    this._fresh = {
      rounds: [...times(request.rounds, { kind: 'fresh', files: switched }), ...times(request.plain > 0 ? 1 : 0, { kind: 'control', files: plain }), ...times(request.plain, { kind: 'plain', files: plain })],
    }
    this._pending = { end, unfinished }
    if (request.rounds > 0) {
      this._log(pc.dim(`[flakeproof] fresh-state evidence: ${request.rounds} more rounds of ${switched.length} file(s), for ${request.tests.length} test(s) whose single switch chance explains too well to decide alone`))
    }
    if (request.plain > 0) {
      this._log(
        pc.dim(
          `[flakeproof] plain-run evidence: ${request.plain} run(s) of ${plain.length} file(s) as usual (each test once) and a control with repetitions, for ${request.plainTests.length} test(s) that failed every repetition: broken, or broken by the repetitions`,
        ),
      )
    }
    return undefined
  }

  /** An evidence round ended; the last one (or a stop) writes the measurement held for it. */
  private _endFreshRound(interrupted: boolean): TestRunResult | undefined {
    if (interrupted || this._freshRound >= (this._fresh?.rounds.length ?? 0)) return this._finishPending()
    return undefined
  }

  private _finishPending(): TestRunResult | undefined {
    const pending = this._pending
    this._pending = undefined
    this._freshRound = 0
    return pending && this._write(pending.end, pending.unfinished)
  }

  /** Errors of a whole-run round, the last one's too, say which round: each round runs every file again. */
  private _ofRound(runErrors: readonly RunError[]): RunError[] {
    return this._of > 1 ? runErrors.map((e) => ({ ...e, error: `round ${this._round}: ${e.error}` })) : [...runErrors]
  }

  /** Writes the files, prints the end of the run, publishes it, and settles a proof. */
  private _write({ collected, ending, runErrors, complete }: RunEnd, unfinished: readonly ReportedTest[]): TestRunResult | undefined {
    process.removeListener('exit', this._onExit)
    this._progress?.stop()
    this._progress = undefined
    const { proof, options, runner } = this._settings
    if (proof?.nothingToProve) this._log(pc.green(proof.nothingToProve))
    if (!this._recorder) return undefined
    const recorder = this._recorder
    this._recorder = undefined
    // A test whose results could not be recorded makes the run incomplete, never silently smaller.
    const whole = complete && unfinished.length === 0 && this._lost === 0
    const stress = this._stopSampling(collected)
    const log = new WriteLog()
    let result: TestRunResult | undefined
    let failure: FlakeproofError | undefined
    try {
      result = log.run(() => recorder.finish(whole, collected, runErrors, stress))
    } catch (error) {
      if (!(error instanceof FlakeproofError)) throw error
      failure = error
      if (this._settings.mode === 'proof') process.exitCode = 1
    }
    if (failure || this._lost > 0) this._log(pc.yellow(this._describeUnwritten(failure, log.written)), 'warn')
    if (!result) return undefined
    const calibration = options.budget !== undefined
    const ticks = this._settings.mode === 'measure' ? runner.ticks?.[options.failOnFlaky ? 'failOnFlaky' : 'advisory'] : undefined
    // Vitest's logger writes to stdout, Jest's adapter to stderr: the width of whichever is a terminal.
    const width = terminalWidth(process.stdout.isTTY ? process.stdout : process.stderr, process.env)
    const endedEarly = ending.kind === 'interrupted'
    const context = { unfinished, runErrors: result.runErrors, endedEarly, calibration, repeat: options.repeat ?? 1, rounds: this._of, confidence: options.confidence, hints: this.hints(), width, ticks }
    for (const line of renderRunEnd(result, context)) this._log(line)
    // A budget's calibration (three repetitions, `budget` still set) is no measurement to publish.
    if (!calibration) {
      const published = publishRun(result, {
        runner,
        rootOf: (project) => this._host.rootOf?.(project) ?? this._host.root(),
        locations: this._locations,
        // The wrappers refuse a JUnit file outside the project before any test; a reporter set in a config gets the rest of its files.
        junit: this.degradeGracefully(() => resolveJunitPath(this._host.root(), options), 'no JUnit file written'),
        degrade: (run) => this.degradeGracefully(run),
      })
      // Annotations are workflow commands, escaped where they were made: printed as they are.
      for (const line of published) this._host.log(line)
    }
    if (result.proof && !result.proof.passed) process.exitCode = 1
    if (result.proof && options.updatePolicy && runner.can.committedPolicy) this._releaseQuarantines(result.proof)
    return result
  }

  /**
   * `--flaky-update-policy` after a proof: each quarantined test of the committed policy that the
   * proof cleared leaves quarantine, whichever file the proof's counts came from; every other one
   * stays, and one line says why (docs/contracts.md §9).
   */
  private _releaseQuarantines(proof: ProofFile): void {
    const { path, shown } = policyPathOf(this._host.root(), this._settings.options)
    const releases = this.degradeGracefully(() => releaseProvenInPolicy(path, proof)) ?? []
    for (const { id, released, why } of releases) {
      this._log(released ? pc.green(`  ${id}: proof passed, out of quarantine in ${shown}`) : pc.yellow(`  ${id}: still quarantined in ${shown}: ${why}`))
    }
  }

  /** Samples the run's load and concurrent runs, and spins `--flaky-load-procs` processes for the whole run when no load round does. */
  private _startSampling(): void {
    const { options, runner } = this._settings
    // Spinning before the first sample, and until the last: the load they add is in every sample.
    if (options.loadProcs !== undefined && !options.load) this._spinning = startLoad(options.loadProcs)
    this._sampler = new RunConditionsSampler({ root: this._host.root(), runner: runner.name })
    this._sampler.start()
  }

  /** What the run met: the sampled load and concurrent runs, and the runner's workers, pool and isolation. */
  private _stopSampling(collected: Collected): RunStress {
    const sampled = this._sampler?.stop()
    this._sampler = undefined
    this._spinning?.stop()
    this._spinning = undefined
    const shape = this._host.runShape?.() ?? {}
    const files = collected.modules.size
    const workers = shape.maxWorkers == null ? null : files > 0 ? Math.min(shape.maxWorkers, files) : shape.maxWorkers
    const { loadProcs, load } = this._settings.options
    return {
      ...sampled,
      workers,
      pool: shape.pool ?? null,
      isolate: shape.isolate ?? null,
      ...(loadProcs !== undefined && !load ? { spinning: loadProcs } : {}),
    }
  }

  /**
   * Tests whose worker died (or whose run was stopped) before their results arrived, from the
   * journal: what they finished is kept, and a crash counts against the repetition it cut short.
   */
  private _recoverUnfinished(ending: RunEnding): ReportedTest[] {
    if (!this._journal) return []
    const open = new Map([...this._journal.read().tests].filter(([id]) => !this._seen.has(id)))
    if (open.size === 0) return []
    const unfinished: Unfinished =
      ending.kind === 'interrupted'
        ? ending
        : { kind: 'crashed', cause: ending.cause, at: Date.now(), died: ending.kind === 'crashed' ? () => true : (test) => workerIsGone(test) || (this._exiting && test.pid === process.pid) }
    const recovered = recoverUnfinished(open, unfinished, this._settings.modeOf ?? ((index, id) => this._modeOf(index, id)))
    const seed = this._settings.seed ?? null
    return seed === null ? recovered : recovered.map((test) => ({ ...test, evidence: { ...test.evidence, seed } }))
  }

  private _modeOf(index: number, id: string): RepetitionMode {
    if (this._settings.mode === 'proof') return 'proof'
    return measuringModeOf(index, this._settings.options.repeat ?? 1, pairOrder(this._settings.assignmentSeed ?? 0, id))
  }
}

// --- internal ---

/** Only a test whose own worker is gone failed with it; the others were merely stopped. */
function workerIsGone(test: JournalTest): boolean {
  return test.pid !== undefined && !isProcessAlive(test.pid)
}

/** A recorder that cannot start (its folder holds a folder named rate.json, say) leaves no `.run-<pid>/` behind. */
function discardingOnError<T>(run: RunDir, start: () => T): T {
  try {
    return start()
  } catch (error) {
    discardRunDir(run)
    throw error
  }
}
