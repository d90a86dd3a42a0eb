import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import { SNAPSHOT_MODES, snapshotCounts, snapshotHashes, snapshotSummary } from '../jest-snapshot-files.js'
import { fixtureCopy } from '../projects.js'
import { BIN, readArtifact, ROOT, runNodeIn } from '../utils.js'

/**
 * Snapshots under copies (issue 18, item 1), with Jest itself as the oracle: the same fixture is run
 * once by plain Jest and once by `flakeproof jest --flaky-repeat 5`, each in a copy of its own, under
 * `--ci`, the default and `-u`; the snapshot files and the test files (inline snapshots) must come
 * out byte for byte the same, and Jest's snapshot summary and exit code the same. The fixture has
 * named snapshots (`toMatchSnapshot('hint')`, a hint used twice), `.resolves`, inline ones,
 * `toThrowErrorMatchingSnapshot` (named and inline), a custom serializer, a nested suite, one
 * snapshot not committed (written by the default run, a failure under `--ci`) and one obsolete entry.
 */
const JEST = join(ROOT, 'node_modules/jest/bin/jest.js')


describe.each(SNAPSHOT_MODES)('snapshots under %s: five copies of each test change what one plain Jest run changes, and nothing else', (_name, mode, changes) => {
  it('leaves the same files, the same summary and the same exit code', async () => {
    const plain = fixtureCopy('jest-snapshots')
    const repeated = fixtureCopy('jest-snapshots')
    const before = snapshotHashes(plain)
    const native = await runNodeIn(plain, [JEST, ...mode])
    const measured = await runNodeIn(repeated, [BIN, 'jest', '--flaky-repeat', '5', '--flaky-fail-on-flaky', ...mode])
    expect(snapshotHashes(repeated)).toEqual(snapshotHashes(plain))
    expect(snapshotSummary(measured.stderr)).toEqual(snapshotSummary(native.stderr))
    expect(measured.code).toBe(native.code)
    // The default writes the one snapshot not committed; -u also removes the obsolete entry; --ci writes nothing.
    const changed = Object.keys(before).filter((f) => before[f] !== snapshotHashes(plain)[f])
    expect(changed).toEqual(changes)
    const rate = readArtifact(join(repeated, '.flakeproof/rate.json'), RateFileSchema)
    expect(rate.tests?.map((t) => [t.name, t.trials, t.failures])).toEqual(expect.arrayContaining(snapshotCounts(mode)))
  }, 120_000)
})
