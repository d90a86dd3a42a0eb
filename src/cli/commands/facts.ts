import { readFactsFile } from '../../artifacts/read.js'
import { OnlyWhenFailFileSchema } from '../../artifacts/schemas.js'
import { assertWritable, writeJsonAtomic } from '../../artifacts/write.js'
import { FACTS } from '../../config/options.js'
import { analyzeFacts } from '../../pipeline/facts.js'
import { defineCommand } from '../spec.js'

export const facts = defineCommand({
  name: 'facts',
  summary: 'what is true only in failing trials: exit codes, a discriminating token, ranked predicates',
  writes:
    'only_when_fail.json: trials, failures, exit_codes_on_failure, exit_codes_on_success, token, token_candidates, failure_trials, predicates',
  example: 'npx flakeproof facts --in .flakeproof/facts.jsonl --out .flakeproof/only_when_fail.json',
  ...FACTS,
  async run(o, { print }) {
    const evidence = readFactsFile(o.in, '--in')
    assertWritable(o.out, '--out')
    print(writeJsonAtomic(o.out, OnlyWhenFailFileSchema, analyzeFacts(evidence)))
    return 0
  },
})
