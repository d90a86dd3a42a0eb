import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { readJsonFile } from './read.js'
import { RateFileSchema } from './schemas.js'

/** What one `flakeproof vitest|jest --flaky-repeat N` batch measured, read back from its output folder. */
export interface BatchResult {
  /** Rounds that ran (a round: the k-th repetition of every selected test) and rounds with a failure. */
  trials: number
  failures: number
  /** Time inside tests, every execution summed (facts.jsonl `elapsed_ms`): what the repetitions cost, without the start-up. */
  testTimeMs: number
  complete: boolean
}

/**
 * rate.json (validated) and the executions' times from facts.jsonl of a batch's output folder.
 * Lines are only summed, not validated one by one: the batch's own writer produced them, and a
 * bisect may read hundreds of thousands. @throws FlakeproofError `E_INPUT` when rate.json is missing or invalid
 */
export function readBatchResult(outDir: string): BatchResult {
  const rate = readJsonFile(join(outDir, 'rate.json'), RateFileSchema, 'batch', 'The batch wrote no measurement')
  const facts = join(outDir, 'facts.jsonl')
  let testTimeMs = 0
  if (existsSync(facts)) {
    for (const line of readFileSync(facts, 'utf8').split('\n')) {
      if (line.trim() === '') continue
      const elapsed = (JSON.parse(line) as { elapsed_ms?: unknown }).elapsed_ms
      if (typeof elapsed === 'number' && Number.isFinite(elapsed)) testTimeMs += elapsed
    }
  }
  return { trials: rate.trials, failures: rate.failures, testTimeMs, complete: rate.complete }
}
