import { ReportOptionsSchema } from '../../config/options.js'
import { writeReport } from '../../pipeline/report.js'
import { defineCommand } from '../spec.js'

export const report = defineCommand({
  name: 'report',
  summary: 'summarise a folder of results into summary.json and a four-section flaky_report.md',
  usage: '--dir <dir> [--lang en|ko]',
  flags: [
    { name: 'dir', value: '<dir>', description: 'folder holding rate.json and any of the other files (required)' },
    { name: 'lang', value: '<en|ko>', description: 'language of flaky_report.md (default en)' },
  ],
  writes: 'summary.json and flaky_report.md in --dir',
  example: 'flakeproof report --dir .flakeproof --lang ko',
  schema: ReportOptionsSchema,
  async run(o, { print }) {
    print(writeReport(o.dir, o.lang))
    return 0
  },
})
