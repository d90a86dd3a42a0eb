import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import { JEST_CONSUMER_MATRIX, prepareJestTransformsConsumer } from '../jest-consumers.js'
import { readArtifact, runNodeIn } from '../utils.js'

/**
 * Issue 18 item 8: the transforms and the environment of the suites flakeproof was tried on — ts-jest
 * (class-validator), babel-jest (luxon), @swc/jest under jsdom (react-hook-form) — as three projects
 * of test/fixtures/jest-transforms, on Jest 29 and 30, installed as a user installs them. Plain Jest
 * is the oracle for which tests exist; the snapshot and test files must be untouched under `--ci`.
 */
const INSTALL_TIMEOUT = 600_000

/** 20 copies each: the fifth-call counters fail at calls 5, 10, 15 and 20 (4 of 20); the rest never fail. */
const MEASURED = {
  '[ts] ts/validator.test.ts > validate > accepts a long enough name': [20, 0],
  '[ts] ts/validator.test.ts > validate > names the field of a short name': [20, 0],
  '[ts] ts/validator.test.ts > validate > fails on every fifth call': [20, 4],
  '[babel] babel/dates.test.js > toISODate > formats 0 as 1970-01-01': [20, 0],
  // Date.UTC(2024, 1, 29) = 19782 days × 86 400 000 ms.
  '[babel] babel/dates.test.js > toISODate > formats 1709164800000 as 2024-02-29': [20, 0],
  '[babel] babel/dates.test.js > toISODate > fails on every fifth call': [20, 4],
  '[swc] swc/form.test.js > form > shows the error after its debounce': [20, 0],
  '[swc] swc/form.test.js > form > renders the empty form': [20, 0],
  '[swc] swc/form.test.js > form > fails on every fifth call': [20, 4],
}

/** sha256 of the test files (inline snapshots) and snapshot files, by path. */
function hashes(dir: string): Record<string, string> {
  const files = ['ts/validator.test.ts', 'babel/dates.test.js', 'swc/form.test.js', ...['ts', 'swc'].flatMap((p) => readdirSync(join(dir, p, '__snapshots__')).map((n) => `${p}/__snapshots__/${n}`))]
  return Object.fromEntries(files.map((f) => [f, createHash('sha256').update(readFileSync(join(dir, f))).digest('hex')]))
}

// Each Jest version's project is installed and run at once with the other's (folders of their own).
describe.each(JEST_CONSUMER_MATRIX)('ts-jest, babel-jest and @swc/jest under jsdom, on jest %s', { concurrent: true }, (jest) => {
  let dir: string
  beforeAll(async () => {
    dir = await prepareJestTransformsConsumer(jest)
  }, INSTALL_TIMEOUT)

  it('every project\'s tests by id, exact counts, Jest\'s own totals and the snapshot files untouched', async () => {
    const before = hashes(dir)
    const plain = await runNodeIn(dir, [join(dir, 'node_modules/jest/bin/jest.js'), '--ci'])
    expect(plain.stderr).toContain('Tests:       9 passed, 9 total')
    expect(plain.stderr).toContain('Snapshots:   3 passed, 3 total')
    const measured = await runNodeIn(dir, [join(dir, 'node_modules/flakeproof/dist/src/cli/bin.js'), 'jest', '--flaky-repeat', '20', '--ci'])
    // 9 tests × 20 copies; 3 fifth-call tests × 4 failed copies.
    expect(measured.stderr).toContain('Tests:       12 failed, 168 passed, 180 total')
    expect(measured.code).toBe(0) // flaky, none broken: advisory
    const rate = readArtifact(join(dir, '.flakeproof/rate.json'), RateFileSchema)
    expect(rate.complete).toBe(true)
    expect(rate.run_errors ?? []).toEqual([])
    expect(Object.fromEntries((rate.tests ?? []).map((t) => [t.id, [t.trials, t.failures]]))).toEqual(MEASURED)
    expect(hashes(dir)).toEqual(before)
  }, 480_000)
})
