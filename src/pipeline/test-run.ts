import { basename, join } from 'node:path'
import type { ReportBundle } from '../artifacts/bundle.js'
import type { ProofFile, SummaryFile } from '../artifacts/schemas.js'
import { discardRunDir, promoteRunFiles, type RunDir } from '../artifacts/run-dir.js'
import { type RunError, TestFactSchema } from '../artifacts/test-schemas.js'
import { bundleFileNames, DERIVED_FILES, MEASUREMENT_FILES, REPORT_FILES, writeBundle } from '../artifacts/write-bundle.js'
import { assertAllReplaceable, assertWritable, JsonLinesWriter, PartialWriteError, removeFiles, WriteLog } from '../artifacts/write.js'
import { FlakeproofError } from '../errors.js'
import { type ReportLanguage, readBundleIfAny, writeReportFor } from './report.js'
import { buildConditions, type PlannedRound } from './conditions.js'
import {
  buildTestMeasurement,
  buildTestProof,
  byConcern,
  type Collected,
  type Confidence,
  outcomeOf,
  type TestMeasurement,
  type TestOutcome,
} from './test-bundle.js'
import type { ConditionsFile, MeasuredUnder, RoundCondition, RunStress } from '../artifacts/conditions-schema.js'
import { judgeProofStrength } from './proof-conditions.js'
import type { ReportedTest } from './test-evidence.js'
import { toFactLines } from './test-facts.js'
import { earlierTests, type RoundResult, tallyRounds } from './test-rounds.js'
import { type TestTally, tallyTest } from './test-tally.js'

export type { Collected, TestOutcome } from './test-bundle.js'

export interface TestRunSettings {
  /** measure: repetitions and observing; proof: required repetitions of flaky tests. */
  mode: 'measure' | 'proof'
  /** How the run was started, for the files' `command`. */
  command: string
  /** What ran the tests (rate.json `runner`). */
  runner?: { name: string; version?: string | undefined } | undefined
  /** Rounds requested (fast repetitions per test). */
  repeat: number
  /** Whole-run rounds requested (`--flaky-rounds`); `repeat` then counts every round's repetitions. */
  wholeRuns?: number
  /** Rounds reseeded the order of tests (`--flaky-shuffle`). */
  shuffle?: boolean
  /** Spinning processes in load rounds. */
  loadProcs?: number
  /** The order seed of a run that was not shuffled per round (`--flaky-seed`). */
  seed?: number
  /** Rest before each gapped repetition, when observing. */
  gapMs?: number
  /** Proof mode: conditions of the measurement this proof does not replay (it then fails). */
  unreproduced?: string[]
  observe: boolean
  confidence: Confidence
  /** Proof mode: test id → repetitions required. */
  proofRuns: Record<string, number>
  /** Proof mode: the file they came from; policy.json in the output folder when not given. */
  proofFrom?: string
  /** Proof mode: each proven test's measurement conditions, which the proof's stress must match (docs/contracts.md §13.5). */
  proofMeasured?: Readonly<Record<string, MeasuredUnder | undefined>>
  /** Proof mode: a proof weaker than its measurement fails (`--flaky-proof-strict`, the committed policy's `proof_strict`). */
  proofStrict?: boolean
  lang: ReportLanguage
}

export interface TestRunResult {
  tests: TestOutcome[]
  summary: SummaryFile | undefined
  proof: ProofFile | undefined
  /** conditions.json, when the rounds varied a condition or the order. */
  conditions?: ConditionsFile | undefined
  dir: string
  /** No test ran: the folder was left exactly as it was. */
  unchanged: boolean
  /** What the report was made from (a proof: the last measurement with the proof), for CI outputs. */
  bundle?: ReportBundle | undefined
  /** The run's errors as the files have them: the adapter's, then tests this recorder could not tell apart. */
  runErrors: readonly RunError[]
}

/**
 * Test mode (docs/contracts.md §4): streams one facts.jsonl line per test execution as each test's results
 * arrive, keeps only per-test tallies (memory O(tests), not O(tests × repeats)), and writes every
 * file at the end. Top-level counts are per round: round k fails if any test failed its k-th
 * repetition. Facts are streamed into the run's own folder and join the others only at the end, so
 * a killed run never leaves new facts beside the previous run's numbers, and a run in which no test
 * ran leaves the folder as it was.
 */
export class TestRunRecorder {
  private readonly _facts: JsonLinesWriter<typeof TestFactSchema>
  private readonly _factsName: string
  private readonly _tallies = new Map<string, TestTally>()
  private readonly _planned: PlannedRound[] = []
  /** With whole-run rounds: each test's results per round, tallied together at the end. */
  private readonly _rounds = new Map<string, RoundResult[]>()
  /** Tests reported under an id another test of the same round already had: never merged, never dropped in silence. */
  private readonly _twins: RunError[] = []
  private readonly _startedAt = new Date()
  private readonly _dir: string
  private readonly _run: RunDir
  private readonly _settings: TestRunSettings

