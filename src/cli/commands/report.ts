import { join } from 'node:path'
import { REPORT } from '../../config/options.js'
import { writeReport } from '../../pipeline/report.js'
import { openInBrowser } from '../open-browser.js'
import { defineCommand } from '../spec.js'

export const report = defineCommand({
  name: 'report',
  summary: 'summarise a folder of results into summary.json, a four-section flaky_report.md and report.html',
  writes: 'summary.json, flaky_report.md and report.html in --dir',
  example: 'flakeproof report --dir .flakeproof --open',
  ...REPORT,
  async run(o, { print, context }) {
    print(writeReport(o.dir, o.lang))
    const html = join(o.dir, 'report.html')
    context.log(`report: ${html}`)
    if (o.open) {
      const result = await openInBrowser(html)
      context.log(result.opened ? `opened ${html} in your browser` : `could not open a browser (${result.reason}); the report is at ${html}`)
    }
    return 0
  },
})
