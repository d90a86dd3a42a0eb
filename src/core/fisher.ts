import { binomialCoefficient, type Fraction, lnBig } from './fraction.js'

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
