import { describe, expect, it } from 'vitest'
import { newFisherTables, rateChangeAt } from '../../src/core/rate-change.js'
import { seeded } from '../seeded.js'

const seq = (pattern: string): boolean[] => [...pattern].map((c) => c === 'x')

describe('rateChangeAt: the exact chance of the smallest Fisher p over the boundaries', () => {
  it('with one boundary is that boundary\'s Fisher p', () => {
    // 10 passes then 10 failures: two-sided Fisher on [[0, 10], [10, 0]] = 2 / C(20, 10) = 2 / 184756.
    const change = rateChangeAt(seq('..........xxxxxxxxxx'), [10])
    expect(change?.at).toBe(10)
    expect(change?.splitPValue).toBeCloseTo(2 / 184756, 15)
    expect(change?.pValue).toBeCloseTo(2 / 184756, 15)
  })

  it('costs less than Bonferroni for several boundaries, by counting the orders', () => {
    // xx.. with boundaries 1, 2, 3. Fisher at 2: [[2,0],[0,2]] → 2/6 = 1/3; at 1 and 3 every table is
    // p = 1. Of the C(4, 2) = 6 equally likely orders, only xx.. and ..xx split at 2, so the smallest
    // p is 1/3 or less in 2 of 6: exactly 1/3 (Bonferroni would say 3 · 1/3 = 1).
    const change = rateChangeAt(seq('xx..'), [1, 2, 3])
    expect(change?.at).toBe(2)
    expect(change?.splitPValue).toBeCloseTo(1 / 3, 12)
    expect(change?.pValue).toBeCloseTo(1 / 3, 12)
  })

  it('finds no change in a steady flake across many commits', () => {
    const change = rateChangeAt(seq('.x.x.x.x.x.x.x.x.x.x'), Array.from({ length: 19 }, (_, i) => i + 1))
    expect(change?.pValue).toBeGreaterThan(0.5)
  })

  it.each([
    ['no boundary', '..xx', []],
    ['no failure', '....', [2]],
    ['no pass', 'xxxx', [2]],
  ] as const)('is undefined with %s', (_case, pattern, boundaries) => {
    expect(rateChangeAt(seq(pattern), boundaries)).toBeUndefined()
  })

  it.each([1, 2, 3])('gives the same answers with tables shared across a history as with none (seed %i)', (seed) => {
    // A history's tests: 40 runs over commits changing every 8 runs (boundaries 8, 16, 24, 32), or every run;
    // failure patterns drawn from a few rates, so tests repeat counts and smallest p-values and the shared walks are reused.
    const random = seeded(seed)
    const shared = newFisherTables()
    const every = Array.from({ length: 39 }, (_, i) => i + 1)
    let calls = 0
    for (let t = 0; t < 300; t++) {
      const rate = [0.05, 0.2, 0.5][t % 3] as number
      const length = random() < 0.5 ? 40 : 24
      const failed = Array.from({ length }, (_, i) => random() < (i >= length / 2 && t % 2 === 0 ? 2 * rate : rate))
      const boundaries = random() < 0.5 ? [8, 16, 24, 32] : every.filter((b) => b < length)
      const alone = rateChangeAt(failed, boundaries)
      if (alone !== undefined) calls++
      expect(rateChangeAt(failed, boundaries, shared)).toStrictEqual(alone)
    }
    // Walks were reused: fewer kept than made, or sharing proved nothing.
    expect(shared.rejected.size).toBeLessThan(calls)
  })
})
