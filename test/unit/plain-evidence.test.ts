import { describe, expect, it } from 'vitest'
import type { Repetition } from '../../src/core/repetition.js'
import { computeVerdict } from '../../src/core/verdict.js'
import { brokenSuspectsOf, decideFromPlain, MAX_PLAIN_ROUNDS, MIN_PLAIN_ROUNDS, plainRoundsBudget } from '../../src/pipeline/plain-evidence.js'
import { outcomeOf } from '../../src/pipeline/test-bundle.js'
import { type TestTally, tallyTest } from '../../src/pipeline/test-tally.js'
import { reportedTest } from '../reported-test.js'
import { seeded } from '../seeded.js'

const ALPHA = { num: 1n, den: 20n }
const CONFIDENCE = { num: 19n, den: 20n }

/** '.x' strings, one per plain run: its executions of the test ('.' passed, 'x' failed). */
const runs = (...patterns: string[]) => patterns.map((p) => [...p].map((c) => ({ ok: c === '.', elapsedMs: 1, mode: 'fast' as const, gapMs: 0 })))

describe('plainRoundsBudget: the fewest plain runs (at least 3) whose passing every time would be significant against copies that all failed', () => {
  // R passing plain runs against n failed copies: Fisher two-sided p = 1/C(n + R, R).
  it.each([
    // n = 20: R = 1 would do (1/21), but 3 is the floor: 1/C(23, 3) = 1/1771.
    [20, ALPHA, 3],
    // n = 5: R = 3 gives 1/C(8, 3) = 1/56.
    [5, ALPHA, 3],
    // n = 4: R = 3 gives 1/35.
    [4, ALPHA, 3],
    // n = 3: R = 3 gives 1/20, not below 0.05; R = 4 gives 1/35.
    [3, ALPHA, 4],
    // n = 2: R = 4 gives 1/15; R = 5 gives 1/21.
    [2, ALPHA, 5],
    // n = 1: R = 5 gives 1/6: the cap.
    [1, ALPHA, MAX_PLAIN_ROUNDS],
    // At 99%: n = 20, R = 3 gives 1/1771 still.
    [20, { num: 1n, den: 100n }, MIN_PLAIN_ROUNDS],
  ])('%i copies, alpha %o: %i runs', (copies, alpha, budget) => {
    expect(plainRoundsBudget(copies, alpha)).toBe(budget)
  })
})

