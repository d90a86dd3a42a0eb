import { binomialCoefficient, type Fraction, lessThan, quotient } from './fraction.js'
import { normalCdf } from './normal.js'

/**
 * Are a subject's trials independent, as the Wilson interval and every plan assume? The
 * Wald–Wolfowitz runs test on the pass/fail sequence, plus the patterns a human would name.
 *
 * - `one-switch`: the shape of a state switch: the sequence switches exactly once and the block
 *   after the switch has at least two trials: passed, then failed every trial from some point on
 *   (PFFFFFFFFF: a repetition left state that breaks the next one), or failed from trial 1, then
 *   passed every later trial (FFPPPP: the first trials met a state the later ones did not). Null
 *   hypothesis: the outcomes are exchangeable (independent at one rate), so given k failures in n
 *   trials each of the C(n, k) orders is equally likely, and `switch_p_value` is the share of them
 *   with this shape (switchChance): 1/10 for FPPPPPPPPP and for PFFFFFFFFF alike. It decides the
 *   verdict (`non-idempotent`) only when `switch_significant` (below alpha); a shape chance explains
 *   well is suggestive, and needs fresh-state evidence (src/pipeline/fresh-evidence.ts).
 * - `clustered`: fewer runs than chance allows (p < alpha): failures come in bursts.
 * - `regular`: more runs than chance allows: failures alternate with passes too evenly.
 * - `independent`: none of these; also whenever fewer than two trials pass or fail, where the runs
 *   count only says whether the lone one sits at an end (the one-switch rule's business).
 *
 * `period` is set when the failures are exactly every d-th trial (d >= 2, at least three failures,
 * none missing at either end: the lab job's "every 5th call") and chance explains that badly: of the
 * C(n, k) orders, the share that is exactly periodic for some d (`period_p_value`) is below alpha.
 */
export type IndependencePattern = 'independent' | 'clustered' | 'regular' | 'one-switch'

/** What the runs test found in the order of pass/fail outcomes (rate.json `independence`). */
export interface Independence {
  /** Maximal blocks of equal outcomes: PPFFP has 3. */
  runs: number
  /** Runs expected if the order were random, for these counts: 1 + 2·n1·n2/n. */
  expected_runs: number
  /** Two-sided: 2·min(P(R <= runs), P(R >= runs)), at most 1. */
  p_value: number
  /** `exact` (Swed & Eisenhart's distribution, BigInt) or `normal` (continuity-corrected). */
  method: 'exact' | 'normal'
  pattern: IndependencePattern
  /** one-switch: the first trial of the second block. */
  switch_at: number | null
  /** one-switch: what every trial from `switch_at` on did. */
  switched_to: 'passed' | 'failed' | null
  /** Failures fell exactly every `period` trials, and chance explains that badly (`period_p_value` < alpha). */
  period: number | null
  // Optional: files written before these were computed lack them (testIndependence always sets them).
  /** one-switch: the chance of a single switch of this shape given the counts (switchChance). */
  switch_p_value?: number | null
  /** one-switch: `switch_p_value` < alpha, decided exactly: the shape alone makes the test non-idempotent. */
  switch_significant?: boolean
  /** Failures exactly every d-th trial for some d: the share of the C(n, k) orders that are (null otherwise). */
  period_p_value?: number | null
}

/**
 * Tests the order of `trials` outcomes, of which `failureTrials` (1-based, increasing) failed,
 * at significance `alpha` (1 - confidence). O(failures) for the pattern; the exact distribution
 * costs O(min(passes, failures)) BigInt steps and is used up to EXACT_MAX_MINORITY. `oneSwitch`
 * false: the trials are no one process's (rounds joined end to end), so a single switch says nothing
 * of state one trial left the next, and only the runs test and the period are read.
 */
