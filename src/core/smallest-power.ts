import { absLn } from './_big-log.js'
import { bitLength, type Fraction, lnFraction, reduce } from './fraction.js'

/**
 * An answer larger than 2^53 - 1: it exists, but no JSON number holds it exactly, and no one will
 * ever run that many trials. `log10` is its size (3e20 has log10 ≈ 20.48).
 */
export interface TooMany {
  kind: 'too-many'
  log10: number
}

/**
 * The smallest integer k >= 1 with (base^exponent)^k <= bound, for 0 <= base < 1, 0 < bound <= 1.
 *
 * Runs needed, retry budget and quarantine threshold are all this question. The answer is
 * ceil(q) with q = ln(bound) / (exponent · ln(base)). Far from an integer, doubles decide it in
 * microseconds. Near one (0.8^2 = 0.64 exactly, where floats say 2.0000000000000004 and round up
 * to 3), or when q is too large for a double to resolve its fraction (p = 1e-12), q is recomputed
 * with 320-bit logarithms; only a possible exact tie is then checked with integers, and that check
 * is small (see `decideNearInteger`). Time is bounded for any rate and confidence.
 */
export function smallestPowerAtMost(base: Fraction, bound: Fraction, exponent = 1): number | TooMany {
  if (base.num === 0n || bound.num >= bound.den) return 1
  const estimate = lnFraction(bound) / (exponent * lnFraction(base))
  // lnFraction is good to ~1e-15 relative, so a quotient farther than 1e-9 from an integer rounds right.
  if (Number.isFinite(estimate) && Math.abs(estimate - Math.round(estimate)) > 1e-9 * Math.max(1, estimate)) {
    return Math.max(1, Math.ceil(estimate))
  }
  return decidePrecisely(reduce(base), reduce(bound), BigInt(exponent))
}

// --- internal ---

/** Bits of the logarithms, and fraction bits kept of q (q < 2^53 leaves 320 - 53 - 10 to spare). */
const LOG_BITS = 320
const FRACTION_BITS = 256n
/** q·2^256 is within this many units of the truth (two logs at 2^-320 relative, one truncation). */
const ERROR_UNITS = 4n
/** An exact comparison of powers costs about this many bits at most; beyond it, logs decide. */
const EXACT_BITS = 1n << 17n

function decidePrecisely(base: Fraction, bound: Fraction, exponent: bigint): number | TooMany {
  const ofBase = absLn(base, LOG_BITS)
  const ofBound = absLn(bound, LOG_BITS)
  // q·2^256 = |ln bound| / (exponent·|ln base|) · 2^256, as an integer.
  const shift = ofBound.e - ofBase.e + Number(FRACTION_BITS)
  const divisor = exponent * ofBase.m
  const scaled = shift >= 0 ? (ofBound.m << BigInt(shift)) / divisor : ofBound.m / (divisor << BigInt(-shift))
  if (scaled >> FRACTION_BITS >= BigInt(Number.MAX_SAFE_INTEGER)) return tooMany(scaled)
  const floor = scaled >> FRACTION_BITS
  const fraction = scaled - (floor << FRACTION_BITS)
  const one = 1n << FRACTION_BITS
  let answer: bigint
  if (fraction > ERROR_UNITS && fraction < one - ERROR_UNITS) answer = floor + 1n
  else answer = decideNearInteger(base, bound, exponent, fraction <= ERROR_UNITS ? floor : floor + 1n)
  if (answer > BigInt(Number.MAX_SAFE_INTEGER)) return tooMany(scaled)
  return Math.max(1, Number(answer))
}

/**
 * q lies within 2^-254 of the integer m: the answer is m if base^(exponent·m) <= bound, else m + 1.
 *
 * An exact tie base^k = bound, with both in lowest terms a/c and C/D, means a^k = C and c^k = D
 * (a^k/c^k is already in lowest terms), so k·log2(c) = log2(D) and k < bitLength(D)/(bitLength(c)-1).
 * Every possible tie is therefore decided with integers of about bitLength(D) bits: as large as
 * the input, no larger. Where no tie is possible and the integers would be large, q is not an
 * integer but agrees with one to 254 bits; we answer m + 1, which can only err by one run too many,
 * never too few. (No input we know of comes that close; it would be a number-theoretic curiosity.)
 */
function decideNearInteger(base: Fraction, bound: Fraction, exponent: bigint, m: bigint): bigint {
  const k = exponent * m
  if (k === 0n) return 1n
  const cost = k * BigInt(bitLength(base.den))
  const tiePossible = k * BigInt(bitLength(base.den) - 1) < BigInt(bitLength(bound.den))
  if (cost > EXACT_BITS && !tiePossible) return m + 1n
  // base^k <= bound  ⟺  a^k · D <= C · c^k
  return base.num ** k * bound.den <= bound.num * base.den ** k ? m : m + 1n
}

function tooMany(scaled: bigint): TooMany {
  const bits = bitLength(scaled)
  const dropped = Math.max(0, bits - 64)
  const log2 = Math.log2(Number(scaled >> BigInt(dropped))) + dropped - Number(FRACTION_BITS)
  return { kind: 'too-many', log10: log2 * Math.log10(2) }
}
