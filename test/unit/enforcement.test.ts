import { describe, expect, it } from 'vitest'
import type { CommittedPolicy, PolicyEntry } from '../../src/artifacts/committed-policy-schema.js'
import { clearProven, type EnforcedTest, judgeEnforcedRun, listQuarantined, proofRunsOf, retryOf } from '../../src/pipeline/enforcement.js'

const TODAY = '2026-11-30'

/** A listed test measured at 20 of 100: retry 2, quarantine after 1, 14 green runs (planning.test.ts). */
function entry(extra: Partial<PolicyEntry> = {}): PolicyEntry {
  return {
    project: '',
    file: 'a.test.ts',
    name: 'x',
    trials: 100,
    failures: 20,
    rate: 0.2,
    ci_low: 0.13,
    ci_high: 0.29,
    verdict: 'flaky',
    retry_budget: 2,
    quarantine_after: 1,
    green_runs_required: 14,
    failed_runs: 0,
    quarantine: null,
    ...extra,
  }
}

const QUARANTINE = { since: '2026-11-01', reason: 'failed beyond its retry budget', evidence: ['boom'] }

function policyOf(tests: Record<string, PolicyEntry>): CommittedPolicy {
  return { schema_version: 1, confidence: 0.95, tests }
}

const ran = (id: string, state: EnforcedTest['state'], retries: number, errors: string[] = []): EnforcedTest => ({ id, state, retries, errors })

describe('judgeEnforcedRun', () => {
  it.each([
    // id's entry, what it did → outcome, failed_runs after, proposed
    ['passed first time', entry(), ran('t', 'passed', 0), 'passed', 0, false],
    ['passed on a retry within the budget', entry({ failed_runs: 1, quarantine_after: 3 }), ran('t', 'passed', 2, ['e']), 'passed-within-budget', 0, false],
    // quarantine_after 3: the second consecutive run beyond the budget is not yet enough, the third is.
    ['failed beyond its budget, 2nd run of 3', entry({ failed_runs: 1, quarantine_after: 3 }), ran('t', 'failed', 2, ['e']), 'failed-beyond-budget', 2, false],
    ['failed beyond its budget, 3rd run of 3', entry({ failed_runs: 2, quarantine_after: 3 }), ran('t', 'failed', 2, ['e']), 'failed-beyond-budget', 3, true],
    // retry_budget null (failed every measured trial): no retry helps, and no quarantine is proposed.
    ['fails always, no budget', entry({ failures: 100, rate: 1, retry_budget: null, quarantine_after: null }), ran('t', 'failed', 0, ['e']), 'failed-beyond-budget', 1, false],
    ['quarantined, failed', entry({ quarantine: QUARANTINE, failed_runs: 1 }), ran('t', 'failed', 2, ['e']), 'quarantined-failed', 1, false],
    ['quarantined, passed', entry({ quarantine: QUARANTINE, failed_runs: 1 }), ran('t', 'passed', 0), 'quarantined-passed', 1, false],
  ])('%s', (_name, listed, observed, outcome, failedRuns, proposed) => {
    const { results, proposed: ids, updated } = judgeEnforcedRun(policyOf({ t: listed }), [observed], TODAY)
    expect(results).toEqual([expect.objectContaining({ id: 't', outcome, failedRuns: listed.quarantine ? listed.failed_runs : failedRuns })])
    expect(ids).toEqual(proposed ? ['t'] : [])
    expect(updated.tests.t?.failed_runs).toBe(failedRuns)
  })

  it('quarantines a proposed test with the day, the reason and this run’s errors as evidence', () => {
    const { updated } = judgeEnforcedRun(policyOf({ t: entry() }), [ran('t', 'failed', 2, ['TOKEN: first', 'second'])], TODAY)
    expect(updated.tests.t?.quarantine).toEqual({
      since: TODAY,
      reason: 'failed beyond its retry budget of 2 in 1 consecutive enforced run(s) (quarantine after 1; measured 20 of 100)',
      evidence: ['TOKEN: first', 'second'],
    })
  })

  it('ignores unlisted tests and leaves tests that did not run as they were', () => {
    const policy = policyOf({ t: entry({ failed_runs: 1, quarantine_after: 3 }) })
    const { results, updated } = judgeEnforcedRun(policy, [ran('other', 'failed', 0, ['x'])], TODAY)
    expect(results).toEqual([])
    expect(updated).toEqual(policy)
  })
})

describe('listQuarantined', () => {
  it('lists the quarantined tests that ran, with this run’s errors and the evidence that put them there', () => {
    const policy = policyOf({ q: entry({ quarantine: QUARANTINE }), t: entry() })
    const { results } = judgeEnforcedRun(policy, [ran('q', 'failed', 2, ['now']), ran('t', 'passed', 0)], TODAY)
    expect(listQuarantined(policy, results)).toEqual([
      { id: 'q', file: 'a.test.ts', name: 'x', outcome: 'failed', errors: ['now'], quarantine: QUARANTINE, failures: 20, trials: 100, greenRunsRequired: 14 },
    ])
  })
})

describe('proof from the committed policy', () => {
  const policy = policyOf({ q: entry({ quarantine: QUARANTINE, failed_runs: 2, green_runs_required: 11 }), t: entry() })

  it('proves the quarantined tests, each its green runs', () => {
    expect(proofRunsOf(policy)).toEqual({ q: 11 })
    expect(proofRunsOf(policyOf({ t: entry() }))).toEqual({})
  })

  it.each([
    [{ passed: true, status: 'ran' }, ['q']],
    [{ passed: false, status: 'ran' }, []],
    // Filtered out of the run: no evidence, so it stays in quarantine.
    [{ passed: false, status: 'not-selected' }, []],
  ])('a proof %o clears %o', (proof, cleared) => {
    const result = clearProven(policy, { q: proof })
    expect(result.cleared).toEqual(cleared)
    expect(result.updated.tests.q).toMatchObject(cleared.length > 0 ? { quarantine: null, failed_runs: 0 } : { quarantine: QUARANTINE, failed_runs: 2 })
  })
})

describe('retryOf', () => {
  it.each([
    [entry(), 2],
    [entry({ retry_budget: null }), 0],
    [undefined, 0], // unlisted: no blanket retry
  ])('%#: %i', (listed, retry) => {
    expect(retryOf(listed)).toBe(retry)
  })
})
