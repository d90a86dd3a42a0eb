import { describe, expect, it } from 'vitest'
import type { Repetition } from '../../src/core/repetition.js'
import { computeVerdict } from '../../src/core/verdict.js'
import { brokenSuspectsOf, decideFromPlain, MAX_PLAIN_ROUNDS, plainRoundsBudget } from '../../src/pipeline/plain-evidence.js'
import { outcomeOf } from '../../src/pipeline/test-bundle.js'
import { type TestTally, tallyTest } from '../../src/pipeline/test-tally.js'
import { reportedTest } from '../reported-test.js'
import { seeded } from '../seeded.js'

const ALPHA = { num: 1n, den: 20n }
const CONFIDENCE = { num: 19n, den: 20n }

/** '.x' strings, one per plain run: its executions of the test ('.' passed, 'x' failed). */
const runs = (...patterns: string[]) => patterns.map((p) => [...p].map((c) => ({ ok: c === '.', elapsedMs: 1, mode: 'fast' as const, gapMs: 0 })))

describe('plainRoundsBudget: the fewest plain runs whose passing every time would be significant against copies that all failed', () => {
  // R passing plain runs against n failed copies: Fisher two-sided p = 1/C(n + R, R).
  it.each([
    // n = 20: R = 1 gives 1/21 = 0.048.
    [20, ALPHA, 1],
    // n = 19: R = 1 gives 1/20, not below 0.05; R = 2 gives 1/C(21, 2) = 1/210.
    [19, ALPHA, 2],
    // n = 10: R = 1 gives 1/11; R = 2 gives 1/66.
    [10, ALPHA, 2],
    // n = 5: R = 2 gives 1/C(7, 2) = 1/21.
    [5, ALPHA, 2],
    // n = 4: R = 2 gives 1/15; R = 3 gives 1/35.
    [4, ALPHA, 3],
    // n = 3: R = 3 gives 1/20, not below 0.05; R = 4 gives 1/35.
    [3, ALPHA, 4],
    // n = 2: R = 4 gives 1/15; R = 5 gives 1/21.
    [2, ALPHA, 5],
    // n = 1: R = 5 gives 1/6: the cap.
    [1, ALPHA, MAX_PLAIN_ROUNDS],
    // At 99%: n = 20, R = 1 gives 1/21, R = 2 gives 1/231.
    [20, { num: 1n, den: 100n }, 2],
  ])('%i copies, alpha %o: %i runs', (copies, alpha, budget) => {
    expect(plainRoundsBudget(copies, alpha)).toBe(budget)
  })
})

describe('decideFromPlain: a test that failed every copy, against its file run as usual', () => {
  const measured = { trials: 10, failures: 10 }
  it.each([
    // Both plain runs passed: 1/C(12, 2) = 1/66.
    { case: 'the plain runs pass: the repetitions break it', plain: ['.', '.'], decided: 'non-idempotent', p: 1 / 66, counts: { trials: 2, failures: 0 } },
    { case: 'the plain runs fail too', plain: ['x', 'x'], decided: 'broken', p: 1, counts: { trials: 2, failures: 2 } },
    // One pass among 12 executions falls in the 2 plain ones with chance 2/12 = 1/6: too likely to decide.
    { case: 'one plain run passes', plain: ['.', 'x'], decided: 'undetermined', p: 1 / 6, counts: { trials: 2, failures: 1 } },
    // One of the budget of 2 ran and passed: 1/11, too few.
    { case: 'too few plain runs ran', plain: ['.'], decided: 'undetermined', p: 1 / 11, counts: { trials: 1, failures: 0 } },
    { case: 'no plain run executed it', plain: [], decided: 'broken', p: 1, counts: { trials: 0, failures: 0 } },
    // A round in which the test never ran (its file failed to load) adds no execution.
    { case: 'a plain run without it', plain: ['', 'x'], decided: 'broken', p: 1, counts: { trials: 1, failures: 1 } },
  ])('$case: $decided', ({ plain, decided, p, counts }) => {
    const evidence = decideFromPlain(measured, runs(...plain), 2, CONFIDENCE)
    expect(evidence).toMatchObject({ rounds: plain.length, budget: 2, plain: counts, measured, decided })
    expect(evidence.p_value).toBeCloseTo(p, 12)
  })

  it('counts only the first execution of a plain run, and says what it found', () => {
    const evidence = decideFromPlain(measured, runs('.x', '.'), 2, CONFIDENCE)
    expect(evidence.plain).toEqual({ trials: 2, failures: 0 })
    expect(evidence.note).toContain('2 of 2 plain runs of its file passed it, against 0 of 10 measured copies; p = 0.0152')
    expect(decideFromPlain(measured, [], 2, CONFIDENCE).note).toBe('No plain run of its file executed it (0 of 2 runs gathered): it stays broken as measured.')
  })
})

