import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { z } from 'zod'
import {
  ObserverFileSchema,
  OnlyWhenFailFileSchema,
  PolicyFileSchema,
  type ProofFile,
  ProofFileSchema,
  type RateFile,
  RateFileSchema,
  RunsNeededFileSchema,
  type SummaryFile,
} from '../artifacts/schemas.js'
import { type RunError, TestFactSchema, type TestProofSchema } from '../artifacts/test-schemas.js'
import { discardRunDir, promoteRunFiles, type RunDir } from '../artifacts/run-dir.js'
import { assertWritable, JsonLinesWriter, removeFiles, writeJsonAtomic } from '../artifacts/write.js'
import { type Fraction, fractionFromCounts } from '../core/fraction.js'
import { computeVerdict, type Verdict } from '../core/verdict.js'
import { zForConfidence } from '../core/wilson.js'
import { describeRate } from './measure.js'
import { compareObservations } from './observe.js'
import { buildRunsNeeded, choosePlanningBasis, type PlanningBasis, runsAt } from './plan.js'
import { decidePolicy } from './policy.js'
import { type ReportLanguage, writeReport } from './report.js'
import type { ReportedTest } from './test-evidence.js'
import { type TestTally, tallyTest } from './test-tally.js'

type TestProof = z.infer<typeof TestProofSchema>

export interface TestRunSettings {
  /** measure: repetitions and observing; proof: required repetitions of flaky tests; single: one run, no runner. */
  mode: 'measure' | 'proof' | 'single'
  /** How the run was started, for the files' `command`. */
  command: string
  /** Rounds requested (fast repetitions per test). */
  repeat: number
  observe: boolean
  confidence: { value: number; exact: Fraction }
  /** Proof mode: test id → repetitions required. */
  proofRuns: Record<string, number>
  lang: ReportLanguage
}

/** A test's line in the terminal table and in rate.json, with the plan its numbers give. */
export interface TestOutcome {
  tally: TestTally
  verdict: Verdict
  ci: { low: number; high: number }
  greenRuns: number | null
  plan: TestPlan | undefined
}

interface TestPlan {
  rate: ReturnType<typeof describeRate>
  basis: PlanningBasis
  runs: number
}

export interface TestRunResult {
  tests: TestOutcome[]
  summary: SummaryFile | undefined
  proof: ProofFile | undefined
  dir: string
  /** No test ran: the folder was left exactly as it was. */
  unchanged: boolean
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
  private readonly _failedRounds = new Set<number>()
  private readonly _startedAt = new Date()
  private readonly _dir: string
  private readonly _run: RunDir
  private readonly _settings: TestRunSettings

  constructor(dir: string, run: RunDir, settings: TestRunSettings) {
    this._dir = dir
    this._run = run
    this._settings = settings
    this._factsName = settings.mode === 'proof' ? 'proof_facts.jsonl' : 'facts.jsonl'
    assertWritable(join(dir, this._factsName), 'outDir (--flaky-out)')
    this._facts = new JsonLinesWriter(join(run.path, this._factsName), TestFactSchema)
  }

  record(test: ReportedTest): void {
    const { evidence } = test
    const lines = evidence.repetitions.map((repetition, index) => {
      if (!repetition.ok && repetition.mode !== 'slow') this._failedRounds.add(index)
      return {
        trial: index + 1,
        test_id: evidence.id,
        project: test.project,
        file: test.file,
        name: test.name,
        outcome: repetition.ok ? ('passed' as const) : ('failed' as const),
        elapsed_ms: repetition.elapsedMs,
        error: repetition.error ?? null,
        stdout: repetition.stdout ?? '',
        stderr: repetition.stderr ?? '',
        repeat: index,
        order: evidence.order,
        previous_test: evidence.previousTest,
        worker: evidence.worker,
        seed: evidence.seed,
        gap_ms: repetition.gapMs,
        mode: repetition.mode,
      }
    })
    this._facts.appendAll(lines)
    this._tallies.set(evidence.id, tallyTest(test, this._settings.confidence.exact))
  }

