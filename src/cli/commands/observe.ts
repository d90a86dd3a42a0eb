import { readJsonFile } from '../../artifacts/read.js'
import { ObserverFileSchema, RateFileSchema } from '../../artifacts/schemas.js'
import { assertWritable, writeJsonAtomic } from '../../artifacts/write.js'
import { OBSERVE } from '../../config/options.js'
import { measureCommand } from '../../pipeline/measure.js'
import { compareObservations, toObservation } from '../../pipeline/observe.js'
import { defineCommand } from '../spec.js'

export const observe = defineCommand({
  name: 'observe',
  summary: 'measure again with gaps and compare gapped vs fast (Fisher exact test): does slowing down hide it?',
  writes: 'observer.json: fast {trials, failures, rate, ci_low, ci_high, gap_ms}, slow {…}, p_value, changed, note',
  example: 'npx flakeproof observe --cmd "npm test" --fast .flakeproof/rate.json --slow-trials 20 --gap-ms 2000 --out .flakeproof/observer.json',
  ...OBSERVE,
  async run(o, { print, context }) {
    const given = o.fast === undefined ? undefined : readJsonFile(o.fast, RateFileSchema, '--fast', 'Pass a rate.json written by `flakeproof measure`.')
    assertWritable(o.out, '--out')
    if (given && given.command !== o.cmd) context.log(`--fast ${o.fast} measured \`${given.command}\`, not \`${o.cmd}\`; comparing anyway.`)
    const base = { command: o.cmd, timeoutMs: o['timeout-ms'] ?? null, jobs: 1 }
    const fast = given ?? (await measureCommand({ ...base, trials: o['fast-trials'], gapMs: 0 }, o.confidence.value, context, {}, 'fast'))
    if (given === undefined && !fast.complete) return 130
    const slow = await measureCommand({ ...base, trials: o['slow-trials'], gapMs: o['gap-ms'] }, o.confidence.value, context, {}, 'slow')
    if (!slow.complete) return 130
    const observer = compareObservations(o.cmd, toObservation(fast, o.confidence.value), toObservation(slow, o.confidence.value), o.confidence)
    print(writeJsonAtomic(o.out, ObserverFileSchema, observer))
    return 0
  },
})
