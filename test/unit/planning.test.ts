import { describe, expect, it } from 'vitest'
import { fractionFromCounts, fractionFromDecimal, type Fraction, lnFraction } from '../../src/core/fraction.js'
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
    expect(computeRunsNeeded({ rate: dec(p), confidence: dec(c) })).toEqual({ kind: 'planned', value: runs })
  })

  it('takes numbers as the decimals written: 0.2 is exactly 1/5, 0.95 exactly 19/20', () => {
    expect(computeRunsNeeded({ rate: 0.2, confidence: 0.95 })).toEqual({ kind: 'planned', value: 14 })
    // 0.8^2 = 0.64 <= 1 - 0.36 exactly: 2 runs, where the doubles 0.8 * 0.8 = 0.6400000000000001 would say 3.
    expect(computeRunsNeeded({ rate: 0.2, confidence: 0.36 })).toEqual({ kind: 'planned', value: 2 })
  })

  it.each([
    // [what is wrong, call, error]
    ['a rate above 1', () => computeRunsNeeded({ rate: 1.2, confidence: 0.95 }), RangeError],
    ['a confidence in percent', () => computeRunsNeeded({ rate: 0.2, confidence: 95 }), RangeError],
    ['a confidence of 1', () => computeRunsNeeded({ rate: 0.2, confidence: 1 }), RangeError],
    ['a fraction with a zero denominator', () => computeRunsNeeded({ rate: { num: 1n, den: 0n }, confidence: 0.95 }), TypeError],
    // @ts-expect-error two bare numbers are a type error: rate and confidence are named.
    ['two bare numbers', () => computeRunsNeeded(0.2, 0.95), TypeError],
    ['a negative retry budget', () => computeQuarantineAfter({ rate: 0.2, retryBudget: -1, confidence: 0.95 }), RangeError],
  ])('refuses %s', (_, call, error) => {
    expect(call).toThrow(error)
  })

  it('decides from exact counts: 40 of 200 is p = 0.2', () => {
    expect(computeRunsNeeded({ rate: fractionFromCounts(40, 200), confidence: dec('0.95') })).toEqual({ kind: 'planned', value: 14 })
  })

  it('refuses p = 0 and p = 1 with a reason', () => {
    expect(computeRunsNeeded({ rate: dec('0'), confidence: dec('0.95') })).toEqual({ kind: 'no-failures' })
    expect(computeRunsNeeded({ rate: dec('1'), confidence: dec('0.95') })).toEqual({ kind: 'always-fails' })
  })

  it('stays fast for a rare failure (p = 1e-6 → 2995731)', () => {
    // ln(0.05) / ln(1 - 1e-6) = 2995730.77, far from an integer, so no BigInt power is taken.
    expect(computeRunsNeeded({ rate: dec('0.000001'), confidence: dec('0.95') })).toEqual({ kind: 'planned', value: 2995731 })
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
    expect(computeRetryBudget({ rate: dec(p) })).toEqual({ kind: 'planned', value: budget })
  })

  it('says no budget helps at p = 1', () => {
    expect(computeRetryBudget({ rate: dec('1') })).toEqual({ kind: 'always-fails' })
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
    expect(computeQuarantineAfter({ rate: dec(p), retryBudget: r, confidence: dec(c) })).toBe(k)
  })
})

