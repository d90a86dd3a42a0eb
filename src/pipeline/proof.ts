import { type ProofFile, ProofFileSchema } from '../artifacts/schemas.js'
import { writeJsonAtomic } from '../artifacts/write.js'
import type { PipelineContext } from './context.js'
import { countTrials } from './count-trials.js'
import { describeRate } from '../core/rate.js'
import type { TrialSettings } from './measure.js'

/**
 * Runs the fixed command the required number of times and writes proof.json. It passes only when
 * every required run ran and none failed; a single pass proves nothing (docs/contracts.md §3). The interval
 * (what rate is still consistent with the proof runs) is at `confidence`.
 */
export async function proveFix(
  settings: TrialSettings,
  requiredFrom: string,
  confidence: number,
  context: PipelineContext,
  outPath: string,
): Promise<ProofFile> {
  const counts = await countTrials(settings, context, 'proof')
  return writeJsonAtomic(outPath, ProofFileSchema, {
    schema_version: 1,
    command: settings.command,
    required: settings.trials,
    required_from: requiredFrom,
    ...describeRate(counts.failures, counts.trials, confidence),
    confidence,
    passed: counts.failures === 0 && counts.trials >= settings.trials,
    failure_trials: counts.failureTrials,
    complete: counts.complete,
  })
}
