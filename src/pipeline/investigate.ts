import { randomInt } from 'node:crypto'
import { join } from 'node:path'
import type { ReportBundle } from '../artifacts/bundle.js'
import type { Fact, SummaryFile } from '../artifacts/schemas.js'
import { writeBundle } from '../artifacts/write-bundle.js'
import { assertWritable, removeFiles } from '../artifacts/write.js'
import type { InvestigateOptions } from '../config/options.js'
import { fractionFromCounts } from '../core/fraction.js'
import { hasNoRate } from '../core/verdict.js'
import type { PipelineContext } from './context.js'
import { analyzeFacts } from './facts.js'
import { measureCommand, type TrialSettings } from './measure.js'
import { compareInterleaved, toObservation } from './observe.js'
import { observeInterleaved } from './observe-trials.js'
import { MAX_ASSIGNMENT_SEED } from '../core/repetition.js'
import { buildRunsNeeded, choosePlanningBasis } from './plan.js'
import { decidePolicy } from './policy.js'
import { proveFix } from './proof.js'
import { writeReportFor } from './report.js'

/** The nine files of docs/contracts.md §3, as investigate names them in its folder. */
export const ARTIFACT_FILES = [
  'rate.json',
  'runs_needed.json',
  'facts.jsonl',
  'only_when_fail.json',
  'observer.json',
  'policy.json',
  'proof.json',
  'summary.json',
  'flaky_report.md',
] as const

export interface InvestigateResult {
  summary: SummaryFile
  /** False when Ctrl-C cut the sequence short; the report covers the steps that finished. */
  complete: boolean
  /** What the report was made from. */
  bundle: ReportBundle
}

/**
 * The whole sequence into one folder: measure (also collecting facts from the same trials), plan,
 * facts, observe (gapped trials against the measurement), policy, proof of the fixed command with
 * the planned number of runs, report. A non-idempotent (or undetermined) measurement stops after facts: its rate is
 * no probability, so there is nothing to plan, observe or prove from it (the report says why).
 */
export async function investigate(o: InvestigateOptions, context: PipelineContext): Promise<InvestigateResult> {
  const dir = o['out-dir']
  const path = (name: (typeof ARTIFACT_FILES)[number]): string => join(dir, name)
  assertWritable(path('rate.json'), '--out-dir')
  removeFiles(dir, ARTIFACT_FILES)
  const confidence = o.confidence
  const settings: TrialSettings = { command: o.cmd, trials: o.trials, gapMs: 0, timeoutMs: o['timeout-ms'] ?? null, jobs: o.jobs }
  const stopped = (): boolean => context.control.stop.aborted

  context.log(`measure: ${o.trials} trials of \`${o.cmd}\`, no gap`)
  const facts: Fact[] = []
  const rate = await measureCommand(settings, confidence.value, context, { rate: path('rate.json'), facts: path('facts.jsonl'), keptFacts: facts })
  // Each file is written as its step ends (a Ctrl-C keeps what finished); the report is made from
  // this bundle in memory, never from the files just written.
  const bundle: ReportBundle = { rate }
  if (stopped() || rate.trials === 0) return finish(dir, bundle, o, false)

  bundle.onlyWhenFail = analyzeFacts(facts)
  writeBundle(dir, { onlyWhenFail: bundle.onlyWhenFail })
  if (hasNoRate(rate.verdict)) {
    context.log(`${rate.verdict}: no plan, observation, policy or proof follows from a rate of trials that ${rate.verdict === 'undetermined' ? 'may not be' : 'are not'} independent`)
    return finish(dir, bundle, o, true)
  }
  const basis = choosePlanningBasis(rate)
  bundle.runsNeeded = buildRunsNeeded(basis, rate, confidence)
  const decided = decidePolicy(basis, fractionFromCounts(rate.failures, rate.trials), rate, confidence)
  const policy = rate.measured_under ? { ...decided, measured_under: rate.measured_under } : decided
  bundle.policy = policy
  writeBundle(dir, { runsNeeded: bundle.runsNeeded, policy })

  const seed = o.seed ?? randomInt(MAX_ASSIGNMENT_SEED)
  context.log(`observe: ${o['slow-trials']} trials with ${o['gap-ms']} ms before each, interleaved with as many fast ones (coin seed ${seed})`)
  const pairs = { command: o.cmd, pairs: o['slow-trials'], gapMs: o['gap-ms'], timeoutMs: o['timeout-ms'] ?? null, seed }
  const { slow, paired } = await observeInterleaved(pairs, confidence.value, context)
  if (stopped()) return finish(dir, bundle, o, false)
  bundle.observer = { ...compareInterleaved(o.cmd, toObservation(rate, confidence.value), paired, slow, confidence), assignment_seed: seed }
  writeBundle(dir, { observer: bundle.observer })

  context.log(`proof: ${policy.green_runs_required} runs of \`${o['fixed-cmd']}\``)
  const fixed = { ...settings, command: o['fixed-cmd'], trials: policy.green_runs_required }
  bundle.proof = await proveFix(fixed, path('policy.json'), confidence.value, context, path('proof.json'), { measured: rate.measured_under, strict: false })
  return finish(dir, bundle, o, bundle.proof.complete)
}

// --- internal ---

function finish(dir: string, bundle: ReportBundle, o: InvestigateOptions, complete: boolean): InvestigateResult {
  return { summary: writeReportFor(dir, bundle, o.lang), complete, bundle }
}
