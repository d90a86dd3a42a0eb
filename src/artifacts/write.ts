import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { dirname, join } from 'node:path'
import type * as z from '../_zod.js'
import { safeParseWhole } from './_compiled-schema.js'
import { lineJson } from './_fact-text.js'
import { FlakeproofError } from '../errors.js'
import { CREATE_NEW, describeKind, makeOutputFolder, nonRegularKind, reasonOf, siblingName } from './_fs.js'

/*
 * Nothing here writes through a symlink or replaces anything but a regular file: a path that exists
 * and is a symlink, a folder, a FIFO or a device is refused (checked with lstat, then enforced by
 * O_NOFOLLOW / O_EXCL at open). Renaming over a symlink would replace the link, not its target, but
 * a link where a result belongs is someone else's intent or an attack, so it is refused too.
 */

/**
 * Validates `value` against `schema`, then writes it as pretty JSON through a temp file, fsync and a
 * rename, so a reader (or a crash) never sees half a file and an older copy survives until the new
 * one is whole on disk.
 * @throws FlakeproofError `E_WRITE` when it cannot be written; the temp file is removed.
 */
export function writeJsonAtomic<S extends z.ZodType>(path: string, schema: S, value: z.input<S>): z.output<S> {
  const parsed = parseOnce(schema, value)
  replaceFile(path, `${JSON.stringify(parsed, null, 2)}\n`, true)
  return parsed
}

/**
 * A file that lives only while its process runs (a run marker, docs/contracts.md §13.5), written
 * like writeJsonAtomic (validated, through a temp file and a rename, so a reader never sees half of
 * it) but not fsynced: after a crash it names a process that is gone, which its readers ignore,
 * and one the crash left empty fails their parse and is skipped the same way. Rewritten as a run's
 * files become known (per test file in a Jest run), each fsync cost a wait on the disk.
 * @throws FlakeproofError `E_WRITE` when it cannot be written; the temp file is removed.
 */
export function writeTransientJson<S extends z.ZodType>(path: string, schema: S, value: z.input<S>): z.output<S> {
  const parsed = parseOnce(schema, value)
  replaceFile(path, `${JSON.stringify(parsed, null, 2)}\n`, false)
  return parsed
}

/** Writes a text file (the markdown report) the same atomic way. @throws FlakeproofError `E_WRITE` */
export function writeTextAtomic(path: string, text: string): void {
  replaceFile(path, text, true)
}

/**
 * facts.jsonl, one whole line per trial. Each line goes out in a single unbuffered write(2) as its
 * trial ends, so a run killed at any moment leaves every finished trial on disk and no torn line.
 */
export class JsonLinesWriter<S extends z.ZodType> {
  private readonly _fd: number
  private readonly _path: string
  private readonly _schema: S
  private readonly _accepted: ((line: unknown) => boolean) | undefined
  /** Bytes of whole lines written; a failed write is cut back to it. */
  private _size = 0

