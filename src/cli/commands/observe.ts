import { randomInt } from 'node:crypto'
import { readJsonFile } from '../../artifacts/read.js'
import { ObserverFileSchema, RateFileSchema } from '../../artifacts/schemas.js'
import { assertWritable, writeJsonAtomic } from '../../artifacts/write.js'
import { OBSERVE } from '../../config/options.js'
import { measureCommand } from '../../pipeline/measure.js'
import { compareInterleaved, toObservation } from '../../pipeline/observe.js'
import { observeInterleaved } from '../../pipeline/observe-trials.js'
import { MAX_ASSIGNMENT_SEED } from '../../core/repetition.js'
import { defineCommand } from '../spec.js'

export const observe = defineCommand({
  name: 'observe',
  summary: 'gapped trials interleaved with fast ones, a seeded coin ordering each pair, compared (Fisher exact test): does slowing down hide it?',
  writes: 'observer.json: fast {trials, failures, rate, ci_low, ci_high, gap_ms}, slow {…}, paired {…}, p_value, paired_p_value, drift_p_value, changed, assignment_seed, note',
  example: 'npx flakeproof observe --cmd "npm test" --fast .flakeproof/rate.json --slow-trials 20 --gap-ms 2000 --out .flakeproof/observer.json',
  ...OBSERVE,
  async run(o, { print, context }) {
    const given = o.fast === undefined ? undefined : readJsonFile(o.fast, RateFileSchema, '--fast', 'Pass a rate.json written by `flakeproof measure`.')
    assertWritable(o.out, '--out')
    if (given && given.command !== o.cmd) context.log(`--fast ${o.fast} measured \`${given.command}\`, not \`${o.cmd}\`; comparing anyway.`)
    const base = { command: o.cmd, timeoutMs: o['timeout-ms'] ?? null, jobs: 1 }
    const fast = given ?? (await measureCommand({ ...base, trials: o['fast-trials'], gapMs: 0 }, o.confidence.value, context, {}, 'fast'))
    if (given === undefined && !fast.complete) return 130
    const seed = o.seed ?? randomInt(MAX_ASSIGNMENT_SEED)
    const pairs = { command: o.cmd, pairs: o['slow-trials'], gapMs: o['gap-ms'], timeoutMs: o['timeout-ms'] ?? null, seed }
    const { slow, paired, complete } = await observeInterleaved(pairs, o.confidence.value, context, 'slow')
    if (!complete) return 130
    const observer = compareInterleaved(o.cmd, toObservation(fast, o.confidence.value), paired, slow, o.confidence)
    print(writeJsonAtomic(o.out, ObserverFileSchema, { ...observer, assignment_seed: seed }))
    return 0
  },
})
