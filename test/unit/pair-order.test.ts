import { describe, expect, it } from 'vitest'
import { measuringModeOf, pairOrder } from '../../src/core/repetition.js'

describe('measuringModeOf with a seeded coin per gapped/fast pair', () => {
  const modes = (seed: number, id: string, repeat: number, pairs: number) =>
    Array.from({ length: repeat + 2 * pairs }, (_, i) => measuringModeOf(i, repeat, pairOrder(seed, id)))

  it('runs the first block fast, then pairs of one gapped and one fast repetition, in either order', () => {
    const seen = modes(7, 'a.test.ts > t', 5, 50)
    expect(seen.slice(0, 5)).toEqual(Array(5).fill('fast'))
    const pairs = Array.from({ length: 50 }, (_, j) => seen.slice(5 + 2 * j, 7 + 2 * j).join(','))
    expect(new Set(pairs)).toEqual(new Set(['slow,paired', 'paired,slow']))
  })

  it('replays with the same seed and id, and draws afresh with another', () => {
    expect(modes(7, 'a.test.ts > t', 0, 64)).toEqual(modes(7, 'a.test.ts > t', 0, 64))
    expect(modes(8, 'a.test.ts > t', 0, 64)).not.toEqual(modes(7, 'a.test.ts > t', 0, 64))
    expect(modes(7, 'a.test.ts > u', 0, 64)).not.toEqual(modes(7, 'a.test.ts > t', 0, 64))
  })

  it('puts the gapped repetition first about half the time (binomial, 4 sd of 20 000 pairs)', () => {
    const first = pairOrder(12345, 'a.test.ts > t')
    let gappedFirst = 0
    for (let pair = 0; pair < 20_000; pair++) if (first(pair)) gappedFirst++
    // Mean 10 000, sd √(20 000 · ¼) = 70.7: within 4 sd, 283.
    expect(Math.abs(gappedFirst - 10_000)).toBeLessThan(283)
  })

  it('splits a counter failing every 4th call between the sides, where a fixed alternation put them all on one', () => {
    // Calls 1…8000 in 4000 pairs; the 2000 failing calls (every 4th) are each the second of a pair.
    const gappedFirst = pairOrder(99, 'a.test.ts > counter')
    let slow = 0
    for (let call = 4; call <= 8000; call += 4) if (measuringModeOf(call - 1, 0, gappedFirst) === 'slow') slow++
    // Fair coins: mean 1000, sd √(2000 · ¼) = 22.4; within 4 sd, 90. The old alternation gave 0.
    expect(Math.abs(slow - 1000)).toBeLessThan(90)
  })
})
