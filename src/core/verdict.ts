import type { IndependencePattern } from './independence.js'

/** The outcome words of docs/contracts.md §1, used alike in code, JSON and markdown. */
export type Outcome = 'passed' | 'failed' | 'skipped'

/**
 * docs/contracts.md §1: `partial` is evidence too thin to call either way (a run cut short before any
 * trial). `non-idempotent`: it failed some trials, but they were not independent — the outcome
 * switched once and stayed (see independence.ts), so its rate is not a failure probability.
 */
export type Verdict = 'stable' | 'flaky' | 'broken' | 'partial' | 'non-idempotent'

/** The verdict for a subject measured over `trials` complete trials, in the order they ran. */
export function computeVerdict(failures: number, trials: number, pattern?: IndependencePattern | null): Verdict {
  if (trials === 0) return 'partial'
  if (failures === 0) return 'stable'
  if (failures === trials) return 'broken'
  return pattern === 'one-switch' ? 'non-idempotent' : 'flaky'
}
