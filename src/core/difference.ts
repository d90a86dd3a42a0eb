import { fisherExactTwoSided } from './fisher.js'
import { type Fraction, lessThan } from './fraction.js'

/** Two counts compared by Fisher's exact test (two-sided), the difference decided exactly at `alpha`. */
export interface Difference {
  pValue: number
  significant: boolean
}

export function compareCounts(a: { trials: number; failures: number }, b: { trials: number; failures: number }, alpha: Fraction): Difference {
  const fisher = fisherExactTwoSided({ failuresA: a.failures, passesA: a.trials - a.failures, failuresB: b.failures, passesB: b.trials - b.failures })
  return { pValue: fisher.pValue, significant: lessThan(fisher.exact, alpha) }
}

/** Beyond this many trials per side the search stops: a difference that small is reported as not worth chasing. */
export const MAX_TRIALS_TO_SEE = 2000

/**
 * The fewest trials per side at which these two rates, if they are the true ones, would give a
 * significant difference: the expected table (failures = rate × n, rounded) tested as observed.
 * Null when the rates are equal or it takes more than MAX_TRIALS_TO_SEE. Doubling then bisection:
 * rounding makes significance not quite monotone in n, so this is the smallest n the bisection
 * finds, a planning figure rather than a guarantee.
 */
export function trialsToSeeDifference(rateA: number, rateB: number, alpha: Fraction): number | null {
  if (rateA === rateB) return null
  const significantAt = (n: number): boolean => {
    const a = Math.round(rateA * n)
    const b = Math.round(rateB * n)
    return compareCounts({ trials: n, failures: a }, { trials: n, failures: b }, alpha).significant
  }
  let high = 1
  while (!significantAt(high)) {
    if (high >= MAX_TRIALS_TO_SEE) return null
    high = Math.min(high * 2, MAX_TRIALS_TO_SEE)
  }
  let low = Math.floor(high / 2)
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2)
    if (significantAt(mid)) high = mid
    else low = mid
  }
  return high
}