  /**
   * Writes the files of the run and the report. `collectedModules` (each a module's id prefix,
   * `[project] file`, from src/core/test-id.ts) tells a missing test from one filtered out.
   */
  finish(complete: boolean, collectedModules: ReadonlySet<string>, runErrors: readonly RunError[] = []): TestRunResult {
    this._facts.close()
    const measuring = this._settings.mode !== 'proof'
    if (measuring && this._tallies.size === 0 && runErrors.length === 0) {
      discardRunDir(this._run)
      return { tests: [], summary: undefined, proof: undefined, dir: this._dir, unchanged: true }
    }
    // A new measurement makes an older proof or observation of the same folder meaningless.
    if (measuring) removeFiles(this._dir, ['proof.json', 'proof_facts.jsonl', 'observer.json'])
    promoteRunFiles(this._run, this._dir, [this._factsName])
    discardRunDir(this._run)
    const rounds = this._rounds()
    const outcomes = [...this._tallies.values()].map((tally) => this._outcome(tally, rounds)).sort(byConcern)
    let proof: ProofFile | undefined
    const whole = complete && runErrors.length === 0
    if (measuring) this._writeMeasurement(outcomes, rounds, whole, runErrors)
    else proof = this._writeProof(whole, collectedModules)
    const summary = existsSync(join(this._dir, 'rate.json')) ? writeReport(this._dir, this._settings.lang) : undefined
    return { tests: outcomes, summary, proof, dir: this._dir, unchanged: false }
  }

  // --- internal ---

  /** Rounds run: the repetitions requested, once any test ran (none ran: no round either). */
  private _rounds(): number {
    const seen = Math.max(0, ...[...this._tallies.values()].map((t) => t.fast.trials))
    if (seen === 0) return 0
    return this._settings.mode === 'single' ? 1 : Math.max(this._settings.repeat, seen)
  }

  private _outcome(tally: TestTally, rounds: number): TestOutcome {
    const rate = describeRate(tally.fast.failures, tally.fast.trials, this._settings.confidence.value)
    const verdict = tally.fast.trials < rounds && !tally.once ? 'partial' : computeVerdict(tally.fast.failures, tally.fast.trials, tally.independence.pattern)
    // A non-idempotent test's rate is no probability: no runs needed, no policy (omitted from their maps).
    const basis = tally.fast.trials === 0 || verdict === 'non-idempotent' ? undefined : choosePlanningBasis(rate)
    const plan = basis && { rate, basis, runs: runsAt(basis.rate, this._settings.confidence.exact) }
    return { tally, verdict, ci: { low: rate.ci_low, high: rate.ci_high }, greenRuns: plan?.runs ?? null, plan }
  }

  private _writeMeasurement(outcomes: TestOutcome[], rounds: number, complete: boolean, runErrors: readonly RunError[]): void {
    const { confidence } = this._settings
    const path = (name: string): string => join(this._dir, name)
    const roundRate = describeRate(this._failedRounds.size, rounds, confidence.value)
    const measured = outcomes.filter((o) => o.tally.fast.trials > 0)
    const rate: RateFile = {
      schema_version: 1,
      command: this._settings.command,
      ...roundRate,
      gap_ms: 0,
      confidence: confidence.value,
      z: zForConfidence(confidence.value),
      verdict: computeVerdict(this._failedRounds.size, rounds),
      timed_out: 0,
      timeout_ms: null,
      jobs: 1,
      complete,
      requested_trials: this._settings.repeat,
      started_at: this._startedAt.toISOString(),
      duration_ms: Date.now() - this._startedAt.getTime(),
      tests: measured.map(({ tally, verdict, ci }) => ({
        id: tally.id,
        project: tally.project,
        file: tally.file,
        name: tally.name,
        trials: tally.fast.trials,
        failures: tally.fast.failures,
        rate: tally.fast.failures / tally.fast.trials,
        ci_low: ci.low,
        ci_high: ci.high,
        verdict,
        independence: tally.independence,
      })),
      ...(runErrors.length > 0 ? { run_errors: [...runErrors] } : {}),
    }
    writeJsonAtomic(path('rate.json'), RateFileSchema, rate)
    if (rounds === 0) return

    const basis = choosePlanningBasis(roundRate)
    const planned = measured.filter((o): o is TestOutcome & { plan: TestPlan } => o.plan !== undefined)
    const plans = Object.fromEntries(
      planned.map(({ tally, verdict, plan }) => [
        tally.id,
        { observed_rate: plan.rate.rate, trials: plan.rate.trials, failures: plan.rate.failures, basis: plan.basis.basis, planned_rate: plan.basis.plannedRate, runs: plan.runs, verdict },
      ]),
    )
    writeJsonAtomic(path('runs_needed.json'), RunsNeededFileSchema, { ...buildRunsNeeded(basis, roundRate, confidence), tests: plans })

    const worst = measured.find((o) => o.verdict === 'flaky') ?? measured.find((o) => o.tally.fast.failures > 0)
    writeJsonAtomic(path('only_when_fail.json'), OnlyWhenFailFileSchema, {
      schema_version: 1,
      trials: rounds,
      failures: this._failedRounds.size,
      exit_codes_on_failure: [],
      exit_codes_on_success: [],
      token: worst?.tally.token ?? null,
      token_candidates: worst?.tally.tokenCandidates ?? [],
      failure_trials: [...this._failedRounds].sort((a, b) => a - b).map((i) => i + 1),
      predicates: worst?.tally.predicates ?? [],
      tests: Object.fromEntries(
        measured.map(({ tally }) => [
          tally.id,
          {
            trials: tally.fast.trials,
            failures: tally.fast.failures,
            token: tally.token,
            token_candidates: tally.tokenCandidates,
            failure_trials: tally.fast.failureTrials,
            errors_on_failure: tally.errors,
            predicates: tally.predicates,
          },
        ]),
      ),
    })

    const policies = Object.fromEntries(
      planned.map(({ tally, verdict, plan }) => {
        const decided = decidePolicy(plan.basis, fractionFromCounts(tally.fast.failures, tally.fast.trials), plan.rate, confidence)
        const { observed_rate, trials, failures, green_runs_required, retry_budget, quarantine_after } = decided
        return [tally.id, { observed_rate, trials: trials ?? 0, failures: failures ?? 0, verdict, green_runs_required, retry_budget, quarantine_after }]
      }),
    )
    const roundPolicy = decidePolicy(basis, fractionFromCounts(this._failedRounds.size, rounds), roundRate, confidence)
    writeJsonAtomic(path('policy.json'), PolicyFileSchema, { ...roundPolicy, tests: policies })

    if (this._settings.observe) this._writeObserver(measured)
  }

