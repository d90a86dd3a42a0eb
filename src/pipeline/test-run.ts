import { basename, join } from 'node:path'
import type { ReportBundle } from '../artifacts/bundle.js'
import { isAcceptedTestFact } from '../artifacts/_fact-check.js'
import type { ProofFile, SummaryFile } from '../artifacts/schemas.js'
import { discardRunDir, promoteRunFiles, type RunDir } from '../artifacts/run-dir.js'
import { complement } from '../core/fraction.js'
import { readHistoryFolder } from '../artifacts/history.js'
import { type RunError, type TestFact, TestFactSchema } from '../artifacts/test-schemas.js'
import { bundleFileNames, DERIVED_FILES, MEASUREMENT_FILES, REPORT_FILES, writeBundle } from '../artifacts/write-bundle.js'
import { assertAllReplaceable, assertWritable, JsonLinesWriter, PartialWriteError, removeFiles, WriteLog } from '../artifacts/write.js'
import { signatureMatches, signatureOfText } from '../core/signature.js'
import { FlakeproofError } from '../errors.js'
import { compareWithHistory } from './history-comparison.js'
import { branchOf } from './history-record.js'
import { type ReportLanguage, readBundleIfAny, writeReportFor } from './report.js'
import { buildConditions, type PlannedRound } from './conditions.js'
import { shuffleRuleOf } from '../config/runners.js'
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
import type { Repetition, ReportedTest } from './test-evidence.js'
import { toFactLines } from './test-facts.js'
import { earlierTests, type RoundResult, tallyRounds } from './test-rounds.js'
import { type TestTally, tallyTest } from './test-tally.js'
import { freshRoundsBudget, type FreshRounds, suspectsOf, withFreshEvidence } from './fresh-evidence.js'
import { brokenSuspectsOf, plainRoundsBudget } from './plain-evidence.js'

export type { Collected, TestOutcome } from './test-bundle.js'

/**
 * The evidence rounds a measurement asks for, in order: `rounds` fresh-state rounds of the files of
 * `tests` (their measured repetitions); then, for `plainTests`, one control round of their files
 * with the measured repetitions and `plain` runs of them with each test once.
 */
export interface FreshEvidenceRequest {
  rounds: number
  tests: { id: string; project: string; file: string }[]
  plain: number
  plainTests: { id: string; project: string; file: string }[]
}

