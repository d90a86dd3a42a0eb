/** The z used for a 95% interval: exactly 1.96, as published, so numbers can be recomputed by hand. */
export const Z_95 = 1.96

/** A Wilson interval: where the true failure rate lies, at the confidence it was computed for. */
export interface WilsonInterval {
  /** Lower end, in [0, 1]: exactly 0 when nothing failed. */
  low: number
  /** Upper end, in [0, 1]: above 0 even when nothing failed, exactly 1 when everything did. */
  high: number
}

/**
 * How wide an interval is: by its confidence level (`{ confidence: 0.95 }`, z = 1.96), or by the
 * normal quantile itself (`{ z: 1.96 }`). One of the two, named, so 0.95 is never read as a z.
 */
export type IntervalWidth = { confidence: number; z?: undefined } | { z: number; confidence?: undefined }

/**
 * Wilson score interval for `failures` of `trials` (docs/contracts.md §2), 95% unless `width` says:
 * center = (p + z²/2n) / (1 + z²/n), half = z/(1 + z²/n) · √(p(1-p)/n + z²/4n²).
 * Zero failures still give a positive upper bound; the ends are exact at k = 0 and k = n, where
 * the formula is 0 and 1 but floats give 1e-17 or 0.9999999999999999. No trials give [0, 1].
 *
 * @example wilsonInterval(3, 20, { confidence: 0.95 }) // { low: 0.0524, high: 0.3604 } (rounded)
 * @throws TypeError when `width` is not `{ confidence }` or `{ z }` (a bare 0.95 would be a z of 0.95);
 *   RangeError for counts that are not whole numbers with 0 <= failures <= trials, a confidence
 *   outside (0, 1) or a z that is not positive.
 */
export function wilsonInterval(failures: number, trials: number, width: IntervalWidth = { confidence: 0.95 }): WilsonInterval {
  const z = zOf(width)
  if (!Number.isInteger(failures) || !Number.isInteger(trials) || failures < 0 || failures > trials) {
    throw new RangeError(`wilsonInterval(failures, trials): whole numbers with 0 <= failures <= trials, got ${failures} of ${trials}`)
  }
  if (trials === 0) return { low: 0, high: 1 }
  const p = failures / trials
  const z2 = z * z
  const denominator = 1 + z2 / trials
  const center = (p + z2 / (2 * trials)) / denominator
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))
  return {
    low: failures === 0 ? 0 : Math.max(0, center - half),
    high: failures === trials ? 1 : Math.min(1, center + half),
  }
}

/**
 * The two-sided normal quantile for a confidence level: 1.96 for 0.95 (the published constant),
 * otherwise Φ⁻¹((1 + c)/2) by Acklam's rational approximation (relative error < 1.2e-9).
 * @throws RangeError for a confidence outside (0, 1).
 */
export function zForConfidence(confidence: number): number {
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence is a probability strictly between 0 and 1 (0.95 for 95%), got ${confidence}`)
  if (confidence === 0.95) return Z_95
  return normalQuantile((1 + confidence) / 2)
}

// --- internal ---

function zOf(width: IntervalWidth): number {
  if (typeof width !== 'object' || width === null) {
    throw new TypeError(`wilsonInterval's third argument names its width: { confidence: 0.95 } or { z: 1.96 }, got ${String(width)}`)
  }
  const { confidence, z } = width
  if (confidence !== undefined && z !== undefined) throw new TypeError('wilsonInterval: give { confidence } or { z }, not both')
  if (z !== undefined) {
    if (!(Number.isFinite(z) && z > 0)) throw new RangeError(`wilsonInterval: z is a positive normal quantile (1.96 for 95%), got ${z}`)
    return z
  }
  if (confidence === undefined) throw new TypeError('wilsonInterval: give { confidence: 0.95 } or { z: 1.96 }')
  return zForConfidence(confidence)
}

// Coefficients from P. J. Acklam, "An algorithm for computing the inverse normal cumulative
// distribution function" (2003).
const A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239]
const B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1]
const C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783]
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416]

function normalQuantile(q: number): number {
  const low = 0.02425
  const poly = (coefficients: number[], x: number): number => coefficients.reduce((acc, k) => acc * x + k, 0)
  if (q < low) {
    const t = Math.sqrt(-2 * Math.log(q))
    return poly(C, t) / (poly(D, t) * t + 1)
  }
  if (q > 1 - low) return -normalQuantile(1 - q)
  const t = q - 0.5
  const r = t * t
  return (poly(A, r) * t) / (poly(B, r) * r + 1)
}
