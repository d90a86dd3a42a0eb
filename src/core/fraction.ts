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
 * Returns undefined for anything else (hex, NaN, Infinity, fractions, signs other than a leading '-').
 */
export function fractionFromDecimal(text: string): Fraction | undefined {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim())
  if (!match) return undefined
  const [, sign = '', intPart = '', fracPart = '', expPart = '0'] = match
  if (intPart === '' && fracPart === '') return undefined
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

/** x^k for an integer k >= 0. */
export function power(x: Fraction, k: number): Fraction {
  const e = BigInt(k)
  return { num: x.num ** e, den: x.den ** e }
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
  const bits = x.toString(2).length
  if (bits <= 1000) return Math.log(Number(x))
  const shift = bits - 64
  return Math.log(Number(x >> BigInt(shift))) + shift * Math.LN2
}

/** Natural log of a positive fraction. */
export function lnFraction(x: Fraction): number {
  return lnBig(x.num) - lnBig(x.den)
}

// --- internal ---

function gcd(a: bigint, b: bigint): bigint {
  let [x, y] = [a < 0n ? -a : a, b]
  while (y !== 0n) [x, y] = [y, x % y]
  return x
}

function reduce(x: Fraction): Fraction {
  const g = gcd(x.num, x.den)
  return g > 1n ? { num: x.num / g, den: x.den / g } : x
}
