import { closeSync, existsSync, openSync, readSync } from 'node:fs'
import { join } from 'node:path'
import { ExecutionCollector, type ExecutionLine, type ExecutionSummaries, toExecutionLine } from './html-executions.js'
import { detailedSubjects, type HtmlBundle } from './html-subjects.js'

/** Bytes read at a time: facts.jsonl of a large run is hundreds of megabytes and is never held whole. */
const CHUNK_BYTES = 1 << 20

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

// --- internal ---

function forEachLine(path: string, onLine: (line: string) => void): void {
  const fd = openSync(path, 'r')
  try {
    const buffer = Buffer.alloc(CHUNK_BYTES)
    let carry = Buffer.alloc(0)
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null)
      if (read === 0) break
      // Split on bytes, not on decoded text: a chunk may end inside a multi-byte character.
      let chunk = Buffer.concat([carry, buffer.subarray(0, read)])
      let newline = chunk.indexOf(0x0a)
      while (newline !== -1) {
        onLine(chunk.subarray(0, newline).toString('utf8'))
        chunk = chunk.subarray(newline + 1)
        newline = chunk.indexOf(0x0a)
      }
      carry = Buffer.from(chunk)
    }
    if (carry.length > 0) onLine(carry.toString('utf8'))
  } finally {
    closeSync(fd)
  }
}
