import type { ReportBundle } from '../artifacts/bundle.js'
import type { ProofFile, RateFile } from '../artifacts/schemas.js'
import type { RunError, TestProof } from '../artifacts/test-schemas.js'
import { compareCounts } from '../core/difference.js'
import { complement, type Fraction, fractionFromCounts } from '../core/fraction.js'
import { describeRate, type RateDescription } from '../core/rate.js'
import { computeVerdict, type Verdict } from '../core/verdict.js'
import { zForConfidence } from '../core/wilson.js'
import { compareObservations } from './observe.js'
import { buildRunsNeeded, choosePlanningBasis, type PlanningBasis, runsAt } from './plan.js'
import { decidePolicy } from './policy.js'
import type { TestTally } from './test-tally.js'

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
  const verdict = short ? 'partial' : computeVerdict(tally.fast.failures, tally.fast.trials, tally.independence.pattern)
  // A non-idempotent test's rate is no probability: no runs needed, no policy (omitted from their maps).
  const basis = tally.fast.trials === 0 || verdict === 'non-idempotent' ? undefined : choosePlanningBasis(rate)
  const plan = basis && { rate, basis, runs: runsAt(basis.rate, confidence.exact) }
  return { tally, verdict, ci: { low: rate.ci_low, high: rate.ci_high }, greenRuns: plan?.runs ?? null, plan }
}

/** Flaky first, then non-idempotent, broken, partial, stable; then by failures. */
export function byConcern(a: TestOutcome, b: TestOutcome): number {
  const rank = (o: TestOutcome): number => ({ flaky: 0, 'non-idempotent': 1, broken: 2, partial: 3, stable: 4 })[o.verdict]
  return rank(a) - rank(b) || b.tally.fast.failures - a.tally.fast.failures || a.tally.id.localeCompare(b.tally.id)
}

export interface TestMeasurement {
  command: string
  /** What ran the tests, for rate.json's `runner`. */
  runner?: { name: string; version?: string | undefined } | undefined
  /** Rounds requested. */
  repeat: number
  observe: boolean
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
 * Rounds (1-based) in which some test failed. A non-idempotent test's failures are left out: they
 * follow from the state its own earlier repetitions left, not from chance, and must not make the
 * whole run look flaky.
 */
export function failedRoundsOf(outcomes: readonly TestOutcome[]): number[] {
  const failed = new Set<number>()
  for (const { verdict, tally } of outcomes) {
    if (verdict === 'non-idempotent') continue
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
          exact_predicates: tally.predicates.filter((p) => p.true_in_failures === tally.fast.failures + tally.slow.failures && p.true_in_successes === 0).map((p) => p.predicate),
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

  return { rate, runsNeeded, onlyWhenFail, policy, ...(m.observe ? { observer: buildTestObserver(m.command, measured, confidence) } : {}) }
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

/** observer.json: every observed test's fast and gapped counts compared, and all of them summed. */
function buildTestObserver(command: string, measured: readonly TestOutcome[], confidence: Confidence) {
  const observed = measured.filter((o) => o.tally.slow.trials > 0)
  const side = (trials: number, failures: number, gapMs: number) => ({ ...describeRate(failures, trials, confidence.value), gap_ms: gapMs })
  const sum = (pick: (o: TestOutcome) => number): number => observed.reduce((acc, o) => acc + pick(o), 0)
  const overall = compareObservations(
    `${command} (${observed.length} observed test${observed.length === 1 ? '' : 's'})`,
    side(sum((o) => o.tally.fast.trials), sum((o) => o.tally.fast.failures), 0),
    side(sum((o) => o.tally.slow.trials), sum((o) => o.tally.slow.failures), observed[0]?.tally.slow.gapMs ?? 0),
    confidence,
  )
  const tests = Object.fromEntries(
    observed.map(({ tally }) => {
      const fast = side(tally.fast.trials, tally.fast.failures, 0)
      const slow = side(tally.slow.trials, tally.slow.failures, tally.slow.gapMs)
      const { p_value, changed, note } = compareObservations(tally.id, fast, slow, confidence)
      if (tally.paired.trials === 0) return [tally.id, { fast, slow, p_value, changed, note }]
      const paired = side(tally.paired.trials, tally.paired.failures, 0)
      const interleaved = explainInterleaved(fast, paired, slow, confidence)
      return [tally.id, { fast, slow, p_value, changed, note: `${note} ${interleaved.note}`, paired, paired_p_value: interleaved.pairedP, drift_p_value: interleaved.driftP }]
    }),
  )
  return { ...overall, tests }
}

/**
 * The gapped repetitions against the fast ones interleaved with them (same span of time, same
 * load), and the first fast block against those interleaved ones: when the fast rate itself moved
 * between the two phases, time or load explains the fast/gapped difference better than the gap.
 */
function explainInterleaved(fast: RateDescription, paired: RateDescription, slow: RateDescription, confidence: Confidence): { pairedP: number; driftP: number; note: string } {
  const alpha = complement(confidence.exact)
  const gap = compareCounts(paired, slow, alpha)
  const drift = compareCounts(fast, paired, alpha)
  const counts = `interleaved fast ${paired.failures}/${paired.trials} against gapped ${slow.failures}/${slow.trials}, p = ${gap.pValue.toPrecision(3)}`
  const moved = drift.significant
    ? ` The fast rate itself moved between the first block (${fast.failures}/${fast.trials}) and the interleaved repetitions (p = ${drift.pValue.toPrecision(3)}): load or time explains the difference better than the gap.`
    : ''
  return { pairedP: gap.pValue, driftP: drift.pValue, note: `With time held alike (${counts}): ${gap.significant ? 'the gap itself changes it' : 'no difference found with these counts'}.${moved}` }
}

