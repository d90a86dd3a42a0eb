import { setMaxListeners } from 'node:events'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Outcome } from '../core/verdict.js'
import { type ProcessResult, runShellCommand } from './_spawn.js'

export interface TrialPlan {
  command: string
  trials: number
  /** Rest before each trial, the first included (nothing is known about what ran just before). */
  gapMs: number
  /** The rest before trial k when it differs per trial (gapped and fast trials interleaved); `gapMs` otherwise. */
  gapFor?: (trial: number) => number
  timeoutMs: number | null
  /** Trials at once. 1 keeps the timing of a lone run. */
  jobs: number
  /** The command of trial k when it differs per trial (`repeat` tells each run where to write its report); `command` otherwise. */
  commandFor?: (trial: number) => string
  /** Called just before trial k starts, after its gap (`repeat` moves the previous report aside); a throw stops the run like a failed `onTrial`. */
  beforeTrial?: (trial: number) => void
}

export interface RunControl {
  /** Start no new trial (first Ctrl-C): the running ones finish and count. */
  stop: AbortSignal
  /** Kill the running trials too (second Ctrl-C, SIGTERM, SIGHUP): they do not count. */
  abort: AbortSignal
  /**
   * The system refused to start a trial (EAGAIN, EMFILE, …). The run has already stopped, its
   * running trials killed; the caller decides what else to stop and how to exit.
   */
  onStartFailure: (error: Error) => void
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
  /** Every planned trial ran. */
  complete: boolean
  durationMs: number
  startedAt: Date
}

/**
 * Runs the plan's trials, `jobs` at a time, and hands each finished trial to `onTrial` at once (in
 * finishing order) so callers can stream evidence to disk instead of holding it. A trial fails on a
 * non-zero exit code, a signal or a timeout.
 *
 * A trial the system refuses to start is not a failure of the command: counting it would turn a
 * full process table into a failure rate. The run stops there instead, like a second Ctrl-C, and
 * `control.onStartFailure` is told. If `onTrial` throws (its evidence cannot be written), the run
 * stops the same way and the error is thrown once no trial is left running.
 */
export async function runTrials(
  plan: TrialPlan,
  control: RunControl,
  onTrial: (record: TrialRecord) => void,
): Promise<TrialRunSummary> {
  const startedAt = new Date()
  const origin = performance.now()
  const { stop, abort, halt, unlink } = linkControl(control, plan.jobs)
  let next = 1
  let running = 0
  let finished = 0
  let failure: { error: unknown } | undefined

  const worker = async (slot: number): Promise<void> => {
    while (!stop.aborted && next <= plan.trials) {
      const trial = next++
      const gapMs = plan.gapFor?.(trial) ?? plan.gapMs
      if (gapMs > 0) {
        try {
          await sleep(gapMs, undefined, { signal: stop })
        } catch {
          return
        }
      }
      try {
        plan.beforeTrial?.(trial)
      } catch (error) {
        failure ??= { error }
        halt()
        return
      }
      const offsetMs = performance.now() - origin
      const concurrent = running++
      const started = new Date()
      let result: ProcessResult
      try {
        result = await runShellCommand(plan.commandFor?.(trial) ?? plan.command, { timeoutMs: plan.timeoutMs, abort })
      } catch (error) {
        // After a first Ctrl-C the run is ending anyway; the trials still running may finish.
        if (!stop.aborted) {
          control.onStartFailure(error as Error)
          halt()
        }
        return
      } finally {
        running--
      }
      if (result.aborted) return
      finished++
      const failed = result.exitCode !== 0 || result.signal !== null || result.timedOut
      try {
        onTrial({ ...result, trial, outcome: failed ? 'failed' : 'passed', startedAt: started, offsetMs, worker: slot, concurrent })
      } catch (error) {
        failure ??= { error }
        halt()
        return
      }
    }
  }

  try {
    await Promise.all(Array.from({ length: Math.min(plan.jobs, plan.trials) }, (_, i) => worker(i + 1)))
  } finally {
    unlink()
  }
  if (failure) throw failure.error
  return { complete: finished === plan.trials, durationMs: performance.now() - origin, startedAt }
}

// --- internal ---

/**
 * The run's own stop and abort signals, following the caller's through one listener each. Every
 * running trial and every gap listens to them, up to `jobs` at once: Node warns past 10 listeners
 * (MaxListenersExceededWarning at --jobs 11), so the limit is set to what this run can reach.
 */
function linkControl(control: RunControl, jobs: number) {
  const stop = new AbortController()
  const abort = new AbortController()
  setMaxListeners(jobs + 1, stop.signal, abort.signal)
  const onStop = (): void => stop.abort()
  const onAbort = (): void => abort.abort()
  control.stop.addEventListener('abort', onStop, { once: true })
  control.abort.addEventListener('abort', onAbort, { once: true })
  if (control.stop.aborted) onStop()
  if (control.abort.aborted) onAbort()
  return {
    stop: stop.signal,
    abort: abort.signal,
    halt: (): void => {
      stop.abort()
      abort.abort()
    },
    unlink: (): void => {
      control.stop.removeEventListener('abort', onStop)
      control.abort.removeEventListener('abort', onAbort)
    },
  }
}
