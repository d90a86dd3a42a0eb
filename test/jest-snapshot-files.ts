import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** sha256 of test/fixtures/jest-snapshots' test files (inline snapshots) and snapshot files in a copy of it, by path. */
export function snapshotHashes(dir: string): Record<string, string> {
  const files = ['tests/kinds.test.js', 'tests/obsolete.test.js', ...readdirSync(join(dir, 'tests/__snapshots__')).map((n) => `tests/__snapshots__/${n}`)]
  return Object.fromEntries(files.map((f) => [f, createHash('sha256').update(readFileSync(join(dir, f))).digest('hex')]))
}

/**
 * Jest's `Snapshots:` line and its obsolete/written summary lines, sorted: each file's lines come as
 * the file ends, and files in workers end in either order (seen: a file's `1 snapshot failed` before
 * or after the other's `1 snapshot obsolete`, run to run).
 */
export function snapshotSummary(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => /^Snapshots:| › \d+ snapshots? (written|obsolete|failed|updated|removed)/.test(line))
    .sort()
}

/** The snapshot modes compared with plain Jest, and the files each changes in the fixture (CI=true is set for children: the default needs --ci=false). */
export const SNAPSHOT_MODES: ReadonlyArray<readonly [string, readonly string[], readonly string[]]> = [
  ['--ci', ['--ci'], []],
  ['the default (no --ci)', ['--ci=false'], ['tests/__snapshots__/kinds.test.js.snap']],
  ['-u', ['-u', '--ci=false'], ['tests/__snapshots__/kinds.test.js.snap', 'tests/__snapshots__/obsolete.test.js.snap']],
]

/** Each test's [name, trials, failures] over five copies; under --ci the uncommitted snapshot fails every copy (as Jest fails it once). */
export function snapshotCounts(mode: readonly string[]): Array<[string, number, number]> {
  return [
    ['named snapshots', 5, 0],
    ['resolved values', 5, 0],
    ['inline snapshots', 5, 0],
    ['thrown errors', 5, 0],
    ['a custom serializer', 5, 0],
    ['a suite > nested with a hint', 5, 0],
    ['a snapshot not committed yet', 5, mode.includes('--ci') ? 5 : 0],
    ['kept', 5, 0],
  ]
}