export function testIndependence(trials: number, failureTrials: readonly number[], alpha: Fraction, { oneSwitch = true }: { oneSwitch?: boolean } = {}): Independence {
  const failures = failureTrials.length
  const passes = trials - failures
  const runs = countRuns(trials, failureTrials)
  const expected = failures === 0 || passes === 0 ? 1 : 1 + (2 * failures * passes) / trials
  const tails = failures === 0 || passes === 0 ? undefined : runsTails(failures, passes, runs, alpha)
  const switchAt = runs === 2 ? secondBlockStart(failureTrials) : null
  const secondBlock = switchAt === null ? 0 : trials - switchAt + 1
  const switched = oneSwitch && switchAt !== null && secondBlock >= 2
  let pattern: IndependencePattern = 'independent'
  if (switched) pattern = 'one-switch'
  else if (tails?.significant && failures >= 2 && passes >= 2) pattern = runs < expected ? 'clustered' : 'regular'
  const chance = switched ? switchChance([{ trials, failures }]) : undefined
  const period = findPeriod(trials, failureTrials)
  const periodChance = period === null ? undefined : { num: countPeriodic(trials, failures), den: binomialCoefficient(trials, failures) }
  return {
    runs,
    expected_runs: expected,
    p_value: tails?.pValue ?? 1,
    method: tails?.method ?? 'exact',
    pattern,
    switch_at: switched ? switchAt : null,
    switched_to: switched ? (failureTrials[0] === 1 ? 'passed' : 'failed') : null,
    period: periodChance && lessThan(periodChance, alpha) ? period : null,
    switch_p_value: chance ? quotient(chance.num, chance.den) : null,
    switch_significant: chance !== undefined && lessThan(chance, alpha),
    period_p_value: periodChance ? quotient(periodChance.num, periodChance.den) : null,
  }
}

/**
 * The chance, were every trial independent at one rate, that each round (independent processes,
 * trials and failures given) is a single switch the same way, the trials after the switch at
 * least two in all: conditional on the counts every order of a round is equally likely, so a round
 * is passes-then-failures (or failures-then-passes) with probability 1/C(n, k), and each direction
 * is possible only when its later blocks hold two trials or more. For one round of 10 with one
 * failure that is 1/10 (FPPPPPPPPP; PPPPPPPPPF has a one-trial second block); for PF PF PF,
 * 2 · (1/2)³ = 1/4. Zero when some round has no switch to make (no failure, or no pass).
 */
export function switchChance(rounds: readonly { trials: number; failures: number }[]): Fraction {
  let den = 1n
  let toFailed = 0
  let toPassed = 0
  for (const { trials, failures } of rounds) {
    if (failures === 0 || failures === trials) return { num: 0n, den: 1n }
    den *= binomialCoefficient(trials, failures)
    toFailed += failures
    toPassed += trials - failures
  }
  const directions = (toFailed >= 2 ? 1 : 0) + (toPassed >= 2 ? 1 : 0)
  return { num: BigInt(directions), den: rounds.length === 0 ? 1n : den }
}

/** Above this many of the rarer outcome the normal approximation is used (it is excellent there). */
export const EXACT_MAX_MINORITY = 1000

// --- internal ---

function countRuns(trials: number, failureTrials: readonly number[]): number {
  if (trials === 0) return 0
  const first = failureTrials[0]
  const last = failureTrials[failureTrials.length - 1]
  if (first === undefined || last === undefined) return 1
  let failureRuns = 1
  for (let i = 1; i < failureTrials.length; i++) if ((failureTrials[i] as number) - (failureTrials[i - 1] as number) > 1) failureRuns++
  // Pass runs sit between failure runs, plus one before the first and one after the last if any.
  const passRuns = failureRuns - 1 + (first > 1 ? 1 : 0) + (last < trials ? 1 : 0)
  return failureRuns + passRuns
}

/** With exactly two runs: the trial where the second block starts. */
function secondBlockStart(failureTrials: readonly number[]): number {
  const first = failureTrials[0] as number
  return first === 1 ? failureTrials.length + 1 : first
}

