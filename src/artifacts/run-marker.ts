import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import * as z from '../_zod.js'
import { makeOutputFolder } from './_fs.js'
import { isProcessAlive, processStart } from './_process.js'
import { writeTransientJson } from './write.js'

/**
 * One file per flakeproof run under way, in one shared folder of the project
 * (`<root>/.flakeproof/running/`), outside any run's locked output folder: each run writes its own,
 * reads the others to count how many runs of the same files run at once (docs/contracts.md §13.5),
 * and removes its own when it ends. A run killed before it could remove its marker leaves one whose
 * process is gone (or whose pid a process started since holds): ignored, and removed by the next
 * run that sees it.
 */
export const RunMarkerSchema = z.object({
  schema_version: z.literal(1),
  pid: z.number().int().positive(),
  started_at: z.iso.datetime(),
  /** `vitest`, `jest`, `command`. */
  runner: z.string(),
  /** What it runs: test files (absolute paths) or the command; null until the runner says. */
  files: z.array(z.string()).nullable(),
  /**
   * When its process started, in clock ticks since boot (`/proc/<pid>/stat`), where there is a /proc:
   * a marker left by a killed run whose pid was given again (to this run, in a container that numbers
   * from 1 each time) is told from a run under way by it.
   */
  process_start: z.string().regex(/^\d+$/).optional(),
})
export type RunMarker = z.infer<typeof RunMarkerSchema>

/** The shared folder of a project's run markers. */
export function runMarkersDir(root: string): string {
  return join(root, '.flakeproof', 'running')
}

/**
 * Writes (or rewrites, as the files become known) this run's marker in the project `root`'s shared
 * folder, never through a symbolic link. Another run that just removed the empty folder is met by
 * one retry. A run that makes `.flakeproof` itself says so in the shared folder (MADE_ROOT), for
 * whichever run ends last to take it away: the one that made it may end first.
 * @throws FlakeproofError `E_OUTPUT`, `E_WRITE`
 */
export function writeRunMarker(root: string, marker: RunMarker, path?: string): { path: string } {
  const dir = runMarkersDir(root)
  const at = path ?? join(dir, `${marker.pid}-${randomBytes(4).toString('hex')}.json`)
  const made = makeOutputFolder(dir, '.flakeproof/running', root)
  if (made === dirname(dir)) noteMadeRoot(dir)
  try {
    writeTransientJson(at, RunMarkerSchema, marker)
  } catch {
    if (makeOutputFolder(dir, '.flakeproof/running', root) === dirname(dir)) noteMadeRoot(dir)
    writeTransientJson(at, RunMarkerSchema, marker)
  }
  return { path: at }
}

/**
 * Removes this run's marker (one already gone is no error); the last run out then removes the
 * shared folder, and `.flakeproof` when a run made it and it is empty: a project is left as it was
 * found, whichever of two runs at once ends first (the maker ending first had left an empty
 * `.flakeproof` behind).
 */
export function removeRunMarker(path: string): void {
  rmSync(path, { force: true })
  const dir = dirname(path)
  let left: string[]
  try {
    left = readdirSync(dir)
  } catch {
    return
  }
  // Another run's marker: the last one out tidies.
  if (left.some((name) => name !== MADE_ROOT)) return
  const madeRoot = left.includes(MADE_ROOT)
  try {
    if (madeRoot) rmSync(join(dir, MADE_ROOT), { force: true })
    rmdirSync(dir)
  } catch {
    // A run that began meanwhile: the note stays for it.
    if (madeRoot) noteMadeRoot(dir)
    return
  }
  try {
    if (madeRoot) rmdirSync(dirname(dir))
  } catch {
    // The output folder's files, or the user's own: left as they are.
  }
}

/** In the shared folder while `.flakeproof` is there because a run made it; not a marker (no `.json`). */
export const MADE_ROOT = '.made-by-a-run'

function noteMadeRoot(dir: string): void {
  try {
    // O_EXCL: never through a link planted under that name, and one already there is the same note.
    writeFileSync(join(dir, MADE_ROOT), '', { flag: 'wx' })
  } catch {
    // Already noted; or unwritable, when the marker's own write says why.
  }
}

/** The start of this process, for its marker (undefined without /proc). */
export function ownProcessStart(): string | undefined {
  return processStart(process.pid)
}

/**
 * The markers of the other runs under way: each readable marker of a live process, except `own`.
 * Markers of processes that are gone, or whose pid a process started since holds, are removed.
 * An unreadable one, and a marker's temporary file, are skipped; each is removed once the pid its
 * name carries is gone (a marker is written unsynced, so a power loss can leave it empty, and a run
 * killed mid-write leaves its temporary file: nothing else would ever remove them).
 */
export function readOtherRunMarkers(dir: string, own: string | undefined): RunMarker[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  const markers: RunMarker[] = []
  for (const name of names) {
    const path = join(dir, name)
    if (path === own) continue
    const left = leftBy(name)
    if (!name.endsWith('.json')) {
      // The temporary file of a marker's write, left by a run killed between its write and its rename.
      if (left?.temporary && !isProcessAlive(left.pid)) rmSync(path, { force: true })
      continue
    }
    let marker: RunMarker
    try {
      marker = RunMarkerSchema.parse(JSON.parse(readFileSync(path, 'utf8')))
    } catch {
      // Being written (its run is alive), or left empty by a power loss (its run is gone).
      if (left !== undefined && !isProcessAlive(left.pid)) rmSync(path, { force: true })
      continue
    }
    if (isUnderWay(marker)) markers.push(marker)
    else rmSync(path, { force: true })
  }
  return markers
}

/**
 * The pid that wrote a file of the markers' folder, from its name: a marker `<pid>-<hex>.json`
 * (writeRunMarker), or the temporary file its atomic write renames, `.<pid>-<hex>.json.<hex>.tmp`
 * (siblingName); undefined for a name of another form, which is not flakeproof's to remove.
 */
function leftBy(name: string): { pid: number; temporary: boolean } | undefined {
  const match = /^(\.)?([1-9]\d{0,9})-[0-9a-f]+\.json(\.[0-9a-f]+\.tmp)?$/.exec(name)
  if (!match || (match[1] === undefined) !== (match[3] === undefined)) return undefined
  return { pid: Number(match[2]), temporary: match[3] !== undefined }
}

/** Whether the marker's run is still going: its pid is alive, and (where both are known) is the process that wrote it. */
function isUnderWay(marker: RunMarker): boolean {
  if (!isProcessAlive(marker.pid)) return false
  if (marker.process_start === undefined) return true
  const start = processStart(marker.pid)
  return start === undefined || start === marker.process_start
}
