import { join } from 'node:path'
import { REPORT } from '../../config/options.js'
import { writeJunit } from '../../pipeline/github.js'
import { readBundle, writeReportFor } from '../../pipeline/report.js'
import { attributeFolder, attributionHeadline, attributionLines } from '../../pipeline/attribution.js'
import { DEFAULT_HISTORY, DEFAULT_POLICY } from './explain.js'
import { openInBrowser } from '../open-browser.js'
import { defineCommand } from '../spec.js'
import { publishCommandResult } from './_github.js'

export const report = defineCommand({
  name: 'report',
  summary: 'summarise a folder of results into summary.json, a four-section flaky_report.md and report.html',
  writes: 'summary.json, flaky_report.md and report.html in --dir',
  example: 'npx flakeproof report --dir .flakeproof --open',
  ...REPORT,
  async run(o, { print, context }) {
    const bundle = readBundle(o.dir)
    // A folder of test results with failures is a red run: whose failure each one is (docs/attribution.md).
    const where = { history: o.history ?? DEFAULT_HISTORY, policyPath: o.policy ?? DEFAULT_POLICY, confidence: bundle.rate.confidence, base: o.base, env: process.env, now: new Date() }
    const attribution = attributeFolder(o.dir, bundle, where)
    print(writeReportFor(o.dir, bundle, o.lang))
    if (o.junit !== undefined) writeJunit(o.junit, bundle, join(o.dir, 'facts.jsonl'))
    if (attribution) {
      context.log(attributionHeadline(attribution))
      for (const { line } of attributionLines(attribution)) context.log(line)
    }
    publishCommandResult({ ...bundle, attribution })
    const html = join(o.dir, 'report.html')
    context.log(`report: ${html}`)
    if (o.open) {
      const result = await openInBrowser(html)
      context.log(result.opened ? `opened ${html} in your browser` : `could not open a browser (${result.reason}); the report is at ${html}`)
    }
    return 0
  },
})
