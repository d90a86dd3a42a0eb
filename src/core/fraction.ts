/**
 * Exact non-negative rationals as BigInt pairs. Boundaries such as (1-p)^n <= 1-c are decided on
 * these, because a float can land a hair on the wrong side: 0.8 ** 2 is 0.6400000000000001.
 */
export interface Fraction {
  readonly num: bigint
  /** Always > 0. */
  readonly den: bigint
}

/** `count / total` as an exact fraction, e.g. 40 failures of 200 trials. */
export function fractionFromCounts(count: number, total: number): Fraction {
  return { num: BigInt(count), den: BigInt(total) }
}

/**
 * Parses a plain decimal as written ("0.36", ".5", "1", "2.5e-3") into the exact fraction it denotes.
 * Returns undefined for anything else (hex, NaN, Infinity, fractions, signs other than a leading '-',
 * decimals of more than 100 000 digits).
 */
export function fractionFromDecimal(text: string): Fraction | undefined {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim())
  if (!match) return undefined
  const [, sign = '', intPart = '', fracPart = '', expPart = '0'] = match
  if (intPart === '' && fracPart === '') return undefined
  // Beyond 100 000 digits (1e-100000) no measurement or double comes near, and 10^exponent as a
  // BigInt would take seconds or fail: refuse rather than hang.
  if (intPart.length + fracPart.length + Math.abs(Number(expPart)) > MAX_DECIMAL_DIGITS) return undefined
  let num = BigInt(`${intPart}${fracPart}` || '0')
  let den = 10n ** BigInt(fracPart.length)
  const exponent = Number(expPart)
  if (exponent >= 0) num *= 10n ** BigInt(exponent)
  else den *= 10n ** BigInt(-exponent)
  if (sign === '-') num = -num
  return reduce({ num, den })
}

/**
 * The decimal a user wrote, recovered from a JS number: `String(x)` is the shortest decimal that
 * round-trips, so 0.36 becomes exactly 36/100 rather than the binary double nearest to it.
 */
export function fractionFromNumber(value: number): Fraction {
  const fraction = fractionFromDecimal(String(value))
  if (!fraction) throw new RangeError(`not a finite number: ${value}`)
  return fraction
}

/** 1 - x. */
export function complement(x: Fraction): Fraction {
  return { num: x.den - x.num, den: x.den }
}

/** x <= y, exactly. */
export function atMost(x: Fraction, y: Fraction): boolean {
  return x.num * y.den <= y.num * x.den
}

/** x < y, exactly. */
export function lessThan(x: Fraction, y: Fraction): boolean {
  return x.num * y.den < y.num * x.den
}

/** Natural log of a positive BigInt, without overflowing a double for huge values. */
export function lnBig(x: bigint): number {
  const bits = bitLength(x)
  if (bits <= 1000) return Math.log(Number(x))
  const shift = bits - 64
  return Math.log(Number(x >> BigInt(shift))) + shift * Math.LN2
}

/**
 * Natural log of a positive fraction, good to a few units in the last place. Near 1 it is
 * log1p of the exactly computed (num - den)/den: ln(num) - ln(den) would cancel there, and for
 * 1 - 1e-12 keep only three correct digits.
 */
export function lnFraction(x: Fraction): number {
  const difference = x.num - x.den
  if (2n * (difference < 0n ? -difference : difference) < x.den) return Math.log1p(quotient(difference, x.den))
  const ratio = quotient(x.num, x.den)
  // Outside 2^±1000 the double would be subnormal or near overflow; logs of the parts are exact enough there.
  return ratio > 2 ** -1000 && ratio < 2 ** 1000 ? Math.log(ratio) : lnBig(x.num) - lnBig(x.den)
}

/** a / b as a double for BigInts of any size, b > 0: correctly rounded up to 2^53, within two units in the last place beyond. */
export function quotient(a: bigint, b: bigint): number {
  const magnitude = a < 0n ? -a : a
  // Both exact as doubles: one division, correctly rounded.
  if (magnitude <= SAFE && b <= SAFE) return Number(a) / Number(b)
  // Scale so the integer quotient has 64 or 65 bits, then put the binary exponent back.
  const shift = 64 - (bitLength(magnitude) - bitLength(b))
  const q = shift >= 0 ? (magnitude << BigInt(shift)) / b : magnitude / (b << BigInt(-shift))
  const value = timesPowerOfTwo(Number(q), -shift)
  return a < 0n ? -value : value
}

/** Number of binary digits of a positive BigInt (0 for 0). */
export function bitLength(x: bigint): number {
  if (x === 0n) return 0
  const hex = x.toString(16)
  return (hex.length - 1) * 4 + (32 - Math.clz32(Number.parseInt(hex[0] as string, 16)))
}

/** C(n, k) exactly; 0 outside 0 <= k <= n. */
export function binomialCoefficient(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n
  const small = Math.min(k, n - k)
  let result = 1n
  for (let i = 1; i <= small; i++) result = (result * BigInt(n - small + i)) / BigInt(i)
  return result
}

/** x in lowest terms. */
export function reduce(x: Fraction): Fraction {
  const g = gcd(x.num, x.den)
  return g > 1n ? { num: x.num / g, den: x.den / g } : x
}

// --- internal ---

const SAFE = BigInt(Number.MAX_SAFE_INTEGER)
const MAX_DECIMAL_DIGITS = 100_000

function gcd(a: bigint, b: bigint): bigint {
  let [x, y] = [a < 0n ? -a : a, b]
  while (y !== 0n) [x, y] = [y, x % y]
  return x
}

/** x · 2^exponent, in steps so no intermediate power of two overflows or underflows. */
function timesPowerOfTwo(x: number, exponent: number): number {
  let result = x
  let rest = exponent
  while (rest > 1000) [result, rest] = [result * 2 ** 1000, rest - 1000]
  while (rest < -1000) [result, rest] = [result * 2 ** -1000, rest + 1000]
  return result * 2 ** rest
}
