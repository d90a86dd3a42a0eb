import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ProofFileSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { BIN, readArtifact, ROOT, runNodeIn, tempDir } from '../utils.js'

/**
 * Whole-run truth on Jest (issue 18, item 3): every way a run can end short is visible — in
 * `run_errors`, `complete: false`, a non-zero exit — never a silent 0. test/fixtures/jest-truth.
 */
const FIXTURE = join(ROOT, 'test/fixtures/jest-truth')
const flakeproofJest = (args: string[]) => runNodeIn(FIXTURE, [BIN, 'jest', ...args])

describe('a copy that calls process.exit(0) in an in-band run', () => {
  it('ends with rate.json written, incomplete, the cut copy failed, and exit 1', async () => {
    const out = tempDir()
    const result = await flakeproofJest(['--flaky-repeat', '5', '--flaky-out', out, '--flaky-out-anywhere', 'tests/exits.test.js'])
    expect(result.code).toBe(1)
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect(rate.complete).toBe(false)
    expect(rate.run_errors).toEqual([{ project: null, file: null, error: 'Jest stopped before the run ended (exit code 0, raised to 1)' }])
    // Copies 1 and 2 passed; copy 3 ended the process: 3 trials, 1 failed, partial (never stable).
    expect(rate.tests?.map((t) => [t.id, t.trials, t.failures, t.verdict])).toEqual([['tests/exits.test.js > exits the process on its third call', 3, 1, 'partial']])
  }, 60_000)
})

describe('proofs that prove less than asked', () => {
  // Each test fails its second call: 5 copies measure 1/5 each, flaky.
  const measured = async (): Promise<string> => {
    const out = tempDir()
    const result = await flakeproofJest(['--flaky-repeat', '5', '--flaky-out', out, '--flaky-out-anywhere', 'tests/proven.test.js', 'tests/elsewhere.test.js'])
    expect(result.code).toBe(0)
    return out
  }

  it('-t: the test filtered out of a file that ran is not-selected, as with Vitest, not missing', async () => {
    const out = await measured()
    const proof = await flakeproofJest(['--flaky-proof', '--flaky-out', out, '--flaky-out-anywhere', 'tests/proven.test.js', 'tests/elsewhere.test.js', '-t', 'second call$'])
    expect(proof.code).toBe(1) // the proven test fails its second of 14 calls
    const file = readArtifact(join(out, 'proof.json'), ProofFileSchema)
    expect(Object.fromEntries(Object.entries(file.tests ?? {}).map(([id, t]) => [id, [t.status, t.trials]]))).toEqual({
      'tests/elsewhere.test.js > fails on its second call elsewhere': ['not-selected', 0],
      'tests/proven.test.js > fails on its second call': ['ran', 14],
    })
  }, 120_000)

  it('a file filter that leaves every proven test out fails, saying why', async () => {
    const out = await measured()
    const proof = await flakeproofJest(['--flaky-proof', '--flaky-out', out, '--flaky-out-anywhere', 'tests/exits.test.js', '-t', 'nothing matches this'])
    expect(proof.code).toBe(1)
    expect(proof.stderr).toContain('proof FAILED: none of the tests it proves ran (a file, -t or project filter left them out); run them')
  }, 120_000)

  it('nothing to prove: one line and exit 2, before Jest starts, with no run folder left behind', async () => {
    const out = tempDir()
    await flakeproofJest(['--flaky-repeat', '3', '--flaky-out', out, '--flaky-out-anywhere', 'tests/proven.test.js', '-t', 'always passes'])
    const proof = await flakeproofJest(['--flaky-proof', '--flaky-out', out, '--flaky-out-anywhere', 'tests/proven.test.js'])
    expect(proof.code).toBe(2)
    expect(proof.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^flakeproof jest: --flaky-proof: nothing to prove, no test was flaky in .*policy\.json; measure again, or leave --flaky-proof out/)])
    expect(proof.stderr).not.toContain('An error occurred while adding the reporter')
    expect(readdirSync(out).filter((name) => name.startsWith('.run-'))).toEqual([])
    expect(existsSync(join(out, 'proof.json'))).toBe(false)
  }, 120_000)
})
