import { describe, expect, it } from 'vitest'
import { type AttributionCall, callFailure, jeffreysPredictive, runsToTell } from '../../src/core/attribution.js'
import { fractionFromDecimal, fractionFromNumber } from '../../src/core/fraction.js'
import { seeded } from '../seeded.js'

const alpha = (confidence: string) => {
  const c = fractionFromDecimal(confidence)
  if (!c) throw new Error(confidence)
  return { num: c.den - c.num, den: c.den }
}
const past = (failures: number, runs: number, signatures: Record<string, number> = {}) => ({ runs, failures, signatures: new Map(Object.entries(signatures)) })

describe('Jeffreys predictive and the runs that tell', () => {
  it.each([
    // (k + 0.5) / (n + 1), by hand.
    [0, 30, 0.5 / 31],
    [6, 30, 6.5 / 31],
    [0, 0, 0.5],
    [1, 100, 1.5 / 101],
  ])('%i failures in %i runs: %f', (k, n, expected) => {
    expect(jeffreysPredictive(k, n)).toBeCloseTo(expected, 12)
  })

  it.each([
    // Smallest n with 0.5/(n + 1) < 1 - c: at 95%, 0.5/11 = 4.5% < 5% and 0.5/10 = 5% is not below.
    ['0.95', 10],
    // 99%: 0.5/51 = 0.98% < 1%, 0.5/50 = 1% is not.
    ['0.99', 50],
    // 90%: 0.5/6 = 8.3% < 10%, 0.5/5 = 10% is not.
    ['0.9', 5],
    // 80%: 0.5/3 = 16.7% < 20%, 0.5/2 = 25%.
    ['0.8', 2],
  ])('at confidence %s: %i runs', (c, n) => {
    expect(runsToTell(alpha(c))).toBe(n)
  })
})

describe('callFailure', () => {
  const STALE = 'Error: STALE price cache on call <n> @ src/price.ts (fetchPrice)'
  const OTHER = 'TypeError: Cannot read properties of undefined (reading <str>) @ src/price.ts (convertCurrency)'
  it.each<[string, ReturnType<typeof past>, string | null, AttributionCall, boolean | null]>([
    ['known flake, same signature', past(6, 30, { [STALE]: 6 }), STALE, 'known-flake', true],
    ['known flake, another signature', past(6, 30, { [STALE]: 6 }), OTHER, 'new-signature', false],
    // 0.5/31 = 1.6% < 5%.
    ['never failed in 30 runs', past(0, 30), STALE, 'new-failure', null],
    // 0.5/10 = 5%, not below: 9 runs cannot tell.
    ['never failed in 9 runs', past(0, 9), STALE, 'no-history', null],
    ['never seen', past(0, 0), STALE, 'no-history', null],
    // 1.5/101 = 1.49% < 5%: once in 100 runs, a failure now is still unlikely under the old rate.
    ['failed once in 100 runs', past(1, 100, { [STALE]: 1 }), STALE, 'new-failure', true],
    // 2.5/31 = 8.1%: a failure is plausible.
    ['failed twice in 30 runs', past(2, 30, { [STALE]: 2 }), STALE, 'known-flake', true],
    // History kept no signature: nothing says it fails a new way, so no new-signature claim.
    ['history without signatures', past(6, 30), OTHER, 'known-flake', null],
    ['this failure without a signature', past(6, 30, { [STALE]: 6 }), null, 'known-flake', null],
  ])('%s', (_, history, signature, call, seen) => {
    const result = callFailure(history, signature, alpha('0.95'))
    expect([result.call, result.signatureSeen]).toEqual([call, seen])
  })

  it('gives the Good-Turing share of failures with a signature seen once', () => {
    // 6 failures: 4 one way, 1 each of two others: 2 of 6 seen once.
    const result = callFailure(past(6, 30, { a: 4, b: 1, c: 1 }), 'a', alpha('0.95'))
    expect(result.unseenShare).toBeCloseTo(2 / 6, 12)
    expect(callFailure(past(0, 30), 'a', alpha('0.95')).unseenShare).toBeNull()
  })
})


/** P(a run fails and is called new-failure | nothing changed), summed exactly over Binomial(n, p). */
function exactFalseAlarm(p: number, n: number): number {
  let total = 0
  let weight = (1 - p) ** n
  for (let k = 0; k <= n; k++) {
    // Called new when (k + 0.5)/(n + 1) < 0.05.
    if ((k + 0.5) / (n + 1) < 0.05) total += weight * p
    weight *= ((n - k) / (k + 1)) * (p / (1 - p))
  }
  return total
}

describe('new-failure false alarms, by seeded simulation', () => {
  // A test that did not change: n past runs and one more, each failing with probability p. A false
  // alarm is that run failing and being called new-failure. Its rate must stay below 1 - c = 5%.
  it.each([
    [0.005, 30],
    [0.01, 30],
    [0.02, 30],
    [0.05, 30],
    [0.1, 30],
    [0.3, 30],
    [0.01, 100],
    [0.05, 100],
    [0.05, 10],
  ])('true rate %f, %i past runs', (p, n) => {
    const random = seeded(Math.round(p * 1e6) + n)
    const trials = 20_000
    let alarms = 0
    for (let t = 0; t < trials; t++) {
      let k = 0
      for (let i = 0; i < n; i++) if (random() < p) k++
      if (random() < p && callFailure(past(k, n), null, fractionFromNumber(0.05)).call === 'new-failure') alarms++
    }
    const exact = exactFalseAlarm(p, n)
    expect(exact).toBeLessThan(0.05)
    // Within 4 standard errors of the exact sum: the simulation agrees with the arithmetic.
    expect(Math.abs(alarms / trials - exact)).toBeLessThan(4 * Math.sqrt((exact * (1 - exact)) / trials) + 1e-9)
  })
})
