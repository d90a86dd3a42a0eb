import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Outcome } from '../core/verdict.js'
import { type ProcessResult, runShellCommand } from './_spawn.js'

export interface TrialPlan {
  command: string
  trials: number
  /** Rest before each trial, the first included (nothing is known about what ran just before). */
  gapMs: number
  timeoutMs: number | null
  /** Trials at once. 1 keeps the timing of a lone run. */
  jobs: number
}

export interface RunControl {
  /** Start no new trial (first Ctrl-C): the running ones finish and count. */
  stop: AbortSignal
  /** Kill the running trials too (second Ctrl-C): they do not count. */
  abort: AbortSignal
}

export interface TrialRecord extends ProcessResult {
  trial: number
  outcome: Outcome
  startedAt: Date
  /** Start, in ms after the run began (monotonic clock). */
  offsetMs: number
  worker: number
  /** Other trials running when this one started. */
  concurrent: number
}

export interface TrialRunSummary {
  finished: number
  complete: boolean
  durationMs: number
  startedAt: Date
}

/**
 * Runs the plan's trials, `jobs` at a time, and hands each finished trial to `onTrial` at once (in
 * finishing order) so callers can stream evidence to disk instead of holding it. A trial fails on a
 * non-zero exit code, a signal or a timeout.
 */
export async function runTrials(
  plan: TrialPlan,
  control: RunControl,
  onTrial: (record: TrialRecord) => void,
): Promise<TrialRunSummary> {
  const startedAt = new Date()
  const origin = performance.now()
  let next = 1
  let running = 0
  let finished = 0

  const worker = async (slot: number): Promise<void> => {
    while (!control.stop.aborted && next <= plan.trials) {
      const trial = next++
      if (plan.gapMs > 0) {
        try {
          await sleep(plan.gapMs, undefined, { signal: control.stop })
        } catch {
          return
        }
      }
      const offsetMs = performance.now() - origin
      const concurrent = running++
      const started = new Date()
      const result = await runShellCommand(plan.command, { timeoutMs: plan.timeoutMs, abort: control.abort })
      running--
      if (result.aborted) return
      finished++
      const failed = result.exitCode !== 0 || result.signal !== null || result.timedOut
      onTrial({ ...result, trial, outcome: failed ? 'failed' : 'passed', startedAt: started, offsetMs, worker: slot, concurrent })
    }
  }

  await Promise.all(Array.from({ length: Math.min(plan.jobs, plan.trials) }, (_, i) => worker(i + 1)))
  return { finished, complete: finished === plan.trials, durationMs: performance.now() - origin, startedAt }
}
