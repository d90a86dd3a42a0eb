import { describe, expect, it } from 'vitest'
import type { Fraction } from '../../src/core/fraction.js'
import { groupedIndependence } from '../../src/core/grouped-independence.js'

const ALPHA: Fraction = { num: 1n, den: 20n }

/** 'PFF PPF' → [[false, true, true], [false, false, true]]: each group's executions, failed or not. */
const groups = (text: string): boolean[][] => text.split(' ').map((g) => [...g].map((c) => c === 'F'))

describe('groupedIndependence: groups of executions that are processes of their own', () => {
  it.each([
    // One group is one sequence: PPPPFFFF switches once, chance 2/C(8, 4) = 2/70 = 0.0286.
    { given: 'PPPPFFFF', pattern: 'one-switch', at: 5, p: 2 / 70 },
    // The same outcomes in four groups switch at a group's edge, which no repetition's state crosses:
    // runs test only, 2 runs against 5 expected, two-sided p = 2 · 2/70 = 0.0571: independent.
    { given: 'PP PP FF FF', pattern: 'independent', at: null, p: null },
    // PFF in each of 4 groups: 2 directions / C(3, 1)⁴ = 2/81 = 0.0247 < 0.05, decided.
    { given: 'PFF PFF PFF PFF', pattern: 'one-switch', at: 2, p: 2 / 81, significant: true },
    // PFF PPF: 2 / (3 · 3) = 0.222, the shape without the decision; switch_at is the earliest.
    { given: 'PFF PPF', pattern: 'one-switch', at: 2, p: 2 / 9, significant: false },
    // Switches in opposite directions are no common pattern.
    { given: 'PFF FPP', pattern: 'independent', at: null, p: null },
  ])('$given: $pattern', ({ given, pattern, at, p, significant }) => {
    const result = groupedIndependence(groups(given), ALPHA)
    expect(result.pattern).toBe(pattern)
    expect(result.switch_at).toBe(at)
    if (p === null) expect(result.switch_p_value).toBeNull()
    else expect(result.switch_p_value).toBeCloseTo(p, 12)
    if (significant !== undefined) expect(result.switch_significant).toBe(significant)
  })

  it('still reads the runs test across the groups: failures in whole groups are clustered', () => {
    // FFFFFFPPPPPP in four groups of three: 2 runs against 7 expected, p = 2 · 2/C(12, 6) = 0.00433.
    const result = groupedIndependence(groups('FFF FFF PPP PPP'), ALPHA)
    expect([result.pattern, result.runs]).toEqual(['clustered', 2])
    expect(result.p_value).toBeCloseTo(4 / 924, 12)
  })
})
