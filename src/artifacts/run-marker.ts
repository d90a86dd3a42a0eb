import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs'
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
 * folder, never through a symbolic link. Returns its path, and the first folder this made (to take
 * away when empty at the end). Another run that just removed the empty folder is met by one retry.
 * @throws FlakeproofError `E_OUTPUT`, `E_WRITE`
 */
export function writeRunMarker(root: string, marker: RunMarker, path?: string): { path: string; made: string | undefined } {
  const dir = runMarkersDir(root)
  const at = path ?? join(dir, `${marker.pid}-${randomBytes(4).toString('hex')}.json`)
  const made = makeOutputFolder(dir, '.flakeproof/running', root)
  try {
    writeTransientJson(at, RunMarkerSchema, marker)
  } catch {
    makeOutputFolder(dir, '.flakeproof/running', root)
    writeTransientJson(at, RunMarkerSchema, marker)
  }
  return { path: at, made }
}

/**
 * Removes this run's marker (one already gone is no error), then the shared folder when no other
 * run's marker is left in it, and `made` (the folder the first marker made, `.flakeproof` itself in
 * a project that had none) when that is empty too: a run leaves the project as it found it.
 */
export function removeRunMarker(path: string, made?: string): void {
  rmSync(path, { force: true })
  const dir = dirname(path)
  for (const folder of [dir, ...(made !== undefined && made !== dir ? [made] : [])]) {
    try {
      rmdirSync(folder)
    } catch {
      // Not empty (another run's marker, the output folder's files), or gone already: left as it is.
      return
    }
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
