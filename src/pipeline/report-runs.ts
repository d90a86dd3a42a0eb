import { join } from 'node:path'
import { type JUnitCase, type ReadCounters, readJUnitFile } from '../artifacts/junit-read.js'
import { readLibtestFile } from '../artifacts/libtest-read.js'
import { discardRunDir, prepareRunDir, promoteRunFiles, runDirOf } from '../artifacts/run-dir.js'
import type { SummaryFile } from '../artifacts/schemas.js'
import { type RunError, TestFactSchema } from '../artifacts/test-schemas.js'
import { DERIVED_FILES, writeBundle } from '../artifacts/write-bundle.js'
import { assertWritable, JsonLinesWriter, removeFiles } from '../artifacts/write.js'
import { assignTestIds } from '../core/test-id.js'
import type { ReportLanguage } from './report.js'
import { writeReportFor } from './report.js'
import { signatureOfText } from '../core/signature.js'
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
}

/**
 * Reads the runs' reports in order, streaming each run's facts (their `worker` is the report's path)
 * into the output folder's run folder, then writes every file of the measurement into `outDir`.
 * When no report held a test, nothing is written and the folder is left as it was.
 */
export function recordRuns(outDir: string, runs: Iterable<RunReports>, settings: RunsSettings): RunsResult {
  assertWritable(join(outDir, 'facts.jsonl'), '--out-dir')
  const dir = runDirOf(outDir)
  prepareRunDir(dir)
  const facts = new JsonLinesWriter(join(dir.path, 'facts.jsonl'), TestFactSchema)
  const tests = new Map<string, KeptTest>()
  const runErrors: RunError[] = []
  let counted = 0
  try {
    for (const reports of runs) {
      if (reports.missing !== undefined) {
        runErrors.push({ project: null, file: reports.files[0] ?? null, error: reports.missing })
        continue
      }
      const { cases, read } = readRun(reports, settings, runErrors)
      // A run whose reports hold no test still ran: the tests it lacks were seen in fewer runs.
      if (read === 0) continue
      counted++
      facts.appendAll(keepRun(counted, cases, settings.gapMs, tests))
    }
  } finally {
    facts.close()
  }
  const outcomes = [...tests.values()].map((t) => outcomeOfKept(t, counted, settings.confidence)).sort(byConcern)
  const complete = settings.ranAll && runErrors.length === 0
  if (tests.size === 0) {
    discardRunDir(dir)
    return { outcomes, runs: counted, complete, stopped: !settings.ranAll, runErrors, summary: undefined }
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
  const report = { ...bundle, rate: { ...bundle.rate, gap_ms: settings.gapMs, jobs: settings.jobs, timeout_ms: settings.timeoutMs, requested_trials: settings.requested, reports: settings.format } }
  writeBundle(outDir, report)
  const summary = writeReportFor(outDir, report, settings.lang)
  return { outcomes, runs: counted, complete, stopped: !settings.ranAll, runErrors, summary }
}

// --- internal ---

/** What is kept of a failure's text per run: enough for tokens and predicates, not a log copy. */
const KEPT_ERROR_CHARS = 1000

interface KeptTest {
  id: string
  file: string
  name: string
  repetitions: Repetition[]
  /** The run of each repetition, in order. */
  runs: number[]
}

interface RunCase extends JUnitCase {
  id: string
  source: string
}

/** The cases of every readable report of a run, and how many were read; an unreadable one becomes a run error, one line naming file and line. */
function readRun(reports: RunReports, settings: RunsSettings, runErrors: RunError[]): { cases: RunCase[]; read: number } {
  const readFile = settings.format === 'junit' ? readJUnitFile : readLibtestFile
  const cases: RunCase[] = []
  let read = 0
  for (const file of reports.files) {
    try {
      for (const c of readFile(file, settings.counters)) cases.push({ ...c, id: '', source: file })
      read++
    } catch (error) {
      runErrors.push({ project: null, file, error: (error as Error).message })
    }
  }
  // Two cases alike in one run (parameterised tests, one test in two projects) get (#2), (#3)… in report order.
  // Vitest's junit reporter joins suite names with ` > `, as test-id.ts does: split, they give the id Vitest's own runs get.
  const ids = assignTestIds(cases.map((c) => ({ project: '', file: c.group, path: c.name.split(' > ') })))
  return { cases: cases.map((c, i) => ({ ...c, id: ids[i] as string })), read }
}

/** Keeps one small record per test of this run and returns its facts. */
function keepRun(run: number, cases: readonly RunCase[], gapMs: number, tests: Map<string, KeptTest>) {
  return cases.map((c, index) => {
    if (c.outcome !== 'skipped') {
      let kept = tests.get(c.id)
      if (!kept) {
        kept = { id: c.id, file: c.group, name: c.name, repetitions: [], runs: [] }
        tests.set(c.id, kept)
      }
      const error = c.error?.slice(0, KEPT_ERROR_CHARS)
      kept.repetitions.push({ ok: c.outcome === 'passed', elapsedMs: c.elapsedMs, mode: 'fast', gapMs, ...(error === undefined ? {} : { error }) })
      kept.runs.push(run)
    }
    return {
      trial: run,
      test_id: c.id,
      project: '',
      file: c.group,
      name: c.name,
      outcome: c.outcome,
      elapsed_ms: c.elapsedMs,
      error: c.error,
      stdout: c.stdout,
      stderr: c.stderr,
      repeat: run - 1,
      order: index + 1,
      previous_test: cases[index - 1]?.id ?? null,
      worker: c.source,
      seed: null,
      gap_ms: gapMs,
      mode: 'fast' as const,
      // Reports are read in the checkout they were written in: frames are named relative to it.
      ...(c.outcome === 'failed' ? { signature: signatureOfText(c.error ?? '', process.cwd()) } : {}),
    }
  })
}

/** The shared tally, with failures numbered by run rather than by repetition: a test seen in runs 1 and 3 failed in run 3, not in its 2nd. */
function outcomeOfKept(kept: KeptTest, runs: number, confidence: Confidence): TestOutcome {
  const reported = { project: '', file: kept.file, name: kept.name, evidence: { id: kept.id, path: [kept.name], order: 1, previousTest: null, worker: '', seed: null, repetitions: kept.repetitions } }
  const tally = tallyTest(reported, confidence.exact)
  const failureRuns = kept.repetitions.flatMap((r, i) => (r.ok ? [] : [kept.runs[i] as number]))
  return outcomeOf({ ...tally, fast: { ...tally.fast, failureTrials: failureRuns } }, runs, confidence)
}
