import { statSync } from 'node:fs'
import { join } from 'node:path'
import { copyReports, moveReportsAside, prepareKeptReports, reportsAt, specialKind } from '../artifacts/kept-reports.js'
import { assertWritable } from '../artifacts/write.js'
import { hiddenRetriesNote } from '../core/hidden-retries.js'
import { FlakeproofError } from '../errors.js'
import { type TrialRecord, runTrials } from '../runner/run-trials.js'
import type { PipelineContext } from './context.js'
import { warnParallel } from './count-trials.js'
import type { ReportLanguage } from './report.js'
import { type ReportFormat, recordRuns, type RunReports, type RunsResult } from './report-runs.js'
import type { Confidence } from './test-bundle.js'

export interface RepeatSettings {
  /** `{run}` in it becomes the run's number. */
  command: string
  runs: number
  /** Which reports the runs write: JUnit XML or `cargo test` logs. */
  format: ReportFormat
  /**
   * Where run k writes its report: `{run}` becomes k; a glob takes every file it matches, a folder every
   * report below it. Without `{run}` every run writes to the same place, which is moved aside before
   * each run and copied after it (run-reports/ in the output folder).
   */
  report: string
  gapMs: number
  jobs: number
  timeoutMs: number | null
  confidence: Confidence
  lang: ReportLanguage
}

/** The placeholder for the run's number, in the command and in the report path. */
export const RUN_PLACEHOLDER = '{run}'

/**
 * `flakeproof repeat`: runs the command `runs` times with the trial machinery of command mode (gap,
 * jobs, timeout, Ctrl-C), then reads each run's reports, in run order, into per-test rates.
 * A run's exit code says nothing per test (a failing test exits 1 by design); its report does. A
 * run that left no report, or only one older than the run itself (a previous repeat's), counts for
 * no test: it is a run error and the measurement is incomplete.
 * @throws FlakeproofError `E_INPUT` before any run when the report path is a named pipe, socket or
 *   device (reading one would wait forever), or is one fixed path for runs at once (--jobs > 1).
 */
export async function repeatCommand(outDir: string, s: RepeatSettings, context: PipelineContext): Promise<RunsResult> {
  const flag = `--${s.format}`
  const fixed = !s.report.includes(RUN_PLACEHOLDER)
  assertReportPaths(s, flag, fixed)
  if (fixed && s.jobs > 1) {
    throw new FlakeproofError(`${flag} "${s.report}" is one path for every run, and --jobs ${s.jobs} runs ${s.jobs} at once into it; put {run} in both the path and the command, or use --jobs 1`, 'E_INPUT')
  }
  warnParallel(s.jobs, context)
  let kept: string | undefined
  if (fixed) {
    assertWritable(join(outDir, 'facts.jsonl'), '--out-dir')
    kept = withCode('E_OUTPUT', () => prepareKeptReports(outDir))
  }
  const ran = new Map<number, TrialRecord>()
  let failed = 0
  const summary = await runTrials(
    {
      command: s.command,
      trials: s.runs,
      gapMs: s.gapMs,
      timeoutMs: s.timeoutMs,
      jobs: s.jobs,
      commandFor: (run) => withRun(s.command, run),
      // The previous run's report (the user's own before the first) leaves the path, so what is there after a run is that run's.
      ...(kept === undefined ? {} : { beforeTrial: (run: number) => withCode('E_WRITE', () => moveReportsAside(s.report, join(kept as string, run === 1 ? 'before' : `run-${run - 1}`))) }),
    },
    context.control,
    (record) => {
      ran.set(record.trial, record)
      if (record.outcome === 'failed') failed++
      context.onProgress({ label: 'repeat', done: ran.size, total: s.runs, failures: failed, elapsedMs: record.offsetMs + record.elapsedMs })
    },
  )
  const order = [...ran.keys()].sort((a, b) => a - b)
  const last = order.at(-1)
  if (kept !== undefined && last !== undefined) withCode('E_WRITE', () => copyReports(s.report, join(kept as string, `run-${last}`)))
  const reports = order.map((run) => (kept === undefined ? reportsOf(run, ran.get(run) as TrialRecord, s) : keptReportsOf(run, ran.get(run) as TrialRecord, s, kept)))
  return recordRuns(outDir, reports, {
    command: s.command,
    format: s.format,
    requested: s.runs,
    gapMs: s.gapMs,
    jobs: s.jobs,
    timeoutMs: s.timeoutMs,
    confidence: s.confidence,
    lang: s.lang,
    ranAll: summary.complete,
    startedAt: summary.startedAt,
    notes: [hiddenRetriesNote(s.command, process.env)].flatMap((note) => (note === undefined ? [] : [`${note}; these counts are of last attempts only`])),
  })
}

// --- internal ---

/**
 * How much older than its run a report may look and still be the run's: file systems stamp times
 * from a coarser clock than Date.now() (ext4: the kernel tick; FAT: 2 s).
 */
const CLOCK_SLACK_MS = 2000

/** What a folder given as the report holds: JUnit reports are `.xml`, logs `.log` or `.txt`. */
const FOLDER_GLOB = { junit: '**/*.xml', libtest: '**/*.{log,txt}' } as const

/** A file-system failure of the kept reports as one line with its exit code (E_OUTPUT before any run: 2; E_WRITE after: 3). */
function withCode<T>(code: 'E_OUTPUT' | 'E_WRITE', work: () => T): T {
  try {
    return work()
  } catch (error) {
    if (error instanceof FlakeproofError) throw error
    throw new FlakeproofError((error as Error).message, code)
  }
}

function withRun(text: string, run: number): string {
  return text.split(RUN_PLACEHOLDER).join(String(run))
}

/** Refuses, before any run, a report path that is a named pipe, socket or device: reading it would block, deaf to Ctrl-C. */
function assertReportPaths(s: RepeatSettings, flag: string, fixed: boolean): void {
  for (let run = 1; run <= (fixed ? 1 : s.runs); run++) {
    const path = withRun(s.report, run)
    const kind = specialKind(path)
    if (kind !== undefined) throw new FlakeproofError(`${flag} ${path} is ${kind}, not a report file; reports are read from regular files (or every report below a folder)`, 'E_INPUT')
  }
}

function how(record: TrialRecord): string {
  return record.timedOut ? `timed out` : record.signal ? `killed by ${record.signal}` : `exit code ${record.exitCode}`
}

function reportsOf(run: number, record: TrialRecord, s: RepeatSettings): RunReports {
  const path = withRun(s.report, run)
  const files = reportsAt(path, FOLDER_GLOB[s.format])
  if (files.length === 0) return { files: [path], missing: `${path}: run ${run} wrote no report there (${how(record)}); does the command write its report to this path?` }
  const fresh = files.filter((file) => statSync(file).mtimeMs >= record.startedAt.getTime() - CLOCK_SLACK_MS)
  if (fresh.length === 0) return { files: [path], missing: `${path}: run ${run} left it as it was, older than the run (${how(record)}); not counted` }
  return { files: fresh }
}

/** A fixed path's run: what the path held after it, moved aside before the next run (or copied after the last). */
function keptReportsOf(run: number, record: TrialRecord, s: RepeatSettings, kept: string): RunReports {
  const files = reportsAt(join(kept, `run-${run}`), '**/*')
  if (files.length === 0) return { files: [s.report], missing: `${s.report}: run ${run} wrote no report there (${how(record)}); does the command write its report to this path?` }
  return { files }
}
