import type { RateFile } from '../src/artifacts/schemas.js'

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