describe('the verdict of a test that failed every copy', () => {
  it.each([
    [undefined, 'broken'],
    ['broken', 'broken'],
    ['non-idempotent', 'non-idempotent'],
    ['undetermined', 'undetermined'],
  ] as const)('plain runs decided %s: %s', (plain, verdict) => {
    expect(computeVerdict(10, 10, null, plain)).toBe(verdict)
  })

  it('is decided by counts alone when some copy passed or none ran', () => {
    expect(computeVerdict(3, 10, null, 'non-idempotent')).toBe('flaky')
    expect(computeVerdict(0, 10, null, 'non-idempotent')).toBe('stable')
    expect(computeVerdict(0, 0, null, 'non-idempotent')).toBe('partial')
  })
})

describe('brokenSuspectsOf: the broken tests plain runs are asked for', () => {
  // Tallied by the pipeline from the repetitions ('x' failed), as a run tallies them.
  const tally = (name: string, pattern: string, mode: Repetition['mode'] = 'fast', extra: Partial<TestTally> = {}): TestTally => ({
    ...tallyTest(reportedTest(name, pattern, { mode }), CONFIDENCE),
    ...extra,
  })
  const confidence = { value: 0.95, exact: CONFIDENCE }
  const outcomes = [
    tally('broken', 'xxxxxxxxxx'),
    tally('flaky', 'x..x...x..'),
    tally('stable', '..........'),
    tally('ran once by design', 'x', 'single'),
    tally('one copy', 'x'),
    tally('decided already', 'xxxxxxxxxx', 'fast', { plainEvidence: decideFromPlain({ trials: 10, failures: 10 }, runs('x', 'x'), 2, CONFIDENCE) }),
  ].map((t) => outcomeOf(t, t.fast.trials, confidence))

  it('asks for a broken test repeated in its processes, and nothing else', () => {
    // 'one copy' failed its only execution: broken, but one copy is no repetition to blame.
    expect(outcomes.map((o) => o.verdict)).toEqual(['broken', 'flaky', 'stable', 'broken', 'broken', 'broken'])
    expect(brokenSuspectsOf(outcomes, 10).map((o) => o.tally.name)).toEqual(['broken'])
  })

  it('asks for none when each test ran once per process: those runs were plain already', () => {
    expect(brokenSuspectsOf(outcomes, 1)).toEqual([])
  })
})

describe('false alarms of plain-run evidence, by seeded simulation', () => {
  // The null hypothesis: every execution, measured or plain, fails independently with probability
  // q. A false alarm is a test called non-idempotent: all n copies failed, then all R plain runs
  // passed, with probability q^n (1 − q)^R. Its rate must stay below 1 − confidence for every q.
  it.each([
    [0.5, 5],
    [0.7, 5],
    [0.8, 10],
    [0.9, 10],
    [0.95, 20],
    [0.7, 3],
    [0.6, 2],
  ])('failure probability %f, %i copies', (q, n) => {
    const random = seeded(Math.round(q * 1000) * 100 + n)
    const budget = plainRoundsBudget(n, ALPHA)
    const trials = 5_000
    let alarms = 0
    for (let t = 0; t < trials; t++) {
      let failures = 0
      for (let i = 0; i < n; i++) if (random() < q) failures++
      if (failures < n) continue
      const plain = runs(...Array.from({ length: budget }, () => (random() < q ? 'x' : '.')))
      if (decideFromPlain({ trials: n, failures }, plain, budget, CONFIDENCE).decided === 'non-idempotent') alarms++
    }
    const exact = q ** n * (1 - q) ** budget
    expect(exact).toBeLessThan(0.05)
    // Within 4 standard errors of the exact rate: the simulation agrees with the arithmetic.
    expect(Math.abs(alarms / trials - exact)).toBeLessThan(4 * Math.sqrt((exact * (1 - exact)) / trials) + 1e-9)
  })

  it('never calls a test that fails every execution anything but broken, and always finds one the repetitions break', () => {
    for (const n of [2, 3, 5, 10, 20]) {
      const budget = plainRoundsBudget(n, ALPHA)
      const copies = { trials: n, failures: n }
      expect(decideFromPlain(copies, runs(...Array.from({ length: budget }, () => 'x')), budget, CONFIDENCE).decided).toBe('broken')
      expect(decideFromPlain(copies, runs(...Array.from({ length: budget }, () => '.')), budget, CONFIDENCE).decided).toBe('non-idempotent')
    }
  })
})
