import { isAbsolute, join, relative } from 'node:path'
import { isAcceptedTestFact } from '../artifacts/_fact-check.js'
import { type JUnitCase, type ReadCounters, readJUnitFile } from '../artifacts/junit-read.js'
import { readLibtestFile } from '../artifacts/libtest-read.js'
import { discardRunDir, prepareRunDir, promoteRunFiles, runDirOf } from '../artifacts/run-dir.js'
import type { SummaryFile } from '../artifacts/schemas.js'
import { type RunError, type TestFact, TestFactSchema } from '../artifacts/test-schemas.js'
import { DERIVED_FILES, writeBundle } from '../artifacts/write-bundle.js'
import { assertWritable, JsonLinesWriter, removeFiles } from '../artifacts/write.js'
import { type CaseNames, type Dialect, detectDialect, identityFixFor, identityOf, repeatsAreAttempts } from '../core/junit-dialect.js'
import { IdentityTable } from '../core/report-identity.js'
import { signatureOfText } from '../core/signature.js'
import type { TestIdentity } from '../core/test-id.js'
import type { ReportLanguage } from './report.js'
import { writeReportFor } from './report.js'
import { buildTestMeasurement, byConcern, type Confidence, outcomeOf, type TestOutcome } from './test-bundle.js'
import type { Repetition } from './test-evidence.js'
import { tallyTest } from './test-tally.js'

/**
 * Per-test rates from N runs of any test runner, each known only by the reports it wrote (JUnit
 * XML, libtest logs): docs/contracts.md §7. Each run's reports are read one file at a time and its
 * tests' facts streamed to facts.jsonl at once; what stays in memory per test is one small record
 * per run (outcome, time, a capped error), from which the shared builders (test-bundle.ts) compute
 * every file, as for a Vitest run. A test is measured against the runs that were read: seen in
 * fewer, it is `partial`.
 */

export type ReportFormat = 'junit' | 'libtest'

/** One run: the reports it wrote, or why it has none. */
export interface RunReports {
  files: readonly string[]
  /** Why the run has no report (it wrote none, or an old one): the run does not count. */
  missing?: string
}

export interface RunsSettings {
  /** For the files' `command`. */
  command: string
  format: ReportFormat
  /** Runs asked for (repeat) or found (ingest). */
  requested: number
  gapMs: number
  jobs: number
  timeoutMs: number | null
  confidence: Confidence
  lang: ReportLanguage
  /** Every run asked for ran (false after Ctrl-C). */
  ranAll: boolean
  startedAt: Date
  counters?: ReadCounters
  /** Known before any report is read (the command line hides retries): run errors of their own. */
  notes?: readonly string[]
}

export interface RunsResult {
  /** None when no report held a test case: then nothing was written. */
  outcomes: TestOutcome[]
  /** Runs whose reports were read. */
  runs: number
  complete: boolean
  /** Stopped before every run asked for ran (Ctrl-C, a signal, a trial the system refused to start). */
  stopped: boolean
  runErrors: RunError[]
  summary: SummaryFile | undefined
  /** The producers the reports were recognised as (src/core/junit-dialect.ts). */
  producers: Dialect[]
}

/**
 * Reads the runs' reports in order, streaming each run's facts (their `worker` is the report's path)
 * into the output folder's run folder, then writes every file of the measurement into `outDir`.
 * Each report is read twice, one test case at a time: first for the names of its tests (what
 * decides which test each case is, src/core/report-identity.ts), then for their results. When no
 * report held a test that could be counted, nothing is written and the folder is left as it was.
 */
