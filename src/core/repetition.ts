/** One execution of one test, as a test-runner adapter saw it: plain data, it crosses worker boundaries. */

export type RepetitionMode = 'fast' | 'slow' | 'proof' | 'single'

/** One execution of one test. */
export interface Repetition {
  /** Passed (with `fails` tests inverted, as the runner counts them). */
  ok: boolean
  elapsedMs: number
  /** First error message of this execution, capped. */
  error?: string
  /** Console output of this execution, capped per stream. */
  stdout?: string
  stderr?: string
  mode: RepetitionMode
  gapMs: number
}
