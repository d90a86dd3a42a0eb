import { join } from 'node:path'
import { expandMergeInputs, readMergeSource } from '../../artifacts/merge-source.js'
import { FactSchema } from '../../artifacts/schemas.js'
import { TestFactSchema } from '../../artifacts/test-schemas.js'
import { writeBundle } from '../../artifacts/write-bundle.js'
import { assertWritable, JsonLinesWriter, removeFiles } from '../../artifacts/write.js'
import { MERGE } from '../../config/options.js'
import { mergeRuns } from '../../pipeline/merge.js'
import { writeReportFor } from '../../pipeline/report.js'
import { defineCommand } from '../spec.js'
import { RESULT_FILES } from './_replaced.js'


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
    const merged = mergeRuns(dirs.map(readMergeSource))
    assertWritable(join(o.out, 'rate.json'), '--out')
    removeFiles(o.out, RESULT_FILES)
    const path = join(o.out, 'facts.jsonl')
    if (merged.kind === 'test') writeLines(new JsonLinesWriter(path, TestFactSchema), merged.facts)
    else writeLines(new JsonLinesWriter(path, FactSchema), merged.facts)
    writeBundle(o.out, merged.bundle)
    print(writeReportFor(o.out, merged.bundle, o.lang))
    context.log(`merged ${dirs.length} folder(s): ${dirs.join(', ')}`)
    return 0
  },
})

// --- internal ---

function writeLines<T>(writer: { appendAll: (lines: readonly T[]) => void; close: () => void }, lines: readonly T[]): void {
  try {
    writer.appendAll(lines)
  } finally {
    writer.close()
  }
}
