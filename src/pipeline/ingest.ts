import fg from 'fast-glob'
import type { ReadCounters } from '../artifacts/junit-read.js'
import { FlakeproofError } from '../errors.js'
import type { Confidence } from './test-bundle.js'
import type { ReportLanguage } from './report.js'
import { type ReportFormat, recordRuns, type RunsResult } from './report-runs.js'

export interface IngestSettings {
  format: ReportFormat
  /** The glob as given, for the files' `command` and messages. */
  pattern: string
  confidence: Confidence
  lang: ReportLanguage
  counters?: ReadCounters
}

/**
 * `flakeproof ingest`: every file the glob matches is one run of the suite, taken in path order (so
 * `run-2.xml` comes before `run-10.xml`, and the independence test reads runs in sequence).
 * @throws FlakeproofError `E_INPUT` when the glob matches no file.
 */
export function ingestReports(outDir: string, settings: IngestSettings): RunsResult {
  const startedAt = new Date()
  const files = fg.sync(settings.pattern, { onlyFiles: true, dot: false }).sort(byNumbersInPath)
  const flag = `--${settings.format}`
  if (files.length === 0) throw new FlakeproofError(`${flag} "${settings.pattern}" matches no file; check the pattern (quote it so the shell does not expand it)`, 'E_INPUT')
  return recordRuns(
    outDir,
    files.map((file) => ({ files: [file] })),
    {
      command: `flakeproof ingest ${flag} "${settings.pattern}"`,
      format: settings.format,
      requested: files.length,
      gapMs: 0,
      jobs: 1,
      timeoutMs: null,
      confidence: settings.confidence,
      lang: settings.lang,
      ranAll: true,
      startedAt,
      ...(settings.counters ? { counters: settings.counters } : {}),
    },
  )
}

// --- internal ---

function byNumbersInPath(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true })
}
