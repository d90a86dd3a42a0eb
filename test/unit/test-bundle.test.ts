import { describe, expect, it } from 'vitest'
import type { Repetition } from '../../src/core/repetition.js'
import { buildTestMeasurement, buildTestProof, failedRoundsOf, outcomeOf } from '../../src/pipeline/test-bundle.js'
import { tallyTest } from '../../src/pipeline/test-tally.js'
import { reportedTest } from '../reported-test.js'

const confidence = { value: 0.95, exact: { num: 19n, den: 20n } }

/** A test whose repetitions fail where `pattern` has an 'x'; `cut` as if recovered after a crash. */
function tally(name: string, pattern: string, options: { mode?: Repetition['mode']; cut?: boolean } = {}) {
  return tallyTest(reportedTest(name, pattern, options), confidence.exact)
}

const measure = (outcomes: ReturnType<typeof outcomeOf>[], rounds: number) =>
  buildTestMeasurement({ command: 'vitest run', repeat: 200, observe: false, confidence, startedAt: new Date(0), durationMs: 1, complete: true, runErrors: [], outcomes, rounds })

describe('outcomeOf', () => {
  it('calls a test cut short by a crash on its last repetition partial, never flaky', () => {
    // ...x with 4 repetitions asked: 4 trials, 1 failure, which alone would read flaky.
    expect(outcomeOf(tally('crash', '...x', { cut: true }), 4, confidence).verdict).toBe('partial')
    expect(outcomeOf(tally('flake', '...x'), 4, confidence).verdict).toBe('flaky')
  })
})

describe('buildTestMeasurement', () => {
  it("leaves a non-idempotent or undetermined test's failures out of the run's rounds", () => {
    // One pass then 20 failures: 1 order in C(21, 20) = 21 by chance, below 0.05; one then 9: 1 in 10.
    const leaking = outcomeOf(tally('leaks', `.${'x'.repeat(20)}`), 21, confidence)
    const stable = outcomeOf(tally('stable', '.'.repeat(21)), 21, confidence)
    const short = outcomeOf(tally('short', '.xxxxxxxxx'), 10, confidence)
    expect(leaking.verdict).toBe('non-idempotent')
    expect(short.verdict).toBe('undetermined')
    expect(failedRoundsOf([leaking, stable])).toEqual([])
    expect(failedRoundsOf([short])).toEqual([])
    const { rate } = measure([leaking, stable], 21)
    expect(rate).toMatchObject({ trials: 21, failures: 0, verdict: 'stable' })
  })

  it('counts the rounds that ran, not those asked for, when a run stops early', () => {
    // 200 asked, 20 ran before Ctrl-C, 4 of them failed: 4 of 20, not 4 of 200.
    const stopped = outcomeOf(tally('flake', '....x....x....x....x'), 200, confidence)
    const { rate } = measure([stopped], 20)
    expect(rate).toMatchObject({ trials: 20, failures: 4, requested_trials: 200 })
    expect(rate.tests?.[0]?.verdict).toBe('partial')
  })

  it('writes only rate.json when no round ran', () => {
    expect(Object.keys(measure([], 0))).toEqual(['rate'])
  })
})

describe('buildTestProof', () => {
  const proof = (complete: boolean, tests: ReadonlySet<string>) =>
    buildTestProof({
      command: 'vitest run -- --flaky-proof',
      required: { 'a.test.ts > fixed': 3, 'a.test.ts > filtered': 3 },
      requiredFrom: '.flakeproof/runs_needed.json',
      tallies: new Map([['a.test.ts > fixed', tally('fixed', '...', { mode: 'proof' })]]),
      collected: { modules: new Set(['a.test.ts']), tests },
      confidence,
      complete,
    })

  it('calls a test filtered out with -t not-selected, not missing, even in a file that ran', () => {
    const result = proof(true, new Set(['a.test.ts > fixed', 'a.test.ts > filtered']))
    expect(result.tests?.['a.test.ts > filtered']).toMatchObject({ status: 'not-selected', passed: true })
    expect(result).toMatchObject({ passed: true, required_from: '.flakeproof/runs_needed.json' })
  })

  it('calls a test gone from a file that ran missing, and fails', () => {
    expect(proof(true, new Set(['a.test.ts > fixed'])).tests?.['a.test.ts > filtered']).toMatchObject({ status: 'missing', passed: false })
  })

  it('proves nothing from a run that did not complete', () => {
    expect(proof(false, new Set(['a.test.ts > fixed', 'a.test.ts > filtered'])).passed).toBe(false)
  })
})
