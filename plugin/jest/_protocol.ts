/**
 * What the reporter (Jest's main process) tells the setup file (each test file's context, in every
 * worker): set as JSON in FLAKEPROOF_JEST by the reporter's constructor, before Jest starts its
 * workers, which inherit it. Plain data only.
 */
export interface RepeatOptions {
  /** `measure`: every selected test `repeat` times; `proof`: only the tests in `proofRuns`. */
  mode: 'measure' | 'proof'
  repeat: number
  /** Gapped copies (each paired with a fast one) after the fast ones, for a test that failed a fast copy; 0 = no observing. */
  slowRepeat: number
  /** Rest before each gapped copy, on real timers, outside the test's duration and timeout. */
  gapMs: number
  /** Seed of the coin that orders each gapped/fast pair (src/core/repetition.ts pairOrder). */
  assignmentSeed: number
  /** Proof mode: test id → copies required. */
  proofRuns: Record<string, number>
  /** Where each worker appends its journal (src/artifacts/journal.ts): the reporter's evidence. */
  journalDir: string
  /** Jest's rootDir: test files are named relative to it in ids. */
  rootDir: string
}

/** The environment variable that carries RepeatOptions. */
export const REPEAT_ENV = 'FLAKEPROOF_JEST'
