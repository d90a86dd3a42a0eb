import { describe, expect, it } from 'vitest'
import { type TrialFacts, rankPredicates } from '../../src/core/isolation.js'

function trial(failed: boolean, exitCode: string, elapsedMs: number, words: string[]): TrialFacts {
  return { failed, categorical: { exit_code: exitCode }, numeric: { elapsed_ms: elapsedMs }, words: new Set(words) }
}

describe('rankPredicates', () => {
  // 1 failure in every 5 trials (the lab's pattern), 20 trials: NumF = 4, Context = 4/20 = 0.2.
  const trials = Array.from({ length: 20 }, (_, i) => {
    const failed = (i + 1) % 5 === 0
    return failed ? trial(true, '3', 10 + i, ['STALE', 'read']) : trial(false, '0', 40 + i, ['ok'])
  })

  it('scores a predicate true in every failure and no success as Increase 0.8, Importance 0.889', () => {
    // Failure = 4/4 = 1, Context = 0.2, Increase = 0.8; log 4 / log 4 = 1; 2 / (1/0.8 + 1/1) = 0.8889.
    const [top] = rankPredicates(trials)
    expect(top).toMatchObject({ true_in_failures: 4, true_in_successes: 0, failure: 1, context: 0.2 })
    expect(top?.increase).toBeCloseTo(0.8, 12)
    expect(top?.importance).toBeCloseTo(0.888889, 6)
  })

  it('merges predicates true in exactly the same trials into one row, capital words first', () => {
    // exit code, the best elapsed threshold and both words all hold in exactly the 4 failures.
    const names = rankPredicates(trials).map((p) => p.predicate)
    expect(names).toEqual(['exit_code = 3 ≡ elapsed_ms <= 29 ≡ output contains STALE ≡ output contains read'])
  })

  it('drops an Increase that is positive by luck (95% lower bound <= 0)', () => {
    // 2 of 4 failures and 3 of 16 successes print `warn`: Failure = 2/5 = 0.4, Context = 0.2,
    // Increase 0.2 but se = √(0.4·0.6/5 + 0.2·0.8/20) = 0.237, so 0.2 - 1.96·0.237 < 0.
    const noisy = trials.map((t, i) => ({ ...t, words: new Set([...t.words, ...([4, 9, 0, 1, 2].includes(i) ? ['warn'] : [])]) }))
    expect(rankPredicates(noisy).map((p) => p.predicate).join()).not.toContain('warn')
  })

  it('ignores predicates that are no likelier in failures (Increase <= 0)', () => {
    const same = [trial(true, '1', 5, ['x']), trial(false, '1', 5, ['x'])]
    expect(rankPredicates(same)).toEqual([])
  })

  it('returns nothing when nothing failed', () => {
    expect(rankPredicates([trial(false, '0', 1, [])])).toEqual([])
  })

  it('does not count trials where a fact was not observed', () => {
    // previous_outcome is unknown for the first trial; of the other three, only the failing one
    // follows a failure: Failure = 1/1, Context = 1/3 → Increase 0.667.
    const previous = [undefined, 'passed', 'passed', 'failed']
    const ordered: TrialFacts[] = previous.map((previousOutcome, i) => ({
      failed: i === 3,
      categorical: { previous_outcome: previousOutcome },
      numeric: {},
      words: new Set<string>(),
    }))
    const [top] = rankPredicates(ordered)
    expect(top?.predicate).toBe('previous_outcome = failed')
    expect(top?.increase).toBeCloseTo(2 / 3, 12)
  })

  // A numeric fact's thresholds are its distinct observed values but the largest; trials sharing a
  // value fall on one side together. 15 failures of 40 observed trials: Context = 15/40 = 0.375.
  const elapsed = (runs: [failed: boolean, ms: number | undefined, count: number][]): TrialFacts[] =>
    runs.flatMap(([failed, ms, count]) => Array.from({ length: count }, () => ({ failed, categorical: {}, numeric: ms === undefined ? {} : { elapsed_ms: ms }, words: new Set<string>() })))
  it.each([
    {
      // t = 10: 10 failures + 5 passes (the tie at 10 counted together): Failure 2/3, Increase 0.292,
      // log 10 / log 15 = 0.850, Importance 0.434; t = 20: 15 + 5: Failure 0.75, Increase 0.375,
      // coverage 1, Importance 2 / (1/0.375 + 1) = 6/11. No `>` side beats 0. 30, the largest, is no threshold.
      case: '`<= t` at the second distinct value, past a tie of failures and passes',
      trials: elapsed([[true, 10, 10], [true, 20, 5], [false, 10, 5], [false, 30, 20]]),
      expected: { predicate: 'elapsed_ms <= 20', true_in_failures: 15, true_in_successes: 5, observed_in: 40 },
    },
    {
      // Mirrored, with 3 trials that did not record the fact (not observed: outside the counts):
      // `> 10`: 15 failures + 5 passes, Importance 6/11; `> 30`: 10 + 5, Importance 0.434.
      case: '`> t` at the smallest value, unobserved trials left out',
      trials: elapsed([[true, 40, 10], [true, 30, 5], [false, 40, 5], [false, 10, 20], [false, undefined, 3]]),
      expected: { predicate: 'elapsed_ms > 10', true_in_failures: 15, true_in_successes: 5, observed_in: 40 },
    },
  ])('chooses numeric thresholds: $case', ({ trials: given, expected }) => {
    const ranked = rankPredicates(given)
    expect(ranked).toHaveLength(1)
    expect(ranked[0]).toMatchObject({ ...expected, failure: 0.75, context: 0.375, increase: 0.375 })
    expect(ranked[0]?.importance).toBeCloseTo(6 / 11, 12)
  })
})