  /**
   * Truncates `path`: a new collection replaces the old one. `accepted`: the schema checked by hand
   * (_fact-check.ts), true only for a line the schema accepts (false sends it to the schema).
   * @throws FlakeproofError `E_OUTPUT` when `path` is not a regular file or cannot be opened.
   */
  constructor(path: string, schema: S, accepted?: (line: unknown) => boolean) {
    this._path = path
    this._schema = schema
    this._accepted = accepted
    try {
      makeOutputFolder(dirname(path), path, undefined, false)
      refuseNonRegular(path, path, 'E_OUTPUT')
      // O_NONBLOCK: a FIFO swapped in after the check must fail to open, not block the run forever.
      const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o666)
      try {
        const kind = describeKind(fstatSync(fd))
        if (kind !== undefined) throw nonRegularError(path, kind, 'E_OUTPUT')
        // Truncated only once known to be a regular file.
        ftruncateSync(fd, 0)
      } catch (error) {
        closeSync(fd)
        throw error
      }
      this._fd = fd
    } catch (error) {
      if (error instanceof FlakeproofError) throw error
      throw new FlakeproofError(`cannot open ${path} for writing (${reasonOf(error)}); choose a writable path`, 'E_OUTPUT', { cause: error })
    }
  }

  /** Bytes of whole lines written so far: where the next line will start. */
  get size(): number {
    return this._size
  }

  /** @throws FlakeproofError `E_WRITE` */
  append(line: z.input<S>): void {
    this.appendAll([line])
  }

  /**
   * Several whole lines in one write(2): a test's repetitions arrive together. The first line of a
   * batch is checked against the schema; the others come from the same typed code, and checking
   * each of 100 000 repetitions would cost more than running them.
   * @throws FlakeproofError `E_WRITE` (disk full, …); the file keeps only whole lines.
   */
  appendAll(lines: readonly z.input<S>[]): void {
    const [first] = lines
    if (first === undefined) return
    // The schema checked by hand where there is such a check (exact: what it takes, the schema takes;
    // what it refuses goes to the schema, which refuses it or takes it): a zod parse per test was two
    // thirds of recording it in a one-repetition run.
    if (this._accepted?.(first) !== true) this._schema.parse(first)
    // A line a merge read and changed is written from the text it was read from (_fact-text.ts).
    const bytes = Buffer.from(lines.map((line) => `${lineJson(line)}\n`).join(''))
    try {
      // A regular file takes the whole buffer in one write unless the disk fills up mid-way.
      let written = 0
      while (written < bytes.length) written += writeSync(this._fd, bytes, written, bytes.length - written, this._size + written)
      this._size += bytes.length
    } catch (error) {
      ftruncateQuietly(this._fd, this._size)
      throw new FlakeproofError(`cannot write ${this._path} (${reasonOf(error)})`, 'E_WRITE', { cause: error })
    }
  }

  /** @throws FlakeproofError `E_WRITE` when the lines cannot be flushed to disk. */
  close(): void {
    try {
      fsyncSync(this._fd)
    } catch (error) {
      throw new FlakeproofError(`cannot write ${this._path} (${reasonOf(error)})`, 'E_WRITE', { cause: error })
    } finally {
      closeSync(this._fd)
    }
  }
}

/**
 * Removes the named files from `dir` if present, so a new investigation never reports a stale
 * proof or observation next to fresh numbers. All are checked first: if one is not a regular file,
 * nothing is removed.
 * @throws FlakeproofError `E_OUTPUT`
 */
export function removeFiles(dir: string, names: readonly string[]): void {
  try {
    for (const name of names) refuseNonRegular(join(dir, name), join(dir, name), 'E_OUTPUT')
    for (const name of names) rmSync(join(dir, name), { force: true })
  } catch (error) {
    if (error instanceof FlakeproofError) throw error
    throw new FlakeproofError(`cannot clear earlier results from ${dir} (${reasonOf(error)}); choose a writable folder`, 'E_OUTPUT', {
      cause: error,
    })
  }
}

/**
 * Fails if `path` exists and is not a regular file (a symlink, a folder, a FIFO, a device), without
 * creating anything: the first check on an output path, before its folder is made or locked.
 * @throws FlakeproofError `E_OUTPUT`
 */
export function assertReplaceable(path: string, flag: string): void {
  try {
    refuseNonRegular(path, `${flag} ${path}`, 'E_OUTPUT')
  } catch (error) {
    if (error instanceof FlakeproofError) throw error
    throw new FlakeproofError(`${flag} ${path}: cannot look at it (${reasonOf(error)}); choose a path you can write`, 'E_OUTPUT', { cause: error })
  }
}

/**
 * `assertReplaceable` for each of `names` in `dir`: the files a run will write, refused all at once
 * before it starts (a folder where facts.jsonl goes would otherwise be found after every test ran).
 * @throws FlakeproofError `E_OUTPUT`
 */
export function assertAllReplaceable(dir: string, names: readonly string[], flag: string): void {
  for (const name of names) assertReplaceable(join(dir, name), flag)
}

