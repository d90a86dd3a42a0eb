import { describe, expect, it } from 'vitest'
import { wilsonInterval, Z_95, zForConfidence } from '../../src/core/wilson.js'

describe('wilsonInterval', () => {
  // Reference: the docs/contracts.md §2 formulas evaluated in Python 3 (math.sqrt), z = 1.96, 6 places.
  it.each([
    [40, 200, 0.150451, 0.260856],
    [0, 200, 0, 0.018846],
    [200, 200, 0.981154, 1],
    [0, 20, 0, 0.16113],
    [4, 20, 0.080656, 0.416022],
    [1, 10, 0.017876, 0.404156],
    [3, 20, 0.052368, 0.360423],
  ])('%i failures of %i → [%f, %f]', (failures, trials, low, high) => {
    const interval = wilsonInterval(failures, trials)
    expect(interval.low).toBeCloseTo(low, 6)
    expect(interval.high).toBeCloseTo(high, 6)
  })

  it('never gives a zero-width interval for zero failures', () => {
    for (const trials of [1, 10, 200, 100_000]) expect(wilsonInterval(0, trials).high).toBeGreaterThan(0)
  })

  it('is exactly 0 and 1 at the ends, where floats give 1e-17 and 0.9999999999999999', () => {
    expect(wilsonInterval(0, 7).low).toBe(0)
    expect(wilsonInterval(7, 7).high).toBe(1)
  })

  it('says nothing with no trials', () => {
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 })
  })

  it('names its width: { confidence } or { z }, never a bare number that could be either', () => {
    // Python 3, the §2 formulas: 3 of 20 at z = 1.96 → [0.052368, 0.360423]; at z = 1.644854 (90%) → [0.061582, 0.321828].
    expect(wilsonInterval(3, 20, { confidence: 0.95 })).toEqual(wilsonInterval(3, 20))
    expect(wilsonInterval(3, 20, { z: 1.96 })).toEqual(wilsonInterval(3, 20))
    const ninety = wilsonInterval(3, 20, { confidence: 0.9 })
    expect(ninety.low).toBeCloseTo(0.061582, 6)
    expect(ninety.high).toBeCloseTo(0.321828, 6)
    // @ts-expect-error 0.95 alone would be read as z = 0.95 (a 66% interval): it is a type error, and throws.
    expect(() => wilsonInterval(3, 20, 0.95)).toThrow(new TypeError("wilsonInterval's third argument names its width: { confidence: 0.95 } or { z: 1.96 }, got 0.95"))
  })

  it.each([
    // [what is wrong, call]
    ['failures above trials', () => wilsonInterval(21, 20)],
    ['a fractional count', () => wilsonInterval(1.5, 20)],
    ['a confidence given in percent', () => wilsonInterval(3, 20, { confidence: 95 })],
    ['a z of 0', () => wilsonInterval(3, 20, { z: 0 })],
  ])('refuses %s with a RangeError', (_, call) => {
    expect(call).toThrow(RangeError)
  })
})

describe('zForConfidence', () => {
  // Reference: standard normal quantiles Φ⁻¹(0.95) = 1.644854, Φ⁻¹(0.995) = 2.575829 (any z table).
  it.each([
    [0.95, 1.96],
    [0.9, 1.644854],
    [0.99, 2.575829],
    [0.5, 0.67449],
  ])('confidence %f → z %f', (confidence, z) => {
    expect(zForConfidence(confidence)).toBeCloseTo(z, 5)
  })

  it('uses the published 1.96 at 95%, not 1.959964', () => {
    expect(zForConfidence(0.95)).toBe(Z_95)
  })
})
