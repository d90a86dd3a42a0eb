import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { isAbsolute, join, relative } from 'node:path'
import { lastTimeParser } from '../core/iso-time.js'
import { FlakeproofError } from '../errors.js'
import { makeOutputFolder, nonRegularKind } from './_fs.js'
import { checkedHistoryRecord } from './_history-check.js'
import { type HistoryRecord, HistoryRecordSchema } from './history-schemas.js'
import { parseJsonLine } from './read.js'
import { writeTextAtomic } from './write.js'
import { byCodeUnits } from '../core/text-order.js'

export { type HistoryFile, HistoryFileSchema, type HistoryRecord, HistoryRecordSchema } from './history-schemas.js'

/**
 * History from everyday runs (docs/contracts.md §11): each ordinary test run leaves one new file in
 * `<outDir>/history/`, one line per test that ran. One file per run, under a name no other run can
 * pick, so parallel CI jobs never write the same file; the folder is pruned by age and size.
 */

/** Limits of the history folder: files older than `maxAgeDays` go, then the oldest until it fits `maxBytes`. */
export interface HistoryLimits {
  maxAgeDays: number
  maxBytes: number
}

/** A quarter of a year of daily runs, and no more than 50 MB of disk. */
export const HISTORY_LIMITS: HistoryLimits = { maxAgeDays: 90, maxBytes: 50 * 1024 * 1024 }

/**
 * Writes one run's records as a new file in `dir` (atomically: a reader never sees half a file),
 * then prunes the folder. Returns the new file's path. @throws FlakeproofError `E_WRITE`
 */
export function writeHistoryRun(dir: string, records: readonly HistoryRecord[], now: Date, limits: HistoryLimits = HISTORY_LIMITS): string {
  // One id for the run, on each of its lines: a copy of the file keeps it, so `history` counts it once.
  const runId = randomUUID()
  const lines = records.map((r) => JSON.stringify(HistoryRecordSchema.parse({ ...r, run_id: r.run_id ?? runId }))).join('\n')
  // Sortable by time; the pid and random part keep two runs ending in the same millisecond apart.
  const name = `${now.toISOString().replace(/[:.]/g, '-')}-${process.pid}-${randomBytes(4).toString('hex')}.jsonl`
  const path = join(dir, name)
  // Never through a link: a `.flakeproof/history` link would send every run's record elsewhere.
  const inside = relative(process.cwd(), dir)
  makeOutputFolder(dir, inside === '' || inside.startsWith('..') || isAbsolute(inside) ? dir : inside)
  writeTextAtomic(path, `${lines}\n`)
  pruneHistory(dir, now, limits, name)
  return path
}

/**
 * Removes history files older than `maxAgeDays`, then the oldest until the folder holds at most
 * `maxBytes`; `keep` (the file just written) stays. A file another run removed meanwhile is skipped.
 */
export function pruneHistory(dir: string, now: Date, limits: HistoryLimits, keep?: string): string[] {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl') && name !== keep)
    .flatMap((name) => {
      try {
        const stats = statSync(join(dir, name))
        return [{ name, bytes: stats.size, mtimeMs: stats.mtimeMs }]
      } catch {
        return []
      }
    })
    .sort((a, b) => a.mtimeMs - b.mtimeMs || byCodeUnits(a.name, b.name))
  const oldest = now.getTime() - limits.maxAgeDays * 86_400_000
  const removed: string[] = []
  const keptBytes = keep === undefined ? 0 : sizeOf(join(dir, keep))
  let total = keptBytes + files.reduce((sum, f) => sum + f.bytes, 0)
  for (const file of files) {
    if (file.mtimeMs >= oldest && total <= limits.maxBytes) break
    rmSync(join(dir, file.name), { force: true })
    total -= file.bytes
    removed.push(file.name)
  }
  return removed
}

/** One history file as read back: its path and its records. */
export interface HistoryRun {
  file: string
  records: HistoryRecord[]
}

/** History files read, and the ones left out as copies of a file already read. */
export interface HistoryRuns {
  runs: HistoryRun[]
  /** `b/r1.jsonl holds the same run as a/r1.jsonl`, one per copy: said once, so a copy is never counted silently. */
  duplicates: string[]
}

