/**
 * What report.html draws from facts.jsonl, kept bounded: a run may hold 100 000 repetitions of
 * 10 000 tests, so only the few subjects the page details are kept, their strips are binned to at
 * most STRIP_MARKS marks per mode, their durations thinned to at most DURATION_POINTS points per
 * outcome, and only their first FAILURES_IN_FULL failing executions kept in full (each text capped,
 * TEXT_CHARS), the others counted. Pure: lines in, summaries out; reading the file is html-read.ts's job.
 */

import type { SourceContext, SourcePlace } from './html-source.js'

/** Marks per mode in a repetition strip; above it, each mark stands for several executions. */
export const STRIP_MARKS = 400
/** Duration points per outcome per subject; above it, every k-th execution is kept (k a power of 2). */
export const DURATION_POINTS = 200
/** Characters of a first error kept for the page. */
const ERROR_CHARS = 300
/** Failing executions of a detailed subject shown in full (error, stack, output); later ones are counted. */
export const FAILURES_IN_FULL = 20
/** Characters (escaped for HTML) kept of each text of a failing execution shown in full: its head and tail, a marker between. */
export const TEXT_CHARS = { error: 2000, stack: 3000, stdout: 1500, stderr: 1500 } as const

export type ExecutionMode = 'fast' | 'single' | 'slow' | 'paired' | 'proof'

/** One mark of a strip: executions `first`..`last` (trial numbers), `count` of them, `failures` failed. */
export interface StripMark {
  first: number
  last: number
  count: number
  failures: number
}

export interface StripSegment {
  mode: ExecutionMode
  executions: number
  failures: number
  /** Executions per mark: 1 unless the segment had more than STRIP_MARKS executions. */
  binSize: number
  marks: StripMark[]
}

export interface DurationSample {
  count: number
  minMs: number
  maxMs: number
  meanMs: number
  /** Every `stride`-th execution of this outcome is in `points` (1: all of them). */
  stride: number
  points: { trial: number; ms: number }[]
}

/** One failing execution as the page shows it in full; the texts capped (TEXT_CHARS). */
export interface FailingExecution {
  trial: number
  mode: ExecutionMode
  elapsedMs: number
  /** The error message (test mode) or null; command mode has `stderr` and `exitCode` instead. */
  error: string | null
  stack: string | null
  /** Files the runner kept of it (Playwright's trace, screenshot): linked from the page. */
  attachments: { name: string; path: string }[]
  stdout: string
  stderr: string
  /** Which worker (test mode) or --jobs slot (command mode) ran it. */
  worker: string | null
  /** Test mode: the test's position in its worker's run, and the test that ran just before it there. */
  order: number | null
  previousTest: string | null
  /** Test mode: repetition index (0-based) and whole-run round. */
  repeat: number | null
  round: number | null
  /** Command mode: how it ended. */
  exitCode: number | null
  signal: string | null
  timedOut: boolean
  /** `flakeproof merge`: the folder it was read from. */
  origin: string | null
}

export interface ExecutionSummary {
  segments: StripSegment[]
  durations: { passed: DurationSample; failed: DurationSample }
  /** First line of the first failure's error (test mode) or stderr (command mode). */
  firstError: string | null
  /** The first FAILURES_IN_FULL failing executions, in the order of the file. */
  failing: FailingExecution[]
  /** All failing executions read, shown in full or not. */
  failures: number
}

export interface ExecutionSummaries {
  /** Keyed by test id; command mode uses the command as its one key. */
  subjects: Map<string, ExecutionSummary>
  /**
   * Lines read that were not a readable fact: skipped, and said on the page. Lines of tests the
   * page does not detail are known by their id and not read (html-read.ts).
   */
  unreadableLines: number
  /** The failing runs of proof_facts.jsonl, by subject; absent when the folder has none. */
  proof?: Map<string, ExecutionSummary> | undefined
  /** Where links to the source start from; absent (a page rendered from memory): no links. */
  source?: SourceContext | undefined
  /** Where each detailed test is declared, when its file was found. */
  declared?: Map<string, SourcePlace> | undefined
}

/** One fact line, reduced to what the page draws. */
export interface ExecutionLine {
  subject: string
  trial: number
  failed: boolean
  elapsedMs: number
  mode: ExecutionMode
  error: string | null
  /** The whole parsed line, read further only for the few failures shown in full. */
  fact: Readonly<Record<string, unknown>>
}

/** Collects the lines of the wanted subjects; every other line costs one lookup. */
export class ExecutionCollector {
  private readonly _subjects = new Map<string, SubjectRecord>()
  private _unreadable = 0

  constructor(wanted: Iterable<string>) {
    for (const id of wanted) this._subjects.set(id, new SubjectRecord())
  }

