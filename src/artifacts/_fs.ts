import { randomBytes } from 'node:crypto'
import { constants, type Stats, lstatSync, mkdirSync, readlinkSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { FlakeproofError } from '../errors.js'

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

/**
 * The one guard of "the folder I write into" (docs/contracts.md §6, issue 19): every writer in
 * src/artifacts makes its folder through here. A symbolic link is refused, whether it is the folder
 * itself or a folder on the way to it inside `root` (the project, or the folder flakeproof runs in):
 * a link committed or planted there would send results, or replace files, somewhere else. Folders
 * above `root` are the machine's own layout (`/tmp` is a link on macOS) and are left alone. Then the
 * missing folders are made; returns the first one made, undefined when it existed.
 * @param label how the user named it (`--out-dir L`, `--out x/rate.json`), to begin the message.
 * @throws FlakeproofError `E_OUTPUT` for a link; `E_WRITE` when the folder cannot be made.
 */
export function makeOutputFolder(dir: string, label: string, root = process.cwd(), labelNamesFolder = true): string | undefined {
  refuseLinkedFolder(dir, label, root, labelNamesFolder)
  try {
    return mkdirSync(dir, { recursive: true })
  } catch (error) {
    throw new FlakeproofError(`${label}: cannot write in ${dir} (${reasonOf(error)}); choose a writable path`, 'E_WRITE', { cause: error })
  }
}

/**
 * The check of `makeOutputFolder` alone, for a folder that must be refused before anything else
 * happens. `labelNamesFolder` false: the label names a file in `dir` (`--out L/rate.json`), so the
 * message names the link itself.
 * @throws FlakeproofError `E_OUTPUT`
 */
export function refuseLinkedFolder(dir: string, label: string, root = process.cwd(), labelNamesFolder = true): void {
  const folder = resolve(dir)
  const top = resolve(root)
  for (let at = folder; at === folder || isBelow(top, at); at = dirname(at)) {
    const target = linkTarget(at)
    if (target !== undefined) {
      const what = at === folder && labelNamesFolder ? `${label} is` : `${label}: ${shown(at)} is`
      throw new FlakeproofError(`${what} a symbolic link to ${target}, and flakeproof never writes through one; give the folder itself, or a new one`, 'E_OUTPUT')
    }
    if (dirname(at) === at) break
  }
}

// --- internal ---

/** Whether `path` lies strictly below `top`. */
function isBelow(top: string, path: string): boolean {
  const inside = relative(top, path)
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside)
}

/** What the link at `path` points to, or undefined when `path` is no link (or does not exist yet). */
function linkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
    throw new FlakeproofError(`cannot look at ${path} (${reasonOf(error)})`, 'E_OUTPUT', { cause: error })
  }
}

/** A path as the user would type it: relative to the working folder when inside it. */
function shown(path: string): string {
  const inside = relative(process.cwd(), path)
  return inside === '' || inside.startsWith('..') || isAbsolute(inside) ? path : inside
}
