import { join } from 'node:path'
import type { z } from 'zod'
import type { ReportBundle } from '../../artifacts/bundle.js'
import { assertOutsideInputs, expandMergeInputs, readMergeSource } from '../../artifacts/merge-source.js'
import { type Fact, FactSchema } from '../../artifacts/schemas.js'
import { type TestFact, TestFactSchema } from '../../artifacts/test-schemas.js'
import { writeBundle } from '../../artifacts/write-bundle.js'
import { assertWritable, JsonLinesWriter, removeFiles } from '../../artifacts/write.js'
import { MERGE } from '../../config/options.js'
import { assertMergeable, mergeRuns } from '../../pipeline/merge.js'
import { writeReportFor } from '../../pipeline/report.js'
import { defineCommand } from '../spec.js'
import { RESULT_FILES } from '../../artifacts/write-bundle.js'

export const merge = defineCommand({
  name: 'merge',
  summary: 'add up the output folders of shards or CI matrix jobs exactly, and recompute intervals, plans and policy from the sums',
  usage: '<dir|glob>... --out <dir> [--lang <en|ko>]',
  positionals: 'inputs',
  writes: 'rate.json, runs_needed.json, only_when_fail.json, policy.json, facts.jsonl (each line with its origin folder), summary.json, flaky_report.md, report.html in --out',
  example: 'flakeproof merge "shards/*/.flakeproof" --out merged',
  ...MERGE,
  async run(o, { print, context }) {
    const dirs = expandMergeInputs(o.inputs)
    assertOutsideInputs(o.out, dirs)
    const sources = dirs.map(readMergeSource)
    assertMergeable(sources)
    assertWritable(join(o.out, 'rate.json'), '--out')
    removeFiles(o.out, RESULT_FILES)
    const schema: z.ZodType<TestFact | Fact> = sources[0]?.kind === 'test' ? TestFactSchema : FactSchema
    const facts = new JsonLinesWriter(join(o.out, 'facts.jsonl'), schema)
    let bundle: ReportBundle
    try {
      bundle = mergeRuns(sources, (lines) => facts.appendAll(lines))
    } finally {
      facts.close()
    }
    writeBundle(o.out, bundle)
    print(writeReportFor(o.out, bundle, o.lang))
    context.log(`merged ${dirs.length} folder(s): ${dirs.join(', ')}`)
    return 0
  },
})
