import type { ReportBundle } from '../artifacts/bundle.js'
import type { ObserverFile, ProofFile, RateFile } from '../artifacts/schemas.js'
import type { RunError, TestProof } from '../artifacts/test-schemas.js'
import { type Fraction, fractionFromCounts } from '../core/fraction.js'
import { describeRate, type RateDescription } from '../core/rate.js'
import { CONCERN, computeVerdict, dependenceOf, hasNoRate, type Verdict } from '../core/verdict.js'
import { zForConfidence } from '../core/wilson.js'
import { compareInterleaved } from './observe.js'
import { buildRunsNeeded, choosePlanningBasis, type PlanningBasis, runsAt } from './plan.js'
import { decidePolicy } from './policy.js'
import type { TestTally } from './test-tally.js'
import { byCodeUnits } from '../core/text-order.js'

/**
 * Test mode's artifacts from the tallies of a run, with the same builders command mode uses (plan,
 * policy, observer): pure, so what a run writes can be checked without a disk.
 */

export interface Confidence {
  value: number
  exact: Fraction
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
  rate: RateDescription
  basis: PlanningBasis
  runs: number
}

/**
 * The outcome of one test of a run that asked for `rounds` repetitions of each: `partial` when it ran
 * fewer, or was cut short (a crash on its last repetition still leaves it partial).
 */
export function outcomeOf(tally: TestTally, rounds: number, confidence: Confidence): TestOutcome {
  const rate = describeRate(tally.fast.failures, tally.fast.trials, confidence.value)
  const short = tally.cut || (tally.fast.trials < rounds && !tally.once)
  const verdict = short ? 'partial' : computeVerdict(tally.fast.failures, tally.fast.trials, dependenceOf(tally.independence, tally.freshEvidence?.decided), tally.plainEvidence?.decided)
  // A non-idempotent or undetermined test's rate is no probability: no runs needed, no policy (omitted from their maps).
  const basis = tally.fast.trials === 0 || hasNoRate(verdict) ? undefined : choosePlanningBasis(rate)
  const plan = basis && { rate, basis, runs: runsAt(basis.rate, confidence.exact) }
  return { tally, verdict, ci: { low: rate.ci_low, high: rate.ci_high }, greenRuns: plan?.runs ?? null, plan }
}

/** By CONCERN, then by failures. */
export function byConcern(a: TestOutcome, b: TestOutcome): number {
  const rank = (o: TestOutcome): number => CONCERN[o.verdict]
  return rank(a) - rank(b) || b.tally.fast.failures - a.tally.fast.failures || byCodeUnits(a.tally.id, b.tally.id)
}

export interface TestMeasurement {
  command: string
  /** What ran the tests, for rate.json's `runner`. */
  runner?: { name: string; version?: string | undefined } | undefined
  /** Rounds requested. */
  repeat: number
  observe: boolean
  /** Seed of the coin that ordered each gapped/fast pair (observer.json `assignment_seed`). */
  assignmentSeed?: number
  confidence: Confidence
  startedAt: Date
  durationMs: number
  complete: boolean
  runErrors: readonly RunError[]
  outcomes: readonly TestOutcome[]
  /** Rounds that ran: the most fast repetitions any test ran (a stopped run counts only what ran). */
  rounds: number
}

/**
 * Rounds (1-based) in which some test failed. A non-idempotent or undetermined test's failures are
 * left out: they follow (or may follow) from the state its own earlier repetitions left, not from
 * chance, and must not make the whole run look flaky. The headline says how many were left out.
 */
export function failedRoundsOf(outcomes: readonly TestOutcome[]): number[] {
  const failed = new Set<number>()
  for (const { verdict, tally } of outcomes) {
    if (hasNoRate(verdict)) continue
    for (const trial of tally.fast.failureTrials) failed.add(trial)
  }
  return [...failed].sort((a, b) => a - b)
}

