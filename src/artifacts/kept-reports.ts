import { copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import fg from 'fast-glob'
import { describeKind, reasonOf } from './_fs.js'

/**
 * The reports of `repeat` runs that all write to one fixed path (Vitest's `outputFile`, jest-junit's
 * `junit.xml`, Surefire's `target/surefire-reports/`): docs/contracts.md §7. Before each run, what the
 * path holds is moved aside (the user's own file before the first run, into `before/`; the previous
 * run's report into its `run-<k>/`), so a run that writes nothing leaves nothing to be mistaken for
 * its report; after the last run its report is copied, left in place for the user's other tools.
 * The copies live in `<out-dir>/run-reports/`, and are what is read.
 */

/** The folder of kept reports in an output folder. */
export function keptReportsDir(outDir: string): string {
  return join(outDir, KEPT)
}

/** Every report the path holds now: the file, every file below a folder, or every file a glob matches; sorted. */
export function reportsAt(pattern: string, folderGlob = '**/*.xml'): string[] {
  if (fg.isDynamicPattern(pattern)) return fg.sync(pattern, { onlyFiles: true, dot: false }).sort()
  if (!existsSync(pattern)) return []
  if (statSync(pattern).isDirectory()) return fg.sync(folderGlob, { cwd: pattern, onlyFiles: true, dot: false }).sort().map((file) => join(pattern, file))
  return [pattern]
}

/**
 * Empties the kept-reports folder of a previous measurement in `outDir` (only one this code made:
 * every entry a `run-<k>` or `before` folder), then creates it.
 * @throws Error naming the folder when it holds anything else, or cannot be made.
 */
export function prepareKeptReports(outDir: string): string {
  const dir = keptReportsDir(outDir)
  if (existsSync(dir)) {
    const stats = lstatSync(dir)
    const foreign = !stats.isDirectory() || readdirSync(dir).some((name) => !/^(run-\d+|before)$/.test(name))
    if (foreign) throw new Error(`${dir} exists and is not a folder of reports kept by \`flakeproof repeat\`; move it away or choose another --out-dir`)
    rmSync(dir, { recursive: true })
  }
  mkdirSync(dir, { recursive: true })
  return dir
}

/**
 * Moves the reports the path holds now into `into` (created), keeping their place below the
 * pattern's fixed folder. A rename where it can, else a copy then the removal (another file system).
 * @throws Error `<file>: cannot move it aside (…)`.
 */
export function moveReportsAside(pattern: string, into: string): void {
  for (const file of reportsAt(pattern)) {
    const target = keptPath(pattern, file, into)
    try {
      mkdirSync(dirname(target), { recursive: true })
      try {
        renameSync(file, target)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error
        copyFileSync(file, target)
        unlinkSync(file)
      }
    } catch (error) {
      throw new Error(`${file}: cannot move it aside before the next run (${reasonOf(error)})`)
    }
  }
}

/**
 * Copies the reports the path holds now into `into`, leaving them in place.
 * @throws Error `<file>: cannot keep a copy (…)`.
 */
export function copyReports(pattern: string, into: string): void {
  for (const file of reportsAt(pattern)) {
    const target = keptPath(pattern, file, into)
    try {
      mkdirSync(dirname(target), { recursive: true })
      copyFileSync(file, target)
    } catch (error) {
      throw new Error(`${file}: cannot keep a copy of it (${reasonOf(error)})`)
    }
  }
}

// --- internal ---

const KEPT = 'run-reports'

/** Where a matched file goes in `into`: its path below the pattern's fixed part (`target/surefire-reports/` for `target/surefire-reports/*.xml`). */
function keptPath(pattern: string, file: string, into: string): string {
  return join(into, relative(resolve(baseOf(pattern)), resolve(file)) || file.split(/[\\/]/).pop() || 'report')
}

function baseOf(pattern: string): string {
  if (fg.isDynamicPattern(pattern)) {
    const fixed: string[] = []
    for (const part of pattern.split('/')) {
      if (fg.isDynamicPattern(part)) break
      fixed.push(part)
    }
    return fixed.join('/') || '.'
  }
  return existsSync(pattern) && statSync(pattern).isDirectory() ? pattern : dirname(pattern)
}

/** What the path is when it exists and is neither a regular file nor a folder (`a named pipe`, …), following symlinks; undefined otherwise. */
export function specialKind(path: string): string | undefined {
  let stats: ReturnType<typeof statSync>
  try {
    stats = statSync(path)
  } catch {
    return undefined
  }
  return stats.isDirectory() ? undefined : describeKind(stats)
}