export function recordRuns(outDir: string, runs: Iterable<RunReports>, settings: RunsSettings): RunsResult {
  assertWritable(join(outDir, 'facts.jsonl'), '--out-dir')
  const list = [...runs]
  const runErrors: RunError[] = (settings.notes ?? []).map((error) => ({ project: null, file: null, error }))
  const scan = scanRuns(list, settings, runErrors)
  const dir = runDirOf(outDir)
  prepareRunDir(dir)
  const facts = new JsonLinesWriter(join(dir.path, 'facts.jsonl'), TestFactSchema, isAcceptedTestFact)
  const tests = new Map<string, KeptTest>()
  let counted = 0
  try {
    for (const reports of list) {
      if (reports.missing !== undefined) {
        runErrors.push({ project: null, file: reports.files[0] ?? null, error: reports.missing })
        continue
      }
      const files = reports.files.filter((file) => scan.entries.has(file))
      // A run whose reports hold no test still ran: the tests it lacks were seen in fewer runs.
      if (files.length === 0) continue
      counted++
      const run = new RunWriter(counted, settings.gapMs, tests, facts)
      for (const file of files) readResults(file, scan, settings, run, runErrors)
    }
  } finally {
    facts.close()
  }
  const outcomes = [...tests.values()].map((t) => outcomeOfKept(t, counted, settings.confidence)).sort(byConcern)
  const complete = settings.ranAll && runErrors.length === 0
  if (tests.size === 0) {
    discardRunDir(dir)
    return { outcomes, runs: counted, complete, stopped: !settings.ranAll, runErrors, summary: undefined, producers: [...scan.producers] }
  }
  removeFiles(outDir, DERIVED_FILES)
  promoteRunFiles(dir, outDir, ['facts.jsonl'])
  discardRunDir(dir)
  const bundle = buildTestMeasurement({
    command: settings.command,
    repeat: counted,
    observe: false,
    confidence: settings.confidence,
    startedAt: settings.startedAt,
    durationMs: Date.now() - settings.startedAt.getTime(),
    complete,
    runErrors,
    outcomes,
    rounds: counted,
  })
  const rate = {
    ...bundle.rate,
    gap_ms: settings.gapMs,
    jobs: settings.jobs,
    timeout_ms: settings.timeoutMs,
    requested_trials: settings.requested,
    reports: settings.format,
    producers: [...scan.producers].sort(),
  }
  const report = { ...bundle, rate }
  writeBundle(outDir, report)
  const summary = writeReportFor(outDir, report, settings.lang)
  return { outcomes, runs: counted, complete, stopped: !settings.ranAll, runErrors, summary, producers: rate.producers }
}

// --- internal ---

/** What is kept of a failure's text per attempt: enough for tokens and predicates, not a log copy. */
const KEPT_ERROR_CHARS = 1000

interface KeptTest {
  id: string
  project: string
  file: string
  name: string
  repetitions: Repetition[]
  /** The run of each repetition (attempt), in order. */
  runs: number[]
  /** Runs it was counted in. */
  seen: number
}

/** What the first reading found: each readable report's entries, one per test case, and the producers. */
interface Scan {
  entries: Map<string, { entries: number[]; dialect: Dialect }>
  table: IdentityTable
  producers: Set<Dialect>
}

/**
 * The first reading: each report's test cases by suite, named by their producer's rules, into one
 * table that then decides every id (src/core/report-identity.ts). A report that cannot be read
 * becomes a run error, one line naming file and line, and is not read again; each test left out as
 * indistinguishable is one run error naming the producer's setting that fixes it.
 */
function scanRuns(runs: readonly RunReports[], settings: RunsSettings, runErrors: RunError[]): Scan {
  const scan: Scan = { entries: new Map(), table: new IdentityTable(), producers: new Set() }
  for (const reports of runs) {
    if (reports.missing !== undefined) continue
    scan.table.startRun()
    for (const file of reports.files) {
      try {
        scan.entries.set(file, scanFile(file, settings, scan))
      } catch (error) {
        runErrors.push({ project: null, file, error: (error as Error).message })
      }
    }
    scan.table.endRun()
  }
  for (const { id, copies, producer } of scan.table.decide()) {
    runErrors.push({
      project: null,
      file: null,
      error: `${id}: ${copies} tests of this name in one run, in suites that hold the same tests, so no report tells which is which; left out of the counts. ${identityFixFor(producer as Dialect)}`,
    })
  }
  return scan
}

