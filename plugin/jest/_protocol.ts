/**
 * What the reporter (Jest's main process) tells flakeproof's runner (each test file, in every
 * worker; plugin/jest/runner.ts): set as JSON in FLAKEPROOF_JEST by the reporter's constructor, before Jest starts its
 * workers, which inherit it. Plain data only.
 */
export interface RepeatOptions {
  /**
   * `measure`: every selected test `repeat` times; `proof`: only the tests in `proofRuns`;
   * `enforce`: every test once, retried up to its budget in `retries`, a quarantined one's failure
   * turned into a pass once it is recorded.
   */
  mode: 'measure' | 'proof' | 'enforce'
  /** Enforce mode: the committed policy's retry budget by test id; every other test gets none. */
  retries: Record<string, number>
  /** Enforce mode: ids of quarantined tests. */
  quarantined: string[]
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
  /** This run, among the runs of one process (`flakeproof jest` runs Jest again for a budget or rounds, in the same folder). */
  run: string
  /** Test files are named relative to it in ids, and stack frames in signatures: the package holding Jest's rootDir (_id-root.ts). */
  idRoot: string
  /**
   * Whether the runner finds the line each test is declared at: only GitHub annotations use it, and
   * it costs a source-mapped stack per test (29 of 5 916 million instructions of a wrapped run of
   * bench/jest-project's 100 tests).
   */
  locate: boolean
  /**
   * Each project's own test runner, by Jest's project config `id`, for flakeproof's runner to hand
   * the file to (`flakeproof jest` sets every project's `testRunner` to flakeproof's); a project not
   * listed gets `circus`, Jest's default.
   */
  runners: Record<string, string>
  /** The project's `jest-circus/runner`. */
  circus: string
}

/** The environment variable that carries RepeatOptions. */
export const REPEAT_ENV = 'FLAKEPROOF_JEST'
