import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ExecutionCollector, type ExecutionLine, type ExecutionSummaries, toExecutionLine } from './html-executions.js'
import { WrittenTestIds } from './_fact-id.js'
import { forEachLine, isBlankLine, lineText } from './_lines.js'
import { detailedSubjects, type HtmlBundle } from './html-subjects.js'

/**
 * The per-execution summaries report.html needs, read from `<dir>/facts.jsonl` one chunk at a time
 * (synchronously, as the rest of the report is written). Only the subjects the page details are
 * kept (html-subjects.ts), and only their lines are parsed: a line of another test, written as
 * flakeproof writes them, is known by its id alone (of 500 000 executions the page details a few
 * tests'). A missing file gives empty summaries and the page says so.
 */
export function readExecutionSummaries(dir: string, bundle: HtmlBundle): ExecutionSummaries {
  const commandSubject = bundle.rate.tests === undefined ? bundle.rate.command : null
  const wanted = new Set(detailedSubjects(bundle).map((s) => s.id))
  const collector = new ExecutionCollector(wanted)
  const path = join(dir, 'facts.jsonl')
  if (!existsSync(path)) return collector.summarise()
  forEachExecution(
    path,
    commandSubject,
    (execution) => {
      if (execution !== 'skipped') collector.add(execution)
    },
    () => collector.skip(),
    (id) => wanted.has(id),
  )
  return collector.summarise()
}

/**
 * Each line of a facts file as an execution (or `skipped`), read a chunk at a time; a line that is
 * none goes to `onUnreadable`. With `wants`, a line flakeproof wrote for a test it does not want
 * is passed over unparsed.
 */
export function forEachExecution(
  path: string,
  commandSubject: string | null,
  onExecution: (execution: ExecutionLine | 'skipped') => void,
  onUnreadable: () => void = () => {},
  wants?: (testId: string) => boolean,
): void {
  const written = new WrittenTestIds()
  forEachLine(path, (bytes, from, to) => {
    if (isBlankLine(bytes, from, to)) return
    if (wants !== undefined) {
      const id = written.idOf(bytes, from, to)
      if (id !== undefined && !wants(id)) return
    }
    let data: unknown
    try {
      data = JSON.parse(lineText(bytes, from, to))
    } catch {
      onUnreadable()
      return
    }
    const execution = toExecutionLine(data, commandSubject)
    if (execution === undefined) onUnreadable()
    else onExecution(execution)
  })
}
