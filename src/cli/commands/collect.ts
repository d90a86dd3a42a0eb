import { assertWritable } from '../../artifacts/write.js'
import { COLLECT } from '../../config/options.js'
import { measureCommand } from '../../pipeline/measure.js'
import { defineCommand } from '../spec.js'
import { trialSettings } from './_flags.js'

export const collect = defineCommand({
  name: 'collect',
  summary: 'run a command N times and keep the evidence of every trial, one JSON line each',
  writes:
    'facts.jsonl, a line per trial as it ends: trial, exit_code, outcome, elapsed_ms, stderr, stdout, signal, timed_out, started_at, offset_ms, gap_ms, worker, concurrent, *_bytes',
  example: 'npx flakeproof collect --cmd "npm test" --trials 60 --out .flakeproof/facts.jsonl',
  ...COLLECT,
  async run(o, { print, context }) {
    assertWritable(o.out, '--out')
    const rate = await measureCommand(trialSettings(o, o.trials), o.confidence.value, context, { facts: o.out }, 'collect')
    const { command, trials, failures, rate: failureRate, ci_low, ci_high, complete } = rate
    print({ command, trials, failures, rate: failureRate, ci_low, ci_high, complete, out: o.out })
    return complete ? 0 : 130
  },
})
