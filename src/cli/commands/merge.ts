import { join } from 'node:path'
import type * as z from '../../_zod.js'
import type { ReportBundle } from '../../artifacts/bundle.js'
import { assertOutsideInputs, countEachRunOnce, expandMergeInputs, type MergeSource, readMergeSource } from '../../artifacts/merge-source.js'
import { type Fact, FactSchema } from '../../artifacts/schemas.js'
import { type TestFact, TestFactSchema } from '../../artifacts/test-schemas.js'
import { HeldSummaries } from '../../artifacts/html-held.js'
import type { FactsRange } from '../../artifacts/html-read.js'
import { writeBundle } from '../../artifacts/write-bundle.js'
import { discardRunDir, prepareRunDir, promoteRunFiles, runDirOf } from '../../artifacts/run-dir.js'
import { assertWritable, JsonLinesWriter, removeFiles } from '../../artifacts/write.js'
import { MERGE } from '../../config/options.js'
import { giveWay } from '../../pipeline/context.js'
import { assertMergeable, mergeRunsUnlessStopped } from '../../pipeline/merge.js'
import { writeReportFor } from '../../pipeline/report.js'
import { defineCommand } from '../spec.js'
import { RESULT_FILES } from '../../artifacts/write-bundle.js'

export const merge = defineCommand({
  name: 'merge',
  summary: 'add up the output folders of shards or CI matrix jobs exactly, and recompute intervals, plans and policy from the sums',
  usage: '<dir|glob>... --out <dir> [--lang <en|ko>]',
  positionals: 'inputs',
  writes: 'rate.json, runs_needed.json, only_when_fail.json, policy.json, facts.jsonl (each line with its origin folder), summary.json, flaky_report.md, report.html in --out',
  example: 'npx flakeproof merge "shards/*/.flakeproof" --out merged',
  ...MERGE,
  async run(o, { print, context }) {
    const named = expandMergeInputs(o.inputs, o.out)
    assertOutsideInputs(o.out, named.dirs)
    // Each run once (docs/contracts.md §10): the same folder by another name, a copy, a merge's input beside it.
    const { dirs, duplicates, runs } = countEachRunOnce(named.dirs)
    const counted = [...named.duplicates, ...duplicates]
    if (counted.length > 0) context.log(`merge: each run counted once: ${counted.join('; ')}`)
    const sources: MergeSource[] = []
    for (const dir of dirs) {
      sources.push(readMergeSource(dir))
      // Reading a folder's facts takes a while: a signal is heard between folders.
      await giveWay()
      if (context.control.stop.aborted) return stopped(o.out, context)
    }
    assertMergeable(sources)
    assertWritable(join(o.out, 'rate.json'), '--out')
    // The merged facts stream into a folder of this run's own, and join the other files at the end:
    // a merge stopped half-way leaves --out as it was, earlier results and all.
    const run = runDirOf(o.out)
    prepareRunDir(run)
    const schema: z.ZodType<TestFact | Fact> = sources[0]?.kind === 'test' ? TestFactSchema : FactSchema
    const facts = new JsonLinesWriter(join(run.path, 'facts.jsonl'), schema)
    // Test mode hands a test's lines at once: where each test's lines went, so report.html reads only the ones it details.
    // A test handed twice would have two ranges: then the report scans the whole file, as without ranges.
    let ranges: Map<string, FactsRange> | undefined = new Map()
    // report.html's summaries of the first tests, from these lines: the page need not parse them again.
    const held = new HeldSummaries()
    const sink = (lines: readonly TestFact[] | readonly Fact[]): void => {
      const start = facts.size
      facts.appendAll(lines)
      const [first] = lines
      if (first === undefined || !('test_id' in first) || ranges === undefined) return
      held.hold(lines as readonly TestFact[])
      if (ranges.has(first.test_id)) ranges = undefined
      else ranges.set(first.test_id, [start, facts.size])
    }
    let bundle: ReportBundle | undefined
    try {
      bundle = await mergeRunsUnlessStopped(sources, sink, context.control.stop)
    } finally {
      facts.close()
      if (bundle === undefined) discardRunDir(run)
    }
    if (bundle === undefined) return stopped(o.out, context)
    removeFiles(o.out, RESULT_FILES)
    promoteRunFiles(run, o.out, ['facts.jsonl'])
    discardRunDir(run)
    const merged: ReportBundle = { ...bundle, rate: { ...bundle.rate, merged_runs: runs } }
    writeBundle(o.out, merged)
    print(writeReportFor(o.out, merged, o.lang, ranges, held.summaries))
    context.log(`merged ${dirs.length} folder(s): ${dirs.join(', ')}`)
    return 0
  },
})

/** A merge stopped by a signal is no merge: nothing in --out was changed. */
function stopped(out: string, context: { log: (line: string) => void }): number {
  context.log(`merge: stopped before the merge was whole; nothing in ${out} was changed`)
  return 130
}
