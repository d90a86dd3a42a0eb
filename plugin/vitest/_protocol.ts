/**
 * What the plugin (main process) tells the runner (workers), and what the runner hands back to the
 * reporter on each test's meta (a TestEvidence). Plain data only: it crosses Vitest's RPC.
 */
export type { Repetition, TestEvidence } from '../../src/pipeline/test-evidence.js'

/** The key under which the plugin `provide`s RunnerOptions to every project. */
export const PROVIDE_KEY = 'flakeproof'

/** The key of a test's meta that carries its repetitions. */
export const META_KEY = 'flakeproof'

export interface RunnerOptions {
  /** `measure`: repeat every selected test; `proof`: repeat only the tests in `proofRuns`. */
  mode: 'measure' | 'proof'
  /** Fast repetitions per test (measure mode). */
  repeat: number
  /** Gapped repetitions after the fast ones, for tests that failed at least once fast; 0 = no observing. */
  slowRepeat: number
  /** Rest before each gapped repetition, not counted toward the test timeout. */
  gapMs: number
  /** Fail a test that failed some but not all repetitions (measure mode). */
  failOnFlaky: boolean
  /** Proof mode: stable test id → repetitions required. */
  proofRuns: Record<string, number>
  /** Where each worker appends its journal (src/artifacts/journal.ts). */
  journalDir: string
}
