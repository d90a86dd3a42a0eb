import { decideAdviceFor, INDEPENDENCE_TEXT } from '../artifacts/independence-text.js'
import { type Fact, type RateFile, RateFileSchema } from '../artifacts/schemas.js'
import { writeRateFile } from '../artifacts/write-bundle.js'
import { complement, fractionFromNumber } from '../core/fraction.js'
import { groupedIndependence } from '../core/grouped-independence.js'
import { testIndependence } from '../core/independence.js'
import { computeVerdict, dependenceOf } from '../core/verdict.js'
import { describeRate } from '../core/rate.js'
import { zForConfidence } from '../core/wilson.js'
import type { PipelineContext } from './context.js'
import { countTrials, type TrialCounts } from './count-trials.js'
import { type SampledConditions, type SamplerSettings, whileSampling } from './run-conditions.js'
import type { MeasuredUnder, RunStress } from '../artifacts/conditions-schema.js'
import * as z from '../_zod.js'

export interface TrialSettings {
  command: string
  trials: number
  gapMs: number
  timeoutMs: number | null
  jobs: number
  /** `--signature`: count only failed trials whose signature matches; the others are reported apart. */
  signature?: string
}

/**
 * Runs the command `trials` times and returns rate.json's content; writes rate.json and streams
 * facts.jsonl when their paths are given (investigate measures and collects with the same trials).
 * The measurement proper (label `measure`) also says on stderr when its trials were not independent.
 */
export async function measureCommand(
  settings: TrialSettings,
  confidence: number,
  context: PipelineContext,
  paths: { rate?: string; facts?: string; keptFacts?: Fact[] },
  label = 'measure',
): Promise<RateFile> {
  const { result: counts, sampled } = await whileSampling(commandSampler(settings), () => countTrials(settings, context, label, paths.facts, paths.keptFacts, settings.signature))
  const rate = { ...buildRateFile(settings, confidence, counts), measured_under: commandMeasuredUnder(settings, sampled) }
  if (label === 'measure') explainIndependence(rate, context)
  return paths.rate === undefined ? RateFileSchema.parse(rate, z.ONE_PARSE) : writeRateFile(paths.rate, rate)
}

/**
 * rate.json from counted trials (also for `flakeproof merge`, from the sums of its folders, with
 * `folders` whether each counted trial failed, folder by folder: their order is read inside each
 * folder, groupedIndependence).
 */
export function buildRateFile(settings: TrialSettings, confidence: number, counts: TrialCounts, folders?: readonly (readonly boolean[])[]): RateFile {
  const alpha = complement(fractionFromNumber(confidence))
  // Overlapping trials (--jobs > 1) have no order to test: trial 7 may start before 6 ends.
  const independence =
    settings.jobs > 1 || counts.trials === 0
      ? null
      : folders && folders.length > 1
        ? groupedIndependence(folders, alpha)
        : testIndependence(counts.trials, counts.failureTrials, alpha)
  return {
    schema_version: 1,
    command: settings.command,
    ...describeRate(counts.failures, counts.trials, confidence),
    gap_ms: settings.gapMs,
    confidence,
    z: zForConfidence(confidence),
    verdict: computeVerdict(counts.failures, counts.trials, dependenceOf(independence)),
    timed_out: counts.timedOut,
    timeout_ms: settings.timeoutMs,
    jobs: settings.jobs,
    complete: counts.complete,
    requested_trials: settings.trials,
    started_at: counts.startedAt.toISOString(),
    duration_ms: Math.round(counts.durationMs),
    independence,
    ...(settings.signature === undefined ? {} : { signature_filter: settings.signature }),
    ...(counts.others && counts.others.size > 0 ? { other_failures: otherFailures(counts.others) } : {}),
  }
}

/** Where a command's run leaves its marker: the folder it runs in, and the command as what it runs. */
export function commandSampler(settings: TrialSettings): SamplerSettings {
  return { root: process.cwd(), runner: 'command', files: [settings.command] }
}

/**
 * The conditions of a command's measurement (docs/contracts.md §13.5): one run of `trials`, what it
 * met, and `--jobs` as its workers (every trial is a fresh process: no pool, no shared modules).
 */
export function commandMeasuredUnder(settings: TrialSettings, sampled: SampledConditions & { spinning?: number }): MeasuredUnder {
  return { rounds: 1, repeat: Math.max(1, settings.trials), conditions: ['base'], load_procs: null, shuffle: false, seeds: [], gap_ms: null, ...commandStress(settings, sampled) }
}

/** What a command's trials met: the sampled load and concurrent runs, and `--jobs` trials at once. */
export function commandStress(settings: TrialSettings, sampled: SampledConditions & { spinning?: number }): RunStress {
  return { ...sampled, workers: settings.jobs, pool: null, isolate: null }
}

/** The failures a signature filter left out, most frequent signature first. */
function otherFailures(others: ReadonlyMap<string, number>): NonNullable<RateFile['other_failures']> {
  const signatures = [...others].map(([signature, count]) => ({ signature, count })).sort((a, b) => b.count - a.count)
  return { count: signatures.reduce((sum, s) => sum + s.count, 0), signatures }
}

// --- internal ---

function explainIndependence(rate: RateFile, context: PipelineContext): void {
  const text = INDEPENDENCE_TEXT.en
  if (rate.jobs > 1) context.log(text.notTested(rate.jobs))
  else if (rate.verdict === 'non-idempotent' && rate.independence) {
    context.log(`non-idempotent: ${text.cause(rate.independence, 'trial')} ${text.freshEnvironment(rate.command)}`)
  } else if (rate.verdict === 'undetermined' && rate.independence) {
    const decide = decideAdviceFor(text, { runner: 'command' }, { command: rate.command, switchAt: rate.independence.switch_at, trials: rate.trials })
    context.log(`undetermined: ${text.undetermined(rate.independence, 'trial')} ${decide}`)
  }
}
