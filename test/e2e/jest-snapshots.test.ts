import { createHash } from 'node:crypto'
import { cpSync, readdirSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import { BIN, readArtifact, ROOT, runNodeIn, tempDir } from '../utils.js'

/**
 * Snapshots under copies (issue 18, item 1), with Jest itself as the oracle: the same fixture is run
 * once by plain Jest and once by `flakeproof jest --flaky-repeat 5`, each in a copy of its own, under
 * `--ci`, the default and `-u`; the snapshot files and the test files (inline snapshots) must come
 * out byte for byte the same, and Jest's snapshot summary and exit code the same. The fixture has
 * named snapshots (`toMatchSnapshot('hint')`, a hint used twice), `.resolves`, inline ones,
 * `toThrowErrorMatchingSnapshot` (named and inline), a custom serializer, a nested suite, one
 * snapshot not committed (written by the default run, a failure under `--ci`) and one obsolete entry.
 */
const FIXTURE = join(ROOT, 'test/fixtures/jest-snapshots')
const JEST = join(ROOT, 'node_modules/jest/bin/jest.js')

function copyOfFixture(): string {
  const dir = tempDir()
  cpSync(FIXTURE, dir, { recursive: true })
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  return dir
}

/** sha256 of every snapshot file and test file, by path. */
function hashes(dir: string): Record<string, string> {
  const files = ['tests/kinds.test.js', 'tests/obsolete.test.js', ...readdirSync(join(dir, 'tests/__snapshots__')).map((n) => `tests/__snapshots__/${n}`)]
  return Object.fromEntries(files.map((f) => [f, createHash('sha256').update(readFileSync(join(dir, f))).digest('hex')]))
}

/** Jest's `Snapshots:` line and its obsolete/written summary lines. */
function snapshotSummary(stderr: string): string[] {
  return stderr.split('\n').filter((line) => /^Snapshots:| › \d+ snapshots? (written|obsolete|failed|updated|removed)/.test(line))
}

describe.each([
  ['--ci', ['--ci']],
  ['the default (no --ci)', ['--ci=false']],
  ['-u', ['-u', '--ci=false']],
])('snapshots under %s: five copies of each test change what one plain Jest run changes, and nothing else', (_name, mode) => {
  it('leaves the same files, the same summary and the same exit code', async () => {
    const plain = copyOfFixture()
    const repeated = copyOfFixture()
    const before = hashes(plain)
    const native = await runNodeIn(plain, [JEST, ...mode])
    const measured = await runNodeIn(repeated, [BIN, 'jest', '--flaky-repeat', '5', '--flaky-fail-on-flaky', ...mode])
    expect(hashes(repeated)).toEqual(hashes(plain))
    expect(snapshotSummary(measured.stderr)).toEqual(snapshotSummary(native.stderr))
    expect(measured.code).toBe(native.code)
    // The default writes the one snapshot not committed; -u also removes the obsolete entry; --ci writes nothing.
    const changed = Object.keys(before).filter((f) => before[f] !== hashes(plain)[f])
    expect(changed).toEqual(mode.includes('--ci') ? [] : mode.includes('-u') ? ['tests/__snapshots__/kinds.test.js.snap', 'tests/__snapshots__/obsolete.test.js.snap'] : ['tests/__snapshots__/kinds.test.js.snap'])
    const rate = readArtifact(join(repeated, '.flakeproof/rate.json'), RateFileSchema)
    // Eight tests, five copies each; under --ci the uncommitted snapshot fails every copy (as Jest fails it once).
    expect(rate.tests?.map((t) => [t.name, t.trials, t.failures])).toEqual(
      expect.arrayContaining([
        ['named snapshots', 5, 0],
        ['resolved values', 5, 0],
        ['inline snapshots', 5, 0],
        ['thrown errors', 5, 0],
        ['a custom serializer', 5, 0],
        ['a suite > nested with a hint', 5, 0],
        ['a snapshot not committed yet', 5, mode.includes('--ci') ? 5 : 0],
        ['kept', 5, 0],
      ]),
    )
  }, 120_000)
})
