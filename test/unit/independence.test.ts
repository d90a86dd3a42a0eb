import { describe, expect, it } from 'vitest'
import type { Fraction } from '../../src/core/fraction.js'
import { EXACT_MAX_MINORITY, switchChance, testIndependence } from '../../src/core/independence.js'
import { normalCdf } from '../../src/core/normal.js'
import { computeVerdict, dependenceOf } from '../../src/core/verdict.js'

const ALPHA: Fraction = { num: 1n, den: 20n }

/** 'PFFP' → [4, [2, 3]]: the trial count and the failing trials, 1-based. */
function parse(sequence: string): [number, number[]] {
  const failures = [...sequence].flatMap((c, i) => (c === 'F' ? [i + 1] : []))
  return [sequence.length, failures]
}

const run = (sequence: string, alpha = ALPHA) => testIndependence(...parse(sequence), alpha)

describe('testIndependence: the exact runs distribution', () => {
  // Hand enumeration of the C(5,2) = 10 orders of 2 F and 3 P, by runs:
  //   R=2: FFPPP PPPFF (2)            R=3: PFFPP PPFFP FPPPF (3)
  //   R=4: FPFPP FPPFP PFPPF PPFPF (4)  R=5: PFPFP (1)
  // Two-sided p = min(1, 2·min(P(R<=r), P(R>=r))): R=2 → 2·2/10; R=3 → 2·min(5/10, 8/10) = 1;
  // R=4 → 2·min(9/10, 5/10) = 1; R=5 → 2·1/10.
  it.each([
    ['FFPPP', 2, 0.4],
    ['PFFPP', 3, 1],
    ['FPFPP', 4, 1],
    ['PFPFP', 5, 0.2],
  ])('%s: %i runs, p = %d', (sequence, runs, p) => {
    const result = run(sequence)
    expect(result).toMatchObject({ runs, method: 'exact' })
    // E[R] = 1 + 2·2·3/5 = 3.4
    expect(result.expected_runs).toBeCloseTo(3.4, 12)
    expect(result.p_value).toBeCloseTo(p, 12)
  })

  // Swed & Eisenhart (1943), table of critical runs for n1 = n2 = 10 at 0.05 two-sided: reject for
  // R <= 6 or R >= 16. Tail sums (Python 3, math.comb): P(R <= 6) = 0.0185217, P(R <= 7) = 0.0512568.
  it.each([
    [6, 'clustered', 0.0370434519],
    [7, 'independent', 0.1025135855],
    [15, 'independent', 0.1025135855],
    [16, 'regular', 0.0370434519],
  ])('n1 = n2 = 10 with %i runs is %s (p = %d)', (runs, pattern, p) => {
    const result = testIndependence(20, failuresWithRuns(10, 10, runs), ALPHA)
    expect(result).toMatchObject({ runs, pattern })
    expect(result.p_value).toBeCloseTo(p, 9)
  })

  it('finds the lab job regular, every 5th trial, and leaves it flaky', () => {
    // Trials 5, 10, …, 200 fail: 40 single failures, so R = 80 where E = 1 + 2·40·160/200 = 65.
    // Exact two-sided p = 2·P(R >= 80) = 1.0533434591e-4 (Python 3, math.comb, exact sum).
    const failures = Array.from({ length: 40 }, (_, i) => 5 * (i + 1))
    const result = testIndependence(200, failures, ALPHA)
    expect(result).toMatchObject({ runs: 80, expected_runs: 65, pattern: 'regular', period: 5, method: 'exact', switch_at: null })
    expect(result.p_value).toBeCloseTo(1.0533434591e-4, 12)
    expect(computeVerdict(40, 200, dependenceOf(result))).toBe('flaky')
  })
})