  add(line: ExecutionLine): void {
    this._subjects.get(line.subject)?.add(line)
  }

  /** A line that could not be parsed, or was not a fact. */
  skip(): void {
    this._unreadable++
  }

  summarise(): ExecutionSummaries {
    const subjects = new Map<string, ExecutionSummary>()
    for (const [id, record] of this._subjects) subjects.set(id, record.summarise())
    return { subjects, unreadableLines: this._unreadable }
  }
}

/**
 * A fact line as JSON (command or test mode) → ExecutionLine, or undefined when it is not one.
 * Checked by hand rather than with zod: this runs once per line of files with millions of lines.
 */
export function toExecutionLine(data: unknown, commandSubject: string | null): ExecutionLine | 'skipped' | undefined {
  if (typeof data !== 'object' || data === null) return undefined
  const fact = data as Record<string, unknown>
  const { trial, outcome, elapsed_ms: elapsedMs } = fact
  if (typeof trial !== 'number' || typeof elapsedMs !== 'number' || typeof outcome !== 'string') return undefined
  if (outcome === 'skipped') return 'skipped'
  if (outcome !== 'passed' && outcome !== 'failed') return undefined
  const subject = commandSubject ?? (typeof fact.test_id === 'string' ? fact.test_id : undefined)
  if (subject === undefined) return undefined
  const mode = typeof fact.mode === 'string' && MODES.has(fact.mode as ExecutionMode) ? (fact.mode as ExecutionMode) : 'fast'
  const error = typeof fact.error === 'string' ? fact.error : typeof fact.stderr === 'string' ? fact.stderr : null
  return { subject, trial, failed: outcome === 'failed', elapsedMs, mode, error, fact }
}

/** A failing execution's fields from its fact line, each text capped: what a detail of report.html shows. */
export function toFailingExecution(line: ExecutionLine): FailingExecution {
  const { fact } = line
  const text = (key: keyof typeof TEXT_CHARS): string => (typeof fact[key] === 'string' ? capText(fact[key], TEXT_CHARS[key]) : '')
  const whole = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) ? value : null)
  const commandMode = 'exit_code' in fact
  return {
    trial: line.trial,
    mode: line.mode,
    elapsedMs: line.elapsedMs,
    error: commandMode || typeof fact.error !== 'string' ? null : text('error'),
    stack: typeof fact.stack === 'string' && fact.stack.trim() !== '' ? text('stack') : null,
    attachments: attachmentsOf(fact.attachments),
    stdout: text('stdout'),
    stderr: text('stderr'),
    worker: typeof fact.worker === 'string' || typeof fact.worker === 'number' ? String(fact.worker) : null,
    order: whole(fact.order),
    previousTest: typeof fact.previous_test === 'string' ? fact.previous_test : null,
    repeat: whole(fact.repeat),
    round: whole(fact.round),
    exitCode: whole(fact.exit_code),
    signal: typeof fact.signal === 'string' ? fact.signal : null,
    timedOut: fact.timed_out === true,
    origin: typeof fact.origin === 'string' ? fact.origin : null,
  }
}

/**
 * At most `limit` characters once escaped for HTML (`<` counts as the four of `&lt;`), so markup-heavy
 * output costs the page no more than plain text: the head and the tail (where a stack or a log says
 * most), the cut said between.
 */
export function capText(text: string, limit: number): string {
  let cost = 0
  for (let i = 0; i < text.length && cost <= limit; i++) cost += escapedLength(text.charCodeAt(i))
  if (cost <= limit) return text
  const head = fit(text, limit * 0.6, 0, 1)
  const tail = fit(text, limit * 0.4, text.length - 1, -1)
  return `${text.slice(0, head)}\n… [${text.length - head - tail} characters cut] …\n${text.slice(text.length - tail)}`
}

/** Bins executions (`failed[i]` of trial `trials[i]`) into at most STRIP_MARKS marks. */
export function binStrip(mode: ExecutionMode, trials: ArrayLike<number>, failed: ArrayLike<number>, length: number): StripSegment {
  const binSize = Math.max(1, Math.ceil(length / STRIP_MARKS))
  const marks: StripMark[] = []
  let failures = 0
  for (let start = 0; start < length; start += binSize) {
    const end = Math.min(length, start + binSize)
    let binFailures = 0
    for (let i = start; i < end; i++) binFailures += failed[i] ?? 0
    failures += binFailures
    marks.push({ first: trials[start] ?? 0, last: trials[end - 1] ?? 0, count: end - start, failures: binFailures })
  }
  return { mode, executions: length, failures, binSize, marks }
}

// --- internal ---