/** rate.json with a `tests` entry per test; with rounds run, runs_needed, only_when_fail, policy and (observing) observer too. */
export function buildTestMeasurement(m: TestMeasurement): ReportBundle {
  const { confidence, rounds } = m
  const failureRounds = failedRoundsOf(m.outcomes)
  const failedRounds = failureRounds.length
  const roundRate = describeRate(failedRounds, rounds, confidence.value)
  const measured = m.outcomes.filter((o) => o.tally.fast.trials > 0)
  const rate: RateFile = {
    schema_version: 1,
    command: m.command,
    ...(m.runner ? { runner: { name: m.runner.name, ...(m.runner.version === undefined ? {} : { version: m.runner.version }) } } : {}),
    ...roundRate,
    gap_ms: 0,
    confidence: confidence.value,
    z: zForConfidence(confidence.value),
    verdict: computeVerdict(failedRounds, rounds),
    timed_out: 0,
    timeout_ms: null,
    jobs: 1,
    complete: m.complete,
    requested_trials: m.repeat,
    started_at: m.startedAt.toISOString(),
    duration_ms: Math.round(m.durationMs),
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
      ...(tally.fresh ? { fresh: { ...describeRate(tally.fresh.failures, tally.fresh.trials, confidence.value), failure_rounds: tally.fresh.failureTrials } } : {}),
      ...(tally.freshEvidence ? { fresh_evidence: tally.freshEvidence } : {}),
      ...(tally.plainEvidence ? { plain_evidence: tally.plainEvidence } : {}),
      ...(tally.split ? { split: tally.split } : {}),
    })),
    ...(m.runErrors.length > 0 ? { run_errors: [...m.runErrors] } : {}),
  }
  if (rounds === 0) return { rate }

  const basis = choosePlanningBasis(roundRate)
  const planned = measured.filter((o): o is TestOutcome & { plan: TestPlan } => o.plan !== undefined)
  const runsNeeded = {
    ...buildRunsNeeded(basis, roundRate, confidence),
    tests: Object.fromEntries(
      planned.map(({ tally, verdict, plan }) => [
        tally.id,
        { observed_rate: plan.rate.rate, trials: plan.rate.trials, failures: plan.rate.failures, basis: plan.basis.basis, planned_rate: plan.basis.plannedRate, runs: plan.runs, verdict },
      ]),
    ),
  }

  const worst = measured.find((o) => o.verdict === 'flaky') ?? measured.find((o) => o.tally.fast.failures > 0)
  const onlyWhenFail = {
    schema_version: 1 as const,
    trials: rounds,
    failures: failedRounds,
    exit_codes_on_failure: [],
    exit_codes_on_success: [],
    token: worst?.tally.token ?? null,
    token_candidates: worst?.tally.tokenCandidates ?? [],
    failure_trials: failureRounds,
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
          exact_predicates: tally.predicates.filter((p) => p.unit === undefined && p.true_in_failures === tally.fast.failures + tally.slow.failures && p.true_in_successes === 0).map((p) => p.predicate),
        },
      ]),
    ),
  }

  const policy = {
    ...decidePolicy(basis, fractionFromCounts(failedRounds, rounds), roundRate, confidence),
    tests: Object.fromEntries(
      planned.map(({ tally, verdict, plan }) => {
        const decided = decidePolicy(plan.basis, fractionFromCounts(tally.fast.failures, tally.fast.trials), plan.rate, confidence)
        const { observed_rate, trials, failures, green_runs_required, retry_budget, quarantine_after } = decided
        return [tally.id, { observed_rate, trials: trials ?? 0, failures: failures ?? 0, verdict, green_runs_required, retry_budget, quarantine_after }]
      }),
    ),
  }

  const observer = m.observe ? buildTestObserver(m.command, measured, confidence) : undefined
  return { rate, runsNeeded, onlyWhenFail, policy, ...(observer ? { observer: m.assignmentSeed === undefined ? observer : { ...observer, assignment_seed: m.assignmentSeed } } : {}) }
}

export interface TestProofRun {
  command: string
  /** Test id → repetitions required. */
  required: Readonly<Record<string, number>>
  /** Where the required counts came from. */
  requiredFrom: string
  tallies: ReadonlyMap<string, TestTally>
  collected: Collected
  confidence: Confidence
  complete: boolean
}

