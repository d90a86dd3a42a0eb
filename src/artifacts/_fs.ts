import { randomBytes } from 'node:crypto'
import { constants, type Stats, lstatSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'

/**
 * Creates a file that did not exist, never through a symlink: a name planted by someone else (a
 * symlink to ~/.bashrc, a FIFO, a device) makes the open fail instead of being written through.
 */
export const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW

/** A hidden, unguessable name beside `path`, for a temp file or a probe (`O_EXCL` makes it ours). */
export function siblingName(path: string, purpose: 'tmp' | 'probe'): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.${purpose}`)
}

/** What `path` is, if it exists and is not a regular file: `a symbolic link`, `a folder`, …; undefined otherwise. */
export function nonRegularKind(path: string): string | undefined {
  let stats: Stats
  try {
    stats = lstatSync(path)
  } catch (error) {
    // Missing, or under a path that is not a folder: nothing is there to write through.
    const { code } = error as NodeJS.ErrnoException
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
    throw error
  }
  return describeKind(stats)
}

/** `a folder`, `a named pipe`, …, or undefined for a regular file. */
export function describeKind(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined
  if (stats.isSymbolicLink()) return 'a symbolic link'
  if (stats.isDirectory()) return 'a folder'
  if (stats.isFIFO()) return 'a named pipe'
  if (stats.isSocket()) return 'a socket'
  return 'a device'
}

/** The errno code when there is one (`ENOSPC`), else the message: short enough for a one-line error. */
export function reasonOf(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException
  return code ?? message
}
