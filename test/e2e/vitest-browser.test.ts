import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import { TestFactSchema } from '../../src/artifacts/test-schemas.js'
import { type CliResult, readArtifact, ROOT, runFlakeproofVitest, runVitest, tempDir } from '../utils.js'

// Vitest browser mode, playwright provider, the machine's Chromium (test/fixtures/vitest-browser).
// One Vitest run per describe, its output read by every `it` of it: a browser start costs seconds.
const FIXTURE = join(ROOT, 'test/fixtures/vitest-browser')
const FILE = 'tests/counter-button.test.ts'
const FLAKY = `[chromium] ${FILE} > counts a click`
const STABLE = `[chromium] ${FILE} > renders a heading`
const SNAPSHOT = `[chromium] ${FILE} > matches its snapshot`
const SNAPSHOT_FILE = join(FIXTURE, 'tests/__snapshots__/counter-button.test.ts.snap')

const factsIn = (out: string) => readFileSync(join(out, 'facts.jsonl'), 'utf8').trim().split('\n').map((l) => TestFactSchema.parse(JSON.parse(l)))
const rateIn = (out: string) => readArtifact(join(out, 'rate.json'), RateFileSchema)

describe.each([
  ['vitest run -- --flaky-repeat 12 (plugin in the config)', (out: string) => runVitest(['run', '--', '--flaky-repeat', '12', '--flaky-out', out, '--flaky-out-anywhere'], {}, FIXTURE)],
  [
    'npx flakeproof vitest --flaky-repeat 12 (no plugin in the config)',
    (out: string) => runFlakeproofVitest(['--flaky-repeat', '12', '--flaky-out', out, '--flaky-out-anywhere', '--config', 'vitest.plain.config.ts'], {}, FIXTURE),
  ],
])('browser mode in Chromium: %s', { timeout: 180_000 }, (_, measure) => {
  const out = tempDir()
  const snapshotBefore = readFileSync(SNAPSHOT_FILE, 'utf8')
  let result: CliResult

  beforeAll(async () => {
    result = await measure(out)
  }, 180_000)

  it('counts every repetition run in the browser: 4 of 12 for a click handler losing every third click', () => {
    const byId = new Map(rateIn(out).tests?.map((t) => [t.id, t]))
    // Calls 3, 6, 9 and 12 of 12 fail: 12 / 3 = 4.
    expect(byId.get(FLAKY)).toMatchObject({ trials: 12, failures: 4, verdict: 'flaky' })
    expect(byId.get(STABLE)).toMatchObject({ trials: 12, failures: 0, verdict: 'stable' })
    expect(byId.get(SNAPSHOT)).toMatchObject({ trials: 12, failures: 0, verdict: 'stable' })
    expect(rateIn(out)).toMatchObject({ complete: true, requested_trials: 12 })
  })

  it('writes one fact per repetition, each failure at its call', () => {
    const facts = factsIn(out)
    expect(facts).toHaveLength(3 * 12)
    expect(facts.filter((f) => f.test_id === FLAKY && f.outcome === 'failed').map((f) => f.trial)).toEqual([3, 6, 9, 12])
    expect(facts.find((f) => f.test_id === FLAKY && f.outcome === 'failed')?.error).toContain("expected '0' to be '1'")
  })

  it('leaves the snapshot as it was and says the test is flaky, not "no test ran"', () => {
    expect(readFileSync(SNAPSHOT_FILE, 'utf8')).toBe(snapshotBefore)
    const output = result.stdout + result.stderr
    // The verdict's row, then the id on its own line (src/session/_table.ts).
    expect(output).toMatch(/FLAKY\s+4 of 12\s[^\n]*\n\s+[^\n]*counts a click/)
    expect(output).not.toContain('no test ran')
    expect(result.code).toBe(0)
  })
})

describe('browser mode in Chromium: plain-run evidence for tests that fail every repetition (evidence/numbered.test.ts)', { timeout: 180_000 }, () => {
  const out = tempDir()
  let result: CliResult
  const byId = () => new Map(rateIn(out).tests?.map((t) => [t.id, t]))

  beforeAll(async () => {
    result = await runFlakeproofVitest(['--flaky-repeat', '5', '--flaky-out', out, '--flaky-out-anywhere', '--config', 'vitest.evidence.config.ts'], {}, FIXTURE)
  }, 180_000)

  it('runs the file again in the browser, once with its repetitions and 3 times each test once, and tells the two apart', () => {
    expect(result.stdout).toContain('plain-run evidence: 3 run(s) of 1 file(s) as usual (each test once) and a control with repetitions, for 2 test(s)')
    // 3 passing plain runs against 5 failed copies: 1/C(8, 3) = 1/56; the control's 5 copies failed.
    expect(byId().get('[chromium] evidence/numbered.test.ts > names its observable after the ones made before it')).toMatchObject({
      verdict: 'non-idempotent',
      plain_evidence: { plain: { trials: 3, failures: 0 }, control: { trials: 5, failures: 5 }, decided: 'non-idempotent' },
    })
    expect(byId().get('[chromium] evidence/numbered.test.ts > fails every time')).toMatchObject({ verdict: 'broken', plain_evidence: { plain: { trials: 3, failures: 3 }, decided: 'broken' } })
    // The control's 3 tests × 5 copies, then each test once in each plain run: the browser's runner
    // read each run's repetitions anew.
    expect(readFileSync(join(out, 'evidence_facts.jsonl'), 'utf8').trim().split('\n')).toHaveLength(3 * 5 + 3 * 3)
    expect(result.code).toBe(1)
  })
})

describe('a pool or mode flakeproof cannot reach', { timeout: 60_000 }, () => {
  const CUSTOM = 'the tests of this project run in the custom pool "own-forks", whose workers may never load flakeproof\'s runner'
  it.each([
    ['a custom pool, under `vitest run`', (out: string) => runVitest(['run', '--config', 'vitest.custom-pool.config.ts', '--', '--flaky-repeat', '3', '--flaky-out', out, '--flaky-out-anywhere'], {}, FIXTURE), 1, CUSTOM],
    ['a custom pool, under `flakeproof vitest`', (out: string) => runFlakeproofVitest(['--flaky-repeat', '3', '--flaky-out', out, '--flaky-out-anywhere', '--config', 'vitest.custom-pool.config.ts'], {}, FIXTURE), 2, CUSTOM],
    [
      'browser mode under --flaky-enforce',
      (out: string) => runVitest(['run', '--', '--flaky-enforce', '--flaky-out', out, '--flaky-out-anywhere'], {}, FIXTURE),
      1,
      '--flaky-enforce does not reach the tests of project "chromium", which run in Vitest\'s browser mode',
    ],
  ])('%s: stops the run before any test with one line naming the project and why', async (_, run, code, line) => {
    const out = tempDir()
    const result = await run(out)
    const output = result.stdout + result.stderr
    expect(result.code).toBe(code)
    expect(output).toContain(line)
    // One line: no stack, no cause printed under it.
    expect(output.split('\n').filter((l) => l.includes('flakeproof'))).toHaveLength(1)
    expect(output).not.toMatch(/Test Files|✓|×|\bat /)
    expect(existsSync(join(out, 'rate.json'))).toBe(false)
  })
})
