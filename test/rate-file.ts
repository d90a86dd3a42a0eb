import type { ProofFile, RateFile } from '../src/artifacts/schemas.js'
import type { TestRate } from '../src/artifacts/test-schemas.js'

/** A valid rate.json for rendering tests: the counts given, everything else a plain run's. */
export function rateFile(counts: Pick<RateFile, 'trials' | 'failures' | 'rate' | 'ci_low' | 'ci_high'>, extra: Partial<RateFile> = {}): RateFile {
  return {
    schema_version: 1,
    command: 'vitest run',
    ...counts,
    gap_ms: 0,
    confidence: 0.95,
    z: 1.96,
    verdict: 'flaky',
    timed_out: 0,
    timeout_ms: null,
    jobs: 1,
    complete: true,
    requested_trials: counts.trials,
    started_at: '2026-11-30T00:00:00.000Z',
    duration_ms: 1,
    ...extra,
  }
}

/** One test of tests/a.test.ts measured over `trials` repetitions, with the interval given. */
export function testRate(name: string, failures: number, ci_low: number, ci_high: number, verdict: TestRate['verdict'], trials = 20): TestRate {
  return { id: `tests/a.test.ts > ${name}`, project: '', file: 'tests/a.test.ts', name, trials, failures, rate: failures / trials, ci_low, ci_high, verdict }
}

/** A proof.json of `vitest run -- --flaky-proof` with the counts given, required from .flakeproof/policy.json. */
export function proofFile(counts: Pick<ProofFile, 'required' | 'trials' | 'failures' | 'ci_low' | 'ci_high' | 'passed' | 'failure_trials'>, tests: ProofFile['tests']): ProofFile {
  return {
    schema_version: 1,
    command: 'vitest run -- --flaky-proof',
    required_from: '.flakeproof/policy.json',
    rate: counts.trials === 0 ? 0 : counts.failures / counts.trials,
    complete: true,
    ...counts,
    tests,
  }
}
