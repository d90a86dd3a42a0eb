import { assertWritable, writeJsonAtomic } from '../../artifacts/write.js'
import * as z from '../../_zod.js'
import { PLAN } from '../../config/options.js'
import { computeRunsNeeded } from '../../core/planning.js'
import { buildRunsNeeded, choosePlanningBasis, explainUnplannable } from '../../pipeline/plan.js'
import { defineCommand } from '../spec.js'

export const plan = defineCommand({
  name: 'plan',
  summary: 'how many consecutive passes prove a fix: the smallest n with (1-p)^n <= 1-c, decided exactly',
  writes: 'runs_needed.json: observed_rate, basis, planned_rate, table [{confidence, runs}], chosen {confidence, runs}',
  example: ['npx flakeproof plan --from .flakeproof/rate.json --out .flakeproof/runs_needed.json', 'npx flakeproof plan --rate 0.05'],
  ...PLAN,
  async run(o, { print }) {
    if (o.out !== undefined) assertWritable(o.out, '--out')
    if (o.rate !== undefined) {
      const planned = computeRunsNeeded({ rate: o.rate.exact, confidence: o.confidence.exact })
      if (planned.kind !== 'planned') throw explainUnplannable(planned, o.rate.exact)
      if (o.out !== undefined) {
        const { RunsNeededFileSchema } = await artifactSchemas()
        const basis = { basis: 'observed' as const, rate: o.rate.exact, plannedRate: o.rate.value, note: null }
        writeJsonAtomic(o.out, RunsNeededFileSchema, buildRunsNeeded(basis, null, o.confidence))
      }
      print({ rate: o.rate.value, confidence: o.confidence.value, runs: planned.value })
      return 0
    }
    const from = o.from as string
    const [{ readJsonFile }, { RateFileSchema, RunsNeededFileSchema }] = await Promise.all([import('../../artifacts/read.js'), artifactSchemas()])
    const rate = readJsonFile(from, RateFileSchema, '--from', 'Pass a rate.json written by `flakeproof measure`.')
    const runsNeeded = buildRunsNeeded(choosePlanningBasis(rate, `--from ${from}`), rate, o.confidence)
    print(o.out === undefined ? RunsNeededFileSchema.parse(runsNeeded, z.ONE_PARSE) : writeJsonAtomic(o.out, RunsNeededFileSchema, runsNeeded))
    return 0
  },
})

/**
 * Every artifact's schema, loaded only when a file is read or written: `plan --rate 0.2`, the
 * start-up bench's command, prints its answer without building one (bench/startup.mjs).
 */
function artifactSchemas(): Promise<typeof import('../../artifacts/schemas.js')> {
  return import('../../artifacts/schemas.js')
}
