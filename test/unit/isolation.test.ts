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
})
