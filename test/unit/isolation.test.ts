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

  it('drops an Increase that is positive by luck', () => {
    // 2 of 4 failures and 3 of 16 successes print `warn`: Failure = 2/5 = 0.4, Context = 0.2,
    // Increase 0.2, but P(X ≥ 2 | 20, 4, 5) = (C(4,2)·C(16,3) + C(4,3)·C(16,2) + C(4,4)·C(16,1)) / C(20,5)
    // = (3360 + 480 + 16)/15504 = 0.249 before any correction.
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
    // P F F F F F then 15 passes: previous_outcome is unknown for the first trial. "= failed" holds in
    // trials 2–6: 4 failures and 1 pass. Observed in 20 of 21 (5 failures): Failure 4/5, Context
    // 5/20 → Increase 0.55 (0.562 had the unobserved trial counted). p = P(X ≥ 4 | 20, 5, 5) =
    // (C(5,4)·C(15,1) + 1) / C(20,5) = 76/15504, times the 2 values seen in failures (failed, passed).
    const outcomes = [false, true, true, true, true, true, ...Array.from({ length: 15 }, () => false)]
    const ordered: TrialFacts[] = outcomes.map((failed, i) => ({
      failed,
      categorical: { previous_outcome: i === 0 ? undefined : outcomes[i - 1] ? 'failed' : 'passed' },
      numeric: {},
      words: new Set<string>(),
    }))
    const [top, ...rest] = rankPredicates(ordered)
    expect(rest).toEqual([])
    expect(top).toMatchObject({ predicate: 'previous_outcome = failed', true_in_failures: 4, true_in_successes: 1, observed_in: 20 })
    expect(top?.increase).toBeCloseTo(0.55, 12)
    expect(top?.p_value).toBeCloseTo((2 * 76) / 15504, 12)
  })

  it('lists nothing for a coincidence chance explains: one failure in five, alone in its slowest execution', () => {
    // What a real suite showed (a timer test, 1 failure in 5 repetitions): `elapsed_ms > 33.27` held
    // in that one failure and no pass. Under independence the one failure is the slowest with chance
    // 1/5, before counting the thresholds looked at; the old normal-approximation bound listed it.
    const slowest = [12.1, 30.2, 33.27, 40.5, 16.0].map((ms, i) => trial(i === 3, '1', ms, []))
    expect(rankPredicates(slowest)).toEqual([])
  })

  it('cites the corrected p: 1/C(20, 4) times the 39 predicates examined', () => {
    // 19 thresholds of elapsed_ms (20 distinct values) on either side: 38; the one set of trials the
    // exit code and both words pick out: 1. 39/4845 = 0.00805.
    const [top] = rankPredicates(trials)
    expect(top?.p_value).toBeCloseTo(39 / 4845, 12)
  })

  it.each([
    // One failure alone in the one value seen in it: p = 1/n, one predicate examined. At n = 20 it is
    // exactly 1 − confidence, which is not below it; at 21 it is.
    { n: 20, listed: false },
    { n: 21, listed: true },
  ])('decides exactly at the bound: one failure in $n, p = 1/$n → listed $listed', ({ n, listed }) => {
    const lone = Array.from({ length: n }, (_, i): TrialFacts => ({ failed: i === 0, categorical: { worker: i === 0 ? 'w2' : 'w1' }, numeric: {}, words: new Set<string>() }))
    expect(rankPredicates(lone).map((p) => p.predicate)).toEqual(listed ? ['worker = w2'] : [])
  })

  it('lists at a looser confidence what the default leaves out', () => {
    const lone = Array.from({ length: 15 }, (_, i): TrialFacts => ({ failed: i === 0, categorical: { worker: i === 0 ? 'w2' : 'w1' }, numeric: {}, words: new Set<string>() }))
    // p = 1/15 = 0.067: not below 0.05, below 0.10.
    expect(rankPredicates(lone)).toEqual([])
    const [loose] = rankPredicates(lone, 12, { num: 1n, den: 10n })
    expect(loose?.p_value).toBeCloseTo(1 / 15, 12)
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
