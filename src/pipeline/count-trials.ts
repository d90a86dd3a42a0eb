import { performance } from 'node:perf_hooks'
import { type Fact, FactSchema } from '../artifacts/schemas.js'
import { JsonLinesWriter } from '../artifacts/write.js'
import { signatureMatches, signatureOfCommandFailure } from '../core/signature.js'
import { type TrialPlan, type TrialRecord, runTrials } from '../runner/run-trials.js'
import type { PipelineContext } from './context.js'

export interface TrialCounts {
  trials: number
  failures: number
  timedOut: number
  failureTrials: number[]
  complete: boolean
  startedAt: Date
  durationMs: number
  /** `--signature`: failed trials of other signatures, by signature (not in `trials`). */
  others?: Map<string, number>
}

/**
 * Runs the plan, keeping counts (not outputs) in memory, and streams each trial to facts.jsonl as
 * it ends when `factsPath` is given; `keptFacts`, when given, also receives each fact (investigate
 * analyses the facts of its trials without reading back the file it just wrote). Warns once that parallel trials do not time like lone ones.
 */
export async function countTrials(
  plan: TrialPlan,
  context: PipelineContext,
  label: string,
  factsPath?: string,
  keptFacts?: Fact[],
  signature?: string,
): Promise<TrialCounts> {
  warnParallel(plan.jobs, context)
  const facts = factsPath === undefined ? undefined : new JsonLinesWriter(factsPath, FactSchema)
  const counts = { trials: 0, failures: 0, timedOut: 0, failureTrials: [] as number[] }
  const others = new Map<string, number>()
  let done = 0
  const started = performance.now()
  const onTrial = (record: TrialRecord): void => {
    done++
    const fact = toFact(record, plan.gapMs)
    // A failure of another signature is no trial of this measurement: kept in the facts, counted apart.
    const excluded = signature !== undefined && record.outcome === 'failed' && !signatureMatches(fact.signature ?? '', signature)
    if (excluded) others.set(fact.signature ?? '', (others.get(fact.signature ?? '') ?? 0) + 1)
    else {
      counts.trials++
      if (record.outcome === 'failed') {
        counts.failures++
        // With a filter, trials are renumbered among those counted, so the runs test reads their order.
        counts.failureTrials.push(signature === undefined ? record.trial : counts.trials)
      }
      if (record.timedOut) counts.timedOut++
    }
    const kept = excluded ? { ...fact, excluded: true as const } : fact
    facts?.append(kept)
    keptFacts?.push(kept)
    context.onProgress({ label, done, total: plan.trials, failures: counts.failures, elapsedMs: performance.now() - started })
  }
  try {
    const summary = await runTrials(plan, context.control, onTrial)
    counts.failureTrials.sort((a, b) => a - b)
    return { ...counts, complete: summary.complete, startedAt: summary.startedAt, durationMs: summary.durationMs, ...(signature === undefined ? {} : { others }) }
  } finally {
    facts?.close()
  }
}

/** Said once before parallel trials: their numbers are not those of the command run alone. */
export function warnParallel(jobs: number, context: PipelineContext): void {
  if (jobs > 1) {
    context.log(`--jobs ${jobs}: trials run in parallel, which changes their timing; a timing-dependent failure may show up more or less often than when the command runs alone.`)
  }
}

// --- internal ---

const round2 = (ms: number): number => Math.round(ms * 100) / 100

function toFact(record: TrialRecord, gapMs: number): Fact {
  return {
    trial: record.trial,
    exit_code: record.exitCode,
    outcome: record.outcome,
    elapsed_ms: round2(record.elapsedMs),
    stderr: record.stderr,
    stdout: record.stdout,
    signal: record.signal,
    timed_out: record.timedOut,
    started_at: record.startedAt.toISOString(),
    offset_ms: round2(record.offsetMs),
    gap_ms: gapMs,
    worker: record.worker,
    concurrent: record.concurrent,
    stdout_bytes: record.stdoutBytes,
    stderr_bytes: record.stderrBytes,
    // The command runs in this folder: its stack frames are named relative to it.
    ...(record.outcome === 'failed' ? { signature: signatureOfCommandFailure(record, process.cwd()) } : {}),
  }
}
