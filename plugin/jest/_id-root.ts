import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'

/**
 * The folder a Jest run's test files are named relative to in ids: the package that holds Jest's
 * rootDir (the nearest folder upwards with a package.json), else the rootDir itself. The rootDir is
 * the config file's folder unless the config says otherwise, and a config kept in a subfolder
 * (react-hook-form's scripts/jest/jest.config.js, its projects rooted at the package) made every id
 * `../../src/…`, a path Jest never prints and `npx jest <path>` matches by luck. One folder for the
 * whole run, whatever the projects: relative paths from it stay distinct for distinct files.
 */
export function idRootOf(rootDir: string): string {
  for (let dir = rootDir; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) return rootDir
  }
}
