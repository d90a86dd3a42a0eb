import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { forEachLine } from './_lines.js'
import { ExecutionCollector, type ExecutionLine, type ExecutionSummaries, type ExecutionSummary, toExecutionLine } from './html-executions.js'
import { framesOf, type SourcePlace } from './html-source.js'
import { detailedSubjects, type HtmlBundle } from './html-subjects.js'
import { findTestLine } from './test-location.js'

/**
 * The per-execution summaries report.html needs, read from `<dir>/facts.jsonl` (and the failing
 * proof runs from proof_facts.jsonl) one chunk at a time, synchronously, as the rest of the report
 * is written. Only the subjects the page details are kept (html-subjects.ts); a missing file gives
 * empty summaries and the page says so. Test files are found relative to `cwd` (where the run
 * started, the project root of a Vitest or Jest run), else by a stack frame that ends in the file.
 */
export function readExecutionSummaries(dir: string, bundle: HtmlBundle, cwd = process.cwd()): ExecutionSummaries {
  const commandSubject = bundle.rate.tests === undefined ? bundle.rate.command : null
  const detailed = detailedSubjects(bundle).map((s) => s.id)
  const summaries = collect(join(dir, 'facts.jsonl'), detailed, commandSubject)
  const proofPath = join(dir, 'proof_facts.jsonl')
  const proof = existsSync(proofPath) ? collect(proofPath, detailed, commandSubject).subjects : undefined
  return { ...summaries, proof, source: { reportDir: resolve(dir), cwd: resolve(cwd) }, declared: locateTests(bundle, summaries.subjects, resolve(cwd)) }
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

function collect(path: string, wanted: readonly string[], commandSubject: string | null): ExecutionSummaries {
  const collector = new ExecutionCollector(wanted)
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

/** Each detailed test's file and declaration line, when the file is on this machine. */
function locateTests(bundle: HtmlBundle, subjects: ReadonlyMap<string, ExecutionSummary>, cwd: string): Map<string, SourcePlace> {
  const places = new Map<string, SourcePlace>()
  for (const test of bundle.rate.tests ?? []) {
    const summary = subjects.get(test.id)
    if (!summary) continue
    const fromFrames = summary.failing.flatMap((f) => framesOf(`${f.stack ?? ''}\n${f.error ?? ''}`)).find((place) => place.file.endsWith(`/${test.file}`))
    const file = [resolve(cwd, test.file), fromFrames?.file].find((candidate) => candidate !== undefined && existsSync(candidate))
    if (file === undefined) continue
    places.set(test.id, { file, line: findTestLine(file, test.name.split(' > ').at(-1) ?? test.name) })
  }
  return places
}
