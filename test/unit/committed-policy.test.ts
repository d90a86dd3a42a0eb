import { describe, expect, it } from 'vitest'
import { CommittedPolicySchema, type PolicyEntry } from '../../src/artifacts/committed-policy-schema.js'
import type { TestRate } from '../../src/artifacts/test-schemas.js'
import { mergeMeasurement } from '../../src/pipeline/committed-policy.js'
import { rateFile } from '../rate-file.js'

/** A rate.json test entry; the interval is not what is under test here. */
function measured(name: string, failures: number, trials: number, verdict: TestRate['verdict']): TestRate {
  return { id: `a.test.ts > ${name}`, project: '', file: 'a.test.ts', name, trials, failures, rate: failures / trials, ci_low: 0, ci_high: 0.5, verdict }
}

function rateWith(tests: TestRate[]) {
  return rateFile({ trials: 100, failures: 20, rate: 0.2, ci_low: 0.1, ci_high: 0.3 }, { tests })
}

const quarantined: PolicyEntry = {
  project: '',
  file: 'a.test.ts',
  name: 'old',
  trials: 50,
  failures: 5,
  rate: 0.1,
  ci_low: 0.04,
  ci_high: 0.21,
  verdict: 'flaky',
  retry_budget: 1,
  quarantine_after: 1,
  green_runs_required: 29,
  failed_runs: 1,
  quarantine: { since: '2026-11-01', reason: 'failed beyond its retry budget', evidence: ['boom'] },
}

describe('mergeMeasurement: flakeproof.policy.json from a rate.json', () => {
  it('lists a flaky test with the budget its rate justifies', () => {
    // p = 20/100 = 0.2: retry budget 2 (0.2^3 = 0.008 <= 0.01 < 0.2^2 = 0.04), quarantine after 1
    // (0.008 <= 0.05), green runs 14 (0.8^14 = 0.044 <= 0.05 < 0.8^13 = 0.055; planning.test.ts).
    const { policy, added } = mergeMeasurement(null, rateWith([measured('flaky', 20, 100, 'flaky')]), 'rate.json')
    expect(added).toEqual(['a.test.ts > flaky'])
    expect(policy.tests['a.test.ts > flaky']).toMatchObject({ retry_budget: 2, quarantine_after: 1, green_runs_required: 14, failed_runs: 0, quarantine: null })
    expect(CommittedPolicySchema.parse(policy)).toEqual(policy)
  })

  it('leaves stable and broken tests unlisted, and keeps entries not measured this time', () => {
    const existing = { schema_version: 1 as const, confidence: 0.95, tests: { 'a.test.ts > old': quarantined } }
    const { policy, added, kept } = mergeMeasurement(existing, rateWith([measured('fine', 0, 100, 'stable'), measured('bad', 100, 100, 'broken')]), 'rate.json')
    expect(added).toEqual([])
    expect(kept).toEqual(['a.test.ts > old'])
    expect(policy.tests).toEqual({ 'a.test.ts > old': quarantined })
  })

  it('updates the numbers of a listed test and keeps its quarantine, which only a proof clears', () => {
    const existing = { schema_version: 1 as const, confidence: 0.95, tests: { 'a.test.ts > old': quarantined } }
    const { policy, updated } = mergeMeasurement(existing, rateWith([measured('old', 0, 200, 'stable')]), 'rate.json')
    expect(updated).toEqual(['a.test.ts > old'])
    // 0 of 200: no retry is due (p = 0); the quarantine and its evidence stay as they were.
    expect(policy.tests['a.test.ts > old']).toMatchObject({ trials: 200, failures: 0, retry_budget: 0, quarantine: quarantined.quarantine, failed_runs: 1 })
  })

  it('writes tests sorted by id, whatever order they were measured in', () => {
    const { policy } = mergeMeasurement(null, rateWith([measured('z', 1, 10, 'flaky'), measured('B', 1, 10, 'flaky'), measured('a', 1, 10, 'flaky')]), 'rate.json')
    expect(Object.keys(policy.tests)).toEqual(['a.test.ts > B', 'a.test.ts > a', 'a.test.ts > z'])
  })

  it('refuses a measurement at another confidence than the policy', () => {
    const existing = { schema_version: 1 as const, confidence: 0.99, tests: { 'a.test.ts > old': quarantined } }
    expect(() => mergeMeasurement(existing, rateWith([measured('flaky', 20, 100, 'flaky')]), '--from rate.json')).toThrow(
      '--from rate.json was measured at confidence 0.95, the committed policy is at 0.99; measure again with --flaky-confidence 0.99, or delete the file to start over at 0.95',
    )
  })
})
