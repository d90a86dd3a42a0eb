import { readJsonFile } from '../../artifacts/read.js'
import { PolicyFileSchema, RateFileSchema } from '../../artifacts/schemas.js'
import { assertWritable, writeJsonAtomic } from '../../artifacts/write.js'
import { POLICY } from '../../config/options.js'
import { fractionFromCounts } from '../../core/fraction.js'
import { choosePlanningBasis, explainUnplannable } from '../../pipeline/plan.js'
import { decidePolicy } from '../../pipeline/policy.js'
import { defineCommand } from '../spec.js'

export const policy = defineCommand({
  name: 'policy',
  summary: 'retry budget, quarantine threshold and green runs required, calculated from the rate',
  writes:
    'policy.json: observed_rate, confidence, green_runs_required, retry_budget (smallest r with p^(r+1) <= 0.01), quarantine_after, notes',
  example: 'flakeproof policy --from .flakeproof/rate.json --out .flakeproof/policy.json',
  ...POLICY,
  async run(o, { print }) {
    let decided
    if (o.rate !== undefined) {
      const { exact, value } = o.rate
      if (exact.num === 0n) throw explainUnplannable({ kind: 'no-failures' }, exact)
      if (exact.num === exact.den) throw explainUnplannable({ kind: 'always-fails' }, exact)
      assertWritable(o.out, '--out')
      decided = decidePolicy({ basis: 'observed', rate: exact, plannedRate: value, note: null }, exact, null, o.confidence)
    } else {
      const from = o.from as string
      const rate = readJsonFile(from, RateFileSchema, '--from', 'Pass a rate.json written by `flakeproof measure`.')
      assertWritable(o.out, '--out')
      decided = decidePolicy(choosePlanningBasis(rate, `--from ${from}`), fractionFromCounts(rate.failures, rate.trials), rate, o.confidence)
    }
    print(writeJsonAtomic(o.out, PolicyFileSchema, decided))
    return 0
  },
})