/** What a run collected: each module's id prefix (`[project] file`, src/core/test-id.ts) and every test id in them. */
export interface Collected {
  modules: ReadonlySet<string>
  /** Filtered and skipped tests included: present, though not run. */
  tests: ReadonlySet<string>
}

/**
 * proof.json: per required test, ran / not-selected / missing. It passes only if every required
 * test that was selected passed every repetition, and the run was complete: a stopped run, a worker
 * that died or an error outside the tests proves nothing.
 */
export function buildTestProof(p: TestProofRun): ProofFile {
  const tests: Record<string, TestProof> = {}
  for (const [id, required] of Object.entries(p.required)) {
    const tally = p.tallies.get(id)
    if (tally) {
      const { trials, failures, failureTrials } = tally.proof
      tests[id] = { required, trials, failures, passed: failures === 0 && trials >= required, failure_trials: failureTrials, status: 'ran' }
      continue
    }
    // Present but filtered (`-t`, a skip) is not-selected; its file ran in its project without it: gone or renamed.
    const inCollectedFile = [...p.collected.modules].some((prefix) => id.startsWith(`${prefix} > `))
    const status = p.collected.tests.has(id) || !inCollectedFile ? 'not-selected' : 'missing'
    tests[id] = { required, trials: 0, failures: 0, passed: status !== 'missing', failure_trials: [], status }
  }
  const entries = Object.values(tests)
  const ran = entries.filter((t) => t.status === 'ran')
  const sum = (pick: (t: TestProof) => number): number => ran.reduce((acc, t) => acc + pick(t), 0)
  return {
    schema_version: 1,
    command: p.command,
    required: Math.max(1, sum((t) => t.required)),
    required_from: p.requiredFrom,
    ...describeRate(sum((t) => t.failures), sum((t) => t.trials), p.confidence.value),
    passed: p.complete && ran.length > 0 && entries.every((t) => t.passed),
    failure_trials: [],
    complete: p.complete,
    tests,
  }
}

// --- internal ---

/**
 * observer.json: every observed test's fast and gapped counts compared, and all of them summed.
 * With paired repetitions (fast ones interleaved with the gapped ones, a seeded coin deciding the
 * order in each pair), `changed` is that randomised comparison: time, load and any period of the
 * test's own fall on both sides alike, so only the gap can make them differ (docs/contracts.md §13.4).
 */
function buildTestObserver(command: string, measured: readonly TestOutcome[], confidence: Confidence): ObserverFile {
  const observed = measured.filter((o) => o.tally.slow.trials > 0)
  const side = (trials: number, failures: number, gapMs: number) => ({ ...describeRate(failures, trials, confidence.value), gap_ms: gapMs })
  const sum = (pick: (o: TestOutcome) => number): number => observed.reduce((acc, o) => acc + pick(o), 0)
  const gapMs = observed[0]?.tally.slow.gapMs ?? 0
  const overall = compareInterleaved(
    `${command} (${observed.length} observed test${observed.length === 1 ? '' : 's'})`,
    side(sum((o) => o.tally.fast.trials), sum((o) => o.tally.fast.failures), 0),
    side(sum((o) => o.tally.paired.trials), sum((o) => o.tally.paired.failures), 0),
    side(sum((o) => o.tally.slow.trials), sum((o) => o.tally.slow.failures), gapMs),
    confidence,
  )
  const tests = Object.fromEntries(
    observed.map(({ tally }) => {
      const fast = side(tally.fast.trials, tally.fast.failures, 0)
      const paired = side(tally.paired.trials, tally.paired.failures, 0)
      const slow = side(tally.slow.trials, tally.slow.failures, tally.slow.gapMs)
      const { schema_version, command: _, confidence: __, ...entry } = compareInterleaved(tally.id, fast, paired, slow, confidence)
      return [tally.id, entry]
    }),
  )
  return { ...overall, tests }
}
