import { describe, expect, it } from 'vitest'
import { fisherExactTwoSided, hypergeometricUpperTail, hypergeometricUpperTailExact } from '../../src/core/fisher.js'
import { quotient } from '../../src/core/fraction.js'

/** a/b === num/den, exactly (by cross-multiplication: the API need not reduce its fraction). */
const sameFraction = (exact: { num: bigint; den: bigint }, num: bigint, den: bigint): boolean => exact.num * den === num * exact.den

/**
 * Table (failuresA, passesA, failuresB, passesB). With the margins fixed, table x (x failures in A)
 * has weight w(x) = C(rowA, x) · C(rowB, F − x), F = failuresA + failuresB; the two-sided p is the
 * sum of the weights ≤ the observed one over the sum of all, which is C(N, F).
 */
describe('fisherExactTwoSided: small tables summed by hand', () => {
  it.each([
    // Fisher's tea-tasting table. rowA = rowB = 4, F = 4: w(0..4) = 1, 16, 36, 16, 1, total 70 = C(8,4).
    // Observed w(3) = 16; ≤ 16: 1 + 16 + 16 + 1 = 34 → 34/70 = 17/35 = 0.4857142857.
    // R: fisher.test(matrix(c(3,1,1,3), 2))$p.value = 0.4857 (the example in ?fisher.test).
    { table: [3, 1, 1, 3], num: 17n, den: 35n, p: 0.4857142857142857 },
    // Wikipedia's "Fisher's exact test" example. rowA = 10, rowB = 14, F = 12: w(x) = C(10,x)·C(14,12−x)
    // = 91, 3640, 45045, 240240, 630630, 864864, 630630, 240240, 45045, 3640, 91 (x = 0..10), total
    // C(24,12) = 2704156. Observed w(1) = 3640; ≤ 3640: 91 + 3640 + 3640 + 91 = 7462 → 7462/2704156
    // = 41/14858 = 0.002759456185 (Wikipedia: 0.002759).
    { table: [1, 9, 11, 3], num: 41n, den: 14858n, p: 0.0027594561852200836 },
    // rowA = 20, rowB = 5, F = 4: w(x) = C(20,x)·C(5,4−x) = 5, 200, 1900, 5700, 4845 (x = 0..4), total
    // C(25,4) = 12650. Observed w(4) = 4845; ≤ 4845: 5 + 200 + 1900 + 4845 = 6950 → 6950/12650 = 139/253.
    { table: [4, 16, 0, 5], num: 139n, den: 253n, p: 0.549407114624506 },
    // Observed at the mode (equal rows, equal failures): every table is at most as likely → 1.
    { table: [10, 10, 10, 10], num: 1n, den: 1n, p: 1 },
    // The mode of the hypergeometric is ⌊(F+1)(rowA+1)/(N+2)⌋ = ⌊45·201/222⌋ = ⌊40.7⌋ = 40, the observed
    // x: p = 1.
    { table: [40, 160, 4, 16], num: 1n, den: 1n, p: 1 },
    // No failures at all: one possible table → 1.
    { table: [0, 200, 0, 20], num: 1n, den: 1n, p: 1 },
  ])('$table → $num/$den', ({ table, num, den, p }) => {
    const [failuresA, passesA, failuresB, passesB] = table as [number, number, number, number]
    const result = fisherExactTwoSided({ failuresA, passesA, failuresB, passesB })
    expect(sameFraction(result.exact, num, den), `${result.exact.num}/${result.exact.den}`).toBe(true)
    expect(result.pValue).toBeCloseTo(p, 12)
  })
})

