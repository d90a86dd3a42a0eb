import { existsSync } from 'node:fs'
import { CommittedPolicySchema } from '../../artifacts/committed-policy-schema.js'
import { readJsonFile } from '../../artifacts/read.js'
import { PolicyFileSchema, type RateFile, RateFileSchema } from '../../artifacts/schemas.js'
import { assertWritable, writeJsonAtomic } from '../../artifacts/write.js'
import { POLICY } from '../../config/options.js'
import { fractionFromCounts } from '../../core/fraction.js'
import { hintsFor } from '../../core/hints.js'
import { choosePlanningBasis, explainUnplannable } from '../../pipeline/plan.js'
import { mergeMeasurement } from '../../pipeline/committed-policy.js'
import { decidePolicy } from '../../pipeline/policy.js'
import { FlakeproofError } from '../../errors.js'
import { defineCommand } from '../spec.js'

export const policy = defineCommand({
  name: 'policy',
  summary: 'retry budget, quarantine threshold and green runs required, calculated from the rate',
  writes:
    'policy.json: observed_rate, confidence, green_runs_required, retry_budget (smallest r with p^(r+1) <= 0.01), quarantine_after, notes; with --write, the committed policy: per flaky test its rate, interval, retry_budget, quarantine_after, green_runs_required, failed_runs, quarantine',
  example: ['npx flakeproof policy --from .flakeproof/rate.json --out .flakeproof/policy.json', 'npx flakeproof policy --from .flakeproof/rate.json --write flakeproof.policy.json'],
  ...POLICY,
  async run(o, { print }) {
    let decided
    // The option schema makes --out present whenever --write is not.
    const out = o.out as string
    if (o.rate !== undefined) {
      const { exact, value } = o.rate
      if (exact.num === 0n) throw explainUnplannable({ kind: 'no-failures' }, exact)
      if (exact.num === exact.den) throw explainUnplannable({ kind: 'always-fails' }, exact)
      assertWritable(out, '--out')
      decided = decidePolicy({ basis: 'observed', rate: exact, plannedRate: value, note: null }, exact, null, o.confidence)
    } else {
      const from = o.from as string
      const rate = readJsonFile(from, RateFileSchema, '--from', 'Pass a rate.json written by `flakeproof measure`.')
      if (o.write !== undefined) {
        const written = writeCommitted(o.write, rate, from)
        if (o.out === undefined) {
          print(written)
          return 0
        }
      }
      assertWritable(out, '--out')
      const policy = decidePolicy(choosePlanningBasis(rate, `--from ${from}`), fractionFromCounts(rate.failures, rate.trials), rate, o.confidence)
      // The measurement's conditions go with its numbers: a proof of this policy is compared with them.
      decided = rate.measured_under ? { ...policy, measured_under: rate.measured_under } : policy
    }
    print(writeJsonAtomic(out, PolicyFileSchema, decided))
    return 0
  },
})

/**
 * `--write`: merges a Vitest measurement into the committed policy (docs/contracts.md §9). With
 * `--out` too, that file is written afterwards from the same measurement and is what is printed.
 */
function writeCommitted(path: string, rate: RateFile, from: string): { written: string; added: string[]; updated: string[]; kept: string[]; tests: number } {
  if (rate.tests === undefined) {
    throw new FlakeproofError(`--from ${from} measured a command, not tests; --write lists tests, so pass the rate.json of a test run (${hintsFor({ runner: 'vitest', form: 'wrapper' }).again('--flaky-repeat 200')}, or ${hintsFor({ runner: 'jest' }).again('--flaky-repeat 200')})`, 'E_INPUT')
  }
  const existing = existsSync(path) ? readJsonFile(path, CommittedPolicySchema, '--write', 'Fix or remove the file; `flakeproof schema committed_policy` prints its schema.') : null
  assertWritable(path, '--write')
  const { policy, added, updated, kept } = mergeMeasurement(existing, rate, `--from ${from}`)
  writeJsonAtomic(path, CommittedPolicySchema, policy)
  return { written: path, added, updated, kept, tests: Object.keys(policy.tests).length }
}
