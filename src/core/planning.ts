import { complement, type Fraction } from './fraction.js'
import { smallestPowerAtMost, type TooMany } from './smallest-power.js'

export type { TooMany } from './smallest-power.js'

/** Why a rate gives no finite answer: never failed, or failed every time. */
export type Unplannable = { kind: 'no-failures' } | { kind: 'always-fails' }

export type Planned = { kind: 'planned'; value: number } | TooMany | Unplannable

/**
 * Runs needed to claim a fix at confidence c: the smallest n with (1-p)^n <= 1-c (docs/contracts.md §2).
 * p = 0 cannot be planned (nothing ever failed, so no number of passes says anything); p = 1 is a
 * deterministic failure, not a flake; below p ≈ 3e-16 (at c = 0.95) the answer passes 2^53 and
 * comes back as `too-many` with its size.
 */
export function computeRunsNeeded(rate: Fraction, confidence: Fraction): Planned {
  const unplannable = classify(rate)
  if (unplannable) return unplannable
  return planned(smallestPowerAtMost(complement(rate), complement(confidence)))
}

/** 1%: the chance, after the retry budget is spent, that a run still fails by bad luck. */
export const RETRY_RESIDUAL: Fraction = { num: 1n, den: 100n }

/**
 * Retry budget: the smallest r >= 0 with p^(r+1) <= 0.01, i.e. 100·f^(r+1) <= N^(r+1).
 * p = 0 needs no retry (0); p = 1 cannot be helped by any number of retries; p within ~1e-15 of 1
 * would need more than 2^53 retries (`too-many`).
 */
export function computeRetryBudget(rate: Fraction): { kind: 'planned'; value: number } | { kind: 'always-fails' } | TooMany {
  if (rate.num === 0n) return { kind: 'planned', value: 0 }
  if (rate.num >= rate.den) return { kind: 'always-fails' }
  const attempts = smallestPowerAtMost(rate, RETRY_RESIDUAL)
  return typeof attempts === 'number' ? { kind: 'planned', value: attempts - 1 } : attempts
}

/**
 * Quarantine after: the smallest k >= 1 with (p^(r+1))^k <= 1-c. After that many consecutive runs
 * that failed even with their retries, the measured rate no longer explains it. Always small:
 * p^(r+1) <= 0.01 makes k <= ceil(log100(1/(1-c))), 9 for c = 1 - 1e-17.
 */
export function computeQuarantineAfter(rate: Fraction, retryBudget: number, confidence: Fraction): number {
  const k = smallestPowerAtMost(rate, complement(confidence), retryBudget + 1)
  if (typeof k !== 'number') throw new RangeError(`quarantine threshold beyond 2^53 for confidence ${confidence.num}/${confidence.den}`)
  return k
}

// --- internal ---

function classify(rate: Fraction): Unplannable | undefined {
  if (rate.num === 0n) return { kind: 'no-failures' }
  if (rate.num >= rate.den) return { kind: 'always-fails' }
  return undefined
}

function planned(value: number | TooMany): { kind: 'planned'; value: number } | TooMany {
  return typeof value === 'number' ? { kind: 'planned', value } : value
}
