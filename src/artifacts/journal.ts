import { closeSync, constants, mkdirSync, openSync, readdirSync, readSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { TestIdentity } from '../core/test-id.js'
import type { Repetition } from '../pipeline/test-evidence.js'

/**
 * The journal: each Vitest worker appends one line per repetition as it ends, in one write(2), to a
 * file of its own. A worker that dies (SIGKILL, native crash, OOM) takes its in-memory evidence with
 * it; the journal keeps every repetition it finished and names the one it was running. The main
 * process also reads it while tests run, for progress. Plain `node:fs` and no zod: the worker's hot
 * path imports this module.
 */

/** One line: a repetition ended (`done`), one began (`begin`, its index), or the test ended (`end`). */
export interface JournalLine {
  id: string
  /** On the first line of a test only. */
  identity?: TestIdentity
  /** On the first line of a test: repetitions it will run, its place in its worker, the worker. */
  planned?: number
  order?: number
  worker?: string
  /** When a repetition began (`begin`), ms since the epoch. */
  at?: number
  done?: Omit<Repetition, 'stdout' | 'stderr'>
  begin?: number
  end?: true
}

/** Characters of an error message kept in the journal (the full one travels on the test's meta). */
const ERROR_LIMIT = 500

export class JournalWriter {
  private _fd: number | undefined
  private readonly _path: string

  constructor(dir: string) {
    this._path = join(dir, `worker-${process.pid}.jsonl`)
  }

  write(line: JournalLine): void {
    if (line.done?.error && line.done.error.length > ERROR_LIMIT) line.done.error = line.done.error.slice(0, ERROR_LIMIT)
    this._fd ??= openJournal(this._path)
    writeSync(this._fd, `${JSON.stringify(line)}\n`)
  }
}

/** What the journal says of one test whose end it has not (yet) seen. */
export interface JournalTest {
  identity: TestIdentity | undefined
  planned: number
  order: number
  worker: string
  repetitions: Omit<Repetition, 'stdout' | 'stderr'>[]
  /** A repetition that began and did not end: its index and start (ms since the epoch). */
  running: { index: number; at: number } | undefined
}

/** Progress of the run so far, from every worker's journal. */
export interface JournalProgress {
  repetitions: number
  failures: number
  /** Tests under way (begun, not ended), by id. */
  open: ReadonlyMap<string, JournalTest>
}

/**
 * Reads the journals of a folder incrementally: each call to `read()` takes the lines appended
 * since the last call. Memory stays proportional to the repetitions of tests still under way.
 */
export class JournalReader {
  private readonly _dir: string
  private readonly _offsets = new Map<string, number>()
  private readonly _partial = new Map<string, string>()
  private readonly _open = new Map<string, JournalTest>()
  private _repetitions = 0
  private _failures = 0

  constructor(dir: string) {
    this._dir = dir
  }

  read(): JournalProgress {
    let names: string[]
    try {
      names = readdirSync(this._dir).filter((name) => name.endsWith('.jsonl'))
    } catch {
      names = []
    }
    for (const name of names) this._readFile(name)
    return { repetitions: this._repetitions, failures: this._failures, open: this._open }
  }

  // --- internal ---

  private _readFile(name: string): void {
    const path = join(this._dir, name)
    let fd: number
    try {
      fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW)
    } catch {
      return
    }
    try {
      let offset = this._offsets.get(name) ?? 0
      const buffer = Buffer.alloc(1 << 16)
      let text = this._partial.get(name) ?? ''
      for (let read = readSync(fd, buffer, 0, buffer.length, offset); read > 0; read = readSync(fd, buffer, 0, buffer.length, offset)) {
        offset += read
        text += buffer.toString('utf8', 0, read)
        const cut = text.lastIndexOf('\n')
        if (cut >= 0) {
          for (const line of text.slice(0, cut).split('\n')) this._apply(line)
          text = text.slice(cut + 1)
        }
      }
      this._offsets.set(name, offset)
      this._partial.set(name, text)
    } finally {
      closeSync(fd)
    }
  }

  private _apply(text: string): void {
    let line: JournalLine
    try {
      line = JSON.parse(text) as JournalLine
    } catch {
      return
    }
    let test = this._open.get(line.id)
    if (!test) {
      test = { identity: line.identity, planned: line.planned ?? 0, order: line.order ?? 1, worker: line.worker ?? '', repetitions: [], running: undefined }
      this._open.set(line.id, test)
    }
    if (line.done) {
      test.repetitions.push(line.done)
      test.running = undefined
      this._repetitions++
      if (!line.done.ok) this._failures++
    }
    if (line.begin !== undefined) test.running = { index: line.begin, at: line.at ?? Date.now() }
    if (line.end) this._open.delete(line.id)
  }
}

/** Creates the journal folder; the main process does this before any worker starts. */
export function createJournalDir(dir: string): void {
  mkdirSync(dir, { recursive: true })
}

// --- internal ---

function openJournal(path: string): number {
  // O_NOFOLLOW: a symlink planted at this name is never written through.
  return openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644)
}
