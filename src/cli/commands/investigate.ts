import { join } from 'node:path'
import { INVESTIGATE } from '../../config/options.js'
import { investigate as runInvestigation } from '../../pipeline/investigate.js'
import { defineCommand } from '../spec.js'
import { publishCommandResult } from './_github.js'

export const investigate = defineCommand({
  name: 'investigate',
  summary: 'measure → plan → collect → facts → observe → policy → proof → report, into one folder',
  writes: 'rate.json, runs_needed.json, facts.jsonl, only_when_fail.json, observer.json, policy.json, proof.json, summary.json, flaky_report.md, report.html',
  example: 'npx flakeproof investigate --cmd "npm test" --fixed-cmd "npm test"',
  ...INVESTIGATE,
  async run(o, { print, context }) {
    const { summary, complete, bundle } = await runInvestigation(o, context)
    print(summary)
    publishCommandResult(bundle)
    context.log(`report: ${join(o['out-dir'], 'report.html')}`)
    if (!complete) return 130
    // Nothing was proven, and the subject fails: a negative verdict, explained on stderr by measure.
    if (summary.verdict === 'non-idempotent' || summary.verdict === 'undetermined') return 1
    if (summary.proof_passed === false) context.log(`proof FAILED: ${summary.proof_failures} of ${summary.proof_trials} runs of the fixed command failed`)
    return summary.proof_passed ? 0 : 1
  },
})
