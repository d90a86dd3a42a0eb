import { describe, expect, it } from 'vitest'
import type { CommittedPolicy, PolicyEntry } from '../../src/artifacts/committed-policy-schema.js'
import type { ProofFile } from '../../src/artifacts/schemas.js'
import type { TestProof } from '../../src/artifacts/test-schemas.js'
import { type EnforcedTest, judgeEnforcedRun, listQuarantined, proofRunsOf, releaseProven, retryOf } from '../../src/pipeline/enforcement.js'

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
})

/** A proof.json with these tests, as from the output folder's policy.json (its counts may differ from the committed policy's). */
function proofOf(tests: Record<string, TestProof>, extra: Partial<ProofFile> = {}): ProofFile {
  return {
    schema_version: 1,
    command: 'vitest run',
    required: 14,
    required_from: '/p/.flakeproof/policy.json',
    trials: 14,
    failures: 0,
    rate: 0,
    ci_low: 0,
    ci_high: 0.2153,
    passed: true,
    failure_trials: [],
    complete: true,
    tests,
    ...extra,
  }
}

const proven = (extra: Partial<TestProof> = {}): TestProof => ({ required: 14, trials: 14, failures: 0, passed: true, failure_trials: [], status: 'ran', ...extra })
const LOAD = { condition: 'load_per_cpu' as const, measured: 2.4, proof: 0.3, note: 'load 0.30 per CPU, 2.40 when measured: add --flaky-load-procs 5' }

describe('releaseProven: quarantine release follows the proof', () => {
  // q is quarantined with green_runs_required 14; t is listed and not quarantined (never in the releases).
  const policy = policyOf({ q: entry({ quarantine: QUARANTINE, failed_runs: 2 }), t: entry() })
  it.each([
    ['14 of 14 green, from any file', proofOf({ q: proven() }), true, ''],
    // The output folder's policy asked 20; the committed one asks 14: 16 green runs are enough.
    ['16 green where its own file asked 20 (passed false there)', proofOf({ q: proven({ required: 20, trials: 16, passed: false }) }, { passed: false }), true, ''],
    ['13 green: fewer than the committed 14', proofOf({ q: proven({ required: 13, trials: 13 }) }), false, '13 green run(s), and the committed policy requires 14'],
    ['one failure', proofOf({ q: proven({ failures: 1, passed: false, failure_trials: [3] }) }), false, 'its proof failed 1 of 14 runs'],
    ['filtered out of the run', proofOf({ q: proven({ trials: 0, passed: true, status: 'not-selected' }) }), false, 'not-selected in this proof, so it ran no green run'],
    ['not among the proof\'s tests', proofOf({ other: proven() }), false, 'not proved by this run (policy.json asks no proof of it)'],
    ['a weaker proof', proofOf({ q: proven({ weaker: [LOAD] }) }, { weaker: [LOAD] }), false, `the proof was weaker than its measurement: ${LOAD.note}`],
    ['conditions not replayed', proofOf({ q: proven() }, { passed: false, unreproduced: ['parallel and serial rounds (--flaky-divergence)'] }), false, "the proof did not replay the measurement's conditions (parallel and serial rounds (--flaky-divergence))"],
  ])('%s', (_case, proof, released, why) => {
    const result = releaseProven(policy, proof)
    expect(result.releases).toEqual([{ id: 'q', released, why }])
    expect(result.updated.tests.q).toMatchObject(released ? { quarantine: null, failed_runs: 0 } : { quarantine: QUARANTINE, failed_runs: 2 })
    expect(result.updated.tests.t).toEqual(policy.tests.t)
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
