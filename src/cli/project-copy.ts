import { readFileSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/**
 * The bin of the flakeproof the project in `cwd` installed, when this CLI (`selfBin`) is another copy
 * of it (a global install, another checkout); undefined when they are one copy, or the project has
 * none. As jest and eslint do, the project's copy runs: its config names that copy's files
 * (`flakeproof/jest/runner`, `flakeproof/vitest`), and two copies in one run each take the other's
 * for the user's own (Jest's runner wrapped itself until the stack overflowed, its reporter ran twice).
 */
export function projectCopyBin(cwd: string, selfBin: string): string | undefined {
  try {
    // Resolved as the project's own `require` would, from its folder up (a hoisted copy too).
    const manifestPath = createRequire(join(cwd, 'package.json')).resolve('flakeproof/package.json')
    const { bin } = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin?: string | { flakeproof?: string } }
    const relativeBin = typeof bin === 'string' ? bin : bin?.flakeproof
    if (!relativeBin) return undefined
    const theirs = realpathSync(join(dirname(manifestPath), relativeBin))
    return theirs === realpathSync(selfBin) ? undefined : theirs
  } catch {
    // No copy in the project, or one without its bin (a broken install): this copy runs.
    return undefined
  }
}
