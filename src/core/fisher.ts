import { binomialCoefficient, type Fraction, lnBig } from './fraction.js'
import { logGamma } from './log-gamma.js'

/** A 2×2 table of counts: two measurements (rows), failures and passes (columns). */
export interface TwoByTwo {
  failuresA: number
  passesA: number
  failuresB: number
  passesB: number
}

/** fisherExactTwoSided's answer: one p-value, as a float to show and as an exact fraction to decide on. */
export interface FisherResult {
  /** The two-sided p-value as a float, for display. */
  pValue: number
  /** The same p-value as an exact fraction, for deciding `p < alpha`. */
  exact: Fraction
}

/**
 * Fisher's exact test, two-sided: the probability, with both margins fixed, of a table at most as
 * likely as the one observed. Tables are weighed with exact BigInt hypergeometric counts, so the
 * "at most as likely" ties need no float tolerance (R uses 1 + 1e-7).
 */
export function fisherExactTwoSided(table: TwoByTwo): FisherResult {
  const rowA = table.failuresA + table.passesA
  const rowB = table.failuresB + table.passesB
  const failures = table.failuresA + table.failuresB
  const lo = Math.max(0, failures - rowB)
  const hi = Math.min(failures, rowA)
  // weight(x) = C(rowA, x) · C(rowB, failures - x), walked by its exact ratio to weight(x - 1).
  const weights: bigint[] = []
  let weight = binomialCoefficient(rowA, lo) * binomialCoefficient(rowB, failures - lo)
  for (let x = lo; x <= hi; x++) {
    weights.push(weight)
    const next = BigInt(rowA - x) * BigInt(failures - x)
    weight = (weight * next) / (BigInt(x + 1) * BigInt(rowB - failures + x + 1))
  }
  const observed = weights[table.failuresA - lo] ?? 0n
  let total = 0n
  let extreme = 0n
  for (const w of weights) {
    total += w
    if (w <= observed) extreme += w
  }
  const exact = { num: extreme, den: total }
  const pValue = extreme === total ? 1 : Math.exp(lnBig(extreme) - lnBig(total))
  return { pValue, exact }
}

/**
 * The one-sided tail of Fisher's exact test (the hypergeometric distribution): of `total` trials,
 * `failures` failed, and a predicate held in `drawn` of them. Under independence every choice of the
 * failing trials is alike, and this is the probability that the predicate holds in `atLeast` or more
 * of the failing ones: P(X ≥ atLeast). A double, from log-gamma (relative error ~1e-9 at 10⁴ trials);
 * hypergeometricUpperTailExact gives the same as a fraction where a decision is too close to call.
 */
export function hypergeometricUpperTail(total: number, failures: number, drawn: number, atLeast: number): number {
  const lo = Math.max(0, drawn - (total - failures))
  const hi = Math.min(failures, drawn)
  if (atLeast <= lo) return 1
  if (atLeast > hi) return 0
  const lnChoose = (n: number, k: number): number => logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1)
  const at = (x: number): number => Math.exp(lnChoose(failures, x) + lnChoose(total - failures, drawn - x) - lnChoose(total, drawn))
  // Summed away from the mode, where the terms only fall: once one adds nothing a double can hold,
  // neither do the rest. At or below the mode, the tail is 1 − the terms below `atLeast`.
  const mode = Math.floor(((drawn + 1) * (failures + 1)) / (total + 2))
  let sum = 0
  if (atLeast > mode) {
    let term = at(atLeast)
    for (let x = atLeast; x <= hi && term > sum * 1e-17; x++) {
      sum += term
      term *= ((failures - x) * (drawn - x)) / ((x + 1) * (total - failures - drawn + x + 1))
    }
    return Math.min(1, sum)
  }
  let term = at(atLeast - 1)
  for (let x = atLeast - 1; x >= lo && term > sum * 1e-17; x--) {
    sum += term
    term *= (x * (total - failures - drawn + x)) / ((failures - x + 1) * (drawn - x + 1))
  }
  return Math.max(0, 1 - sum)
}

/** hypergeometricUpperTail exactly, with BigInt counts: Σ C(failures, x) · C(total − failures, drawn − x) over x ≥ atLeast, over C(total, drawn). */
export function hypergeometricUpperTailExact(total: number, failures: number, drawn: number, atLeast: number): Fraction {
  const den = binomialCoefficient(total, drawn)
  let num = 0n
  for (let x = Math.max(atLeast, 0); x <= Math.min(failures, drawn); x++) num += binomialCoefficient(failures, x) * binomialCoefficient(total - failures, drawn - x)
  return { num, den }
}
