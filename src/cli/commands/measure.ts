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
    const settings = { ...trialSettings(o, o.trials), ...(o.signature === undefined ? {} : { signature: o.signature }) }
    const rate = await measureCommand(settings, o.confidence.value, context, { rate: o.out })
    const others = rate.other_failures
    if (others) context.log(`other failures: ${others.count}, signatures ${others.signatures.map((s) => `\`${s.signature}\` ${s.count}×`).join(', ')} (not counted: --signature ${JSON.stringify(o.signature)})`)
    print(rate)
    publishCommandResult({ rate })
    return rate.complete ? 0 : 130
  },
})
