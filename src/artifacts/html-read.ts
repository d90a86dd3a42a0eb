import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ExecutionCollector, type ExecutionLine, type ExecutionSummaries, toExecutionLine } from './html-executions.js'
import { forEachLine } from './_lines.js'
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
  forEachExecution(
    path,
    commandSubject,
    (execution) => {
      if (execution !== 'skipped') collector.add(execution)
    },
    () => collector.skip(),
  )
  return collector.summarise()
}

/** Each line of a facts file as an execution (or `skipped`), read a chunk at a time; a line that is none goes to `onUnreadable`. */
export function forEachExecution(
  path: string,
  commandSubject: string | null,
  onExecution: (execution: ExecutionLine | 'skipped') => void,
  onUnreadable: () => void = () => {},
): void {
  forEachLine(path, (line) => {
    if (line.trim() === '') return
    let data: unknown
    try {
      data = JSON.parse(line)
    } catch {
      onUnreadable()
      return
    }
    const execution = toExecutionLine(data, commandSubject)
    if (execution === undefined) onUnreadable()
    else onExecution(execution)
  })
}
