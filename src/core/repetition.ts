/** One execution of one test, as a test-runner adapter saw it: plain data, it crosses worker boundaries. */

/** `paired`: a fast repetition interleaved with the gapped (`slow`) ones while observing. */
export type RepetitionMode = 'fast' | 'slow' | 'paired' | 'proof' | 'single'

/**
 * The kind of a test's repetition `index` (0-based) in a measuring run: `repeat` fast ones, then,
 * when observing, gapped and fast ones alternating (docs/contracts.md §13.4), so machine load or time
 * drifting during the observation falls on both sides alike instead of looking like the gap's effect.
 */
export function measuringModeOf(index: number, repeat: number): RepetitionMode {
  if (index < repeat) return 'fast'
  return (index - repeat) % 2 === 0 ? 'slow' : 'paired'
}

/** One execution of one test. */
export interface Repetition {
  /** Passed (with `fails` tests inverted, as the runner counts them). */
  ok: boolean
  elapsedMs: number
  /** First error message of this execution, capped. */
  error?: string
  /** That error's stack trace as the runner gave it, capped: where it failed, for the HTML report. */
  stack?: string
  /** Console output of this execution, capped per stream. */
  stdout?: string
  stderr?: string
  mode: RepetitionMode
  gapMs: number
}