describe('testIndependence: one switch', () => {
  // switch_p_value: of the C(n, k) equally likely orders of k failures in n trials, the share that
  // is a single switch with a second block of two or more (failures first: n − k >= 2; passes
  // first: k >= 2). PFFFFFFFFF: 1 of C(10, 9) = 10; PPPFF: PPPFF and FFPPP, 2 of C(5, 2) = 10;
  // FPP: 1 of C(3, 1) = 3 (FPP; PPF's second block is one trial); FFFF then 12 P: 2 of C(16, 4) = 1820.
  it.each([
    // Runs test: R = 2 with 9 F and 1 P has P(R <= 2) = 2/10 (only the two ends give 2 runs), p = 0.4.
    ['PFFFFFFFFF', 2, 'failed', 0.4, 1 / 10, 'undetermined'],
    ['PPPFF', 4, 'failed', 0.4, 2 / 10, 'undetermined'],
    ['FPP', 2, 'passed', 1, 1 / 3, 'undetermined'], // 1 F, 2 P: P(R <= 2) = 2/3 (the F at an end), so p = min(1, 2·2/3) = 1
    ['FFFFPPPPPPPPPPPP', 5, 'passed', null, 2 / 1820, 'non-idempotent'],
    // One failure first of 21: 1/21 < 0.05 (1/20 would be equal to 0.05, not below).
    [`F${'P'.repeat(20)}`, 2, 'passed', null, 1 / 21, 'non-idempotent'],
    [`F${'P'.repeat(19)}`, 2, 'passed', null, 1 / 20, 'undetermined'],
  ])('%s switches at trial %i to %s (switch p = %d, %s)', (sequence, at, to, p, chance, verdict) => {
    const result = run(sequence)
    expect(result).toMatchObject({ pattern: 'one-switch', switch_at: at, switched_to: to, runs: 2, switch_significant: verdict === 'non-idempotent' })
    if (p !== null) expect(result.p_value).toBeCloseTo(p, 12)
    expect(result.switch_p_value).toBeCloseTo(chance, 15)
    const [trials, failures] = parse(sequence)
    expect(computeVerdict(failures.length, trials, dependenceOf(result))).toBe(verdict)
  })

  it.each([
    ['no evidence', undefined, 'undetermined'],
    ['fresh processes repeat it', 'non-idempotent', 'non-idempotent'],
    ['a fresh start did what the later ones did', 'flaky', 'flaky'],
    ['fresh processes too few to tell', 'undetermined', 'undetermined'],
  ] as const)('a suggestive PFFFFFFFFF with %s is %s', (_case, fresh, verdict) => {
    expect(computeVerdict(9, 10, dependenceOf(run('PFFFFFFFFF'), fresh))).toBe(verdict)
  })

  it.each([
    ['PPPPPPPPPF', 'a single failure at the end is thin evidence'],
    ['FP', 'the block after the switch has one trial'],
    ['FFFFFFFFFP', 'one pass after the failures'],
    ['PPFFP', 'two switches'],
  ])('%s is not one-switch (%s)', (sequence) => {
    expect(run(sequence).pattern).not.toBe('one-switch')
    expect(run(sequence).switch_at).toBeNull()
  })
})

describe('testIndependence: edges and the normal approximation', () => {
  it.each([
    ['PPPP', 1],
    ['FFFF', 1],
    ['', 0],
  ])('%s: no variation, nothing to test', (sequence, runs) => {
    expect(run(sequence)).toMatchObject({ runs, p_value: 1, pattern: 'independent', period: null })
  })

  it('uses the continuity-corrected normal approximation above the exact limit', () => {
    // n1 = n2 = 1500: E = 1501, sd = √(2·1500²·(2·1500² - 3000) / (3000²·2999)) = 27.38156;
    // R = 1460: z = (1460.5 - 1501) / 27.38156 = -1.479098, p = 2Φ(z) = 0.1391142518 (mpmath 1.3.0).
    expect(EXACT_MAX_MINORITY).toBeLessThan(1500)
    const result = testIndependence(3000, failuresWithRuns(1500, 1500, 1460), ALPHA)
    expect(result).toMatchObject({ runs: 1460, expected_runs: 1501, method: 'normal', pattern: 'independent' })
    expect(result.p_value).toBeCloseTo(0.1391142518, 8)
  })

  it('keeps the lab at scale regular with its period (10 000 trials, normal approximation)', () => {
    const failures = Array.from({ length: 2000 }, (_, i) => 5 * (i + 1))
    // E = 1 + 2·2000·8000/10000 = 3201, R = 4000: z ≈ 20, p far below 1e-50.
    expect(testIndependence(10_000, failures, ALPHA)).toMatchObject({ runs: 4000, expected_runs: 3201, method: 'normal', pattern: 'regular', period: 5 })
  })

  it.each([
    [[5, 10, 15], 15, 5],
    [[3, 6, 9], 10, 3],
    [[5, 10, 15], 20, null], // trial 20 would be next and passed: not every 5th
    [[6, 11, 16], 16, null], // trial 1 would be first and passed
    [[5, 10], 10, null], // two failures are too few to name a period
    [[2, 3, 4], 4, null], // gap 1 is a block, not a period
  ])('period of %j in %i trials: %s', (failures, trials, period) => {
    expect(testIndependence(trials, failures, ALPHA).period).toBe(period)
  })
})