describe('planning on any rate: bounded time, exact where it matters', () => {
  const P = ['1e-300', '1e-200', '1e-100', '1e-50', '1e-20', '1e-16', '1e-15', '1e-12', '1e-9', '1e-6', '0.001', '0.01', '0.1', '0.2', '0.5', '0.9', '0.99', '0.999999', '0.999999999', '0.999999999999']
  const C = ['0.1', '0.5', '0.9', '0.95', '0.99', '0.999999', '0.999999999999']
  const grid = P.flatMap((p) => C.map((c) => [p, c] as const))

  // Oracle: the float formula ceil(ln(1-c) / ln(1-p)) of docs/contracts.md §2, each log taken where a
  // double keeps its digits (log1p of x below 1/2, log of the exact 1-x above). Doubles resolve the
  // quotient q to ~1e-15 relative, so the exact answer must be ceil(q) up to that: within 1e-9·q.
  it.each(grid)('runs needed, p = %s, c = %s, agrees with the float formula', (p, c) => {
    const q = lnOneMinus(c) / lnOneMinus(p)
    const planned = computeRunsNeeded({ rate: dec(p), confidence: dec(c) })
    if (q > 2 ** 53) {
      // Beyond 2^53 the answer is its size: log10 of the same quotient.
      expect(planned.kind).toBe('too-many')
      if (planned.kind === 'too-many') expect(planned.log10).toBeCloseTo(Math.log10(q), 9)
      return
    }
    expect(planned.kind).toBe('planned')
    const runs = planned.kind === 'planned' ? planned.value : Number.NaN
    expect(Math.abs(runs - Math.max(1, Math.ceil(q)))).toBeLessThanOrEqual(Math.max(1e-9 * q, q < 1 ? 0 : 1))
    if (Math.abs(q - Math.round(q)) > 1e-9 * Math.max(1, q)) expect(runs).toBe(Math.max(1, Math.ceil(q)))
  }, 2_000)

  it.each(P)('retry budget, p = %s, agrees with ceil(ln 0.01 / ln p) - 1', (p) => {
    const q = Math.log(0.01) / lnOf(p)
    expect(computeRetryBudget({ rate: dec(p) })).toEqual({ kind: 'planned', value: Math.max(1, Math.ceil(q)) - 1 })
  }, 2_000)

  it('answers p = 1e-12 exactly (mpmath: q = 2995732273552.4931…)', () => {
    // ln(0.05) / ln(1 - 1e-12) = 2995732273552.49312729844633 (mpmath 1.3.0, 80 digits).
    expect(computeRunsNeeded({ rate: dec('1e-12'), confidence: dec('0.95') })).toEqual({ kind: 'planned', value: 2995732273553 })
  }, 2_000)

  it('decides a quotient within 1e-27 of an integer, where no float can (3e12 runs)', () => {
    // (1 - 1e-12)^(3e12) = 0.04978706836778926237679062595897630900055244726… (mpmath, 100 digits).
    // A bound rounded down to 40 digits lies just below it, so 3e12 runs are not enough: q = 3e12 + 1.05e-27.
    // Rounded up, it lies just above: q = 3e12 - 9.6e-28, so 3e12 runs suffice.
    const below = dec('0.9502129316322107376232093740410236909995') // 1 - c = …0005 (rounded down)
    const above = dec('0.9502129316322107376232093740410236909994') // 1 - c = …0006 (rounded up)
    expect(computeRunsNeeded({ rate: dec('1e-12'), confidence: below })).toEqual({ kind: 'planned', value: 3_000_000_000_001 })
    expect(computeRunsNeeded({ rate: dec('1e-12'), confidence: above })).toEqual({ kind: 'planned', value: 3_000_000_000_000 })
  }, 2_000)

  it('decides an exact tie with integers: 0.5^60 = 2^-60 exactly', () => {
    // 2^-60 = 8.67361737988403547205962240695953369140625e-19 exactly; one digit less or more moves it.
    const c = (oneMinus: string): Fraction => complementOf(dec(oneMinus))
    expect(computeRunsNeeded({ rate: dec('0.5'), confidence: c('8.67361737988403547205962240695953369140625e-19') })).toEqual({ kind: 'planned', value: 60 })
    expect(computeRunsNeeded({ rate: dec('0.5'), confidence: c('8.67361737988403547205962240695953369140624e-19') })).toEqual({ kind: 'planned', value: 61 })
  })

  it('says how large an answer beyond 2^53 is instead of looping (p = 1e-300, p = 5e-324)', () => {
    // ln(0.05) / ln(1 - p) ≈ 2.995732/p: log10 = 300.476503 and 323.777533 (log10(2.995732/5) = -0.222467).
    expect(computeRunsNeeded({ rate: dec('1e-300'), confidence: dec('0.95') })).toMatchObject({ kind: 'too-many' })
    const tiny = computeRunsNeeded({ rate: dec('5e-324'), confidence: dec('0.95') })
    expect(tiny.kind === 'too-many' && tiny.log10).toBeCloseTo(323.777533, 6)
    // p^(r+1) <= 0.01 at p = 1 - 1e-16 needs r + 1 = ln(0.01)/ln(1 - 1e-16) ≈ 4.6e16 > 2^53.
    expect(computeRetryBudget({ rate: dec('0.9999999999999999') })).toMatchObject({ kind: 'too-many' })
  }, 2_000)
})

describe('lnFraction near 1', () => {
  it('keeps the digits of ln(1 - 1e-12) that ln(num) - ln(den) cancels away', () => {
    // ln(1 - 1e-12) = -1.0000000000005e-12 (series -x - x²/2); the old difference of logs gave -1.000088900582341e-12.
    expect(lnFraction(dec('0.999999999999')) / -1.0000000000005e-12).toBeCloseTo(1, 14)
  })
})

/** ln(1 - x) for a decimal x in (0, 1), as a double best gives it: log1p below 1/2, else log of 1 - x. */
function lnOneMinus(x: string): number {
  return Number(x) < 0.5 ? Math.log1p(-Number(x)) : Math.log(oneMinus(x))
}

/** ln x for a decimal x in (0, 1), the same way round. */
function lnOf(x: string): number {
  return Number(x) < 0.5 ? Math.log(Number(x)) : Math.log1p(-oneMinus(x))
}

/** 1 - x as a double, from the exact fraction (whose denominator here is at most 10^12). */
function oneMinus(x: string): number {
  const f = dec(x)
  return Number(f.den - f.num) / Number(f.den)
}

function complementOf(x: Fraction): Fraction {
  return { num: x.den - x.num, den: x.den }
}
