import { complement, type Fraction, power } from './fraction.js'
import { smallestPowerAtMost } from './smallest-power.js'

/** Why a rate gives no finite answer: never failed, or failed every time. */
export type Unplannable = { kind: 'no-failures' } | { kind: 'always-fails' }

export type Planned = { kind: 'planned'; value: number } | Unplannable

/**
 * Runs needed to claim a fix at confidence c: the smallest n with (1-p)^n <= 1-c (CONTRACTS §2).
 * p = 0 cannot be planned (nothing ever failed, so no number of passes says anything); p = 1 is a
 * deterministic failure, not a flake.
 */
export function computeRunsNeeded(rate: Fraction, confidence: Fraction): Planned {
  const unplannable = classify(rate)
  if (unplannable) return unplannable
  return { kind: 'planned', value: smallestPowerAtMost(complement(rate), complement(confidence)) }
}

/** 1%: the chance, after the retry budget is spent, that a run still fails by bad luck. */
export const RETRY_RESIDUAL: Fraction = { num: 1n, den: 100n }

/**
 * Retry budget: the smallest r >= 0 with p^(r+1) <= 0.01, i.e. 100·f^(r+1) <= N^(r+1).
 * p = 0 needs no retry (0); p = 1 cannot be helped by any number of retries.
 */
export function computeRetryBudget(rate: Fraction): { kind: 'planned'; value: number } | { kind: 'always-fails' } {
  if (rate.num === 0n) return { kind: 'planned', value: 0 }
  if (rate.num >= rate.den) return { kind: 'always-fails' }
  return { kind: 'planned', value: smallestPowerAtMost(rate, RETRY_RESIDUAL) - 1 }
}

/**
 * Quarantine after: the smallest k >= 1 with (p^(r+1))^k <= 1-c. After that many consecutive runs
 * that failed even with their retries, the measured rate no longer explains it.
 */
export function computeQuarantineAfter(rate: Fraction, retryBudget: number, confidence: Fraction): number {
  return smallestPowerAtMost(power(rate, retryBudget + 1), complement(confidence))
}

// --- internal ---

function classify(rate: Fraction): Unplannable | undefined {
  if (rate.num === 0n) return { kind: 'no-failures' }
  if (rate.num >= rate.den) return { kind: 'always-fails' }
  return undefined
}
