import { type ProofFile, ProofFileSchema } from '../artifacts/schemas.js'
import { writeJsonAtomic } from '../artifacts/write.js'
import type { PipelineContext } from './context.js'
import { countTrials } from './count-trials.js'
import { describeRate } from '../core/rate.js'
import { commandSampler, commandStress, type TrialSettings } from './measure.js'
import { whileSampling } from './run-conditions.js'
import type { MeasuredUnder } from '../artifacts/conditions-schema.js'
import { describeWeakness, weakerConditions } from '../core/proof-strength.js'

/** What a command's proof is compared with, and how hard it is made (docs/contracts.md §13.5). */
export interface ProofStress {
  /** The measurement's conditions (policy.json's measured_under, or the rate.json beside runs_needed.json). */
  measured?: MeasuredUnder | undefined
  /** A weaker proof fails (`--strict`). */
  strict: boolean
  /** Processes kept spinning for the whole proof (`--load-procs`). */
  loadProcs?: number | undefined
}

/**
 * Runs the fixed command the required number of times and writes proof.json. It passes only when
 * every required run ran and none failed; a single pass proves nothing (docs/contracts.md §3). The interval
 * (what rate is still consistent with the proof runs) is at `confidence`. A proof under less stress
 * than its measurement (fewer --jobs or concurrent runs, less load per CPU) says so in `weaker`, and
 * fails when strict.
 */
export async function proveFix(
  settings: TrialSettings,
  requiredFrom: string,
  confidence: number,
  context: PipelineContext,
  outPath: string,
  stress: ProofStress = { strict: false },
): Promise<ProofFile> {
  const { result: counts, sampled } = await whileSampling(commandSampler(settings), () => countTrials(settings, context, 'proof'), stress.loadProcs)
  const ran = commandStress(settings, sampled)
  const weaker = weakerConditions(stress.measured, ran).map((w) => ({ ...w, note: describeWeakness(w, ran, (procs) => `--load-procs ${procs}`) }))
  return writeJsonAtomic(outPath, ProofFileSchema, {
    schema_version: 1,
    command: settings.command,
    required: settings.trials,
    required_from: requiredFrom,
    ...describeRate(counts.failures, counts.trials, confidence),
    confidence,
    passed: counts.failures === 0 && counts.trials >= settings.trials && !(stress.strict && weaker.length > 0),
    failure_trials: counts.failureTrials,
    complete: counts.complete,
    ran_under: ran,
    weaker,
    strict: stress.strict,
  })
}
