import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { z } from 'zod'
import { FlakeproofError } from '../errors.js'

let tempCounter = 0

/**
 * Validates `value` against `schema`, then writes it as pretty JSON through a temp file and a rename,
 * so a reader (or a crash) never sees half a file and an older copy survives until the new one is whole.
 */
export function writeJsonAtomic<S extends z.ZodType>(path: string, schema: S, value: z.input<S>): z.output<S> {
  const parsed = schema.parse(value)
  mkdirSync(dirname(path), { recursive: true })
  const temp = `${path}.${process.pid}.${++tempCounter}.tmp`
  try {
    writeFileSync(temp, `${JSON.stringify(parsed, null, 2)}\n`)
    renameSync(temp, path)
  } catch (error) {
    rmSync(temp, { force: true })
    throw new FlakeproofError(`cannot write ${path}: ${(error as Error).message}`, 'E_OUTPUT', { cause: error })
  }
  return parsed
}

/** Writes a text file (the markdown report) the same atomic way. */
export function writeTextAtomic(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true })
  const temp = `${path}.${process.pid}.${++tempCounter}.tmp`
  writeFileSync(temp, text)
  renameSync(temp, path)
}

/**
 * facts.jsonl, one whole line per trial. Each line goes out in a single unbuffered write(2) as its
 * trial ends, so a run killed at any moment leaves every finished trial on disk and no torn line.
 */
export class JsonLinesWriter<S extends z.ZodType> {
  private readonly _fd: number
  private readonly _schema: S

  /** Truncates `path`: a new collection replaces the old one. */
  constructor(path: string, schema: S) {
    mkdirSync(dirname(path), { recursive: true })
    this._fd = openSync(path, 'w')
    this._schema = schema
  }

  append(line: z.input<S>): void {
    this.appendAll([line])
  }

  /**
   * Several whole lines in one write(2): a test's repetitions arrive together. The first line of a
   * batch is checked against the schema; the others come from the same typed code, and checking
   * each of 100 000 repetitions would cost more than running them.
   */
  appendAll(lines: readonly z.input<S>[]): void {
    const [first] = lines
    if (first === undefined) return
    this._schema.parse(first)
    writeSync(this._fd, lines.map((line) => `${JSON.stringify(line)}\n`).join(''))
  }

  close(): void {
    fsyncSync(this._fd)
    closeSync(this._fd)
  }
}

/**
 * Removes the named files from `dir` if present, so a new investigation never reports a stale
 * proof or observation next to fresh numbers.
 */
export function removeFiles(dir: string, names: readonly string[]): void {
  for (const name of names) rmSync(join(dir, name), { force: true })
}

/**
 * Fails early, before any trial runs, if `path`'s folder cannot hold a new file. Creates the folder
 * if needed and probes it with a throwaway file, so read-only mounts are caught too.
 */
export function assertWritable(path: string, flag: string): void {
  const folder = dirname(path)
  const probe = join(folder, `.flakeproof-probe-${process.pid}`)
  try {
    mkdirSync(folder, { recursive: true })
    writeFileSync(probe, '')
    rmSync(probe)
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    throw new FlakeproofError(
      `${flag} ${path}: cannot write in ${folder} (${reason}). Choose a writable path.`,
      'E_OUTPUT',
      { cause: error },
    )
  }
}
