import { describe, expect, it } from 'vitest'
import { atMost, fractionFromDecimal, fractionFromNumber, lnBig } from '../../src/core/fraction.js'

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

describe('atMost', () => {
  it('decides 0.8² <= 0.64 exactly, where floats say no', () => {
    expect(0.8 ** 2 <= 0.64).toBe(false)
    expect(atMost({ num: 64n, den: 100n }, { num: 16n, den: 25n })).toBe(true)
  })
})

describe('lnBig', () => {
  it('handles values beyond a double', () => {
    expect(lnBig(10n ** 400n)).toBeCloseTo(400 * Math.LN10, 9)
  })
})
