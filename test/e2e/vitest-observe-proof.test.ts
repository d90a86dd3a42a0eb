import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ObserverFileSchema, ProofFileSchema, SummaryFileSchema } from '../../src/artifacts/schemas.js'
import { readArtifact, runFlakeproofVitest, runVitest, tempDir } from '../utils.js'

const FLAKY = 'tests/counter.test.ts > fails on every fifth call'
const TIMING = 'tests/timing.test.ts > races when called quickly'
const BROKEN = 'tests/counter.test.ts > always fails'

describe('observing: the same tests again with gaps', () => {
  it('sees the timing-sensitive test stop failing when slowed down, and the counter keep failing', async () => {
    const out = tempDir()
    const flags = ['--flaky-repeat', '200', '--flaky-observe', '--flaky-slow-repeat', '20', '--flaky-out', out, '--flaky-out-anywhere']
    // Gaps of 600 ms with a 100 ms test timeout: the rest before a repetition is not test time.
    const result = await runVitest(['run', '--testTimeout=100', '--', ...flags], { FIXTURE_GAP_MS: '600' })
    expect(result.code).toBe(1)
    const observer = readArtifact(join(out, 'observer.json'), ObserverFileSchema)
    // Timing: 40/200 fast, 0/20 with 600 ms gaps; Fisher two-sided on [[40,160],[0,20]] = 0.0288 < 0.05
    // (scipy 1.17.1: scipy.stats.fisher_exact([[40, 160], [0, 20]])[1] = 0.028791531338852844).
    expect(observer.tests?.[TIMING]).toMatchObject({ fast: { trials: 200, failures: 40 }, slow: { trials: 20, failures: 0, gap_ms: 600 }, changed: true })
    expect(observer.tests?.[TIMING]?.p_value).toBeCloseTo(0.0287915313, 9)
    expect(observer.tests?.[TIMING]?.note).toContain('not a fix')
    // The counter does not care about time: calls 205, 210, 215, 220 fail.
    expect(observer.tests?.[FLAKY]).toMatchObject({ slow: { trials: 20, failures: 4 }, changed: false })
    // [[40,160],[4,16]]: 40 is the mode of the hypergeometric (⌊(44+1)(200+1)/(220+2)⌋ = ⌊40.7⌋), so every
    // table is at most as likely and p = 1 (R: fisher.test(matrix(c(40,4,160,16), 2))$p.value = 1).
    expect(observer.tests?.[FLAKY]?.p_value).toBe(1)
    expect(observer.tests?.[BROKEN]).toMatchObject({ slow: { trials: 20, failures: 20 } })
    // Gapped and fast repetitions alternate after the first block: calls 201, 203, … 239 gapped,
    // 202, 204, … 240 fast. The race hits calls 210, 220, 230, 240 of the interleaved fast ones:
    // 4/20 against 0/20, p = 2·C(20,4)/C(40,4) = 2·4845/91390 = 0.10603; the first block's 40/200
    // against 4/20 is the same rate (p = 1, as for the counter above): no drift over time.
    expect(observer.tests?.[TIMING]).toMatchObject({ paired: { trials: 20, failures: 4 }, drift_p_value: 1 })
    expect(observer.tests?.[TIMING]?.paired_p_value).toBeCloseTo(2 * 4845 / 91390, 9)
    expect(observer.tests?.[TIMING]?.note).toContain('With time held alike (interleaved fast 4/20 against gapped 0/20, p = 0.106): no difference found with these counts.')
    const modes = readFileSync(join(out, 'facts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { test_id: string; mode: string }).filter((f) => f.test_id === TIMING).map((f) => f.mode)
    expect(modes.slice(200, 204)).toEqual(['slow', 'paired', 'slow', 'paired'])
    // Tests that never failed fast are not slowed down.
    expect(Object.keys(observer.tests ?? {}).sort()).toEqual([BROKEN, FLAKY, TIMING].sort())
    expect(readArtifact(join(out, 'summary.json'), SummaryFileSchema).tests?.[TIMING]?.observer_changed).toBe(true)
    // 200 fast repetitions, then 20 more with 600 ms gaps for each of the three tests that failed:
    // two of them share a file, so 24 s of gaps in one worker, plus Vitest's start.
  }, 120_000)
})

describe('proof runs', () => {
  it('fails for a test that is still flaky and passes for the fixed one, repeating each the planned 14 times', async () => {
    const out = tempDir()
    await runVitest(['run', '--', '--flaky-repeat', '100', '--flaky-out', out, '--flaky-out-anywhere'])

    const still = await runVitest(['run', '--', '--flaky-proof', '--flaky-out', out, '--flaky-out-anywhere'])
    expect(still.code).toBe(1)
    const failed = readArtifact(join(out, 'proof.json'), ProofFileSchema)
    expect(failed.passed).toBe(false)
    // 14 repetitions of a fresh counter: calls 5 and 10 fail.
    expect(failed.tests?.[FLAKY]).toMatchObject({ required: 14, trials: 14, failures: 2, passed: false, failure_trials: [5, 10], status: 'ran' })
    // Only flaky tests are proven; the broken one is left out.
    expect(Object.keys(failed.tests ?? {}).sort()).toEqual([FLAKY, TIMING].sort())

    const fixed = await runVitest(['run', '--', '--flaky-proof', '--flaky-out', out, '--flaky-out-anywhere'], { FIXTURE_FIXED: '1' })
    expect(fixed.code).toBe(0)
    const proof = readArtifact(join(out, 'proof.json'), ProofFileSchema)
    expect(proof).toMatchObject({ passed: true, required: 28, trials: 28, failures: 0 })
    expect(proof.tests?.[TIMING]).toMatchObject({ required: 14, trials: 14, failures: 0, passed: true })
    const summary = readArtifact(join(out, 'summary.json'), SummaryFileSchema)
    expect(summary.tests?.[FLAKY]).toMatchObject({ trials: 100, failures: 20, proof_trials: 14, proof_failures: 0, proof_passed: true })
    expect(readFileSync(join(out, 'flaky_report.md'), 'utf8')).toContain('Proof run: **PASSED** (2 test(s) proven).')
  }, 90_000) // three Vitest runs

  it('narrows with Vitest filters and the wrapper decides the exit code', async () => {
    const out = tempDir()
    await runFlakeproofVitest(['--flaky-repeat', '50', '--flaky-out', out, '--flaky-out-anywhere', 'tests/counter.test.ts'])
    const result = await runFlakeproofVitest(['--flaky-proof', '--flaky-out', out, '--flaky-out-anywhere', 'tests/counter.test.ts'], { FIXTURE_FIXED: '1' })
    expect(result.code).toBe(0)
    expect(readArtifact(join(out, 'proof.json'), ProofFileSchema).tests?.[FLAKY]).toMatchObject({ trials: 14, passed: true })
  }, 60_000) // two Vitest runs

  it('says what to do when nothing was measured', async () => {
    const out = tempDir()
    const result = await runVitest(['run', '--', '--flaky-proof', '--flaky-out', out, '--flaky-out-anywhere'])
    expect(result.code).toBe(1)
    expect(result.stdout + result.stderr).toContain('no policy.json or runs_needed.json')
  }, 60_000) // one Vitest run
})