const MODES = new Set<ExecutionMode>(['fast', 'single', 'slow', 'paired', 'proof'])

/** Characters of `&lt;` `&gt;` `&amp;` `&quot;` `&#39;` (_html.ts `esc`), 1 for any other. */
function escapedLength(code: number): number {
  return code === 60 || code === 62 ? 4 : code === 38 || code === 39 ? 5 : code === 34 ? 6 : 1
}

/** How many characters from `start`, walking by `step`, fit in `budget` escaped characters. */
function fit(text: string, budget: number, start: number, step: 1 | -1): number {
  let cost = 0
  let n = 0
  for (let i = start; i >= 0 && i < text.length; i += step) {
    cost += escapedLength(text.charCodeAt(i))
    if (cost > budget) break
    n++
  }
  return n
}
const MODE_ORDER: ExecutionMode[] = ['fast', 'single', 'slow', 'paired', 'proof']

/** Outcomes of one mode: typed arrays, one byte and one int per execution of a detailed subject. */
class ModeRecord {
  trials = new Int32Array(64)
  failed = new Uint8Array(64)
  length = 0

  push(trial: number, failed: boolean): void {
    if (this.length === this.trials.length) {
      const trials = new Int32Array(this.length * 2)
      trials.set(this.trials)
      this.trials = trials
      const outcomes = new Uint8Array(this.length * 2)
      outcomes.set(this.failed)
      this.failed = outcomes
    }
    this.trials[this.length] = trial
    this.failed[this.length] = failed ? 1 : 0
    this.length++
  }
}

/**
 * Keeps every `stride`-th value and doubles the stride when full: deterministic (no sampling coin)
 * and bounded, and the kept points stay evenly spread over the run.
 */
class DurationThinner {
  private _seen = 0
  private _stride = 1
  private _points: { index: number; trial: number; ms: number }[] = []
  private _min = Number.POSITIVE_INFINITY
  private _max = 0
  private _sum = 0

  add(trial: number, ms: number): void {
    const index = this._seen++
    this._min = Math.min(this._min, ms)
    this._max = Math.max(this._max, ms)
    this._sum += ms
    if (index % this._stride !== 0) return
    this._points.push({ index, trial, ms })
    if (this._points.length > DURATION_POINTS) {
      this._stride *= 2
      this._points = this._points.filter((p) => p.index % this._stride === 0)
    }
  }

  summarise(): DurationSample {
    return {
      count: this._seen,
      minMs: this._seen === 0 ? 0 : this._min,
      maxMs: this._max,
      meanMs: this._seen === 0 ? 0 : this._sum / this._seen,
      stride: this._stride,
      points: this._points.map(({ trial, ms }) => ({ trial, ms })),
    }
  }
}

class SubjectRecord {
  private readonly _modes = new Map<ExecutionMode, ModeRecord>()
  private readonly _passed = new DurationThinner()
  private readonly _failed = new DurationThinner()
  private _firstError: string | null = null
  private readonly _failing: FailingExecution[] = []
  private _failures = 0

  add(line: ExecutionLine): void {
    let mode = this._modes.get(line.mode)
    if (!mode) this._modes.set(line.mode, (mode = new ModeRecord()))
    mode.push(line.trial, line.failed)
    ;(line.failed ? this._failed : this._passed).add(line.trial, line.elapsedMs)
    if (!line.failed) return
    if (this._firstError === null && line.error) this._firstError = (line.error.split(/\r?\n/).find((l) => l.trim() !== '') ?? '').slice(0, ERROR_CHARS)
    if (this._failing.length < FAILURES_IN_FULL) this._failing.push(toFailingExecution(line))
    this._failures++
  }

  summarise(): ExecutionSummary {
    const segments = MODE_ORDER.flatMap((mode) => {
      const record = this._modes.get(mode)
      return record ? [binStrip(mode, record.trials, record.failed, record.length)] : []
    })
    return {
      segments,
      durations: { passed: this._passed.summarise(), failed: this._failed.summarise() },
      firstError: this._firstError,
      failing: this._failing,
      failures: this._failures,
    }
  }
}

/** The attachments of a fact line that has them (each a name and a path), at most ATTACHMENTS_SHOWN. */
function attachmentsOf(value: unknown): { name: string; path: string }[] {
  if (!Array.isArray(value)) return []
  const valid = value.filter((a): a is { name: string; path: string } => typeof a?.name === 'string' && typeof a?.path === 'string')
  return valid.slice(0, ATTACHMENTS_SHOWN).map(({ name, path }) => ({ name, path }))
}

/** Attachments one execution shows: a trace, a screenshot, a video and a few of the test's own. */
const ATTACHMENTS_SHOWN = 10
