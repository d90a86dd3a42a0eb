import { atMost, type Fraction, lnFraction, power } from './fraction.js'

/**
 * The smallest integer k >= `min` (>= 1) with base^k <= bound, for 0 <= base < 1, 0 < bound <= 1.
 *
 * Runs needed, retry budget and quarantine threshold are all this question. The float answer
 * ceil(ln(bound) / ln(base)) is right except when the quotient sits on an integer (0.8^2 = 0.64
 * exactly, where floats say 2.0000000000000004 and round up to 3); only then is the inequality
 * decided with integers, so huge exponents never need huge BigInts.
 */
export function smallestPowerAtMost(base: Fraction, bound: Fraction, min = 1): number {
  if (base.num === 0n) return min
  const estimate = lnFraction(bound) / lnFraction(base)
  const nearest = Math.round(estimate)
  // ln() is good to ~1e-15 relative; anything farther than 1e-9 from an integer rounds the right way.
  if (Math.abs(estimate - nearest) > 1e-9 * Math.max(1, Math.abs(estimate))) {
    return Math.max(min, Math.ceil(estimate))
  }
  let k = Math.max(min, nearest - 1)
  while (!atMost(power(base, k), bound)) k++
  return k
}