/**
 * Fails early, before any trial runs, if `path` cannot receive a new file: it exists and is not a
 * regular file, or its folder cannot hold a new file. Creates the folder if needed and probes it
 * with a throwaway file, so read-only mounts are caught too.
 * @throws FlakeproofError `E_OUTPUT`
 */
export function assertWritable(path: string, flag: string): void {
  assertReplaceable(path, flag)
  const folder = dirname(path)
  const probe = siblingName(join(folder, 'flakeproof'), 'probe')
  try {
    makeOutputFolder(folder, `${flag} ${path}`, undefined, false)
    closeSync(openSync(probe, CREATE_NEW, 0o600))
    unlinkSync(probe)
  } catch (error) {
    if (error instanceof FlakeproofError) throw new FlakeproofError(error.message, 'E_OUTPUT', { cause: error })
    throw new FlakeproofError(`${flag} ${path}: cannot write in ${folder} (${reasonOf(error)}); choose a writable path`, 'E_OUTPUT', {
      cause: error,
    })
  }
}

/**
 * The files written whole while `run` runs (renamed into place, in order), whether or not it ends in
 * an error: what a run that could not write everything tells its user it did write.
 */
export class WriteLog {
  readonly written: string[] = []

  run<T>(run: () => T): T {
    openLogs.add(this.written)
    try {
      return run()
    } finally {
      openLogs.delete(this.written)
    }
  }
}

/**
 * A write that failed after others succeeded: which files of the run are on disk and which are not,
 * so its user is told once and exactly (a full disk printed "no files written" for every test).
 */
export class PartialWriteError extends FlakeproofError {
  readonly written: readonly string[]
  readonly notWritten: readonly string[]
  /** The system's word for why (`ENOSPC`), or the first failure's message. */
  readonly reason: string

  constructor(failure: FlakeproofError, written: readonly string[], notWritten: readonly string[]) {
    super(failure.message, 'E_WRITE', { cause: failure })
    this.written = written
    this.notWritten = notWritten
    this.reason = reasonOf(failure.cause ?? failure)
  }
}

/** A file is whole at `path` now: every open WriteLog hears of it. */
export function noteWritten(path: string): void {
  for (const log of openLogs) log.push(path)
}

// --- internal ---

const openLogs = new Set<string[]>()

/** `schema.parse(value)` of an artifact, which a process parses once (_compiled-schema.ts safeParseWhole). */
function parseOnce<S extends z.ZodType>(schema: S, value: z.input<S>): z.output<S> {
  const result = safeParseWhole(schema, value)
  if (!result.success) throw result.error
  return result.data
}

/** `durable`: fsynced before the rename, so a crash leaves the old file or the new one whole. */
function replaceFile(path: string, data: string, durable: boolean): void {
  let temp: string | undefined
  try {
    makeOutputFolder(dirname(path), path, undefined, false)
    refuseNonRegular(path, path, 'E_WRITE')
    const name = siblingName(path, 'tmp')
    const fd = openSync(name, CREATE_NEW, 0o666)
    temp = name
    try {
      writeFileSync(fd, data)
      // Without it, a crash soon after the rename can leave an empty file where the old one was.
      if (durable) fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temp, path)
    noteWritten(path)
  } catch (error) {
    if (temp !== undefined) rmSync(temp, { force: true })
    if (error instanceof FlakeproofError) throw error
    throw new FlakeproofError(`cannot write ${path} (${reasonOf(error)})`, 'E_WRITE', { cause: error })
  }
}

function refuseNonRegular(path: string, label: string, code: 'E_OUTPUT' | 'E_WRITE'): void {
  const kind = nonRegularKind(path)
  if (kind !== undefined) throw nonRegularError(label, kind, code)
}

function nonRegularError(label: string, kind: string, code: 'E_OUTPUT' | 'E_WRITE'): FlakeproofError {
  return new FlakeproofError(
    `${label} is ${kind}, not a regular file, and flakeproof never writes through or replaces one; choose a path that is a regular file or does not exist yet`,
    code,
  )
}

function ftruncateQuietly(fd: number, size: number): void {
  try {
    ftruncateSync(fd, size)
  } catch {
    // The write already failed; that error is the one to report.
  }
}
