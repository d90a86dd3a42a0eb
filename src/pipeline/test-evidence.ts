/**
 * What a test-runner adapter hands the pipeline for one test: its repetitions as the runner saw
 * them. Plain data, so it can cross a worker boundary (Vitest's RPC) unchanged.
 */

import type { Repetition } from '../core/repetition.js'

export type { Repetition, RepetitionMode } from '../core/repetition.js'

export interface TestEvidence {
  /** Display id (src/core/test-id.ts), unique within the run. */
  id: string
  /** Suite names, then the test's own: the structured name the id was derived from. */
  path: readonly string[]
  /** Position of this test in its worker's run, from 1. */
  order: number
  /** The test that ran just before this one's repetitions in the same worker, if any. */
  previousTest: string | null
  /** The file (relative to its project root) of that test, when the runner knows it. */
  previousFile?: string | null
  worker: string
  seed: number | null
  repetitions: Repetition[]
  /** Recovered from the journal after its worker died or the run stopped: fewer repetitions than planned, whatever their count. */
  cut?: true
}

/** A finished test as the reporter sees it. */
export interface ReportedTest {
  project: string
  /** Relative to the project root, with `/`. */
  file: string
  /** Full name without the file, as Vitest prints it: `Suite > nested > test`. */
  name: string
  evidence: TestEvidence
}