describe('decideFromPlain: a test that failed every copy, against its file run as usual and a control with repetitions', () => {
  const measured = { trials: 10, failures: 10 }
  const REPEATED = ['xxxxxxxxxx']
  it.each([
    // Three plain runs passed: 1/C(13, 3) = 1/286; the control's copies failed as the measured ones did.
    { case: 'the plain runs pass, the control fails: the repetitions break it', plain: ['.', '.', '.'], control: REPEATED, decided: 'non-idempotent', p: 1 / 286 },
    { case: 'the plain runs fail too', plain: ['x', 'x', 'x'], control: REPEATED, decided: 'broken', p: 1 },
    // Two passes among 13 executions, both among the 3 plain ones: C(3, 2)/C(13, 2) = 3/78, significant,
    // yet a plain run failed: no pass every time, no claim that plain runs pass.
    { case: 'a plain run fails among passes', plain: ['.', 'x', '.'], control: REPEATED, decided: 'undetermined', p: 3 / 78 },
    // The control's copies passed: what failed the measured ones was not the repetitions.
    { case: 'the control passes too', plain: ['.', '.', '.'], control: ['..........'], decided: 'undetermined', p: 1 / 286 },
    { case: 'the control passes some copies', plain: ['.', '.', '.'], control: ['xxxxx.....'], decided: 'undetermined', p: 1 / 286 },
    { case: 'no control ran', plain: ['.', '.', '.'], control: [], decided: 'undetermined', p: 1 / 286 },
    // One of the budget of 3 ran and passed: 1/11, too few.
    { case: 'too few plain runs ran', plain: ['.'], control: REPEATED, decided: 'undetermined', p: 1 / 11 },
    { case: 'no plain run executed it', plain: [], control: REPEATED, decided: 'broken', p: 1 },
    // A round in which the test never ran (its file failed to load) adds no execution.
    { case: 'a plain run without it', plain: ['', 'x', 'x'], control: REPEATED, decided: 'broken', p: 1 },
  ])('$case: $decided', ({ plain, control, decided, p }) => {
    const evidence = decideFromPlain(measured, { plain: runs(...plain), control: runs(...control) }, 3, CONFIDENCE)
    expect(evidence).toMatchObject({ rounds: plain.length, budget: 3, measured, decided })
    expect(evidence.p_value).toBeCloseTo(p, 12)
  })

  it('counts the first execution of each plain run and every copy of the control, and says what it found', () => {
    const evidence = decideFromPlain(measured, { plain: runs('.x', '.', '.'), control: runs('xxxxx', 'xxxxx') }, 3, CONFIDENCE)
    expect(evidence).toMatchObject({ plain: { trials: 3, failures: 0 }, control: { trials: 10, failures: 10 }, decided: 'non-idempotent' })
    expect(evidence.note).toContain('3 of 3 plain runs of its file passed it, against 0 of 10 measured copies; p = 0.00350; 10 of 10 copies failed in a control run of its file with repetitions')
    expect(decideFromPlain(measured, { plain: [], control: [] }, 3, CONFIDENCE).note).toBe('No plain run of its file executed it (0 of 3 runs gathered): it stays broken as measured.')
    expect(decideFromPlain(measured, { plain: runs('.', '.', '.'), control: runs('..........') }, 3, CONFIDENCE).note).toContain('something else in the measured run failed it (coverage, the other files, the load), not the repetitions')
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
  ].map((t) => outcomeOf(t, t.fast.trials, confidence))

  it('asks for a broken test repeated in its processes, and nothing else', () => {
    // 'one copy' failed its only execution: broken, but one copy is no repetition to blame.
    expect(outcomes.map((o) => o.verdict)).toEqual(['broken', 'flaky', 'stable', 'broken', 'broken'])
    expect(brokenSuspectsOf(outcomes, 10).map((o) => o.tally.name)).toEqual(['broken'])
  })

  it('asks for none when each test ran once per process: those runs were plain already', () => {
    expect(brokenSuspectsOf(outcomes, 1)).toEqual([])
  })
})

describe('false alarms of plain-run evidence, by seeded simulation', () => {
  // The null hypothesis: every execution, measured, control or plain, fails independently with
  // probability q. A false alarm is a test called non-idempotent: all n copies failed, all R plain
  // runs passed and all n control copies failed, with probability q^n (1 − q)^R q^n. Its rate must
  // stay below 1 − confidence for every q; given that the n copies failed, it is (1 − q)^R q^n.
  it.each([
    [0.5, 5],
    [0.7, 5],
    [0.8, 10],
    [0.9, 10],
    [0.9, 20],
    [0.7, 3],
    [0.6, 2],
  ])('failure probability %f, %i copies', (q, n) => {
    const random = seeded(Math.round(q * 1000) * 100 + n)
    const budget = plainRoundsBudget(n, ALPHA)
    const draw = (executions: number): string => Array.from({ length: executions }, () => (random() < q ? 'x' : '.')).join('')
    const trials = 20_000
    let alarms = 0
    for (let t = 0; t < trials; t++) {
      if (draw(n).includes('.')) continue
      const plain = runs(...Array.from({ length: budget }, () => draw(1)))
      if (decideFromPlain({ trials: n, failures: n }, { plain, control: runs(draw(n)) }, budget, CONFIDENCE).decided === 'non-idempotent') alarms++
    }
    const exact = q ** (2 * n) * (1 - q) ** budget
    expect(exact).toBeLessThan(0.05)
    // Within 4 standard errors of the exact rate: the simulation agrees with the arithmetic.
    expect(Math.abs(alarms / trials - exact)).toBeLessThan(4 * Math.sqrt((exact * (1 - exact)) / trials) + 1e-9)
    // Given every copy failed: at most (1 − q)^3 · q^n, 0.1% or less at q = 0.9.
    expect((1 - q) ** budget * q ** n).toBeLessThan(0.05)
  })

  it('never calls a test that fails every execution anything but broken, and always finds one the repetitions break', () => {
    for (const n of [2, 3, 5, 10, 20]) {
      const budget = plainRoundsBudget(n, ALPHA)
      const copies = { trials: n, failures: n }
      const control = runs('x'.repeat(n))
      expect(decideFromPlain(copies, { plain: runs(...Array.from({ length: budget }, () => 'x')), control }, budget, CONFIDENCE).decided).toBe('broken')
      expect(decideFromPlain(copies, { plain: runs(...Array.from({ length: budget }, () => '.')), control }, budget, CONFIDENCE).decided).toBe('non-idempotent')
    }
  })
})
