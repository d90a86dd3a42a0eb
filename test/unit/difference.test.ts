import { describe, expect, it } from 'vitest'
import { compareCounts, trialsToSeeDifference } from '../../src/core/difference.js'

const ALPHA = { num: 1n, den: 20n }

describe('compareCounts: Fisher exact, two-sided, decided exactly at alpha = 0.05', () => {
  // p-values: only the observed table and the mirrored one are as extreme, so p = 2 / C(2n, n) for n/n vs 0/n.
  it.each([
    [{ trials: 4, failures: 4 }, { trials: 4, failures: 0 }, 2 / 70, true],
    [{ trials: 3, failures: 3 }, { trials: 3, failures: 0 }, 2 / 20, false],
    // 5/5 vs 0/3: one table of C(8,3) = 56 as extreme, none on the other side.
    [{ trials: 5, failures: 5 }, { trials: 3, failures: 0 }, 1 / 56, true],
    [{ trials: 4, failures: 2 }, { trials: 4, failures: 2 }, 1, false],
  ])('%j vs %j: p = %d', (a, b, p, significant) => {
    const result = compareCounts(a, b, ALPHA)
    expect(result.pValue).toBeCloseTo(p, 12)
    expect(result.significant).toBe(significant)
  })
})

describe('trialsToSeeDifference', () => {
  it.each([
    // 1 vs 0: n/n vs 0/n is significant from n = 4 (2/70 < 0.05; at 3, 2/20 is not).
    [1, 0, 4],
    // Equal rates: no number of trials shows a difference.
    [0.5, 0.5, null],
    // 2% vs 1%: a small difference takes 1325 executions per side, under the search's limit of 2000.
    [0.02, 0.01, 1325],
  ])('%d vs %d: %s', (a, b, expected) => {
    expect(trialsToSeeDifference(a, b, ALPHA)).toBe(expected)
  })

  it('a significant expected table at the returned n, and not at n - 1', () => {
    const n = trialsToSeeDifference(0.5, 0, ALPHA) as number
    const at = (k: number) => compareCounts({ trials: k, failures: Math.round(0.5 * k) }, { trials: k, failures: 0 }, ALPHA).significant
    expect([at(n - 1), at(n)]).toEqual([false, true])
  })
})
