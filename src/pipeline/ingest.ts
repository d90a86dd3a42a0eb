import { statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { specialKind } from '../artifacts/kept-reports.js'
import fg from 'fast-glob'
import type { ReadCounters } from '../artifacts/junit-read.js'
import { FlakeproofError } from '../errors.js'
import type { Confidence } from './test-bundle.js'
import type { ReportLanguage } from './report.js'
import { type ReportFormat, recordRuns, type RunReports, type RunsResult } from './report-runs.js'

export interface IngestSettings {
  format: ReportFormat
  /** The glob as given, for the files' `command` and messages. */
  pattern: string
  confidence: Confidence
  lang: ReportLanguage
  counters?: ReadCounters
}

/**
 * `flakeproof ingest`: every file the glob matches is one run of the suite, and every folder it
 * matches is one run made of the reports below it (Surefire writes one file per class), taken in path
 * order (so `run-2.xml` comes before `run-10.xml`, and the independence test reads runs in sequence).
 * @throws FlakeproofError `E_INPUT` when the glob matches nothing, or only folders with no report.
 */
export function ingestReports(outDir: string, settings: IngestSettings): RunsResult {
  const startedAt = new Date()
  const flag = `--${settings.format}`
  const runs = runsOf(settings.pattern, settings.format)
  if (runs.length === 0) throw new FlakeproofError(`${flag} "${settings.pattern}" matches no file; check the pattern (quote it so the shell does not expand it)`, 'E_INPUT')
  return recordRuns(
    outDir,
    runs,
    {
      command: `flakeproof ingest ${flag} "${settings.pattern}"`,
      format: settings.format,
      requested: runs.length,
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

/** What a run folder holds: JUnit reports are `.xml`, saved logs `.log` or `.txt`. */
const REPORT_GLOB = { junit: '**/*.xml', libtest: '**/*.{log,txt}' } as const

/** Each match of the glob as one run: a file alone, a folder with every report below it. */
function runsOf(pattern: string, format: ReportFormat): RunReports[] {
  const matches = fg.sync(pattern, { onlyFiles: false, dot: false, objectMode: true }).sort((a, b) => byNumbersInPath(a.path, b.path))
  // A match inside a matched folder is part of that folder's run (`reports/**` matches both), never a run of its own.
  const folders = matches.filter((m) => m.dirent.isDirectory()).map((m) => `${m.path.replace(/\/+$/, '')}/`)
  const outermost = matches.filter((m) => !folders.some((folder) => m.path.startsWith(folder)))
  const runs = outermost.flatMap((match): RunReports[] => {
    // A named pipe would block the read forever (deaf to Ctrl-C): refused before anything is read.
    const kind = specialKind(match.path)
    if (kind !== undefined) throw new FlakeproofError(`--${format} "${pattern}" matches ${match.path}, which is ${kind}, not a report file; reports are read from regular files (or every report below a folder)`, 'E_INPUT')
    if (!match.dirent.isDirectory() && !(match.dirent.isSymbolicLink() && statSync(match.path).isDirectory())) return [{ files: [match.path] }]
    const files = fg.sync(REPORT_GLOB[format], { cwd: match.path, onlyFiles: true, dot: false }).sort(byNumbersInPath)
    return files.length === 0 ? [] : [{ files: files.map((file) => join(match.path, file)) }]
  })
  return groupSurefireClasses(runs)
}

/**
 * Maven Surefire writes one `TEST-<class>.xml` per test class into one folder per run: files so named
 * in one folder are one run, however the glob reached them (`out/**\/TEST-*.xml` is not 36 runs of 9).
 */
function groupSurefireClasses(runs: RunReports[]): RunReports[] {
  const grouped: RunReports[] = []
  const byFolder = new Map<string, string[]>()
  for (const run of runs) {
    const [file] = run.files
    const surefire = run.files.length === 1 && file !== undefined && /^TEST-.+\.xml$/.test(basename(file))
    if (!surefire) {
      grouped.push(run)
      continue
    }
    const folder = dirname(file)
    const files = byFolder.get(folder)
    if (files) files.push(file)
    else {
      const group = [file]
      byFolder.set(folder, group)
      grouped.push({ files: group })
    }
  }
  return grouped
}

function byNumbersInPath(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true })
}
