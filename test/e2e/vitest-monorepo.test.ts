import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ProofFileSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { TestFactSchema } from '../../src/artifacts/test-schemas.js'
import { readArtifact, ROOT, runFlakeproofVitest, runVitest, tempDir } from '../utils.js'

// `projects: ['packages/*']`, each package with its own config file (test/fixtures/vitest-monorepo).
const MONOREPO = join(ROOT, 'test/fixtures/vitest-monorepo')
const A = '[a] test/same.test.ts > fails every fourth call'
const B = '[b] test/same.test.ts > fails every fourth call'

// Each test starts Vitest on a fixture (a few seconds each on two busy cores): sized to that, not to the global 20 s.
describe('a monorepo whose projects have config files of their own', { timeout: 60_000 }, () => {
  it('the config form stops before any test with one line naming the projects and the command that covers them', async () => {
    const out = tempDir()
    const result = await runVitest(['run', '--', '--flaky-repeat', '8', '--flaky-out', out, '--flaky-out-anywhere'], {}, MONOREPO)
    expect(result.code).toBe(1)
    expect(result.stdout + result.stderr).toContain('the projects of "packages/*" have config files of their own')
    expect(result.stdout + result.stderr).toContain('npx flakeproof vitest --flaky-repeat')
    expect(result.stdout).not.toMatch(/Test Files/)
    expect(readdirSync(out)).toEqual([])
  })

  it('the wrapper repeats every project, with distinct ids and the project on every fact', async () => {
    const out = tempDir()
    const result = await runFlakeproofVitest(['--flaky-repeat', '8', '--flaky-out', out, '--flaky-out-anywhere'], {}, MONOREPO)
    expect(result.code).toBe(0)
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect(rate.tests?.map((t) => [t.id, t.trials, t.failures, t.verdict])).toEqual([
      [A, 8, 2, 'flaky'],
      [B, 8, 2, 'flaky'],
    ])
    const facts = readFileSync(join(out, 'facts.jsonl'), 'utf8').trim().split('\n').map((l) => TestFactSchema.parse(JSON.parse(l)))
    expect(facts.filter((f) => f.project === 'b').every((f) => f.test_id === B)).toBe(true)
  })

  it('gives a test the same id when the run starts in its package folder', async () => {
    const out = tempDir()
    await runFlakeproofVitest(['--flaky-repeat', '4', '--flaky-out', out, '--flaky-out-anywhere'], {}, join(MONOREPO, 'packages/a'))
    expect(readArtifact(join(out, 'rate.json'), RateFileSchema).tests?.map((t) => t.id)).toEqual([A])
  })

  it('a proof narrowed with --project proves that project and leaves the other not-selected, not missing', async () => {
    const out = tempDir()
    const flags = ['--flaky-out', out, '--flaky-out-anywhere']
    await runFlakeproofVitest(['--flaky-repeat', '8', ...flags], {}, MONOREPO)
    const result = await runFlakeproofVitest(['--flaky-proof', ...flags, '--project', 'a'], { FIXTURE_FIXED: '1' }, MONOREPO)
    expect(result.code).toBe(0)
    const proof = readArtifact(join(out, 'proof.json'), ProofFileSchema)
    expect(proof.tests?.[A]).toMatchObject({ status: 'ran', trials: 11, failures: 0, passed: true })
    expect(proof.tests?.[B]).toMatchObject({ status: 'not-selected', passed: true })
    expect(proof.passed).toBe(true)
  })
})

// Failures outside any test (test/fixtures/vitest-file-level).
const FILE_LEVEL = join(ROOT, 'test/fixtures/vitest-file-level')

describe('a run with failures outside any test', { timeout: 60_000 }, () => {
  it('records import, hook and typecheck failures, marks the run incomplete, and never calls it clean', async () => {
    const out = tempDir()
    const env = { FIXTURE_IMPORT_ERROR: '1', FIXTURE_TYPECHECK: '1' }
    const result = await runVitest(['run', '--', '--flaky-repeat', '3', '--flaky-out', out, '--flaky-out-anywhere'], env, FILE_LEVEL)
    expect(result.code).toBe(1)
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect(rate.complete).toBe(false)
    expect(rate.run_errors).toEqual(
      expect.arrayContaining([
        { project: '', file: 'tests/import-error.test.ts', error: 'BROKEN_IMPORT: the module cannot load' },
        { project: '', file: 'tests/before-all.test.ts', error: 'a database: SETUP_FAILED: no database' },
      ]),
    )
    // Typecheck runs once per run: recorded once, and its failure is a verdict, not a gap.
    expect(rate.tests?.find((t) => t.id === '[typecheck] tests/types.test-d.ts > a number is not a string')).toMatchObject({ trials: 1, failures: 1, verdict: 'broken' })
    const output = result.stdout + result.stderr
    expect(output).toContain('✗ tests/import-error.test.ts: BROKEN_IMPORT')
    expect(output).toContain('1 typecheck test(s) ran once')
    expect(output).not.toContain('no flaky or broken test\n')
  })

  it('says the run is incomplete rather than clean when only file-level failures happened', async () => {
    const out = tempDir()
    const result = await runVitest(['run', 'tests/before-all.test.ts', 'tests/passing.test.ts', '--', '--flaky-repeat', '3', '--flaky-out', out, '--flaky-out-anywhere'], {}, FILE_LEVEL)
    expect(result.code).toBe(1)
    expect(result.stdout + result.stderr).toContain('no flaky or broken test among those that ran, but the run is incomplete')
    expect(readArtifact(join(out, 'rate.json'), RateFileSchema).complete).toBe(false)
  })

  it('names the file and test an unhandled error arose in, once per line with its count, as Vitest says where', async () => {
    const out = tempDir()
    const result = await runVitest(['run', 'tests/late-rejection.test.ts', '--', '--flaky-repeat', '3', '--flaky-out', out, '--flaky-out-anywhere'], { FIXTURE_LATE_REJECTION: '1' }, FILE_LEVEL)
    expect(result.code).toBe(1)
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect(rate.complete).toBe(false)
    // Each copy of the first test leaves its promise behind; each rejects while the second test runs.
    const error = 'unhandled during "a promise left behind > waits while it rejects": rejected after its test ended'
    expect(rate.run_errors).toEqual(Array(3).fill({ project: '', file: 'tests/late-rejection.test.ts', error }))
    expect(result.stdout + result.stderr).toContain(`✗ tests/late-rejection.test.ts: ${error} (3 times)`)
  })

  it('writes no snapshot, file or inline, outside CI: a missing snapshot fails its repetitions instead', async () => {
    const out = tempDir()
    const source = join(FILE_LEVEL, 'tests/snapshot.test.ts')
    const before = readFileSync(source, 'utf8')
    const result = await runVitest(['run', 'tests/snapshot.test.ts', '--', '--flaky-repeat', '3', '--flaky-out', out, '--flaky-out-anywhere'], { CI: '' }, FILE_LEVEL)
    expect(result.code).toBe(1)
    expect(readFileSync(source, 'utf8')).toBe(before)
    expect(existsSync(join(FILE_LEVEL, 'tests/__snapshots__'))).toBe(false)
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect(rate.tests?.map((t) => [t.name, t.failures, t.trials])).toEqual([
      ['matches a snapshot that was never written', 3, 3],
      ['matches an inline snapshot that was never written', 3, 3],
    ])
  })
})
