/**
 * What the plugin (main process) tells the runner (workers), and what the runner hands back to the
 * reporter on each test's meta (a TestEvidence). Plain data only: it crosses Vitest's RPC.
 */
import type { TestEvidence } from '../../src/session/worker.js'

export type { Repetition, TestEvidence } from '../../src/session/worker.js'

// Vitest's documented extension points, so both sides of the boundary are typed without casts.
declare module '@vitest/runner' {
  interface TaskMeta {
    /** Set by the runner when a test ends: every repetition it ran. */
    flakeproof?: TestEvidence
  }
}
declare module 'vitest' {
  interface ProvidedContext {
    /** Provided by the plugin to every project, read by the runner in each worker. */
    flakeproof: RunnerOptions
  }
}

export interface RunnerOptions {
  /** `measure`: repeat every selected test; `proof`: repeat only the tests in `proofRuns`. */
  mode: 'measure' | 'proof'
  /** Fast repetitions per test (measure mode). */
  repeat: number
  /** Gapped repetitions after the fast ones, for tests that failed at least once fast; 0 = no observing. */
  slowRepeat: number
  /** Rest before each gapped repetition, not counted toward the test timeout. */
  gapMs: number
  /** Seed of the coin that orders each gapped/fast pair (src/core/repetition.ts pairOrder): `--flaky-seed`, else drawn by the plugin. */
  assignmentSeed: number
  /** Fail a test that failed some but not all repetitions (measure mode). */
  failOnFlaky: boolean
  /** Proof mode: stable test id → repetitions required. */
  proofRuns: Record<string, number>
  /** Proof mode: the file the required counts came from (policy.json or runs_needed.json). */
  proofFrom?: string
  /** Where each worker appends its journal (src/artifacts/journal.ts). */
  journalDir: string
}
