import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, rmSync, unlinkSync, writeSync } from 'node:fs'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { FlakeproofError } from '../errors.js'
import { CREATE_NEW, makeOutputFolder, reasonOf } from './_fs.js'
import { isProcessAlive } from './_process.js'

/** The lock's name inside an output folder. It holds the pid of the run writing there. */
export const LOCK_FILE = '.flakeproof.lock'

/** The lock of one output file (`--out x/rate.json`), beside it: `.flakeproof.rate.json.lock`. */
export function fileLockName(file: string): string {
  return `.flakeproof.${basename(file)}.lock`
}

/** An output folder held by this process until `release()`. */
export interface OutputLock {
  readonly path: string
  /** Removes the lock if it is still ours. Safe to call twice; also done at process exit. */
  release(): void
  /**
   * Releases the lock of a run that wrote nothing (it was refused): the folder the lock made, if it
   * holds nothing but the lock's own `.gitignore`, is removed too, so a refusal leaves no trace.
   */
  abandon(): void
}

export interface LockOptions {
  /** The project (or working folder): links inside it, on the way to the folder, are refused. */
  root?: string
}

/** Locks held by this process, by absolute lock path. */
const held = new Set<string>()

/**
 * One run at a time per output folder, whose files belong together: two runs writing the same
 * facts.jsonl or rate.json would interleave their trials. Creates `dir` if needed — never through a
 * symbolic link (`makeOutputFolder`), with a `.gitignore` of `*` when flakeproof made it, as test
 * caches do — then creates `<dir>/.flakeproof.lock` (O_EXCL) holding this pid. Runs writing single
 * files into the folder (`acquireFileLock`) are waited for too. A lock whose pid is no longer alive
 * (a run killed with -9), or holds no pid at all (`0`), is taken over. A pid reused by an unrelated
 * process keeps the lock looking held: the message names the file to delete.
 * @param label how the user named it (`--out-dir .flakeproof`), to begin messages.
 * @throws FlakeproofError `E_OUTPUT` when another live process holds the lock, the folder is a link
 *   or cannot be written; `E_USAGE` when this process already holds it (release the first lock).
 */
export function acquireOutputLock(dir: string, label = `output folder ${dir}`, options: LockOptions = {}): OutputLock {
  const path = join(resolve(dir), LOCK_FILE)
  refuseHeldHere(path, label)
  const created = prepareFolder(dir, label, options)
  const lock = take(path, () => `${label}: ${holderOf} is writing in ${dir} (lock ${path}); wait for it to finish, or delete that file if no flakeproof run is using the folder`, label, dir, created)
  try {
    for (const name of readdirSync(dir)) {
      const file = /^\.flakeproof\.(.+)\.lock$/.exec(name)?.[1]
      const holder = file === undefined ? undefined : liveHolder(join(dir, name))
      if (holder !== undefined) {
        throw new FlakeproofError(
          `${label}: ${describeHolder(holder)} is writing ${join(dir, file as string)} (lock ${join(resolve(dir), name)}); wait for it to finish, or delete that file if no flakeproof run is using it`,
          'E_OUTPUT',
        )
      }
    }
  } catch (error) {
    lock.abandon()
    throw error
  }
  return lock
}

/**
 * One run at a time per output file (`--out shared/a.json`): runs writing different files into one
 * folder do not wait for each other; a run holding the whole folder (`acquireOutputLock`) is waited
 * for. The folder is made as `acquireOutputLock` makes it.
 * @throws FlakeproofError as `acquireOutputLock`
 */
export function acquireFileLock(file: string, label = `output file ${file}`, options: LockOptions = {}): OutputLock {
  const dir = dirname(file)
  const path = join(resolve(dir), fileLockName(file))
  refuseHeldHere(path, label)
  const created = prepareFolder(dir, label, options, false)
  const folderLock = join(resolve(dir), LOCK_FILE)
  const folderHolder = liveHolder(folderLock)
  // A folder lock left by a run that is gone is cleared here too, as the next folder run would.
  const stale = readHolder(folderLock)
  if (folderHolder === undefined && typeof stale === 'object') removeStale(folderLock, stale)
  if (folderHolder !== undefined) {
    abandonFolder(created, dir)
    throw new FlakeproofError(
      `${label}: ${describeHolder(folderHolder)} is writing in ${dir} (lock ${join(resolve(dir), LOCK_FILE)}); wait for it to finish, or delete that file if no flakeproof run is using the folder`,
      'E_OUTPUT',
    )
  }
  return take(path, () => `${label}: ${holderOf} is writing ${file} (lock ${path}); wait for it to finish, or delete that file if no flakeproof run is using it`, label, dir, created)
}

// --- internal ---

/** Placeholder in a message template, replaced by who holds the lock. */
const holderOf = '\u0000holder\u0000'

function refuseHeldHere(path: string, label: string): void {
  if (held.has(path)) {
    throw new FlakeproofError(`${label}: this process already holds ${path}; release that lock before acquiring it again`, 'E_USAGE')
  }
}