function scanFile(file: string, settings: RunsSettings, scan: Scan): { entries: number[]; dialect: Dialect } {
  const suites = new Map<number, { identities: TestIdentity[]; names: string[]; at: number[] }>()
  // Names only: the first reading keeps no output or failure text, so what it holds is one small record per case.
  const cases: Pick<JUnitCase, 'classname' | 'name' | 'file' | 'suites' | 'hostname' | 'suite'>[] = []
  const dialect = readCases(file, settings, ({ classname, name, file: path, suites, hostname, suite }) => cases.push({ classname, name, file: path, suites, hostname, suite }))
  scan.producers.add(dialect)
  cases.forEach((c, i) => {
    const suite = suites.get(c.suite) ?? { identities: [], names: [], at: [] }
    suite.identities.push(identityOf(namesOf(c), dialect))
    suite.names.push(c.name)
    suite.at.push(i)
    suites.set(c.suite, suite)
  })
  const entries = new Array<number>(cases.length)
  for (const suite of suites.values()) {
    const found = scan.table.cases({ identities: suite.identities, names: suite.names, repeatsAreAttempts: repeatsAreAttempts(dialect) }, dialect)
    found.forEach((entry, k) => {
      entries[suite.at[k] as number] = entry
    })
  }
  return { entries, dialect }
}

/** Reads one report's cases in order; its producer: from its shape (JUnit), always `libtest` (logs). */
function readCases(file: string, settings: RunsSettings, onCase: (c: JUnitCase) => void): Dialect {
  if (settings.format === 'libtest') {
    readLibtestFile(file, onCase, settings.counters)
    return 'libtest'
  }
  return detectDialect(readJUnitFile(file, onCase, settings.counters))
}

/** The second reading: each case's results, under the id the first decided; a case left out is not counted. */
function readResults(file: string, scan: Scan, settings: RunsSettings, run: RunWriter, runErrors: RunError[]): void {
  const { entries } = scan.entries.get(file) as { entries: number[] }
  let index = 0
  try {
    try {
      readCases(file, settings, (c) => {
        const entry = entries[index++]
        if (entry === undefined) throw new Error(`${file}: changed while it was being read (more test cases the second time); its cases after the first ${entries.length} are not counted`)
        const id = scan.table.idOf(entry)
        if (id !== null) run.add(id, identityOf(namesOf(c), scan.entries.get(file)?.dialect ?? 'generic'), c, file)
      })
    } finally {
      // The cases read before a report turned out bad keep their lines, as they keep their counts.
      run.flush()
    }
  } catch (error) {
    runErrors.push({ project: null, file, error: (error as Error).message })
  }
}

/** A case's names for the identity rules, its file relative to the working folder when it lies inside it. */
function namesOf(c: Pick<JUnitCase, 'classname' | 'name' | 'file' | 'suites' | 'hostname'>): CaseNames {
  return { classname: c.classname, name: c.name, file: relativeInside(c.file), suites: c.suites, hostname: c.hostname }
}

function relativeInside(file: string): string {
  if (!isAbsolute(file)) return file.split('\\').join('/')
  const shown = relative(process.cwd(), file)
  return shown.startsWith('..') || isAbsolute(shown) ? file : shown.split('\\').join('/')
}

/** One run being counted: each attempt of each case is a repetition of its test and a line of facts. */
class RunWriter {
  private readonly _run: number
  private readonly _gapMs: number
  private readonly _tests: Map<string, KeptTest>
  private readonly _facts: JsonLinesWriter<typeof TestFactSchema>
  /**
   * Lines not yet written, handed to the writer together (one schema check and one write(2) for
   * many, not one of each per line: most of ingest's own cost); flushed at PENDING_LINES or
   * PENDING_CHARS of output text, so a report of huge outputs is never held whole.
   */
  private readonly _pending: TestFact[] = []
  private _pendingChars = 0
  private readonly _attempts = new Map<string, number>()
  private _order = 0
  private _previous: string | null = null

  constructor(run: number, gapMs: number, tests: Map<string, KeptTest>, facts: JsonLinesWriter<typeof TestFactSchema>) {
    this._run = run
    this._gapMs = gapMs
    this._tests = tests
    this._facts = facts
  }

