import { existsSync, statSync } from 'node:fs'
import fg from 'fast-glob'
import { type TrialRecord, runTrials } from '../runner/run-trials.js'
import type { PipelineContext } from './context.js'
import { warnParallel } from './count-trials.js'
import type { ReportLanguage } from './report.js'
import { recordRuns, type RunReports, type RunsResult } from './report-runs.js'
import type { Confidence } from './test-bundle.js'

export interface RepeatSettings {
  /** `{run}` in it becomes the run's number. */
  command: string
  runs: number
  /** Where run k writes its JUnit report: `{run}` becomes k; a glob takes every file it matches. */
  junit: string
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
 * jobs, timeout, Ctrl-C), then reads each run's JUnit report, in run order, into per-test rates.
 * A run's exit code says nothing per test (a failing test exits 1 by design); its report does. A
 * run that left no report, or only one older than the run itself (a previous repeat's), counts for
 * no test: it is a run error and the measurement is incomplete.
 */
export async function repeatCommand(outDir: string, s: RepeatSettings, context: PipelineContext): Promise<RunsResult> {
  warnParallel(s.jobs, context)
  const ran = new Map<number, TrialRecord>()
  let failed = 0
  const summary = await runTrials(
    { command: s.command, trials: s.runs, gapMs: s.gapMs, timeoutMs: s.timeoutMs, jobs: s.jobs, commandFor: (run) => withRun(s.command, run) },
    context.control,
    (record) => {
      ran.set(record.trial, record)
      if (record.outcome === 'failed') failed++
      context.onProgress({ label: 'repeat', done: ran.size, total: s.runs, failures: failed, elapsedMs: record.offsetMs + record.elapsedMs })
    },
  )
  const reports = [...ran.keys()].sort((a, b) => a - b).map((run) => reportsOf(run, ran.get(run) as TrialRecord, s.junit))
  return recordRuns(outDir, reports, {
    command: s.command,
    format: 'junit',
    requested: s.runs,
    gapMs: s.gapMs,
    jobs: s.jobs,
    timeoutMs: s.timeoutMs,
    confidence: s.confidence,
    lang: s.lang,
    ranAll: summary.complete,
    startedAt: summary.startedAt,
  })
}

// --- internal ---

/**
 * How much older than its run a report may look and still be the run's: file systems stamp times
 * from a coarser clock than Date.now() (ext4: the kernel tick; FAT: 2 s).
 */
const CLOCK_SLACK_MS = 2000

function withRun(text: string, run: number): string {
  return text.split(RUN_PLACEHOLDER).join(String(run))
}

function reportsOf(run: number, record: TrialRecord, pattern: string): RunReports {
  const path = withRun(pattern, run)
  const files = fg.isDynamicPattern(path) ? fg.sync(path, { onlyFiles: true }).sort() : existsSync(path) ? [path] : []
  const how = record.timedOut ? `timed out` : record.signal ? `killed by ${record.signal}` : `exit code ${record.exitCode}`
  if (files.length === 0) return { files: [path], missing: `${path}: run ${run} wrote no report there (${how}); does the command write its JUnit report to this path?` }
  const fresh = files.filter((file) => statSync(file).mtimeMs >= record.startedAt.getTime() - CLOCK_SLACK_MS)
  if (fresh.length === 0) return { files: [path], missing: `${path}: run ${run} left it as it was, older than the run (${how}); not counted` }
  return { files: fresh }
}
