import { describe, expect, it } from 'vitest'
import { testIndependence } from '../../src/core/independence.js'
import { decideFromFresh, freshRoundsBudget, MAX_FRESH_ROUNDS } from '../../src/pipeline/fresh-evidence.js'

const ALPHA = { num: 1n, den: 20n }
const CONFIDENCE = { num: 19n, den: 20n }

/** 'PFFF' → the switch it makes; '.x' strings for the fresh rounds' repetitions. */
const switchOf = (pattern: string) => testIndependence(pattern.length, [...pattern].flatMap((c, i) => (c === 'F' ? [i + 1] : [])), ALPHA)
const rounds = (...patterns: string[]) => patterns.map((p) => [...p].map((c) => ({ ok: c === '.', elapsedMs: 1, mode: 'fast' as const, gapMs: 0 })))

describe('freshRoundsBudget: the fewest fresh rounds whose exact repetition of a switch would be significant', () => {
  // R first executions all one way against R·(n − 1) later ones all the other: Fisher two-sided.
  it.each([
    // n = 10: R = 1 gives 1/C(10, 1) = 0.1; R = 2 gives 1/C(20, 2) = 1/190.
    [10, 2],
    // n = 3: R = 2 gives 1/C(6, 2) = 1/15 = 0.067; R = 3 gives 1/C(9, 3) = 1/84.
    [3, 3],
    // n = 2: R = 3 gives 2/C(6, 3) = 0.1 (the mirror table is as likely); R = 4 gives 2/C(8, 4) = 2/70.
    [2, 4],
    // n = 1: no execution after the first, nothing to compare: the cap.
    [1, MAX_FRESH_ROUNDS],
  ])('%i repetitions: %i rounds', (repeat, budget) => {
    expect(freshRoundsBudget(repeat, ALPHA)).toBe(budget)
  })
})

describe('decideFromFresh: a suggestive single switch against fresh processes', () => {
  it.each([
    // Both fresh rounds repeat PFFFFFFFFF: first 0 of 2 failed, later 18 of 18: p = 1/190.
    { case: 'fresh processes repeat the switch', measured: 'PFFFFFFFFF', fresh: ['.xxxxxxxxx', '.xxxxxxxxx'], decided: 'non-idempotent', p: 1 / 190 },
    { case: 'fresh processes repeat a first-execution failure', measured: 'FPPPPPPPPP', fresh: ['x.........', 'x.........'], decided: 'non-idempotent', p: 1 / 190 },
    // One fresh first execution failed, as the later ones do: the pass of the measured round was chance.
    // First 1 of 2 failed against 18 of 18: the one pass among 20 falls in the first two with chance 2/20.
    { case: 'a fresh start fails like the later repetitions', measured: 'PFFFFFFFFF', fresh: ['xxxxxxxxxx', '.xxxxxxxxx'], decided: 'flaky', p: 2 / 20 },
    // A chance FPPPPPPPPP: fresh first executions pass, and so does everything else: p = 1.
    { case: 'a chance first failure', measured: 'FPPPPPPPPP', fresh: ['..........', '..........'], decided: 'flaky', p: 1 },
    // One round of the budget of 2 ran and agreed: 1/10, too few to decide.
    { case: 'too few rounds ran', measured: 'PFFFFFFFFF', fresh: ['.xxxxxxxxx'], decided: 'undetermined', p: 1 / 10 },
    { case: 'no round ran', measured: 'PFFFFFFFFF', fresh: [], decided: 'undetermined', p: 1 },
  ])('$case: $decided', ({ measured, fresh, decided, p }) => {
    const evidence = decideFromFresh(switchOf(measured), rounds(...fresh), 2, CONFIDENCE)
    expect(evidence).toMatchObject({ rounds: fresh.length, budget: 2, decided })
    expect(evidence.p_value).toBeCloseTo(p, 12)
  })

  it('counts the first fast repetition of each fresh round apart from the rest, and says so', () => {
    const evidence = decideFromFresh(switchOf('PFFFFFFFFF'), rounds('.xxx', '.xx'), 2, CONFIDENCE)
    expect(evidence).toMatchObject({ fresh_first: { trials: 2, failures: 0 }, in_process: { trials: 5, failures: 5 } })
    expect(evidence.note).toContain('first execution of each fresh process 0 failed of 2, the executions after it 5 of 5')
  })
})
