import { describe, expect, it } from 'vitest'
import { fisherExactTwoSided } from '../../src/core/fisher.js'

describe('fisherExactTwoSided', () => {
  // Reference: exact hypergeometric sums in Python 3 (math.comb, fractions); (3,1,1,3) is Fisher's
  // tea-tasting table (R: fisher.test → 0.4857); (1,9,11,3) is Wikipedia's example (0.002759).
  it.each([
    [40, 160, 0, 20, 0.02879153134],
    [3, 1, 1, 3, 0.4857142857],
    [1, 9, 11, 3, 0.002759456185],
    [4, 16, 0, 5, 0.5494071146],
    [10, 10, 10, 10, 1],
    [40, 160, 4, 16, 1],
    [0, 200, 0, 20, 1],
  ])('(%i failed, %i passed) vs (%i failed, %i passed) → p = %f', (failuresA, passesA, failuresB, passesB, p) => {
    expect(fisherExactTwoSided({ failuresA, passesA, failuresB, passesB }).pValue).toBeCloseTo(p, 9)
  })

  it('returns the exact fraction for the decision', () => {
    // Tea tasting: (1 + 16 + 16 + 1) / 70 = 34/70.
    const { exact } = fisherExactTwoSided({ failuresA: 3, passesA: 1, failuresB: 1, passesB: 3 })
    expect(Number(exact.num) / Number(exact.den)).toBe(34 / 70)
  })

  it('handles a long fast run against a short slow one', () => {
    const { pValue } = fisherExactTwoSided({ failuresA: 20_000, passesA: 80_000, failuresB: 0, passesB: 20 })
    // Reference: the same exact sum in Python 3 (math.comb) = 0.0214967955.
    expect(pValue).toBeCloseTo(0.0214967955, 9)
  })
})