  constructor(dir: string, run: RunDir, settings: TestRunSettings) {
    this._dir = dir
    this._run = run
    this._settings = settings
    this._factsName = settings.mode === 'proof' ? 'proof_facts.jsonl' : 'facts.jsonl'
    assertAllReplaceable(dir, MEASUREMENT_FILES, 'outDir (--flaky-out)')
    assertWritable(join(dir, this._factsName), 'outDir (--flaky-out)')
    this._facts = new JsonLinesWriter(join(run.path, this._factsName), TestFactSchema)
  }

  /** Records one test's results of one run; with whole-run rounds, of round `round` (1-based) and its condition. */
  record(test: ReportedTest, round = 1, condition: RoundCondition = 'base'): void {
    const { evidence } = test
    const earlier = this._rounds.get(evidence.id) ?? []
    const twin = this._settings.wholeRuns === undefined ? this._tallies.has(evidence.id) : earlier.some((r) => r.round === round)
    if (twin) {
      this._twins.push(twinError(test))
      return
    }
    const before = earlier.reduce((sum, r) => sum + r.test.evidence.repetitions.length, 0)
    const lines = toFactLines(test, { before, ...(this._settings.wholeRuns === undefined ? {} : { round, condition }) })
    this._facts.appendAll(lines)
    if (this._settings.wholeRuns === undefined) this._tallies.set(evidence.id, tallyTest(test, this._settings.confidence.exact))
    else {
      // Kept whole until the end: repetition dependence is judged inside each round (test-rounds.ts).
      earlier.push({ round, condition, test })
      this._rounds.set(evidence.id, earlier)
    }
  }

  /**
   * Writes the files of the run and the report; `collected` tells a missing test from one filtered out,
   * `stress` is what the run met (load per CPU, workers, concurrent runs, pool, isolation).
   * Everything is computed before the first file is written, so a write that fails (a full disk) can
   * say which files were written and which were not.
   * @throws PartialWriteError when some files could not be written.
   */
  finish(complete: boolean, collected: Collected, adapterErrors: readonly RunError[] = [], stress: RunStress = {}): TestRunResult {
    try {
      this._facts.close()
    } catch (error) {
      discardRunDir(this._run)
      throw error
    }
    const runErrors = [...adapterErrors, ...this._twins]
    const ranBefore = earlierTests(this._rounds)
    for (const [id, rounds] of this._rounds) this._tallies.set(id, tallyRounds(rounds, this._settings.confidence.exact, ranBefore))
    const measuring = this._settings.mode === 'measure'
    if (measuring && this._tallies.size === 0 && runErrors.length === 0) {
      discardRunDir(this._run)
      return { tests: [], summary: undefined, proof: undefined, dir: this._dir, unchanged: true, runErrors }
    }
    const { confidence, lang } = this._settings
    const ran = this._roundsRan()
    // A test is measured against the rounds asked for (fewer is partial); the run's rate against those that ran.
    const asked = ran === 0 ? ran : Math.max(this._settings.repeat, ran)
    const outcomes = [...this._tallies.values()].map((tally) => outcomeOf(tally, asked, confidence)).sort(byConcern)
    const whole = complete && runErrors.length === 0
    // The last measurement, read before anything is written: a proof reports beside it.
    const previous = measuring ? undefined : readBundleIfAny(this._dir)
    const proof = measuring ? undefined : this._proof(whole, collected, stress)
    const report = proof
      ? previous && { ...previous, proof }
      : this._withConditions(outcomes, {
          command: this._settings.command,
          runner: this._settings.runner,
          repeat: this._settings.repeat,
          observe: this._settings.observe,
          confidence,
          startedAt: this._startedAt,
          durationMs: Date.now() - this._startedAt.getTime(),
          complete: whole,
          runErrors,
          outcomes,
          rounds: ran,
        }, stress)
    const written = proof ? { proof } : (report ?? {})
    const planned = [this._factsName, ...bundleFileNames(written), ...(report ? REPORT_FILES : [])]
    const log = new WriteLog()
    let summary: SummaryFile | undefined
    try {
      log.run(() => {
        // A new measurement makes every file of the previous one meaningless, including those it may not rewrite.
        if (measuring) removeFiles(this._dir, DERIVED_FILES)
        promoteRunFiles(this._run, this._dir, [this._factsName])
        discardRunDir(this._run)
        writeBundle(this._dir, written)
        summary = report && writeReportFor(this._dir, report, lang)
      })
    } catch (error) {
      discardRunDir(this._run)
      if (!(error instanceof FlakeproofError)) throw error
      const done = log.written.map((path) => basename(path))
      throw new PartialWriteError(error, done, planned.filter((name) => !done.includes(name)))
    }
    return { tests: outcomes, summary, proof, conditions: report?.conditions, dir: this._dir, unchanged: false, bundle: report, runErrors }
  }

