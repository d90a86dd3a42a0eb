import { REPORT } from '../../config/options.js'
import { writeReport } from '../../pipeline/report.js'
import { defineCommand } from '../spec.js'

export const report = defineCommand({
  name: 'report',
  summary: 'summarise a folder of results into summary.json and a four-section flaky_report.md',
  writes: 'summary.json and flaky_report.md in --dir',
  example: 'flakeproof report --dir .flakeproof --lang ko',
  ...REPORT,
  async run(o, { print }) {
    print(writeReport(o.dir, o.lang))
    return 0
  },
})
