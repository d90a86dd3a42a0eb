import { performance } from 'node:perf_hooks'
import type { ObserverFile } from '../artifacts/schemas.js'
import { measuringModeOf, pairOrder } from '../core/repetition.js'
import { describeRate } from '../core/rate.js'
import { type TrialRecord, runTrials } from '../runner/run-trials.js'
import type { PipelineContext } from './context.js'

type Observation = ObserverFile['fast']

export interface InterleavedSettings {
  command: string
  /** Gapped trials; as many fast ones are interleaved with them. */
  pairs: number
  gapMs: number
  timeoutMs: number | null
  /** Seed of the coin that orders each pair (observer.json `assignment_seed`). */
  seed: number
}

export interface Interleaved {
  slow: Observation
  paired: Observation
  complete: boolean
}

/**
 * Command mode's observation (docs/contracts.md §3): `pairs` gapped trials and as many fast ones,
 * one after another, the order inside each pair left to a seeded coin (src/core/repetition.ts), so
 * time, machine load and any cycle of the command's own (a counter failing every 4th call) fall on
 * both sides alike and only the gap can make them differ.
 */
export async function observeInterleaved(settings: InterleavedSettings, confidence: number, context: PipelineContext, label = 'observe'): Promise<Interleaved> {
  // One subject: the seed alone orders its pairs, so `--seed` replays them wherever the command runs.
  const gappedFirst = pairOrder(settings.seed, '')
  const isSlow = (trial: number): boolean => measuringModeOf(trial - 1, 0, gappedFirst) === 'slow'
  const counts = { slow: { trials: 0, failures: 0 }, paired: { trials: 0, failures: 0 } }
  const total = 2 * settings.pairs
  const started = performance.now()
  let done = 0
  const onTrial = (record: TrialRecord): void => {
    const side = isSlow(record.trial) ? counts.slow : counts.paired
    side.trials++
    if (record.outcome === 'failed') side.failures++
    done++
    context.onProgress({ label, done, total, failures: counts.slow.failures + counts.paired.failures, elapsedMs: performance.now() - started })
  }
  const plan = { command: settings.command, trials: total, gapMs: 0, gapFor: (trial: number) => (isSlow(trial) ? settings.gapMs : 0), timeoutMs: settings.timeoutMs, jobs: 1 }
  const summary = await runTrials(plan, context.control, onTrial)
  const side = (c: { trials: number; failures: number }, gapMs: number): Observation => ({ ...describeRate(c.failures, c.trials, confidence), gap_ms: gapMs })
  return { slow: side(counts.slow, settings.gapMs), paired: side(counts.paired, 0), complete: summary.complete }
}
