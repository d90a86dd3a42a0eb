import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ProofFileSchema, SummaryFileSchema } from '../../src/artifacts/schemas.js'
import { readArtifact, runFlakeproofVitest, runVitest, tempDir } from '../utils.js'

const FLAKY = 'tests/counter.test.ts > fails on every fifth call'
const TIMING = 'tests/timing.test.ts > races when called quickly'

// Proofs of test/fixtures/vitest-flaky, beside the suite's other files: the timing test races on
// calls within 500 ms of each other, a margin no load here stretches repetitions past (the Vitest
// consumers measure it exactly beside them too); the gapped runs of observing stay in
// vitest-observe.test.ts, alone.
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