/** How far a run's end may lie ahead of this machine's clock: CI machines disagree by seconds, not a day. */
const CLOCK_SLACK_MS = 86_400_000

/**
 * Every history file the globs match (fast-glob, sorted), each line validated. A bad line is one
 * error naming the file and line: a history that silently drops runs would skew every rate. So is
 * a run that ends in the future (a wrong clock), which would pass every `--since`. One run is one
 * file: the same file reached twice (a link) or copied (into two downloaded folders) counts once.
 */
export function readHistoryRuns(patterns: readonly string[], now = Date.now()): HistoryRuns {
  const files = [...new Set(fastGlob().sync([...patterns], { onlyFiles: true, dot: true }))].sort()
  if (files.length === 0) {
    throw new FlakeproofError(`--glob ${patterns.join(' ')} matches no file; run the tests with \`flakeproof/reporter\` first, or quote the glob so the shell leaves it to flakeproof`, 'E_INPUT')
  }
  return readHistoryFiles(files, (file) => `--glob ${file}`, 'Pass only files of a .flakeproof/history/ folder', now)
}

/** As readHistoryRuns, but a glob matching no file is no history rather than an error (attribution, explain). */
export function readHistoryRunsIfAny(patterns: readonly string[], now = Date.now()): HistoryRuns {
  return fastGlob().sync([...patterns], { onlyFiles: true, dot: true }).length === 0 ? { runs: [], duplicates: [] } : readHistoryRuns(patterns, now)
}

/**
 * Every history file of one folder (a reporter's own `<outDir>/history`), oldest name first, read
 * as readHistoryRuns reads them; none when the folder does not exist. Names are taken literally,
 * never as a glob.
 */
export function readHistoryFolder(dir: string, now = Date.now()): HistoryRuns {
  if (!existsSync(dir)) return { runs: [], duplicates: [] }
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .map((name) => join(dir, name))
  return readHistoryFiles(files, (file) => file, 'Remove the file, or restore it from the run that wrote it', now)
}

// --- internal ---

/** The history files, each line validated (a bad line names `whereOf(file)` and its line number), each run once. */
function readHistoryFiles(files: readonly string[], whereOf: (file: string) => string, hint: string, now: number): HistoryRuns {
  const seen = new Map<string, string>()
  const runs: HistoryRun[] = []
  const timeOf = lastTimeParser()
  const duplicates: string[] = []
  for (const file of files) {
    const kind = nonRegularKind(file)
    if (kind !== undefined && kind !== 'a symbolic link') throw new FlakeproofError(`${whereOf(file)}: is ${kind}, not a history file. ${hint}`, 'E_INPUT')
    const text = readFileSync(file, 'utf8')
    const records: HistoryRecord[] = []
    for (const [index, line] of text.split('\n').entries()) {
      if (line.trim() === '') continue
      // Named only for a bad line: a history of a hundred thousand good ones builds no text.
      const where = (): string => `${whereOf(file)}: line ${index + 1}`
      const record = parseJsonLine(line, HistoryRecordSchema, where, hint, checkedHistoryRecord)
      if (timeOf(record.at) > now + CLOCK_SLACK_MS) {
        throw new FlakeproofError(`${where()}: at ${record.at} is in the future: the clock of the machine that recorded it was wrong; correct or remove the file. ${hint}`, 'E_INPUT')
      }
      records.push(record)
    }
    // The run's id when it has one (two runs can end alike, to the millisecond), else its bytes.
    const identity = records[0]?.run_id ?? createHash('sha256').update(text).digest('hex')
    const first = seen.get(identity) ?? seen.get(realpathSync(file))
    if (first !== undefined) {
      duplicates.push(`${file} holds the same run as ${first}`)
      continue
    }
    seen.set(identity, file)
    seen.set(realpathSync(file), file)
    runs.push({ file, records })
  }
  return { runs, duplicates }
}

// --- internal ---

/**
 * fast-glob (CommonJS, some twenty modules), required when history is read: every test run writes
 * history through this module, and would otherwise load it at start-up for nothing.
 */
function fastGlob(): typeof import('fast-glob') {
  return createRequire(import.meta.url)('fast-glob') as typeof import('fast-glob')
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}
