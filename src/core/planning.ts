import { complement, type Fraction, fractionFromNumber } from './fraction.js'
import { smallestPowerAtMost, type TooMany } from './smallest-power.js'

export type { TooMany } from './smallest-power.js'

/** Why a rate gives no finite answer: never failed, or failed every time. */
export type Unplannable = { kind: 'no-failures' } | { kind: 'always-fails' }

/** A count of runs, or why there is none: `too-many` past 2^53, or a rate of 0 or 1. */
export type Planned = { kind: 'planned'; value: number } | TooMany | Unplannable

/**
 * A probability as a number (0.2, read as the decimal written: exactly 1/5) or an exact fraction
 * (`fractionFromCounts(40, 200)`).
 */
export type Probability = number | Fraction

/** What computeRunsNeeded plans from: the failure rate and the confidence wanted, named. */
export interface RunsNeededOptions {
  /** The failure rate to rule out, in [0, 1]: 0.2, or `fractionFromCounts(failures, trials)`. */
  rate: Probability
  /** How sure the passes must make you, strictly between 0 and 1: 0.95. */
  confidence: Probability
}

/**
 * Runs needed to claim a fix at confidence c: the smallest n with (1-p)^n <= 1-c (docs/contracts.md §2),
 * decided exactly. p = 0 cannot be planned (nothing ever failed, so no number of passes says
 * anything); p = 1 is a deterministic failure, not a flake; below p ≈ 3e-16 (at c = 0.95) the
 * answer passes 2^53 and comes back as `too-many` with its size.
 *
 * @example computeRunsNeeded({ rate: 0.2, confidence: 0.95 }) // { kind: 'planned', value: 14 }
 * @throws RangeError for a rate outside [0, 1] or a confidence outside (0, 1).
 */
export function computeRunsNeeded({ rate, confidence }: RunsNeededOptions): Planned {
  const p = probability(rate, 'rate', true)
  const c = probability(confidence, 'confidence', false)
  const unplannable = classify(p)
  if (unplannable) return unplannable
  return planned(smallestPowerAtMost(complement(p), complement(c)))
}

/** 1%: the chance, after the retry budget is spent, that a run still fails by bad luck. */
export const RETRY_RESIDUAL: Fraction = { num: 1n, den: 100n }

/**
 * Retry budget: the smallest r >= 0 with p^(r+1) <= 0.01, i.e. 100·f^(r+1) <= N^(r+1).
 * p = 0 needs no retry (0); p = 1 cannot be helped by any number of retries; p within ~1e-15 of 1
 * would need more than 2^53 retries (`too-many`).
 *
 * @example computeRetryBudget({ rate: 0.2 }) // { kind: 'planned', value: 2 }: 0.2^3 = 0.008 <= 0.01
 * @throws RangeError for a rate outside [0, 1].
 */
export function computeRetryBudget(options: { rate: Probability }): { kind: 'planned'; value: number } | { kind: 'always-fails' } | TooMany {
  const rate = probability(options.rate, 'rate', true)
  if (rate.num === 0n) return { kind: 'planned', value: 0 }
  if (rate.num >= rate.den) return { kind: 'always-fails' }
  const attempts = smallestPowerAtMost(rate, RETRY_RESIDUAL)
  return typeof attempts === 'number' ? { kind: 'planned', value: attempts - 1 } : attempts
}

/** What computeQuarantineAfter decides from: the rate, the retry budget it allows, the confidence. */
export interface QuarantineOptions {
  /** The measured failure rate, in [0, 1) (at 1 no count of failing runs is unexpected). */
  rate: Probability
  /** Retries per run (computeRetryBudget): a run fails only when all of its 1 + retryBudget attempts fail. */
  retryBudget: number
  /** Strictly between 0 and 1: 0.95. */
  confidence: Probability
}

/**
 * Quarantine after: the smallest k >= 1 with (p^(r+1))^k <= 1-c. After that many consecutive runs
 * that failed even with their retries, the measured rate no longer explains it. Always small:
 * p^(r+1) <= 0.01 makes k <= ceil(log100(1/(1-c))), 9 for c = 1 - 1e-17.
 *
 * @example computeQuarantineAfter({ rate: 0.2, retryBudget: 2, confidence: 0.95 }) // 1: 0.2^3 = 0.008 <= 0.05
 * @throws RangeError for a rate outside [0, 1) (at 1 the threshold passes 2^53), a retry budget that
 *   is not a whole number >= 0, or a confidence outside (0, 1).
 */
export function computeQuarantineAfter({ rate, retryBudget, confidence }: QuarantineOptions): number {
  const p = probability(rate, 'rate', true)
  const c = probability(confidence, 'confidence', false)
  if (!Number.isSafeInteger(retryBudget) || retryBudget < 0) throw new RangeError(`computeQuarantineAfter: retryBudget is a whole number >= 0, got ${retryBudget}`)
  const k = smallestPowerAtMost(p, complement(c), retryBudget + 1)
  if (typeof k !== 'number') throw new RangeError(`quarantine threshold beyond 2^53 for confidence ${c.num}/${c.den}`)
  return k
}

// --- internal ---

/** A probability as an exact fraction, checked: [0, 1] for a rate, (0, 1) for a confidence. */
function probability(value: Probability, name: 'rate' | 'confidence', closed: boolean): Fraction {
  const range = closed ? 'in [0, 1]' : 'strictly between 0 and 1'
  let fraction: Fraction
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`${name} is a probability ${range}, got ${value}`)
    fraction = fractionFromNumber(value)
  } else if (typeof value === 'object' && value !== null && typeof value.num === 'bigint' && typeof value.den === 'bigint' && value.den > 0n) {
    fraction = value
  } else {
    throw new TypeError(`${name} is a number (0.95) or a fraction { num, den } of bigints with den > 0`)
  }
  const inside = closed ? fraction.num >= 0n && fraction.num <= fraction.den : fraction.num > 0n && fraction.num < fraction.den
  if (!inside) throw new RangeError(`${name} is a probability ${range} (${name === 'confidence' ? '0.95 for 95%' : 'failures / trials'}), got ${typeof value === 'number' ? value : `${fraction.num}/${fraction.den}`}`)
  return fraction
}

function classify(rate: Fraction): Unplannable | undefined {
  if (rate.num === 0n) return { kind: 'no-failures' }
  if (rate.num >= rate.den) return { kind: 'always-fails' }
  return undefined
}

function planned(value: number | TooMany): { kind: 'planned'; value: number } | TooMany {
  return typeof value === 'number' ? { kind: 'planned', value } : value
}