/** The fresh-state executions gathered as evidence after a measurement: one line each, apart from its facts. */
export const EVIDENCE_FACTS = 'evidence_facts.jsonl'

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
  /** Seed of the coin that ordered each gapped/fast pair, when observing (observer.json `assignment_seed`). */
  assignmentSeed?: number
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
  /** `--flaky-signature`: a measurement counts only failures whose signature matches; others are reported apart. */
  signature?: string
  /**
   * Where a measurement is compared with the history in `<dir>/history` (docs/attribution.md); `root`
   * is where git is asked for the current branch, only when there is history to compare with.
   */
  history?: { base?: string | undefined; env: Readonly<Record<string, string | undefined>>; root: string }
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
  /** Evidence rounds run after the measurement for its suspects (fresh-evidence.ts, plain-evidence.ts): their budgets, each test's executions per round by kind, and their lines. */
  private _fresh:
    | {
        budget: number
        byTest: Map<string, Repetition[][]>
        facts: JsonLinesWriter<typeof TestFactSchema>
        plain: { asked: ReadonlySet<string>; budget: number; byTest: Map<string, Repetition[][]>; control: Map<string, Repetition[][]> }
        /** Lines each test has in evidence_facts.jsonl: its next one's trial follows them, whatever the round's kind. */
        written: Map<string, number>
      }
    | undefined
  /** Tests reported under an id another test of the same round already had: never merged, never dropped in silence. */
  private readonly _twins: RunError[] = []
  private readonly _startedAt = new Date()
  private readonly _dir: string
  private readonly _run: RunDir
  private readonly _settings: TestRunSettings
  /** Per test: signatures of the failures left out by `signature`, and of those counted. */
  private readonly _others = new Map<string, Map<string, number>>()
  private readonly _signatures = new Map<string, Set<string>>()

  constructor(dir: string, run: RunDir, settings: TestRunSettings) {
    this._dir = dir
    this._run = run
    this._settings = settings
    this._factsName = settings.mode === 'proof' ? 'proof_facts.jsonl' : 'facts.jsonl'
    assertAllReplaceable(dir, MEASUREMENT_FILES, 'outDir (--flaky-out)')
    assertWritable(join(dir, this._factsName), 'outDir (--flaky-out)')
    this._facts = new JsonLinesWriter(join(run.path, this._factsName), TestFactSchema, isAcceptedTestFact)
  }

  /** Records one test's results of one run; with whole-run rounds, of round `round` (1-based) and its condition. */
  record(reported: ReportedTest, round = 1, condition: RoundCondition = 'base'): void {
    const { evidence } = reported
    const earlier = this._rounds.get(evidence.id) ?? []
    const twin = this._settings.wholeRuns === undefined ? this._tallies.has(evidence.id) : earlier.some((r) => r.round === round)
    if (twin) {
      this._twins.push(twinError(reported))
      return
    }
    const before = earlier.reduce((sum, r) => sum + r.test.evidence.repetitions.length, 0)
    const lines = toFactLines(reported, { before, ...(this._settings.wholeRuns === undefined ? {} : { round, condition }) })
    const counts = (line: TestFact): boolean => this._counts(line.outcome === 'failed', line.signature)
    this._facts.appendAll(lines.map((line) => (counts(line) ? line : { ...line, excluded: true as const })))
    const test = this._counted(reported)
    if (this._settings.wholeRuns === undefined) this._tallies.set(evidence.id, tallyTest(test, this._settings.confidence.exact))
    else {
      // Kept whole until the end: repetition dependence is judged inside each round (test-rounds.ts).
      earlier.push({ round, condition, test })
      this._rounds.set(evidence.id, earlier)
    }
  }

  /**
   * After the measurement, before finish: the evidence that would decide what the measurement alone
   * cannot (fresh-evidence.ts, plain-evidence.ts) — tests whose single switch chance explains too
   * well, run again in `rounds` fresh-state rounds of their files with the measured repetitions;
   * then tests that failed every repetition, their files run once more with the measured
   * repetitions (the control) and `plain` times as usual (each test once). The runner adapter runs
   * those rounds, in that order, and hands each result to `recordFreshEvidence`; one that cannot
   * leaves them as measured. Nothing to gather: undefined.
   */
  freshEvidenceRequest(): FreshEvidenceRequest | undefined {
    if (this._settings.mode !== 'measure') return undefined
    const outcomes = this._outcomes()
    const suspects = suspectsOf(outcomes)
    const perRound = Math.max(1, Math.floor(this._settings.repeat / (this._settings.wholeRuns ?? 1)))
    const broken = brokenSuspectsOf(outcomes, perRound)
    if (suspects.length === 0 && broken.length === 0) return undefined
    const alpha = complement(this._settings.confidence.exact)
    const rounds = suspects.length === 0 ? 0 : freshRoundsBudget(perRound, alpha)
    const plainRounds = broken.length === 0 ? 0 : plainRoundsBudget(Math.min(...broken.map((o) => o.tally.fast.trials)), alpha)
    this._fresh = {
      budget: rounds,
      byTest: new Map(),
      facts: new JsonLinesWriter(join(this._run.path, EVIDENCE_FACTS), TestFactSchema, isAcceptedTestFact),
      plain: { asked: new Set(broken.map((o) => o.tally.id)), budget: plainRounds, byTest: new Map(), control: new Map() },
      written: new Map(),
    }
    const where = ({ tally }: TestOutcome): { id: string; project: string; file: string } => ({ id: tally.id, project: tally.project, file: tally.file })
    return { rounds, tests: suspects.map(where), plain: plainRounds, plainTests: broken.map(where) }
  }

  /**
   * One test's results in evidence round `round` (1-based) of those asked for — the fresh-state
   * rounds, the control, then the plain runs: kept apart from the measurement.
   */
  recordFreshEvidence(test: ReportedTest, round: number): void {
    const fresh = this._fresh
    if (!fresh) return
    const { id } = test.evidence
    const byTest = round <= fresh.budget ? fresh.byTest : round === fresh.budget + 1 ? fresh.plain.control : fresh.plain.byTest
    const before = fresh.written.get(id) ?? 0
    fresh.facts.appendAll(toFactLines(test, { before, round }))
    fresh.written.set(id, before + test.evidence.repetitions.length)
    const earlier = byTest.get(id) ?? []
    earlier.push(test.evidence.repetitions.filter((r) => r.mode === 'fast'))
    byTest.set(id, earlier)
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
      this._fresh?.facts.close()
    } catch (error) {
      discardRunDir(this._run)
      throw error
    }
    const runErrors = [...adapterErrors, ...this._twins]
    const measuring = this._settings.mode === 'measure'
    if (measuring && this._tallies.size === 0 && this._rounds.size === 0 && runErrors.length === 0) {
      discardRunDir(this._run)
      return { tests: [], summary: undefined, proof: undefined, dir: this._dir, unchanged: true, runErrors }
    }
    const { confidence, lang } = this._settings
    const fresh: FreshRounds | undefined = this._fresh && { budget: this._fresh.budget, byTest: this._fresh.byTest, plain: this._fresh.plain }
    const measured = this._outcomes()
    const asked = this._asked()
    const outcomes = withFreshEvidence(measured, fresh, (tally) => outcomeOf(tally, asked, confidence), confidence.exact).sort(byConcern)
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
          ...(this._settings.assignmentSeed === undefined ? {} : { assignmentSeed: this._settings.assignmentSeed }),
          confidence,
          startedAt: this._startedAt,
          durationMs: Date.now() - this._startedAt.getTime(),
          complete: whole,
          runErrors,
          outcomes,
          rounds: this._roundsRan(),
        }, stress)
    if (report && !proof) this._annotateTests(report)
    const written = proof ? { proof } : (report ?? {})
    const promoted = this._fresh ? [this._factsName, EVIDENCE_FACTS] : [this._factsName]
    const planned = [...promoted, ...bundleFileNames(written), ...(report ? REPORT_FILES : [])]
    const log = new WriteLog()
    let summary: SummaryFile | undefined
    try {
      log.run(() => {
        // A new measurement makes every file of the previous one meaningless, including those it may not rewrite.
        if (measuring) removeFiles(this._dir, DERIVED_FILES)
        promoteRunFiles(this._run, this._dir, promoted)
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

  /** Every test's outcome as measured, whole-run rounds tallied together. */
  private _outcomes(): TestOutcome[] {
    const ranBefore = earlierTests(this._rounds)
    for (const [id, rounds] of this._rounds) this._tallies.set(id, tallyRounds(rounds, this._settings.confidence.exact, ranBefore))
    const asked = this._asked()
    return [...this._tallies.values()].map((tally) => outcomeOf(tally, asked, this._settings.confidence))
  }

  /** A test is measured against the rounds asked for (fewer is partial); the run's rate against those that ran. */
  private _asked(): number {
    const ran = this._roundsRan()
    return ran === 0 ? ran : Math.max(this._settings.repeat, ran)
  }

  /** Whether an execution counts: a pass always; a failure unless `signature` leaves it out (measuring only; a proof fails on any). */
  private _counts(failed: boolean, signature: string | undefined): boolean {
    const wanted = this._settings.signature
    return !failed || wanted === undefined || this._settings.mode !== 'measure' || signatureMatches(signature ?? '', wanted)
  }

  /** The test as counted: failures of other signatures left out and noted apart; the counted failures' signatures kept. */
  private _counted(test: ReportedTest): ReportedTest {
    const { id } = test.evidence
    const kept = test.evidence.repetitions.filter((r) => {
      const signature = r.signature ?? signatureOfText(r.error ?? '')
      if (this._counts(!r.ok, signature)) {
        if (!r.ok) this._signatures.set(id, (this._signatures.get(id) ?? new Set()).add(signature))
        return true
      }
      const others = this._others.get(id) ?? new Map<string, number>()
      others.set(signature, (others.get(signature) ?? 0) + 1)
      this._others.set(id, others)
      return false
    })
    return kept.length === test.evidence.repetitions.length ? test : { ...test, evidence: { ...test.evidence, repetitions: kept } }
  }

  /**
   * rate.json's tests gain what was left out by `signature`, and how their failures compare with
   * the history of everyday runs in the output folder.
   */
  private _annotateTests(bundle: ReportBundle): void {
    const tests = bundle.rate.tests
    if (!tests) return
    const history = this._settings.history
    // Only failures are compared: a green measurement reads no history, and git is asked for the
    // branch only when there is a history to compare with (a process the run's end waits for).
    const runs = history && tests.some((t) => t.failures > 0) ? readHistoryFolder(join(this._dir, 'history')).runs : []
    const compared =
      history && runs.length > 0
        ? compareWithHistory(
            tests.map((t) => ({ id: t.id, trials: t.trials, failures: t.failures, signatures: this._signatures.get(t.id) ?? new Set() })),
            runs,
            { confidence: this._settings.confidence.value, base: history.base, env: history.env, currentBranch: branchOf(history.env, history.root) },
          )
        : new Map()
    if (this._settings.signature !== undefined) bundle.rate.signature_filter = this._settings.signature
    for (const test of tests) {
      const others = this._others.get(test.id)
      if (others) {
        const signatures = [...others].map(([signature, count]) => ({ signature, count })).sort((a, b) => b.count - a.count)
        test.other_failures = { count: signatures.reduce((sum, s) => sum + s.count, 0), signatures }
      }
      const comparison = compared.get(test.id)
      if (comparison) test.compared_with_history = comparison
    }
  }

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
      shuffleRule: shuffleRuleOf(this._settings.runner?.name),
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
