import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { forEachLine } from './_lines.js'
import { ExecutionCollector, type ExecutionSummaries, toExecutionLine } from './html-executions.js'
import { detailedSubjects, type HtmlBundle } from './html-subjects.js'

/**
 * The per-execution summaries report.html needs, read from `<dir>/facts.jsonl` one chunk at a time
 * (synchronously, as the rest of the report is written). Only the subjects the page details are
 * kept (html-subjects.ts); a missing file gives empty summaries and the page says so.
 */
export function readExecutionSummaries(dir: string, bundle: HtmlBundle): ExecutionSummaries {
  const commandSubject = bundle.rate.tests === undefined ? bundle.rate.command : null
  const collector = new ExecutionCollector(detailedSubjects(bundle).map((s) => s.id))
  const path = join(dir, 'facts.jsonl')
  if (!existsSync(path)) return collector.summarise()
  forEachLine(path, (line) => {
    if (line.trim() === '') return
    let data: unknown
    try {
      data = JSON.parse(line)
    } catch {
      collector.skip()
      return
    }
    const execution = toExecutionLine(data, commandSubject)
    if (execution === undefined) collector.skip()
    else if (execution !== 'skipped') collector.add(execution)
  })
  return collector.summarise()
}
