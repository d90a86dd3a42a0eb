import { fileURLToPath } from 'node:url'

/**
 * The folder this package's files are under: `dist/` once built, the repository when run from
 * source. This module sits one folder below it, and so does the chunk of dist/flakeproof-chunks/ its code may
 * be bundled into (scripts/bundle-dist.mjs checks that), while the code of a module that names a
 * file of its own folder (`./runner.js`) may end up in a chunk elsewhere.
 */
const ROOT = new URL('../', import.meta.url)

/** A file of this package by its path under dist/ (`plugin/jest/reporter.js`): the one way code names its own files to load or to start. */
export function ownFile(path: string): string {
  return fileURLToPath(new URL(path, ROOT))
}
