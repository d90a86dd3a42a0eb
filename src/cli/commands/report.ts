import { join } from 'node:path'
import { REPORT } from '../../config/options.js'
import { writeJunit } from '../../pipeline/github.js'
import { readBundle, writeReportFor } from '../../pipeline/report.js'
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
    print(writeReportFor(o.dir, bundle, o.lang))
    if (o.junit !== undefined) writeJunit(o.junit, bundle, join(o.dir, 'facts.jsonl'))
    publishCommandResult(bundle)
    const html = join(o.dir, 'report.html')
    context.log(`report: ${html}`)
    if (o.open) {
      const result = await openInBrowser(html)
      context.log(result.opened ? `opened ${html} in your browser` : `could not open a browser (${result.reason}); the report is at ${html}`)
    }
    return 0
  },
})
