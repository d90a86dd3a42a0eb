import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { FlakeproofError } from '../errors.js'
import { reasonOf } from './_fs.js'

/**
 * A new folder under the OS temp folder, named `<prefix>XXXXXX` (mkdtemp: created by us, 0700, a
 * name nobody else can hold), for work that must not touch the user's checkout (`flakeproof bisect`'s
 * temporary worktrees). Its real path, so git records the same path it is later asked to remove.
 * @throws FlakeproofError `E_OUTPUT` when the temp folder cannot hold it
 */
export function makeTempFolder(prefix: string): string {
  try {
    return realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  } catch (error) {
    throw new FlakeproofError(`cannot make a folder in ${tmpdir()} (${reasonOf(error)}); set TMPDIR to a writable folder`, 'E_OUTPUT', { cause: error })
  }
}

/**
 * Removes a folder made by makeTempFolder with everything in it. Refuses any other path (one not
 * directly under the temp folder, or not named with `prefix`), so a bug can never remove more.
 */
export function removeTempFolder(path: string, prefix: string): void {
  if (dirname(path) !== realpathSync(tmpdir()) || !basename(path).startsWith(prefix)) {
    throw new Error(`refusing to remove ${path}: not a ${prefix}* folder made by flakeproof under ${tmpdir()}`)
  }
  rmSync(path, { recursive: true, force: true, maxRetries: 3 })
}
