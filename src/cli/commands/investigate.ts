import { join } from 'node:path'
import { InvestigateOptionsSchema } from '../../config/options.js'
import { investigate as runInvestigation } from '../../pipeline/investigate.js'
import { defineCommand } from '../spec.js'
import { FLAGS } from './_flags.js'

export const investigate = defineCommand({
  name: 'investigate',
  summary: 'measure → plan → collect → facts → observe → policy → proof → report, into one folder',
  usage: '--cmd "<shell command>" --fixed-cmd "<fixed command>" [--trials 200] [--slow-trials 20] [--gap-ms 2000] [--out-dir .flakeproof]',
  flags: [
    FLAGS.cmd,
    { name: 'fixed-cmd', value: '"<fixed command>"', description: 'the fixed version, proven with the planned number of runs (required)' },
    { ...FLAGS.trials, description: 'fast trials to measure and collect (default 200)' },
    { name: 'slow-trials', value: '<n>', description: 'gapped trials for the observer comparison (default 20)' },
    { name: 'gap-ms', value: '<ms>', description: 'rest before each gapped trial (default 2000)' },
    FLAGS.timeoutMs,
    FLAGS.jobs,
    FLAGS.confidence,
    { name: 'out-dir', value: '<dir>', description: 'where all files go (default .flakeproof); earlier results there are replaced', output: 'folder' },
    { name: 'lang', value: '<en|ko>', description: 'language of flaky_report.md (default en)' },
  ],
  writes: 'rate.json, runs_needed.json, facts.jsonl, only_when_fail.json, observer.json, policy.json, proof.json, summary.json, flaky_report.md, report.html',
  example: 'flakeproof investigate --cmd "node examples/lab/job.js" --fixed-cmd "node examples/lab/job.js --fixed"',
  schema: InvestigateOptionsSchema,
  async run(o, { print, context }) {
    const { summary, complete } = await runInvestigation(o, context)
    print(summary)
    context.log(`report: ${join(o['out-dir'], 'report.html')}`)
    if (!complete) return 130
    // Nothing was proven, and the subject fails: a negative verdict, explained on stderr by measure.
    if (summary.verdict === 'non-idempotent') return 1
    if (summary.proof_passed === false) context.log(`proof FAILED: ${summary.proof_failures} of ${summary.proof_trials} runs of the fixed command failed`)
    return summary.proof_passed ? 0 : 1
  },
})
