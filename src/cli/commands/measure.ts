import { assertWritable } from '../../artifacts/write.js'
import { MEASURE } from '../../config/options.js'
import { measureCommand } from '../../pipeline/measure.js'
import { defineCommand } from '../spec.js'
import { trialSettings } from './_flags.js'
import { publishCommandResult } from './_github.js'

export const measure = defineCommand({
  name: 'measure',
  summary: 'run a command N times; write its failure rate with the trial count and a Wilson interval',
  writes: 'rate.json: command, trials, failures, rate, ci_low, ci_high, gap_ms, verdict, complete, …',
  example: 'npx flakeproof measure --cmd "npm test" --trials 200 --out .flakeproof/rate.json',
  ...MEASURE,
  async run(o, { print, context }) {
    assertWritable(o.out, '--out')
    const rate = await measureCommand(trialSettings(o, o.trials), o.confidence.value, context, { rate: o.out })
    print(rate)
    publishCommandResult({ rate })
    return rate.complete ? 0 : 130
  },
})
