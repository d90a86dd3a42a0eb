import { closeSync, constants, openSync, readdirSync, readSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import type { TestIdentity } from '../core/test-id.js'
import type { JournalLate, JournalLine, JournalRepetition } from './journal-line.js'

export { forJournal, type JournalLine, type JournalRepetition } from './journal-line.js'

/**
 * The journal: each Vitest worker appends one line per repetition as it ends, in one write(2), to a
 * file of its own. A worker that dies (SIGKILL, native crash, OOM) takes its in-memory evidence with
 * it; the journal keeps every repetition it finished and names the one it was running. The main
 * process also reads it while tests run, for progress. Plain `node:fs` and no zod: the worker's hot
 * path imports this module.
 */

export class JournalWriter {
  private _fd: number | undefined
  private readonly _path: string
  /** A write failed (a full disk): the journal stops here rather than fail the test it was written for. */
  private _broken = false

  constructor(dir: string) {
    this._path = join(dir, `worker-${process.pid}.jsonl`)
  }

  /**
   * Never throws for the disk: the journal only recovers a dead worker's repetitions, and an error
   * here would fail the user's test with flakeproof's ENOSPC. Its last line may be torn; the reader
   * skips a line that does not parse. The results themselves travel on the test's meta, and the
   * reporter says when they could not be written.
   */
  write(line: JournalLine): void {
    if (this._broken) return
    try {
      this._fd ??= openJournal(this._path)
      writeSync(this._fd, `${JSON.stringify(line)}\n`)
    } catch {
      this._broken = true
    }
  }
}

/**
 * Appends lines a browser page sent (plugin/vitest/_browser.ts) to that page's journal file, in one
 * write(2). Opened and closed each time: a page sends once per test, and a watch-mode rerun
 * empties the folder between runs, which a file held open would not see.
 */
export function appendJournal(dir: string, name: string, lines: readonly JournalLine[]): void {
  if (lines.length === 0) return
  const fd = openJournal(join(dir, `${name}.jsonl`))
  try {
    writeSync(fd, lines.map((line) => `${JSON.stringify(line)}\n`).join(''))
  } finally {
    closeSync(fd)
  }
}

/** What the journal says of one test whose end it has not (yet) seen. */
export interface JournalTest {
  identity: TestIdentity | undefined
  planned: number
  order: number
  worker: string
  pid: number | undefined
  /** The test's last line said it ended: every repetition is here. */
  ended: boolean
  repetitions: JournalRepetition[]
  /** A repetition that began and did not end: its index and start (ms since the epoch). */
  running: { index: number; at: number } | undefined
  /** As the first line said (JournalLine): undefined where the runner's reporter knows it itself. */
  line?: number | undefined
  previousTest?: string | null | undefined
  previousFile?: string | null | undefined
}

/** Progress of the run so far, from every worker's journal. */
export interface JournalProgress {
  repetitions: number
  failures: number
  /** Tests the journal has seen and the reporter has not forgotten, by id: under way, or ended with results not yet arrived. */
  tests: ReadonlyMap<string, JournalTest>
  /** Ids of every test of the files whose `collected` line was read (JournalLine.collected). */
  collected: ReadonlySet<string>
}

/**
 * Reads the journals of a folder incrementally: each call to `read()` takes the lines appended
 * since the last call. A test is kept until `forget(id)` says its results arrived, even after its
 * last line: a worker that dies right after a test ended may take those results with it. Memory
 * stays proportional to the repetitions of tests whose results have not arrived.
 */
export class JournalReader {
  private readonly _dir: string
  private readonly _files = new Map<string, { offset: number; decoder: StringDecoder; partial: string }>()
  private readonly _tests = new Map<string, JournalTest>()
  private readonly _forgotten = new Set<string>()
  private readonly _collected = new Set<string>()
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
    return { repetitions: this._repetitions, failures: this._failures, tests: this._tests, collected: this._collected }
  }

  /**
   * A whole-run round ended (every worker of it is done): its lines are read and dropped, so the
   * next round's lines for the same test ids start afresh.
   */
  nextRound(): void {
    this.read()
    this._tests.clear()
    this._forgotten.clear()
    this._collected.clear()
  }

  /** The reporter has this test's results: its lines, read or to come, are no longer needed. */
  forget(id: string): void {
    this._tests.delete(id)
    this._forgotten.add(id)
  }

  // --- internal ---

  private _readFile(name: string): void {
    let fd: number
    try {
      fd = openSync(join(this._dir, name), constants.O_RDONLY | constants.O_NOFOLLOW)
    } catch {
      return
    }
    try {
      let file = this._files.get(name)
      if (!file) {
        // A decoder per file: a character cut between two reads is joined, not replaced.
        file = { offset: 0, decoder: new StringDecoder('utf8'), partial: '' }
        this._files.set(name, file)
      }
      const buffer = Buffer.alloc(1 << 16)
      for (let read = readSync(fd, buffer, 0, buffer.length, file.offset); read > 0; read = readSync(fd, buffer, 0, buffer.length, file.offset)) {
        file.offset += read
        const text = file.partial + file.decoder.write(buffer.subarray(0, read))
        const cut = text.lastIndexOf('\n')
        if (cut < 0) {
          file.partial = text
          continue
        }
        for (const line of text.slice(0, cut).split('\n')) this._apply(line)
        file.partial = text.slice(cut + 1)
      }
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
    if (line.collected) {
      for (const id of line.collected) this._collected.add(id)
      return
    }
    if (line.done) {
      this._repetitions++
      if (!line.done.ok) this._failures++
    }
    if (this._forgotten.has(line.id)) return
    let test = this._tests.get(line.id)
    if (!test) {
      test = { identity: line.identity, planned: line.planned ?? 0, order: line.order ?? 1, worker: line.worker ?? '', pid: line.pid, ended: false, repetitions: [], running: undefined }
      if (line.line !== undefined) test.line = line.line
      if (line.previousTest !== undefined) test.previousTest = line.previousTest
      if (line.previousFile !== undefined) test.previousFile = line.previousFile
      this._tests.set(line.id, test)
    }
    if (line.done) {
      test.repetitions.push(line.done)
      test.running = undefined
    }
    if (line.begin !== undefined) test.running = { index: line.begin, at: line.at ?? Date.now() }
    if (line.end) test.ended = true
    if (line.late) this._failLate(test, line.late)
  }

  /**
   * A repetition written as passed failed after it ended (JournalLate): it is a failure, with the
   * error its runner gave it. Its test is never forgotten by then (Jest's reporter reads a file's
   * tests after its run finished), so progress counts it only where it changed something.
   */
  private _failLate(test: JournalTest, { index, error, signature }: JournalLate): void {
    const repetition = test.repetitions[index]
    if (repetition === undefined || !repetition.ok) return
    test.repetitions[index] = { ...repetition, ok: false, error, signature }
    this._failures++
  }
}

// --- internal ---

function openJournal(path: string): number {
  // O_NOFOLLOW: a symlink planted at this name is never written through.
  return openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644)
}
