import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { CommittedPolicySchema } from '../../artifacts/committed-policy-schema.js'
import { readHistoryRunsIfAny } from '../../artifacts/history.js'
import { readJsonFile } from '../../artifacts/read.js'
import { ProofFileSchema, RateFileSchema } from '../../artifacts/schemas.js'
import { EXPLAIN } from '../../config/options.js'
import { explainTest, findTest, storyLines } from '../../pipeline/explain.js'
import { defineCommand } from '../spec.js'

export const DEFAULT_HISTORY = '.flakeproof/history/*.jsonl'
export const DEFAULT_POLICY = 'flakeproof.policy.json'

export const explain = defineCommand({
  name: 'explain',
  summary: "one test's story: everyday runs by branch and over time, its failure signatures, policy and quarantine, last measurement and proof, and what to run next",
  usage: '<test id or part of it> [--dir <dir>] [--history "<glob>"] [--policy <file>] [--confidence <c>]',
  positionals: 'query',
  writes: 'nothing; the story as JSON on stdout, as lines on stderr',
  example: 'flakeproof explain "reads the cached price"',
  ...EXPLAIN,
  async run(o, { print, context }) {
    const dir = o.dir ?? '.flakeproof'
    const policyPath = o.policy ?? DEFAULT_POLICY
    const read = <T>(path: string, load: () => T): T | undefined => (existsSync(path) ? load() : undefined)
    const hint = 'Re-run the step that writes it, or remove the file.'
    const policy = read(policyPath, () => readJsonFile(policyPath, CommittedPolicySchema, '--policy', hint))
    const { runs, duplicates } = readHistoryRunsIfAny([o.history ?? DEFAULT_HISTORY])
    if (duplicates.length > 0) context.log(`history: each run counted once: ${duplicates.join('; ')}`)
    const sources = {
      runs,
      policy: policy ? { path: policyPath, tests: policy.tests } : undefined,
      rate: read(join(dir, 'rate.json'), () => readJsonFile(join(dir, 'rate.json'), RateFileSchema, '--dir', hint)),
      proof: read(join(dir, 'proof.json'), () => readJsonFile(join(dir, 'proof.json'), ProofFileSchema, '--dir', hint)),
      dir,
      confidence: o.confidence.value,
    }
    const story = explainTest(findTest(o.query[0] as string, sources), sources)
    print(story)
    for (const line of storyLines(story)) context.log(line)
    return 0
  },
})