describe('fisherExactTwoSided: larger tables against scipy', () => {
  it('the lab job: 40/200 fast against 0/20 slow', () => {
    // scipy 1.17.1: scipy.stats.fisher_exact([[40, 160], [0, 20]])[1] = 0.028791531338852844.
    // Exactly (Python 3, fractions.Fraction over math.comb sums, w(x) = C(200,x)·C(20,40−x)): the
    // tables as likely as x = 40 or less are x ≤ 32 and x = 40; the p-value in lowest terms is below.
    const { pValue, exact } = fisherExactTwoSided({ failuresA: 40, passesA: 160, failuresB: 0, passesB: 20 })
    expect(sameFraction(exact, 1189714120593016653283n, 41321668743181869528693n)).toBe(true)
    expect(pValue).toBeCloseTo(0.028791531338852844, 15)
  })

  it('a long fast run against a short slow one', () => {
    // scipy 1.17.1: scipy.stats.fisher_exact([[20000, 80000], [0, 20]])[1] = 0.021496795499479866.
    // Only x = 19992..19999 (1 to 8 failures in the slow row) are more likely than the observed x =
    // 20000, so p = 1 − Σ_{k=1..8} C(100000, 20000−k)·C(20, k) / C(100020, 20000); in lowest terms
    // (Python 3, fractions.Fraction):
    const { pValue, exact } = fisherExactTwoSided({ failuresA: 20_000, passesA: 80_000, failuresB: 0, passesB: 20 })
    expect(
      sameFraction(
        exact,
        2303195374535550457482063124779560828322037586893909854588624923231n,
        107141335302337441839895936712441000254597918037335398890272114569231n,
      ),
    ).toBe(true)
    // The float is for display (the decision uses the fraction): exp(ln num − ln den) of 67-digit
    // integers, good to about 1e-11 relative here.
    expect(pValue).toBeCloseTo(0.021496795499479866, 12)
  })
})

/**
 * P(X ≥ atLeast) for X hypergeometric: `total` trials, `failures` of them failing, a predicate true in
 * `drawn`. By hand: (15, 4, 4, 3) = [C(4,3)·C(11,1) + C(4,4)·C(11,0)] / C(15,4) = (44 + 1)/1365;
 * (20, 5, 5, 4) = [C(5,4)·C(15,1) + 1] / C(20,5) = 76/15504. The larger rows are scipy's
 * `hypergeom.sf(atLeast − 1, total, failures, drawn)` (scipy 1.x).
 */
describe('hypergeometricUpperTail: the one-sided Fisher tail of a predicate', () => {
  it.each([
    { total: 15, failures: 4, drawn: 4, atLeast: 3, expected: 45 / 1365 },
    { total: 20, failures: 5, drawn: 5, atLeast: 4, expected: 76 / 15504 },
    { total: 10_000, failures: 50, drawn: 400, atLeast: 10, expected: 2.2919638714453196e-5 },
    { total: 1000, failures: 300, drawn: 40, atLeast: 20, expected: 0.005351867626523179 },
    // At or below the mode the tail is summed from the other side: near 1, never 0 by underflow.
    { total: 20, failures: 10, drawn: 10, atLeast: 4, expected: 0.9105522960012125 },
    { total: 20, failures: 10, drawn: 10, atLeast: 5, expected: 0.6718591006516704 },
    // P(X = 0) = 1/C(2000, 1000) ≈ 1e-600: below a double's range, so the tail must come from the lower side.
    { total: 2000, failures: 1000, drawn: 1000, atLeast: 1, expected: 1 },
    // At or below the least possible count: certain; above the most possible: impossible.
    { total: 10, failures: 8, drawn: 5, atLeast: 3, expected: 1 },
    { total: 10, failures: 2, drawn: 5, atLeast: 3, expected: 0 },
  ])('($total, $failures, $drawn, ≥ $atLeast) = $expected', ({ total, failures, drawn, atLeast, expected }) => {
    expect(hypergeometricUpperTail(total, failures, drawn, atLeast)).toBeCloseTo(expected, 12)
    const exact = hypergeometricUpperTailExact(total, failures, drawn, atLeast)
    expect(quotient(exact.num, exact.den) / (expected || 1)).toBeCloseTo(expected === 0 ? 0 : 1, 12)
    // The double from log-gamma is within a millionth of the exact value (the margin `below` relies on).
    if (expected > 0) expect(Math.abs(hypergeometricUpperTail(total, failures, drawn, atLeast) / quotient(exact.num, exact.den) - 1)).toBeLessThan(1e-9)
  })

  it('is exact as a fraction: 45/1365 for (15, 4, 4, ≥ 3)', () => {
    expect(sameFraction(hypergeometricUpperTailExact(15, 4, 4, 3), 45n, 1365n)).toBe(true)
  })
})
