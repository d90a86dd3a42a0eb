import { readJsonFile } from '../../artifacts/read.js'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { MeasuredUnder } from '../../artifacts/conditions-schema.js'
import { PolicyFileSchema, RateFileSchema, RunsNeededFileSchema } from '../../artifacts/schemas.js'
import { assertWritable } from '../../artifacts/write.js'
import { PROOF, type ProofOptions } from '../../config/options.js'
import { proveFix } from '../../pipeline/proof.js'
import { defineCommand } from '../spec.js'
import { trialSettings } from './_flags.js'
import { publishCommandResult } from './_github.js'

export const proof = defineCommand({
  name: 'proof',
  summary: 'run the fixed command the required number of times; exit 1 unless every run passed',
  writes: 'proof.json: command, required, trials, failures, passed, failure_trials (exit 1 unless failures = 0 and trials >= required)',
  example: 'npx flakeproof proof --cmd "npm test" --plan .flakeproof/runs_needed.json --out .flakeproof/proof.json',
  ...PROOF,
  async run(o, { print, context }) {
    const { required, from, confidence, measured } = requiredRuns(o)
    assertWritable(o.out, '--out')
    const stress = { measured, strict: o.strict, loadProcs: o['load-procs'] }
    const result = await proveFix(trialSettings(o, required), from, o.confidence?.value ?? confidence, context, o.out, stress)
    print(result)
    publishCommandResult({ proof: result })
    if (!result.complete) return 130
    for (const w of result.weaker ?? []) context.log(`weaker than the measurement: ${w.note}`)
    if (result.failures > 0) context.log(`proof FAILED: ${result.failures} of ${result.trials} runs failed (trials ${result.failure_trials.join(', ')})`)
    else if (!result.passed) context.log('proof FAILED: weaker than the measurement (above), and --strict')
    return result.passed ? 0 : 1
  },
})

// --- internal ---

/**
 * Required runs, where they came from, the confidence they were planned at, and the conditions of
 * the measurement they came from (policy.json's, or the rate.json beside runs_needed.json).
 */
function requiredRuns(o: ProofOptions): { required: number; from: string; confidence: number; measured?: MeasuredUnder | undefined } {
  if (o.runs !== undefined) return { required: o.runs, from: '--runs', confidence: 0.95 }
  if (o.plan !== undefined) {
    const plan = readJsonFile(o.plan, RunsNeededFileSchema, '--plan', 'Pass a runs_needed.json written by `flakeproof plan`.')
    const rate = join(dirname(o.plan), 'rate.json')
    const measured = existsSync(rate) ? readJsonFile(rate, RateFileSchema, '--plan', 'Its rate.json beside it is the measurement it was planned from.').measured_under : undefined
    return { required: plan.chosen.runs, from: o.plan, confidence: plan.chosen.confidence, measured }
  }
  const policy = readJsonFile(o.policy as string, PolicyFileSchema, '--policy', 'Pass a policy.json written by `flakeproof policy`.')
  return { required: policy.green_runs_required, from: o.policy as string, confidence: policy.confidence, measured: policy.measured_under }
}