describe('normalCdf', () => {
  // Φ(z) from mpmath 1.3.0 ncdf (30 digits); Φ(-1.96) = 0.025 is the familiar table value.
  it.each([
    [-1.96, 0.0249978951482204],
    [-3, 0.00134989803163009],
    [0, 0.5],
    [1, 0.841344746068543],
    [-8, 6.22096057427178e-16],
  ])('Φ(%d) = %d', (z, expected) => {
    expect(normalCdf(z) / expected).toBeCloseTo(1, 12)
  })
})

/** Failing trials of a sequence of n1 F and n2 P with exactly `runs` runs, starting with F. */
function failuresWithRuns(n1: number, n2: number, runs: number): number[] {
  // ceil(runs/2) failure blocks and floor(runs/2) pass blocks, alternating from F: single trials
  // but the last block of each kind, which takes the rest.
  const blocks = (n: number, count: number): number[] => Array.from({ length: count }, (_, i) => (i < count - 1 ? 1 : n - (count - 1)))
  const f = blocks(n1, Math.ceil(runs / 2))
  const p = blocks(n2, Math.floor(runs / 2))
  return parse(f.map((size, i) => 'F'.repeat(size) + 'P'.repeat(p[i] ?? 0)).join(''))[1]
}

describe('switchChance: every round a single switch the same way, given each round\'s counts', () => {
  it.each([
    // One round of 10 with 1 failure: only FPPPPPPPPP (PPPPPPPPPF's second block is one trial): 1/10.
    { case: 'FPPPPPPPPP', rounds: [{ trials: 10, failures: 1 }], chance: { num: 1n, den: 10n } },
    // PF three times: either direction, (1/2)³ each: 2/8; the blocks after the switches hold 3.
    { case: 'PF PF PF', rounds: [{ trials: 2, failures: 1 }, { trials: 2, failures: 1 }, { trials: 2, failures: 1 }], chance: { num: 2n, den: 8n } },
    // PFF, PPFF, PPPF: C(3,2)·C(4,2)·C(4,1) = 72 orders, two of them all one way.
    { case: 'PFF PPFF PPPF', rounds: [{ trials: 3, failures: 2 }, { trials: 4, failures: 2 }, { trials: 4, failures: 1 }], chance: { num: 2n, den: 72n } },
    // One PF: neither direction keeps two executions after the switch.
    { case: 'PF alone', rounds: [{ trials: 2, failures: 1 }], chance: { num: 0n, den: 2n } },
    { case: 'a round that never failed', rounds: [{ trials: 3, failures: 2 }, { trials: 3, failures: 0 }], chance: { num: 0n, den: 1n } },
  ])('$case', ({ rounds, chance }) => {
    const { num, den } = switchChance(rounds)
    expect(num * chance.den).toBe(chance.num * den)
  })
})

describe('testIndependence: a period is a clue only when chance explains it badly', () => {
  it.each([
    // 3 failures in 10 at 3, 6, 9: the orders exactly periodic for some d are 4 of C(10, 3) = 120
    // (d = 3: first 2 or 3; d = 4: first 1 or 2): 0.033 < 0.05.
    [[3, 6, 9], 10, 3, 4 / 120],
    // 3 failures in 7 at 2, 4, 6: d = 2 only from trial 2 (1, 3, 5 leaves trial 7 missing); d = 3
    // only 1, 4, 7: 2 of C(7, 3) = 35 = 0.057 ≥ 0.05, so no period is named.
    [[2, 4, 6], 7, null, 2 / 35],
  ])('failures at %j of %i: period %s (p = %d)', (failures, trials, period, p) => {
    const result = testIndependence(trials, failures, ALPHA)
    expect(result.period).toBe(period)
    expect(result.period_p_value).toBeCloseTo(p, 12)
  })
})
