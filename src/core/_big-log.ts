import { bitLength, type Fraction, quotient } from './fraction.js'

/**
 * Natural logarithms to a few hundred bits with BigInt fixed-point arithmetic, for the planning
 * decisions a double cannot make: whether (1-p)^k <= 1-c when k is in the trillions, or when the
 * float quotient lands within its own rounding error of an integer.
 */

/** The positive real `m · 2^e`. */
export interface BigFloat {
  m: bigint
  e: number
}

/**
 * |ln x| for a positive fraction x ≠ 1, with relative error below 2^-bits.
 *
 * Range reduction x = 2^s · a/b with a/b about in [1/√2, √2], then ln(a/b) = 2·atanh(t) with
 * t = (a-b)/(a+b), |t| <= (√2-1)/(√2+1) ≈ 0.1716, so each series term gains about 5 bits.
 * For s = 0 the result is kept relative to t (2t times a series in [1, 1.01]), so a fraction such
 * as 1 - 1e-300 keeps all its bits where a fixed-point value would be zero.
 */
export function absLn(x: Fraction, bits: number): BigFloat {
  let a = x.num
  let b = x.den
  let s = bitLength(a) - bitLength(b)
  if (s > 0) b <<= BigInt(s)
  else a <<= BigInt(-s)
  // Now 1/2 < a/b < 2; move it near [1/√2, √2]. Only the series' speed depends on this choice,
  // so a double is precise enough to make it.
  const ratio = quotient(a, b)
  if (ratio > Math.SQRT2) {
    b <<= 1n
    s += 1
  } else if (ratio < Math.SQRT1_2) {
    a <<= 1n
    s -= 1
  }
  // Guard bits cover the truncation of each series term (< 2 units each, under 2^7 terms) and s·ln 2.
  const width = bits + 16 + bitLength(BigInt(Math.abs(s)))
  // Only the leading width + 64 bits of a - b matter; dropping the rest of a and b keeps huge inputs cheap.
  const excess = bitLength(a > b ? a - b : b - a) - (width + 64)
  if (excess > 0) {
    a >>= BigInt(excess)
    b >>= BigInt(excess)
  }
  const difference = a - b
  const magnitude = difference < 0n ? -difference : difference
  const series = atanhSeries(magnitude, a + b, width)
  if (s === 0) {
    // |ln x| = 2·|a-b|/(a+b) · series / 2^width; scale the quotient up so it keeps `width` bits.
    const scale = Math.max(0, bitLength(a + b) - bitLength(magnitude) + 1)
    return { m: ((2n * magnitude * series) << BigInt(scale)) / (a + b), e: -width - scale }
  }
  // |s·ln 2| >= ln 2 and |ln(a/b)| <= ln √2, so |ln x| >= 0.34: absolute error is relative error here.
  const lnRatio = (2n * difference * series) / (a + b)
  const total = BigInt(s) * ln2(width) + lnRatio
  return { m: total < 0n ? -total : total, e: -width }
}

// --- internal ---

/** Σ_{j>=0} t^(2j) / (2j+1) for t = num/den, |t| < 1/2, as an integer scaled by 2^width. */
function atanhSeries(num: bigint, den: bigint, width: number): bigint {
  const w = BigInt(width)
  const tSquared = ((num * num) << w) / (den * den)
  let term = 1n << w
  let sum = 0n
  for (let j = 0n; term > 0n; j++) {
    sum += term / (2n * j + 1n)
    term = (term * tSquared) >> w
  }
  return sum
}

/** ln 2 = 2·atanh(1/3), scaled by 2^width. */
function ln2(width: number): bigint {
  return (2n * atanhSeries(1n, 3n, width)) / 3n
}
