import { join } from 'node:path'
import { ReportOptionsSchema } from '../../config/options.js'
import { writeReport } from '../../pipeline/report.js'
import { openInBrowser } from '../open-browser.js'
import { defineCommand } from '../spec.js'

export const report = defineCommand({
  name: 'report',
  summary: 'summarise a folder of results into summary.json, a four-section flaky_report.md and report.html',
  usage: '--dir <dir> [--lang en|ko] [--html] [--open]',
  flags: [
    { name: 'dir', value: '<dir>', description: 'folder holding rate.json and any of the other files (required)' },
    { name: 'lang', value: '<en|ko>', description: 'language of flaky_report.md (default en)' },
    { name: 'html', description: 'write report.html (it is always written; the flag is accepted for scripts that ask for it)' },
    { name: 'open', description: 'open report.html in your browser (on a desktop; otherwise prints where it is)' },
  ],
  writes: 'summary.json, flaky_report.md and report.html in --dir',
  example: 'flakeproof report --dir .flakeproof --open',
  schema: ReportOptionsSchema,
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
