import { INGEST } from '../../config/options.js'
import { ingestReports } from '../../pipeline/ingest.js'
import { defineCommand } from '../spec.js'
import { printRuns } from './_runs-result.js'

export const ingest = defineCommand({
  name: 'ingest',
  summary: 'per-test rates from reports you already have: JUnit XML files or saved `cargo test` logs, one run each',
  writes: 'rate.json (with tests), facts.jsonl (one line per attempt of each test per run), runs_needed.json, only_when_fail.json, policy.json, summary.json, flaky_report.md, report.html in --out-dir',
  example: 'npx flakeproof ingest --junit "reports/**/*.xml" --out-dir .flakeproof',
  ...INGEST,
  async run(o, { print, context }) {
    const [format, pattern] = o.junit !== undefined ? (['junit', o.junit] as const) : (['libtest', o.libtest as string] as const)
    const result = ingestReports(o['out-dir'], { format, pattern, confidence: o.confidence, lang: o.lang })
    printRuns(result, o['out-dir'], context, print)
    return 0
  },
})
