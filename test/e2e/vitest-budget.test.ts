import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import { readArtifact, ROOT, runFlakeproofVitest, runVitest, tempDir } from '../utils.js'

const FIXTURE = join(ROOT, 'test/fixtures/vitest-ci')

/**
 * `flakeproof vitest --flaky-budget`: three timed runs, then the repeat count of the shakedown rule
 * (the arithmetic itself is in test/unit/time-budget.test.ts; here, timing varies, so the test reads
 * the count from the line printed and checks the measurement used it).
 */
describe('flakeproof vitest --flaky-budget', () => {
  it('gives a single test at least 100 repetitions, and measures with the count it announced', async () => {
    const out = tempDir()
    const result = await runFlakeproofVitest(['--flaky-budget', '2s', '--flaky-out', out, '--flaky-out-anywhere', '-t', 'steady'], {}, FIXTURE)
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('flakeproof budget 2 s: timing 3 runs of the selection first')
    // Three repetitions are too few for a verdict: the calibration shows none.
    expect(result.stdout).toContain('calibration: 1 test(s), 3 runs each')
    const announced = /one run of 1 test\(s\) takes [\d.]+ m?s; repeating (\d+) times/.exec(result.stderr)
    expect(announced, result.stderr).not.toBeNull()
    const repeat = Number(announced?.[1])
    expect(repeat).toBeGreaterThanOrEqual(100)
    expect(readArtifact(join(out, 'rate.json'), RateFileSchema)).toMatchObject({ trials: repeat, failures: 0 })
  }, 60_000)

  it('cuts a selection to what the budget holds, and says so', async () => {
    const out = tempDir()
    // 1 ms cannot hold even one run of four tests: round(1 ms / one run) is 0 or 1, raised to 2.
    const result = await runFlakeproofVitest(['--flaky-budget', '1ms', '--flaky-out', out, '--flaky-out-anywhere'], {}, FIXTURE)
    expect(result.stderr).toMatch(/one run of 4 test\(s\) takes .*; 100 runs would take .*, past the 1 ms budget, so the budget forces fewer: repeating 2 times \(round\(1 ms \/ .*\) = [01], raised to 2, the fewest that can show a flake\)/)
    expect(readArtifact(join(out, 'rate.json'), RateFileSchema).trials).toBe(2)
  }, 60_000)

  it('reports a test failing every first run as a deterministic failure and repeats nothing', async () => {
    const out = tempDir()
    const result = await runFlakeproofVitest(['--flaky-budget', '5m', '--flaky-out', out, '--flaky-out-anywhere', '-t', 'fragile'], { FIXTURE_BREAK: '1' }, FIXTURE)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('1 test(s) failed all 3 of their first runs: a deterministic failure, not a flake. Fix it as a normal bug; nothing is repeated.')
    expect(result.stderr).toContain('   tests/ci.test.ts > fragile: fails every fourth call')
    expect(result.stdout).not.toContain('BROKEN')
    // Only the three calibration runs were made.
    expect(readArtifact(join(out, 'rate.json'), RateFileSchema)).toMatchObject({ trials: 3, failures: 3 })
  }, 60_000)

  it('is refused in a plain `vitest run`, which cannot start a second run', async () => {
    const result = await runVitest(['run', '--', '--flaky-budget', '5m'], {}, FIXTURE)
    expect(result.code).toBe(1)
    expect(result.stdout + result.stderr).toContain('--flaky-budget times a first run and then starts a second one, which only `npx flakeproof vitest --flaky-budget 5m [vitest args]` can do')
  }, 30_000)
})