  add(id: string, identity: TestIdentity, c: JUnitCase, source: string): void {
    const name = identity.path.join(' > ')
    const fact = (outcome: 'passed' | 'failed' | 'skipped', error: string | null, last: boolean, elapsedMs: number, attempt: number | undefined) => ({
      trial: this._run,
      test_id: id,
      project: identity.project,
      file: identity.file,
      name,
      outcome,
      elapsed_ms: elapsedMs,
      error,
      stdout: last ? c.stdout : '',
      stderr: last ? c.stderr : '',
      repeat: this._run - 1,
      order: ++this._order,
      previous_test: this._previous,
      worker: source,
      seed: null,
      gap_ms: this._gapMs,
      mode: 'fast' as const,
      ...(attempt === undefined ? {} : { attempt }),
      // Reports are read in the checkout they were written in: frames are named relative to it.
      ...(outcome === 'failed' ? { signature: signatureOfText(error ?? '', process.cwd()) } : {}),
    })
    if (c.skipped) {
      this._write(fact('skipped', null, true, c.elapsedMs, undefined))
      this._previous = id
      return
    }
    let kept = this._tests.get(id)
    if (!kept) {
      kept = { id, project: identity.project, file: identity.file, name, repetitions: [], runs: [], seen: 0 }
      this._tests.set(id, kept)
    }
    if (kept.runs.at(-1) !== this._run) kept.seen++
    // Time per attempt: the report gives the case's; its attempts share it.
    const elapsedMs = c.elapsedMs / c.attempts.length
    c.attempts.forEach((a, i) => {
      const attempt = (this._attempts.get(id) ?? 0) + 1
      this._attempts.set(id, attempt)
      const error = a.error?.slice(0, KEPT_ERROR_CHARS)
      kept.repetitions.push({ ok: a.ok, elapsedMs, mode: 'fast', gapMs: this._gapMs, ...(error === undefined ? {} : { error }) })
      kept.runs.push(this._run)
      this._write(fact(a.ok ? 'passed' : 'failed', a.error, i === c.attempts.length - 1, elapsedMs, attempt))
    })
    this._previous = id
  }

  /** Writes the lines held back, in the order they came: the file is the same as one line at a time. */
  flush(): void {
    if (this._pending.length === 0) return
    const lines = this._pending.splice(0)
    this._pendingChars = 0
    this._facts.appendAll(lines)
  }

  private _write(line: TestFact): void {
    // Each line checked as `append` checked it, the schema's error thrown at the same case: by hand
    // where that is exact (_fact-check.ts; any key order, as the writer writes the line as it is), else by the schema.
    if (!isAcceptedTestFact(line)) TestFactSchema.parse(line)
    this._pending.push(line)
    this._pendingChars += line.stdout.length + line.stderr.length + (line.error?.length ?? 0)
    if (this._pending.length >= PENDING_LINES || this._pendingChars >= PENDING_CHARS) this.flush()
  }
}

const PENDING_LINES = 512
const PENDING_CHARS = 1 << 20

/**
 * The shared tally, with failures numbered by run rather than by attempt: a test seen in runs 1 and 3
 * failed in run 3, not in its 2nd. Every attempt is a trial, as history counts them (§11); a test
 * counted in fewer runs than were read is `partial`, however many attempts it made.
 */
function outcomeOfKept(kept: KeptTest, runs: number, confidence: Confidence): TestOutcome {
  const reported = {
    project: kept.project,
    file: kept.file,
    name: kept.name,
    evidence: { id: kept.id, path: [kept.name], order: 1, previousTest: null, worker: '', seed: null, repetitions: kept.repetitions, ...(kept.seen < runs ? { cut: true as const } : {}) },
  }
  const tally = tallyTest(reported, confidence.exact)
  const failureRuns = [...new Set(kept.repetitions.flatMap((r, i) => (r.ok ? [] : [kept.runs[i] as number])))]
  return outcomeOf({ ...tally, fast: { ...tally.fast, failureTrials: failureRuns } }, kept.repetitions.length, confidence)
}
