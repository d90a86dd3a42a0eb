import type { Independence } from './independence.js'

/** The outcome words of docs/contracts.md §1, used alike in code, JSON and markdown. */
export type Outcome = 'passed' | 'failed' | 'skipped'

/**
 * docs/contracts.md §1: `partial` is evidence too thin to call either way (a run cut short before any
 * trial). `non-idempotent`: it failed some trials, but they were not independent — the outcome
 * switched once and stayed, unlikely by chance (see independence.ts), so its rate is not a failure
 * probability. `undetermined`: the outcome switched once and stayed, but chance explains that shape
 * too well to call it either way, and no fresh-state evidence decided it: neither a rate nor a cause.
 */
export type Verdict = 'stable' | 'flaky' | 'broken' | 'partial' | 'non-idempotent' | 'undetermined'

/** What a test's order of outcomes says of its trials' independence, beyond counting them. */
export type Dependence = 'non-idempotent' | 'undetermined' | null

/** What fresh-state executions decided of a suggestive switch (src/pipeline/fresh-evidence.ts). */
export type FreshDecision = 'non-idempotent' | 'flaky' | 'undetermined'

/** What plain runs of its file decided of a test that failed every repetition (src/pipeline/plain-evidence.ts). */
export type PlainDecision = 'non-idempotent' | 'broken' | 'undetermined'

/**
 * A single switch is `non-idempotent` when its shape alone is unlikely by chance; otherwise what
 * fresh-state evidence decided, and `undetermined` when there is none. Any other order: no dependence.
 */
export function dependenceOf(independence: Pick<Independence, 'pattern' | 'switch_significant'> | null | undefined, fresh?: FreshDecision): Dependence {
  if (independence?.pattern !== 'one-switch') return null
  // Files of older versions lack `switch_significant`: their one-switch was decided by the shape.
  if (independence.switch_significant !== false) return 'non-idempotent'
  if (fresh === 'flaky') return null
  return fresh ?? 'undetermined'
}

/**
 * The verdict for a subject measured over `trials` complete trials, in the order they ran; one that
 * failed them all is what plain runs of it decided, when they ran.
 */
export function computeVerdict(failures: number, trials: number, dependence: Dependence = null, plain?: PlainDecision): Verdict {
  if (trials === 0) return 'partial'
  if (failures === 0) return 'stable'
  if (failures === trials) return plain ?? 'broken'
  return dependence ?? 'flaky'
}

/** The order verdicts are listed in: flaky first, then non-idempotent, undetermined, broken, partial, stable. */
export const CONCERN: Readonly<Record<Verdict, number>> = { flaky: 0, 'non-idempotent': 1, undetermined: 2, broken: 3, partial: 4, stable: 5 }

/** A verdict whose rate is no failure probability: no runs needed, retry budget or quarantine follows from it. */
export function hasNoRate(verdict: Verdict): boolean {
  return verdict === 'non-idempotent' || verdict === 'undetermined'
}
