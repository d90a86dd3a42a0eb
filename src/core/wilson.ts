/** The z used for a 95% interval: exactly 1.96, as published, so numbers can be recomputed by hand. */
export const Z_95 = 1.96

export interface WilsonInterval {
  low: number
  high: number
}

/**
 * Wilson score interval for `failures` of `trials` (docs/contracts.md §2):
 * center = (p + z²/2n) / (1 + z²/n), half = z/(1 + z²/n) · √(p(1-p)/n + z²/4n²).
 * Zero failures still give a positive upper bound; the ends are exact at k = 0 and k = n, where
 * the formula is 0 and 1 but floats give 1e-17 or 0.9999999999999999.
 */
export function wilsonInterval(failures: number, trials: number, z = Z_95): WilsonInterval {
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
 */
export function zForConfidence(confidence: number): number {
  if (confidence === 0.95) return Z_95
  return normalQuantile((1 + confidence) / 2)
}

// --- internal ---

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
