import { readdirSync, renameSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { makeOutputFolder } from './_fs.js'
import { isProcessAlive } from './_process.js'
import { noteWritten } from './write.js'

/**
 * A test run's working folder inside the output folder: the workers' journals and the facts being
 * streamed live here until the run ends, and only then move beside the other files. A run that is
 * killed leaves the previous run's files whole (never new facts beside old numbers), and a run that
 * matched no test changes nothing.
 */
export interface RunDir {
  readonly path: string
  readonly journal: string
}

/** Where a run of this process works; fixed per process, so the plugin can tell the workers early. */
export function runDirOf(outDir: string, pid = process.pid): RunDir {
  const path = join(outDir, `.run-${pid}`)
  return { path, journal: join(path, 'journal') }
}

/**
 * Empties and creates the run's folder (watch mode starts several runs in one process), and removes
 * the folders of killed runs, whose process is gone.
 */
export function prepareRunDir(run: RunDir): void {
  rmSync(run.path, { recursive: true, force: true })
  makeOutputFolder(run.journal, run.path)
  const outDir = dirname(run.path)
  for (const name of readdirSync(outDir)) {
    const pid = /^\.run-(\d+)$/.exec(name)?.[1]
    if (pid !== undefined && !isProcessAlive(Number(pid))) rmSync(join(outDir, name), { recursive: true, force: true })
  }
}

/** Moves the named files of the run into the output folder, each by an atomic rename. */
export function promoteRunFiles(run: RunDir, outDir: string, names: readonly string[]): void {
  for (const name of names) {
    renameSync(join(run.path, name), join(outDir, name))
    noteWritten(join(outDir, name))
  }
}

/** Removes the run's folder: at the end of a run, or when it ran nothing. */
export function discardRunDir(run: RunDir): void {
  rmSync(run.path, { recursive: true, force: true })
}
