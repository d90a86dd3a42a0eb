import { describe, expect, it } from 'vitest'
import { fractionFromCounts, fractionFromDecimal, type Fraction } from '../../src/core/fraction.js'
import { computeQuarantineAfter, computeRetryBudget, computeRunsNeeded } from '../../src/core/planning.js'

const dec = (text: string): Fraction => fractionFromDecimal(text) as Fraction

describe('computeRunsNeeded: smallest n with (1-p)^n <= 1-c', () => {
  // Reference: hand powers. 0.8^2 = 0.64 exactly (float: 0.6400000000000001, so floats say 3);
  // 0.8^10 = 0.1074, 0.8^11 = 0.0859; 0.8^13 = 0.0550, 0.8^14 = 0.0440; 0.8^20 = 0.0115, 0.8^21 = 0.0092.
  it.each([
    ['0.2', '0.36', 2],
    ['0.2', '0.9', 11],
    ['0.2', '0.95', 14],
    ['0.2', '0.99', 21],
    ['0.5', '0.75', 2], // 0.5^2 = 0.25 exactly
    ['0.1', '0.19', 2], // 0.9^2 = 0.81 exactly
    ['0.99', '0.9', 1], // 0.01 <= 0.1 at once
    ['0.001', '0.95', 2995], // ceil(ln 0.05 / ln 0.999) = ceil(2994.23)
  ])('p = %s, c = %s → %i', (p, c, runs) => {
    expect(computeRunsNeeded(dec(p), dec(c))).toEqual({ kind: 'planned', value: runs })
  })

  it('decides from exact counts: 40 of 200 is p = 0.2', () => {
    expect(computeRunsNeeded(fractionFromCounts(40, 200), dec('0.95'))).toEqual({ kind: 'planned', value: 14 })
  })

  it('refuses p = 0 and p = 1 with a reason', () => {
    expect(computeRunsNeeded(dec('0'), dec('0.95'))).toEqual({ kind: 'no-failures' })
    expect(computeRunsNeeded(dec('1'), dec('0.95'))).toEqual({ kind: 'always-fails' })
  })

  it('stays fast for a rare failure (p = 1e-6 → 2995731)', () => {
    // ln(0.05) / ln(1 - 1e-6) = 2995730.77, far from an integer, so no BigInt power is taken.
    expect(computeRunsNeeded(dec('0.000001'), dec('0.95'))).toEqual({ kind: 'planned', value: 2995731 })
  })
})

describe('computeRetryBudget: smallest r with p^(r+1) <= 0.01', () => {
  // Reference: 0.1^2 = 0.01 exactly (float 0.010000000000000002, so floats say 2);
  // 0.2^3 = 0.008; 0.5^7 = 0.0078 while 0.5^6 = 0.0156.
  it.each([
    ['0.1', 1],
    ['0.2', 2],
    ['0.5', 6],
    ['0.01', 0],
    ['0.011', 1],
    ['0', 0],
  ])('p = %s → %i', (p, budget) => {
    expect(computeRetryBudget(dec(p))).toEqual({ kind: 'planned', value: budget })
  })

  it('says no budget helps at p = 1', () => {
    expect(computeRetryBudget(dec('1'))).toEqual({ kind: 'always-fails' })
  })
})

describe('computeQuarantineAfter: smallest k >= 1 with (p^(r+1))^k <= 1-c', () => {
  // Reference: 0.2^3 = 0.008 <= 0.05 → 1; 0.01^2 = 0.0001 exactly at c = 0.9999 → 2 (floats: 3);
  // 0.5^7 = 0.0078125, squared 6.1e-5 > 1e-5, cubed 4.8e-7 → 3.
  it.each([
    ['0.2', 2, '0.95', 1],
    ['0.1', 1, '0.9999', 2],
    ['0.5', 6, '0.99999', 3],
    ['0', 0, '0.95', 1],
  ])('p = %s, r = %i, c = %s → %i', (p, r, c, k) => {
    expect(computeQuarantineAfter(dec(p), r, dec(c))).toBe(k)
  })
})
