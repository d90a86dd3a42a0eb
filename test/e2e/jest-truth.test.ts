import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CommittedPolicySchema } from '../../src/artifacts/committed-policy-schema.js'
import { ProofFileSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { BIN, factsIn, readArtifact, ROOT, runNodeIn, tempDir } from '../utils.js'

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

describe('a promise a test leaves behind that rejects after the test ended', () => {
  it('fails each copy Jest fails for it when the describe block ends: broken, as in a plain run, never stable', async () => {
    const out = tempDir()
    const result = await flakeproofJest(['--flaky-repeat', '5', '--flaky-out', out, '--flaky-out-anywhere', 'tests/late-rejection.test.js'])
    // Jest 30 fails the copies after each was done (react-hook-form's un-awaited `waitFor`s): flakeproof counts what Jest counts.
    expect(result.stderr).toContain('Tests:       5 failed, 5 passed, 10 total')
    expect(result.code).toBe(1)
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect(rate.tests?.map((t) => [t.name, t.trials, t.failures, t.verdict])).toEqual([
      ['a promise left behind > rejects after its test ended', 5, 5, 'broken'],
      ['a promise left behind > waits while it rejects', 5, 0, 'stable'],
    ])
    // Its plain runs fail it too: broken as it is, not by the repetitions.
    expect(rate.tests?.[0]?.plain_evidence).toMatchObject({ plain: { trials: 3, failures: 3 }, decided: 'broken' })
    expect(factsIn(out).filter((f) => f.name?.endsWith('ended')).map((f) => [f.outcome, f.error])).toEqual(Array(5).fill(['failed', 'rejected after its test ended']))

    // Quarantined in a committed policy (written here: policy.json lists no broken test), an enforced run records its
    // late failure and, as for any other quarantined failure, passes.
    const policyPath = join(out, 'committed.policy.json')
    const id = 'tests/late-rejection.test.js > a promise left behind > rejects after its test ended'
    const quarantined = {
      project: '',
      file: 'tests/late-rejection.test.js',
      name: 'a promise left behind > rejects after its test ended',
      ...{ trials: 5, failures: 5, rate: 1, ci_low: 0.565518, ci_high: 1, verdict: 'broken' },
      ...{ retry_budget: 0, quarantine_after: null, green_runs_required: 2, failed_runs: 0 },
      quarantine: { since: '2026-01-01', reason: 'rejects after it ended', evidence: ['rejected after its test ended'] },
    }
    writeFileSync(policyPath, JSON.stringify({ schema_version: 1, confidence: 0.95, tests: { [id]: quarantined } }))
    readArtifact(policyPath, CommittedPolicySchema)
    const enforced = await flakeproofJest(['--flaky-enforce', '--flaky-policy', policyPath, '--flaky-out', join(out, 'enforced'), '--flaky-out-anywhere', 'tests/late-rejection.test.js'])
    expect(enforced.stdout).toContain(`◌ ${id}  failed: rejected after its test ended`)
    expect(enforced.code, enforced.stdout + enforced.stderr).toBe(0)
  }, 120_000)
})

describe('a block Jest 30.5 retries as a whole (jest.retryTimes with entireDescribe)', () => {
  it('is not retried while measuring: each copy counted once, the failed one kept', async () => {
    const out = tempDir()
    const result = await flakeproofJest(['--flaky-repeat', '5', '--flaky-out', out, '--flaky-out-anywhere', 'tests/describe-retry.test.js'])
    expect(result.stderr).toContain('Tests:       1 failed, 4 passed, 5 total')
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    // Call 2 fails; a retry of the block would have run all five copies again and passed them.
    expect(rate.tests?.map((t) => [t.name, t.trials, t.failures, t.verdict])).toEqual([['retried as a whole > fails on its second call', 5, 1, 'flaky']])
    expect(rate.complete).toBe(true)
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

describe('quiet by default (tests/noisy.test.js warns on every call and fails every fifth)', () => {
  it.each([
    ['two files (Jest buffers console output)', ['tests/noisy.test.js', 'tests/elsewhere.test.js']],
    ['one file (Jest prints console output at once)', ['tests/noisy.test.js']],
  ])('%s: the first failing copy prints its output and its failure; every copy keeps both in facts', async (_name, files) => {
    const out = tempDir()
    const result = await flakeproofJest(['--flaky-repeat', '20', '--flaky-out', out, '--flaky-out-anywhere', ...files])
    const printed = result.stdout + result.stderr
    // Call 5 is the first failing copy: its warning is printed, at the user's own line; the others are not.
    expect(printed.match(/warning from call \d+/g)).toEqual(['warning from call 5'])
    expect(printed).toContain('at Object.warn (tests/noisy.test.js:8:11)')
    expect(printed).not.toMatch(/plugin\/jest|flakeproof\/dist/)
    // One failure block for the test, then the count of the other 3 failed copies (calls 10, 15, 20).
    expect(printed.match(/● warns on every call and fails every fifth/g)).toHaveLength(2)
    expect(printed).toContain('● warns on every call and fails every fifth: 3 more failed copies, not printed (every one is in facts.jsonl)')
    expect(printed).toContain('[flakeproof] console output of 19 copies kept in facts.jsonl, not printed: a test prints the output of its first failing copy only')
    const facts = readFileSync(join(out, 'facts.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { test_id: string; stderr: string })
    expect(facts.filter((f) => f.test_id.startsWith('tests/noisy.test.js')).map((f) => f.stderr)).toEqual(Array.from({ length: 20 }, (_, i) => `warning from call ${i + 1}\n`))
  }, 120_000)
})