  private _writeObserver(measured: TestOutcome[]): void {
    const { confidence } = this._settings
    const observed = measured.filter((o) => o.tally.slow.trials > 0)
    const side = (trials: number, failures: number, gapMs: number) => ({ ...describeRate(failures, trials, confidence.value), gap_ms: gapMs })
    const compare = (fast: ReturnType<typeof side>, slow: ReturnType<typeof side>, command: string) =>
      compareObservations(command, fast, slow, confidence)
    const sum = (pick: (o: TestOutcome) => number): number => observed.reduce((acc, o) => acc + pick(o), 0)
    const gapMs = observed[0]?.tally.slow.gapMs ?? 0
    const overall = compare(
      side(sum((o) => o.tally.fast.trials), sum((o) => o.tally.fast.failures), 0),
      side(sum((o) => o.tally.slow.trials), sum((o) => o.tally.slow.failures), gapMs),
      `${this._settings.command} (${observed.length} observed test${observed.length === 1 ? '' : 's'})`,
    )
    const tests = Object.fromEntries(
      observed.map(({ tally }) => {
        const { fast, slow, p_value, changed, note } = compare(
          side(tally.fast.trials, tally.fast.failures, 0),
          side(tally.slow.trials, tally.slow.failures, tally.slow.gapMs),
          tally.id,
        )
        return [tally.id, { fast, slow, p_value, changed, note }]
      }),
    )
    writeJsonAtomic(join(this._dir, 'observer.json'), ObserverFileSchema, { ...overall, tests })
  }

  private _writeProof(complete: boolean, collectedModules: ReadonlySet<string>): ProofFile {
    const tests: Record<string, TestProof> = {}
    for (const [id, required] of Object.entries(this._settings.proofRuns)) {
      const tally = this._tallies.get(id)
      if (tally) {
        const { trials, failures, failureTrials } = tally.proof
        tests[id] = { required, trials, failures, passed: failures === 0 && trials >= required, failure_trials: failureTrials, status: 'ran' }
        continue
      }
      // Its file ran in its project (an id begins with that prefix), yet the test did not: gone or renamed.
      const status = [...collectedModules].some((prefix) => id.startsWith(`${prefix} > `)) ? 'missing' : 'not-selected'
      tests[id] = { required, trials: 0, failures: 0, passed: status !== 'missing', failure_trials: [], status }
    }
    const entries = Object.values(tests)
    const ran = entries.filter((t) => t.status === 'ran')
    const required = ran.reduce((acc, t) => acc + t.required, 0)
    const trials = ran.reduce((acc, t) => acc + t.trials, 0)
    const failures = ran.reduce((acc, t) => acc + t.failures, 0)
    return writeJsonAtomic(join(this._dir, 'proof.json'), ProofFileSchema, {
      schema_version: 1,
      command: this._settings.command,
      required: Math.max(1, required),
      required_from: join(this._dir, 'policy.json'),
      ...describeRate(failures, trials, this._settings.confidence.value),
      passed: ran.length > 0 && entries.every((t) => t.passed),
      failure_trials: [],
      complete,
      tests,
    })
  }
}

/** Flaky and broken first, then by failures. */
function byConcern(a: TestOutcome, b: TestOutcome): number {
  const rank = (o: TestOutcome): number => ({ flaky: 0, 'non-idempotent': 1, broken: 2, partial: 3, stable: 4 })[o.verdict]
  return rank(a) - rank(b) || b.tally.fast.failures - a.tally.fast.failures || a.tally.id.localeCompare(b.tally.id)
}
