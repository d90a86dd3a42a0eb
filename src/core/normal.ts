/**
 * The standard normal lower tail Φ(z) = erfc(-z/√2) / 2, to about 1e-14 relative, for the
 * large-sample runs test. erfc by Abramowitz & Stegun 7.1.6 (a series of positive terms, no
 * cancellation) below x = 2 and by the continued fraction 7.1.14 above it.
 */
export function normalCdf(z: number): number {
  const x = -z / Math.SQRT2
  return (x >= 0 ? erfc(x) : 2 - erfc(-x)) / 2
}

// --- internal ---

/** erfc(x) for x >= 0. */
function erfc(x: number): number {
  if (x < 2) {
    // erf(x) = 2/√π · e^(-x²) · Σ 2^n x^(2n+1) / (1·3·…·(2n+1))
    let term = x
    let sum = x
    for (let n = 1; term > sum * 1e-17; n++) {
      term *= (2 * x * x) / (2 * n + 1)
      sum += term
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * Math.exp(-x * x) * sum
  }
  // erfc(x) = e^(-x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …))))), evaluated from the tail.
  let tail = x
  for (let k = 80; k >= 1; k--) tail = x + k / 2 / tail
  return Math.exp(-x * x) / (Math.sqrt(Math.PI) * tail)
}
