import { describe, expect, it } from 'vitest'
import {
  atMost,
  bitLength,
  complement,
  fractionFromCounts,
  fractionFromDecimal,
  fractionFromNumber,
  lessThan,
  lnBig,
  lnFraction,
  quotient,
  reduce,
} from '../../src/core/fraction.js'

describe('fractionFromDecimal', () => {
  it.each([
    ['0.36', 9n, 25n],
    ['.5', 1n, 2n],
    ['1', 1n, 1n],
    ['2.5e-3', 1n, 400n],
    ['0.95', 19n, 20n],
    ['-0.25', -1n, 4n],
  ])('%s → %i/%i', (text, num, den) => {
    expect(fractionFromDecimal(text)).toEqual({ num, den })
  })

  it.each(['', '.', 'abc', '0x10', 'NaN', 'Infinity', '1/2', '1.2.3'])('rejects %j', (text) => {
    expect(fractionFromDecimal(text)).toBeUndefined()
  })
})

describe('fractionFromNumber', () => {
  it('recovers the decimal a user wrote, not the nearest double', () => {
    expect(fractionFromNumber(0.36)).toEqual({ num: 9n, den: 25n })
    expect(fractionFromNumber(1e-7)).toEqual({ num: 1n, den: 10_000_000n })
  })
})

describe('atMost and lessThan', () => {
  // Expected by cross-multiplication by hand: x ≤ y ⇔ x.num·y.den ≤ y.num·x.den.
  it.each([
    // 64/100 vs 16/25: 64·25 = 1600 = 16·100, equal — the boundary 0.8² ≤ 0.64 that floats miss.
    [64n, 100n, 16n, 25n, true, false],
    // 1/3 vs 333333/1000000: 1·1000000 = 1000000 > 333333·3 = 999999.
    [1n, 3n, 333_333n, 1_000_000n, false, false],
    // 333333/1000000 vs 1/3: 999999 < 1000000.
    [333_333n, 1_000_000n, 1n, 3n, true, true],
    // 0 vs anything positive, and 1 vs 1 written twice.
    [0n, 7n, 1n, 10n ** 40n, true, true],
    [5n, 5n, 3n, 3n, true, false],
    // Beyond 2^53: (2^60 + 1)/2^60 vs (2^60 + 2)/2^60, equal as doubles.
    [2n ** 60n + 1n, 2n ** 60n, 2n ** 60n + 2n, 2n ** 60n, true, true],
  ])('%i/%i vs %i/%i: atMost %s, lessThan %s', (xn, xd, yn, yd, atMostExpected, lessExpected) => {
    expect(atMost({ num: xn, den: xd }, { num: yn, den: yd })).toBe(atMostExpected)
    expect(lessThan({ num: xn, den: xd }, { num: yn, den: yd })).toBe(lessExpected)
  })

  it('decides 0.8² ≤ 0.64 from the numbers as a user writes them', () => {
    // 0.8 = 4/5, so 0.8² = 16/25; 0.64 = 16/25. (In doubles 0.8 ** 2 is 0.6400000000000001.)
    const p = fractionFromNumber(0.8)
    expect(p).toEqual({ num: 4n, den: 5n })
    expect(atMost({ num: p.num * p.num, den: p.den * p.den }, fractionFromNumber(0.64))).toBe(true)
    expect(lessThan({ num: p.num * p.num, den: p.den * p.den }, fractionFromNumber(0.64))).toBe(false)
  })
})

describe('complement, reduce, fractionFromCounts', () => {
  it.each([
    [{ num: 1n, den: 20n }, { num: 19n, den: 20n }],
    [{ num: 0n, den: 3n }, { num: 3n, den: 3n }],
    [{ num: 64n, den: 100n }, { num: 36n, den: 100n }],
  ])('1 − %o = %o', (x, expected) => {
    expect(complement(x)).toEqual(expected)
  })

  it.each([
    // gcd(40, 200) = 40; gcd(6, 4) = 2; gcd(7, 9) = 1 (left as it is); gcd(0, 5) = 5.
    [{ num: 40n, den: 200n }, { num: 1n, den: 5n }],
    [{ num: 6n, den: 4n }, { num: 3n, den: 2n }],
    [{ num: 7n, den: 9n }, { num: 7n, den: 9n }],
    [{ num: 0n, den: 5n }, { num: 0n, den: 1n }],
    [{ num: -6n, den: 4n }, { num: -3n, den: 2n }],
  ])('reduce(%o) = %o', (x, expected) => {
    expect(reduce(x)).toEqual(expected)
  })

  it('keeps counts as written (40 of 200 is 40/200 until reduced)', () => {
    expect(fractionFromCounts(40, 200)).toEqual({ num: 40n, den: 200n })
  })
})

describe('bitLength', () => {
  // Binary digits by hand: 1 = 1₂, 255 = 11111111₂, 256 = 1 followed by eight 0s, 2^64 has 65 digits.
  it.each([
    [0n, 0],
    [1n, 1],
    [2n, 2],
    [255n, 8],
    [256n, 9],
    [2n ** 64n - 1n, 64],
    [2n ** 64n, 65],
    [10n ** 400n, 1329], // ⌊400·log2(10)⌋ + 1 = ⌊1328.77⌋ + 1
  ])('bitLength(%s) = %i', (x, bits) => {
    expect(bitLength(x)).toBe(bits)
  })
})

describe('quotient', () => {
  it.each([
    // Within 2^53 both parts are exact doubles and one division rounds correctly: the literal is that double.
    [1n, 3n, 1 / 3],
    [-7n, 2n, -3.5],
    [0n, 5n, 0],
    // 2^70 / 2^10 = 2^60, a power of two: exact.
    [2n ** 70n, 2n ** 10n, 2 ** 60],
    // (3·2^80) / 2^81 = 1.5 exactly, from numbers far past 2^53.
    [3n * 2n ** 80n, 2n ** 81n, 1.5],
  ])('%s / %s = %f', (a, b, expected) => {
    expect(quotient(a, b)).toBe(expected)
  })

  it('divides integers beyond a double: 10^400 / (3·10^399) = 10/3', () => {
    // Within two units in the last place, as documented.
    expect(quotient(10n ** 400n, 3n * 10n ** 399n)).toBeCloseTo(10 / 3, 14)
  })
})

describe('lnBig and lnFraction', () => {
  it('handles values beyond a double', () => {
    // ln(10^400) = 400 · ln 10 = 400 · 2.302585092994046 = 921.0340371976183 (Python 3: 400 * math.log(10)).
    expect(lnBig(10n ** 400n)).toBeCloseTo(921.0340371976183, 9)
  })

  it.each([
    // ln(1/2) = −0.6931471805599453 (ln 2 = 0.6931471805599453).
    [1n, 2n, -0.6931471805599453],
    // ln(1 − 1e-12) = −1e-12 − 1e-24/2 − … = −1.0000000000005e-12 (Taylor series); a difference of
    // logs would keep three digits here.
    [10n ** 12n - 1n, 10n ** 12n, -1.0000000000005e-12],
    // ln(10^400 / 10^399) = ln 10 = 2.302585092994046.
    [10n ** 400n, 10n ** 399n, 2.302585092994046],
  ])('ln(%s/%s) = %f', (num, den, expected) => {
    const value = lnFraction({ num, den })
    expect(Math.abs(value / expected - 1)).toBeLessThan(1e-14)
  })
})