/**
 * Orders of `failures` among `trials` that are exactly every d-th trial for some d >= 2, none
 * missing at either end: for each d, the first failure f with f <= d, f + (k-1)d <= n < f + kd.
 */
function countPeriodic(trials: number, failures: number): bigint {
  if (failures < 3) return 0n
  let count = 0
  for (let d = 2; (failures - 1) * d < trials; d++) {
    const low = Math.max(1, trials - failures * d + 1)
    const high = Math.min(d, trials - (failures - 1) * d)
    if (high >= low) count += high - low + 1
  }
  return BigInt(count)
}

function findPeriod(trials: number, failureTrials: readonly number[]): number | null {
  const [first, second] = failureTrials
  if (failureTrials.length < 3 || first === undefined || second === undefined) return null
  const d = second - first
  if (d < 2 || first > d || (failureTrials[failureTrials.length - 1] as number) + d <= trials) return null
  return failureTrials.every((t, i) => t === first + i * d) ? d : null
}

interface Tails {
  pValue: number
  significant: boolean
  method: 'exact' | 'normal'
}

function runsTails(n1: number, n2: number, runs: number, alpha: Fraction): Tails {
  if (Math.min(n1, n2) <= EXACT_MAX_MINORITY) return exactTails(n1, n2, runs, alpha)
  // Wald & Wolfowitz (1940): mean 1 + 2·n1·n2/n, variance 2·n1·n2·(2·n1·n2 - n) / (n²·(n - 1)).
  const n = n1 + n2
  const mean = 1 + (2 * n1 * n2) / n
  const sd = Math.sqrt((2 * n1 * n2 * (2 * n1 * n2 - n)) / (n * n * (n - 1)))
  const oneSided = runs < mean ? normalCdf((runs + 0.5 - mean) / sd) : runs > mean ? normalCdf(-(runs - 0.5 - mean) / sd) : 0.5
  const pValue = Math.min(1, 2 * oneSided)
  return { pValue, significant: pValue < quotient(alpha.num, alpha.den), method: 'normal' }
}

/**
 * Swed & Eisenhart (1943): of the C(n, n1) equally likely orders, the number with R runs is
 * 2·C(n1-1, k-1)·C(n2-1, k-1) for R = 2k, and C(n1-1, k)·C(n2-1, k-1) + C(n1-1, k-1)·C(n2-1, k)
 * for R = 2k+1. Counts are BigInt, so p < alpha is decided without rounding.
 */
function exactTails(n1: number, n2: number, runs: number, alpha: Fraction): Tails {
  const a = binomialRow(n1 - 1, Math.min(n1, n2) + 1)
  const b = binomialRow(n2 - 1, Math.min(n1, n2) + 1)
  const at = (row: bigint[], k: number): bigint => (k < 0 ? 0n : (row[k] ?? 0n))
  let total = 0n
  let lower = 0n
  let upper = 0n
  for (let r = 2; r <= 2 * Math.min(n1, n2) + 1; r++) {
    const k = Math.floor(r / 2)
    const count = r % 2 === 0 ? 2n * at(a, k - 1) * at(b, k - 1) : at(a, k) * at(b, k - 1) + at(a, k - 1) * at(b, k)
    total += count
    if (r <= runs) lower += count
    if (r >= runs) upper += count
  }
  const extreme = 2n * (lower < upper ? lower : upper)
  const capped = extreme > total ? total : extreme
  return {
    pValue: quotient(capped, total),
    significant: capped * alpha.den < alpha.num * total,
    method: 'exact',
  }
}

/** C(m, 0), C(m, 1), …, C(m, count - 1) (zeros past m), each from the last by an exact ratio. */
function binomialRow(m: number, count: number): bigint[] {
  const row: bigint[] = [1n]
  for (let j = 1; j < count; j++) row.push(j > m ? 0n : ((row[j - 1] as bigint) * BigInt(m - j + 1)) / BigInt(j))
  return row
}