  /** A whole-run round began: its condition and seed, for conditions.json. */
  noteRound(round: PlannedRound): void {
    this._planned.push(round)
  }

  // --- internal ---

  /**
   * The measurement's files: policy.json says under which conditions it was measured, and
   * conditions.json is written when the rounds varied a condition or the order.
   */
  private _withConditions(outcomes: readonly TestOutcome[], measurement: TestMeasurement, stress: RunStress): ReportBundle {
    const measured = buildTestMeasurement(measurement)
    const under = this._measuredUnder(stress)
    const rate = { ...measured.rate, measured_under: under }
    const bundle = measured.policy ? { ...measured, rate, policy: { ...measured.policy, measured_under: under } } : { ...measured, rate }
    const varied = new Set(this._planned.map((r) => r.condition)).size > 1 || this._settings.shuffle === true
    if (!varied || measurement.rounds === 0) return bundle
    const conditions = buildConditions({
      command: measurement.command,
      confidence: measurement.confidence,
      rounds: this._planned,
      loadProcs: this._settings.loadProcs ?? null,
      shuffle: this._settings.shuffle === true,
      perTest: this._rounds,
      outcomes,
    })
    return { ...bundle, conditions }
  }

  private _measuredUnder(stress: RunStress): MeasuredUnder {
    const { wholeRuns, repeat, shuffle, loadProcs, seed, observe, gapMs } = this._settings
    const conditions = [...new Set(this._planned.map((r) => r.condition))]
    const seeds = this._planned.flatMap((r) => (r.seed === null ? [] : [r.seed]))
    const perCondition = Math.max(1, conditions.length)
    return {
      rounds: Math.max(1, Math.floor((wholeRuns ?? 1) / perCondition)),
      repeat: Math.max(1, Math.floor(repeat / (wholeRuns ?? 1))),
      conditions: conditions.length > 0 ? conditions : ['base'],
      load_procs: conditions.includes('load') ? (loadProcs ?? null) : null,
      shuffle: shuffle === true,
      seeds: seeds.length > 0 ? [...new Set(seeds)] : seed === undefined ? [] : [seed],
      gap_ms: observe ? (gapMs ?? null) : null,
      ...stress,
    }
  }

  /** Rounds that ran: the most fast repetitions any test ran. */
  private _roundsRan(): number {
    return Math.max(0, ...[...this._tallies.values()].map((t) => t.fast.trials))
  }

  /**
   * proof.json; a proof that did not replay the measurement's conditions proves nothing, and fails.
   * One under less stress than its measurement says how (`weaker`), and fails only when strict.
   */
  private _proof(complete: boolean, collected: Collected, stress: RunStress): ProofFile {
    const unreproduced = this._settings.unreproduced ?? []
    const strict = this._settings.proofStrict === true
    const proof = buildTestProof({
      command: this._settings.command,
      required: this._settings.proofRuns,
      requiredFrom: this._settings.proofFrom ?? join(this._dir, 'policy.json'),
      tallies: this._tallies,
      collected,
      confidence: this._settings.confidence,
      complete,
    })
    const ran = Object.fromEntries(Object.entries(proof.tests ?? {}).filter(([, t]) => t.status === 'ran'))
    const measured = Object.fromEntries(Object.keys(ran).map((id) => [id, this._settings.proofMeasured?.[id]]))
    const strength = judgeProofStrength(measured, stress, (procs) => `--flaky-load-procs ${procs}`)
    const tests = Object.fromEntries(Object.entries(proof.tests ?? {}).map(([id, t]) => [id, strength.perTest[id] ? { ...t, weaker: strength.perTest[id] } : t]))
    const weaker = strength.overall
    const passed = proof.passed && unreproduced.length === 0 && !(strict && weaker.length > 0)
    return { ...proof, passed, tests, ...(unreproduced.length > 0 ? { unreproduced } : {}), ran_under: stress, weaker, strict }
  }
}

/**
 * A second stream of executions under an id already counted this round: adding it to the first
 * would let one test hide the other (a runtime test's failures under its typecheck twin's single
 * pass), so it is left out, and the run says so and is incomplete.
 */
function twinError(test: ReportedTest): RunError {
  const { id, repetitions } = test.evidence
  return {
    project: test.project,
    file: test.file,
    error: `two tests of this run have the id "${id}": the second one's ${repetitions.length} execution(s) are left out rather than counted as the first one's; rename one of them, or report it to flakeproof if their names differ`,
  }
}
