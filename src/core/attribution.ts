import { type Fraction, fractionFromCounts, lessThan } from './fraction.js'

/**
 * Whose failure is it (docs/attribution.md): one call per failed test of a red run, from the test's
 * past runs (k failed of n) and the signatures its past failures had.
 *
 * - `new-failure` — history makes this failure unlikely. Null hypothesis: nothing changed, and the
 *   test fails as it did in its n past runs. With Jeffreys' prior Beta(½, ½) the predictive
 *   probability that the next run fails is (k + ½)/(n + 1); the call fires only when that is below
 *   1 − confidence (0 of 30 gives 1.6%). Among runs of a test that did not change, the share that
 *   fail and are called new is below 1 − confidence for any true rate (simulated in the suite).
 * - `no-history` — it never failed, but in too few runs to make a failure unlikely: the runs needed
 *   are the smallest n with ½/(n + 1) < 1 − confidence (10 at 95%).
 * - `known-flake` — it fails in history, and this failure's signature was one of those seen.
 * - `new-signature` — it fails in history, but never this way.
 */
export type AttributionCall = 'known-flake' | 'new-signature' | 'new-failure' | 'no-history'

/** A test's past runs: how many, how many failed, and how often each signature was seen. */
export interface PastRuns {
  runs: number
  failures: number
  /** Signature → failed runs that showed it (a run counts its first failed attempt's signature). */
  signatures: ReadonlyMap<string, number>
}

export interface FailureCall {
  call: AttributionCall
  /** Jeffreys' predictive probability of a failure given the past: (k + ½)/(n + 1). */
  predictive: number
  /**
   * Whether this failure's signature is among those seen; null when there is nothing to compare
   * (this failure has no signature, or history kept none): the call is then `known-flake`, never a
   * claim of a new way of failing that nothing shows.
   */
  signatureSeen: boolean | null
  /**
   * Good–Turing's estimate of the chance that a failure of this test shows a signature not seen
   * before: the share of past failures whose signature was seen once. Null without past signatures.
   */
  unseenShare: number | null
}

/** (k + ½)/(n + 1): the chance the next run fails, given k failures in n runs (Jeffreys' prior). */
export function jeffreysPredictive(failures: number, runs: number): number {
  return (failures + 0.5) / (runs + 1)
}

/**
 * The fewest past runs, all passed, after which a failure is called new: the smallest n with
 * ½/(n + 1) < α, decided exactly (α = p/q: 2p(n + 1) > q, so n = ⌊q / 2p⌋). 10 at α = 1/20.
 */
export function runsToTell(alpha: Fraction): number {
  return Number(alpha.den / (2n * alpha.num))
}

/** The call for one failure with `signature` (null when its runner gave none) against its past runs. */
export function callFailure(past: PastRuns, signature: string | null, alpha: Fraction): FailureCall {
  const predictive = jeffreysPredictive(past.failures, past.runs)
  const seen = [...past.signatures.values()]
  const total = seen.reduce((sum, n) => sum + n, 0)
  const signatureSeen = total === 0 || signature === null ? null : (past.signatures.get(signature) ?? 0) > 0
  const unseenShare = total === 0 ? null : seen.filter((n) => n === 1).length / total
  // (2k + 1) / (2(n + 1)) < α, exactly.
  const unlikely = lessThan(fractionFromCounts(2 * past.failures + 1, 2 * (past.runs + 1)), alpha)
  const call: AttributionCall = unlikely ? 'new-failure' : past.failures === 0 ? 'no-history' : signatureSeen === false ? 'new-signature' : 'known-flake'
  return { call, predictive, signatureSeen, unseenShare }
}
