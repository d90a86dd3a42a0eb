import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { FlakeproofError } from '../errors.js'
import { CREATE_NEW, reasonOf } from './_fs.js'
import { isProcessAlive } from './_process.js'

/** The lock's name inside an output folder. It holds the pid of the run writing there. */
export const LOCK_FILE = '.flakeproof.lock'

/** An output folder held by this process until `release()`. */
export interface OutputLock {
  readonly path: string
  /** Removes the lock if it is still ours. Safe to call twice; also done at process exit. */
  release(): void
}

/** Locks held by this process, by absolute lock path. */
const held = new Set<string>()

/**
 * One run at a time per output folder: two runs writing the same facts.jsonl or rate.json would
 * interleave their trials. Creates `dir` if needed — with a `.gitignore` of `*` when flakeproof made
 * it, as test caches do — then creates `<dir>/.flakeproof.lock` (O_EXCL) holding this pid. A lock
 * whose pid is no longer alive (a run killed with -9) is taken over. A pid reused by an unrelated
 * process keeps the lock looking held: the message names the file to delete.
 * @param label how the user named it (`--out-dir .flakeproof`, `--out x/rate.json`), to begin messages.
 * @throws FlakeproofError `E_OUTPUT` when another live process holds the lock or the folder cannot
 *   be written; `E_USAGE` when this process already holds it (release the first lock).
 */
export function acquireOutputLock(dir: string, label = `output folder ${dir}`): OutputLock {
  const path = join(resolve(dir), LOCK_FILE)
  if (held.has(path)) {
    throw new FlakeproofError(`${label}: this process already holds ${path}; release that lock before acquiring it again`, 'E_USAGE')
  }
  prepareFolder(dir, label)
  // Twice at most: once after removing a stale lock, in case the first try met one.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (tryCreate(path, label, dir)) return hold(path)
    const holder = readHolder(path)
    if (holder === 'gone') continue
    if (holder === 'unreadable' || isAlive(holder.pid)) {
      const who = holder === 'unreadable' ? 'another process' : `another flakeproof run (pid ${holder.pid})`
      throw new FlakeproofError(
        `${label}: ${who} is writing in ${dir} (lock ${path}); wait for it to finish, or delete that file if no flakeproof run is using the folder`,
        'E_OUTPUT',
      )
    }
    removeStale(path, holder)
  }
  throw new FlakeproofError(`${label}: cannot take the lock ${path}: it keeps changing; is another run starting in ${dir}?`, 'E_OUTPUT')
}

// --- internal ---

/**
 * Creates `dir` when missing, and then a `.gitignore` of `*` in it: results are per machine and per
 * run, like a test cache. An existing folder (the project root, say) is never given one.
 */
function prepareFolder(dir: string, label: string): void {
  let created: string | undefined
  try {
    created = mkdirSync(dir, { recursive: true })
    if (created === undefined) return
    const fd = openSync(join(dir, '.gitignore'), CREATE_NEW, 0o666)
    try {
      writeSync(fd, '# Written by flakeproof: its results stay out of commits. Delete this file to commit them.\n*\n')
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    // A .gitignore someone else wrote meanwhile is theirs to keep.
    if (created !== undefined && (error as NodeJS.ErrnoException).code === 'EEXIST') return
    throw new FlakeproofError(`${label}: cannot write in ${dir} (${reasonOf(error)}); choose a writable path`, 'E_OUTPUT', { cause: error })
  }
}


function tryCreate(path: string, label: string, dir: string): boolean {
  let fd: number
  try {
    fd = openSync(path, CREATE_NEW, 0o644)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw new FlakeproofError(`${label}: cannot write in ${dir} (${reasonOf(error)}); choose a writable path`, 'E_OUTPUT', { cause: error })
  }
  try {
    writeSync(fd, `${process.pid}\n`)
  } finally {
    closeSync(fd)
  }
  return true
}

function hold(path: string): OutputLock {
  held.add(path)
  const release = (): void => {
    if (!held.delete(path)) return
    process.off('exit', release)
    const holder = readHolder(path)
    if (typeof holder === 'object' && holder.pid === process.pid) unlinkQuietly(path)
  }
  process.on('exit', release)
  return { path, release }
}

type Holder = { pid: number; ino: number } | 'gone' | 'unreadable'

function readHolder(path: string): Holder {
  let fd: number
  try {
    // O_NOFOLLOW: a symlink planted at the lock's name is not a lock, and not to be read through.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : 'unreadable'
  }
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile()) return 'unreadable'
    const text = readFileSync(fd, 'utf8').trim()
    return /^\d+$/.test(text) ? { pid: Number(text), ino: stats.ino } : 'unreadable'
  } catch {
    return 'unreadable'
  } finally {
    closeSync(fd)
  }
}

/** Our own pid in a lock we do not hold is stale: the previous holder ran in another container or boot. */
function isAlive(pid: number): boolean {
  return pid !== process.pid && isProcessAlive(pid)
}

/** Removes the lock only if it is still the stale one that was read (a racing run may have replaced it). */
/** Removes the lock only if it is still the stale one read: same inode and same pid (an inode can be reused by a new lock at once). */
function removeStale(path: string, stale: { pid: number; ino: number }): void {
  const current = readHolder(path)
  if (typeof current === 'object' && current.ino === stale.ino && current.pid === stale.pid) unlinkQuietly(path)
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path)
  } catch {
    // Already gone (the folder was removed, or another run took the stale lock first).
  }
}