/**
 * Creates the lock at `path`: twice at most, once after removing a stale lock, in case the first
 * try met one. `message()` says who holds it, with `holderOf` where the holder goes.
 */
function take(path: string, message: () => string, label: string, dir: string, created: string | undefined): OutputLock {
  for (let attempt = 0; attempt < 2; attempt++) {
    if (tryCreate(path, label, dir, created)) return hold(path, created, dir)
    const holder = readHolder(path)
    if (holder === 'gone') continue
    if (holder === 'unreadable' || isAlive(holder.pid)) {
      abandonFolder(created, dir)
      throw new FlakeproofError(message().replace(holderOf, describeHolder(holder)), 'E_OUTPUT')
    }
    removeStale(path, holder)
  }
  abandonFolder(created, dir)
  throw new FlakeproofError(`${label}: cannot take the lock ${path}: it keeps changing; is another run starting in ${dir}?`, 'E_OUTPUT')
}

/**
 * Creates `dir` when missing (never through a link), and then a `.gitignore` of `*` in it: results
 * are per machine and per run, like a test cache. An existing folder (the project root, say) is never
 * given one. Returns the first folder made, if any.
 */
function prepareFolder(dir: string, label: string, options: LockOptions, labelNamesFolder = true): string | undefined {
  let created: string | undefined
  try {
    created = makeOutputFolder(dir, label, options.root, labelNamesFolder)
    if (created === undefined) return undefined
    const fd = openSync(join(dir, '.gitignore'), CREATE_NEW, 0o666)
    try {
      writeSync(fd, GITIGNORE)
    } finally {
      closeSync(fd)
    }
    return created
  } catch (error) {
    if (error instanceof FlakeproofError) throw new FlakeproofError(error.message, 'E_OUTPUT', { cause: error })
    // A .gitignore someone else wrote meanwhile is theirs to keep.
    if (created !== undefined && (error as NodeJS.ErrnoException).code === 'EEXIST') return created
    throw new FlakeproofError(`${label}: cannot write in ${dir} (${reasonOf(error)}); choose a writable path`, 'E_OUTPUT', { cause: error })
  }
}

const GITIGNORE = '# Written by flakeproof: its results stay out of commits. Delete this file to commit them.\n*\n'

function tryCreate(path: string, label: string, dir: string, created: string | undefined): boolean {
  let fd: number
  try {
    fd = openSync(path, CREATE_NEW, 0o644)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    abandonFolder(created, dir)
    throw new FlakeproofError(`${label}: cannot write in ${dir} (${reasonOf(error)}); choose a writable path`, 'E_OUTPUT', { cause: error })
  }
  try {
    writeSync(fd, `${process.pid}\n`)
  } finally {
    closeSync(fd)
  }
  return true
}

function hold(path: string, created: string | undefined, dir: string): OutputLock {
  held.add(path)
  const release = (): void => {
    if (!held.delete(path)) return
    process.off('exit', release)
    const holder = readHolder(path)
    if (typeof holder === 'object' && holder.pid === process.pid) unlinkQuietly(path)
  }
  process.on('exit', release)
  return {
    path,
    release,
    abandon: () => {
      release()
      abandonFolder(created, dir)
    },
  }
}

/**
 * Removes the folders a refused run made (`created`, the first of them, down to `dir`) when they hold
 * nothing but flakeproof's `.gitignore` and each other: a refusal must not leave a folder that the
 * next try would meet (a glob matching it, say).
 */
function abandonFolder(created: string | undefined, dir: string): void {
  if (created === undefined) return
  const top = resolve(created)
  const steps = relative(top, resolve(dir)).split(/[\\/]/).filter((s) => s !== '')
  let at = top
  try {
    for (const step of [...steps, undefined]) {
      const entries = readdirSync(at).filter((name) => name !== step)
      const onlyOurs = entries.length === 0 || (entries.length === 1 && entries[0] === '.gitignore' && step === undefined && readFileSync(join(at, '.gitignore'), 'utf8') === GITIGNORE)
      if (!onlyOurs) return
      if (step !== undefined) at = join(at, step)
    }
    rmSync(top, { recursive: true, force: true })
  } catch {
    // Changed meanwhile, or already gone: whatever is there now is not ours to remove.
  }
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

/** Who holds the lock at `path` when it is held (by another live process, or unreadably); undefined when free or stale. */
function liveHolder(path: string): Exclude<Holder, 'gone'> | undefined {
  const holder = readHolder(path)
  if (holder === 'gone') return undefined
  return holder === 'unreadable' || isAlive(holder.pid) ? holder : undefined
}

function describeHolder(holder: Exclude<Holder, 'gone'>): string {
  return holder === 'unreadable' ? 'another process' : `another flakeproof run (pid ${holder.pid})`
}

/**
 * Whether the pid in a lock is a live process other than this one. Our own pid in a lock we do not
 * hold is stale (the previous holder ran in another container or boot); 0 and below name no process
 * (`kill(0)` would signal this process group, which is always alive).
 */
function isAlive(pid: number): boolean {
  return pid > 0 && pid !== process.pid && isProcessAlive(pid)
}

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
