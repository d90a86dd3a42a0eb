import { closeSync, existsSync, openSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { WrittenTestIds } from './_fact-id.js'
import { forEachLine, isBlankLine, lineText, linesInRange } from './_lines.js'
import { ExecutionCollector, type ExecutionLine, type ExecutionSummaries, type ExecutionSummary, toExecutionLine } from './html-executions.js'
import { framesOf, type SourcePlace } from './html-source.js'
import { detailedSubjects, type HtmlBundle } from './html-subjects.js'
import { findTestLine } from './test-location.js'

/** Where one test's lines are in a facts.jsonl: bytes [start, end), every line of it there and nowhere else. */
export type FactsRange = readonly [start: number, end: number]

/**
 * The per-execution summaries report.html needs, read from `<dir>/facts.jsonl` (and the failing
 * proof runs from proof_facts.jsonl) one chunk at a time, synchronously, as the rest of the report
 * is written. Only the subjects the page details are kept (html-subjects.ts), and only their lines
 * are parsed: a line of another test, written as flakeproof writes them, is known by its id alone
 * (of 500 000 executions the page details a few tests'). A missing file gives empty summaries and
 * the page says so. Test files are found relative to `cwd` (where the run
 * started, the project root of a Vitest or Jest run), else by a stack frame that ends in the file.
 * `ranges`, from the writer of facts.jsonl when it wrote each test's lines together (a merge): only
 * the detailed tests' bytes are read, the others not even scanned for their id; with them, `held`
 * (html-held.ts: built from the lines as they were written) spares reading those tests' bytes at all.
 */
export function readExecutionSummaries(
  dir: string,
  bundle: HtmlBundle,
  cwd = process.cwd(),
  ranges?: ReadonlyMap<string, FactsRange>,
  held?: ReadonlyMap<string, ExecutionSummary>,
): ExecutionSummaries {
  const commandSubject = bundle.rate.tests === undefined ? bundle.rate.command : null
  const detailed = detailedSubjects(bundle).map((s) => s.id)
  const factsPath = join(dir, 'facts.jsonl')
  const summaries = ranges === undefined || commandSubject !== null ? collect(factsPath, detailed, commandSubject) : collectRanges(factsPath, detailed, ranges, held)
  const proofPath = join(dir, 'proof_facts.jsonl')
  const proof = existsSync(proofPath) ? collect(proofPath, detailed, commandSubject).subjects : undefined
  return { ...summaries, proof, source: { reportDir: resolve(dir), cwd: resolve(cwd) }, declared: locateTests(bundle, summaries.subjects, resolve(cwd)) }
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
    readExecution(lineText(bytes, from, to), commandSubject, onExecution, onUnreadable)
  })
}

// --- internal ---

function readExecution(text: string, commandSubject: string | null, onExecution: (execution: ExecutionLine | 'skipped') => void, onUnreadable: () => void): void {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    onUnreadable()
    return
  }
  const execution = toExecutionLine(data, commandSubject)
  if (execution === undefined) onUnreadable()
  else onExecution(execution)
}

/**
 * collect, reading only the wanted tests' ranges (test mode): the same lines, in the same order within
 * each test; a test `held` is not read, its summary is the one held (in the wanted order all the same).
 */
function collectRanges(path: string, wanted: readonly string[], ranges: ReadonlyMap<string, FactsRange>, held?: ReadonlyMap<string, ExecutionSummary>): ExecutionSummaries {
  const collector = new ExecutionCollector(wanted)
  if (!existsSync(path)) return collector.summarise()
  const fd = openSync(path, 'r')
  try {
    for (const id of new Set(wanted)) {
      if (held?.has(id)) continue
      const range = ranges.get(id)
      if (range === undefined) continue
      for (const text of linesInRange(fd, ...range)) {
        if (text.trim() !== '') readExecution(text, null, ...into(collector))
      }
    }
  } finally {
    closeSync(fd)
  }
  const summaries = collector.summarise()
  if (held === undefined) return summaries
  const subjects = new Map<string, ExecutionSummary>()
  for (const [id, summary] of summaries.subjects) subjects.set(id, held.get(id) ?? summary)
  return { ...summaries, subjects }
}

function collect(path: string, wanted: readonly string[], commandSubject: string | null): ExecutionSummaries {
  const collector = new ExecutionCollector(wanted)
  if (!existsSync(path)) return collector.summarise()
  const wants = new Set(wanted)
  forEachExecution(path, commandSubject, ...into(collector), (id) => wants.has(id))
  return collector.summarise()
}

/** What a reader does with each line for `collector`: an execution is added, a skipped one passed over, an unreadable one counted. */
function into(collector: ExecutionCollector): [onExecution: (execution: ExecutionLine | 'skipped') => void, onUnreadable: () => void] {
  return [
    (execution) => {
      if (execution !== 'skipped') collector.add(execution)
    },
    () => collector.skip(),
  ]
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
