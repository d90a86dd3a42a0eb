import type { RunnerInfo } from '../config/runners.js'
import { type HistoryTest, recordHistory } from '../pipeline/history-record.js'

/** One test of an everyday run, as a runner reports it: what the runner knows, before it is a history record. */
export interface EverydayResult {
  id: string
  project: string
  file: string
  name: string
  /** The test's final state; a quarantined failure the runner turned into a pass counts as failed. */
  failed: boolean
  /** Retries the runner made before the final state. */
  retries: number
  /** The runner itself called the test flaky (Vitest's `diagnostic().flaky`, Playwright's `flaky` outcome). */
  flaky: boolean
  durationMs: number
  /** Failed or flaky: the signature of its first failed attempt (src/core/signature.ts), where the runner gave its stack. */
  signature?: string | undefined
}

/**
 * An everyday run (no repetitions) as history (docs/contracts.md §11), for every runner: a test that
 * passed only after a retry is `flaky` — the retry hid a failure. Nothing is recorded for a runner
 * whose adapter does not keep history, or when no test ran. Returns the file written.
 */
export function recordEverydayRun(runner: RunnerInfo, outDir: string, root: string, results: readonly EverydayResult[]): string | undefined {
  if (!runner.can.history) return undefined
  const tests: HistoryTest[] = results.map(({ failed, retries, flaky, signature, ...test }) => ({
    ...test,
    outcome: failed ? 'failed' : retries > 0 || flaky ? 'flaky' : 'passed',
    retries,
    ...(signature === undefined ? {} : { signature }),
  }))
  return recordHistory(outDir, tests, { root, env: process.env, now: new Date(), runner: runner.name })
}
