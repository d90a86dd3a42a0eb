import { join } from 'node:path'
import { HistoryFileSchema, readHistoryRuns } from '../../artifacts/history.js'
import { writeBundle } from '../../artifacts/write-bundle.js'
import { assertWritable, removeFiles, writeJsonAtomic } from '../../artifacts/write.js'
import { HISTORY } from '../../config/options.js'
import { hintContextOf, hintsFor } from '../../core/hints.js'
import { shellWord } from '../../core/shell-words.js'
import { analyzeHistory } from '../../pipeline/history.js'
import { writeReportFor } from '../../pipeline/report.js'
import { defineCommand } from '../spec.js'
import { RESULT_FILES } from '../../artifacts/write-bundle.js'

const DEFAULT_GLOB = '.flakeproof/history/*.jsonl'

export const history = defineCommand({
  name: 'history',
  summary: "per-test rates from everyday runs recorded by flakeproof/reporter: flakiest first, and where a test's rate changed",
  writes: 'history.json (ranked tests, flakes hidden by retries, rate changes at a commit), rate.json, runs_needed.json, policy.json, summary.json, flaky_report.md, report.html in --out',
  example: 'npx flakeproof history --since 30d --branch main',
  ...HISTORY,
  async run(o, { print, context }) {
    const pattern = o.glob ?? DEFAULT_GLOB
    const command = ['flakeproof history', `--glob ${pattern}`, ...(o.since ? [`--since ${o.since.toISOString()}`] : []), ...(o.branch ? [`--branch ${o.branch}`] : [])].join(' ')
    const { runs, duplicates } = readHistoryRuns([pattern])
    const { history: found, bundle } = analyzeHistory(runs, { since: o.since ?? null, branch: o.branch ?? null, confidence: o.confidence, command })
    if (duplicates.length > 0) context.log(`history: each run counted once: ${duplicates.join('; ')}`)
    assertWritable(join(o.out, 'rate.json'), '--out')
    removeFiles(o.out, RESULT_FILES)
    writeJsonAtomic(join(o.out, 'history.json'), HistoryFileSchema, found)
    writeBundle(o.out, bundle)
    writeReportFor(o.out, bundle, o.lang)
    print(found)
    const percent = (x: number): string => `${(x * 100).toFixed(1)}%`
    for (const t of found.tests.filter((t) => t.failures > 0).slice(0, 10)) {
      context.log(`${t.verdict.padEnd(8)} ${t.failures} of ${t.trials} attempts in ${t.runs} runs (${t.flakes} passed only on retry), ${percent(t.rate)} [${percent(t.ci_low)}, ${percent(t.ci_high)}]  ${t.id}`)
    }
    for (const c of found.changes) {
      const point = c.change_point
      const where =
        point === undefined
          ? ''
          : point.commit === c.commit
            ? `; the change-point posterior agrees (${percent(point.probability)})`
            : `; the change-point posterior puts it at ${point.commit.slice(0, 12)} (${percent(point.probability)}), believed for where: it weighs every split, the p-value only says whether`
      context.log(`changed at ${c.commit.slice(0, 12)}: ${c.before.failures} of ${c.before.runs} runs before, ${c.after.failures} of ${c.after.runs} after (p = ${c.p_value.toPrecision(3)})${where}  ${c.test_id}`)
    }
    // The proof is in the syntax of the runner whose everyday runs these are (rate.json's runner).
    const proof = hintsFor(hintContextOf(bundle.rate)).again(`--flaky-proof --flaky-out ${shellWord(o.out)}`)
    context.log(`${found.runs} run(s) read; files in ${o.out} (\`${proof}\` proves the flaky ones)`)
    return 0
  },
})
