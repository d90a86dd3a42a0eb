import { describe, expect, it } from 'vitest'
import type { ReportedTest } from '../../src/pipeline/test-evidence.js'
import { type RoundResult, tallyRounds } from '../../src/pipeline/test-rounds.js'

const CONFIDENCE = { num: 19n, den: 20n }

/** One round of one test from its fast repetitions written as P/F, e.g. 'PFF'. */
function round(round: number, outcomes: string, cut = false): RoundResult {
  const test: ReportedTest = {
    project: '',
    file: 'tests/a.test.ts',
    name: 'a',
    evidence: {
      id: 'tests/a.test.ts > a',
      path: ['a'],
      order: 1,
      previousTest: null,
      worker: '1',
      seed: null,
      repetitions: [...outcomes].map((o) => ({ ok: o === 'P', elapsedMs: 1, mode: 'fast' as const, gapMs: 0, ...(o === 'F' ? { error: 'boom' } : {}) })),
      ...(cut ? { cut: true as const } : {}),
    },
  }
  return { round, condition: 'base', test }
}

const rounds = (...patterns: string[]): RoundResult[] => patterns.map((p, i) => round(i + 1, p))

describe('tallyRounds: a test over whole-run rounds', () => {
  // Expected counts are the P/F strings counted by hand; `fresh` is the first letter of each round.
  // `significant`: the chance, given each round's counts, that every round is a single switch the
  // same way is 2 / Π C(n, k) (either direction): PFF ×4 2/3⁴ = 0.0247; PF ×3 2/2³ = 0.25 (a shape
  // for fresh-state evidence to decide); PFF, PPFF, PPPF 2/(3·6·4) = 0.0278; PFF, PPF 2/(3·3) = 0.222.
  it.each([
    { case: 'self-polluting, 3 repetitions: PFF in every round', given: rounds('PFF', 'PFF', 'PFF', 'PFF'), fast: [12, 8], fresh: [4, 0, []], pattern: 'one-switch', at: 2, significant: true },
    { case: 'self-polluting, 2 repetitions: PF in every round (too short alone, a shape across rounds)', given: rounds('PF', 'PF', 'PF'), fast: [6, 3], fresh: [3, 0, []], pattern: 'one-switch', at: 2, significant: false },
    { case: 'fails by round: FF in rounds 3 and 6', given: rounds('PP', 'PP', 'FF', 'PP', 'PP', 'FF'), fast: [12, 4], fresh: [6, 2, [3, 6]], pattern: 'independent', at: null },
    { case: 'switches at different repetitions, the same way (state that builds up): the earliest switch', given: rounds('PFF', 'PPFF', 'PPPF'), fast: [11, 5], fresh: [3, 0, []], pattern: 'one-switch', at: 2, significant: true },
    { case: 'switches in different directions: no common pattern', given: rounds('PFF', 'FPP', 'PFF'), fast: [9, 5], fresh: [3, 1, [2]], pattern: 'independent', at: null },
    { case: 'one switch each by chance, 3 repetitions in 2 rounds: the shape, too likely to decide', given: rounds('PFF', 'PPF'), fast: [6, 3], fresh: [2, 0, []], pattern: 'one-switch', at: 2, significant: false },
    { case: 'a round without a switch: no common pattern', given: rounds('PFF', 'PPP', 'PFF'), fast: [9, 4], fresh: [3, 0, []], pattern: 'independent', at: null },
    { case: 'one round: judged as a plain repetition run (PF is too short)', given: rounds('PF'), fast: [2, 1], fresh: [1, 0, []], pattern: 'independent', at: null },
    { case: 'one repetition per round: no repetition pattern exists', given: rounds('P', 'F', 'P', 'F'), fast: [4, 2], fresh: [4, 2, [2, 4]], pattern: 'independent', at: null },
    // Joined end to end these are FFFFFFPPPPPP, a single switch with chance 2/C(12, 6) = 1/462: once
    // called non-idempotent. It is the rounds that differ (a shuffled round's order, its condition),
    // and inside each the test did the same every time: clustered (runs test: 2 runs against 7
    // expected, two-sided p = 2 · 2/C(12, 6) = 0.00433), a clue beside flaky. Seen on dom-testing-library.
    { case: 'fails in whole rounds, the first two: no switch across rounds, clustered', given: rounds('FFF', 'FFF', 'PPP', 'PPP'), fast: [12, 6], fresh: [4, 2, [1, 2]], pattern: 'clustered', at: null, significant: false },
    // PPFFFFFFF joined: a single switch (2/C(9, 2) = 0.056, suggestive), but rounds 2 and 3 start
    // failing, which a switch of state in round 1's process cannot make.
    { case: 'a switch in one round, the others all failing: no common pattern', given: rounds('PPF', 'FFF', 'FFF'), fast: [9, 7], fresh: [3, 2, [2, 3]], pattern: 'independent', at: null, significant: false },
  ])('$case', ({ given, fast, fresh, pattern, at, significant }) => {
    const tally = tallyRounds(given, CONFIDENCE)
    expect([tally.fast.trials, tally.fast.failures]).toEqual(fast)
    expect([tally.fresh?.trials, tally.fresh?.failures, tally.fresh?.failureTrials]).toEqual(fresh)
    expect(tally.independence.pattern).toBe(pattern)
    expect(tally.independence.switch_at).toBe(at)
    if (significant !== undefined) expect(tally.independence.switch_significant).toBe(significant)
  })

  it('a round cut short by a dead worker leaves the test cut (partial), its other rounds counted', () => {
    const tally = tallyRounds([round(1, 'PP'), round(2, 'F', true), round(3, 'PP')], CONFIDENCE)
    expect(tally.cut).toBe(true)
    expect([tally.fast.trials, tally.fast.failures, tally.fresh?.failureTrials]).toEqual([5, 1, [2]])
  })
})
