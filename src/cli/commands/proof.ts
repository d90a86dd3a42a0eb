import { readJsonFile } from '../../artifacts/read.js'
import { PolicyFileSchema, RunsNeededFileSchema } from '../../artifacts/schemas.js'
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
    const { required, from, confidence } = requiredRuns(o)
    assertWritable(o.out, '--out')
    const result = await proveFix(trialSettings(o, required), from, o.confidence?.value ?? confidence, context, o.out)
    print(result)
    publishCommandResult({ proof: result })
    if (!result.complete) return 130
    if (!result.passed) context.log(`proof FAILED: ${result.failures} of ${result.trials} runs failed (trials ${result.failure_trials.join(', ')})`)
    return result.passed ? 0 : 1
  },
})

// --- internal ---

/** Required runs, where they came from, and the confidence they were planned at. */
function requiredRuns(o: ProofOptions): { required: number; from: string; confidence: number } {
  if (o.runs !== undefined) return { required: o.runs, from: '--runs', confidence: 0.95 }
  if (o.plan !== undefined) {
    const plan = readJsonFile(o.plan, RunsNeededFileSchema, '--plan', 'Pass a runs_needed.json written by `flakeproof plan`.')
    return { required: plan.chosen.runs, from: o.plan, confidence: plan.chosen.confidence }
  }
  const policy = readJsonFile(o.policy as string, PolicyFileSchema, '--policy', 'Pass a policy.json written by `flakeproof policy`.')
  return { required: policy.green_runs_required, from: o.policy as string, confidence: policy.confidence }
}
