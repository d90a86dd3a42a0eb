import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CommittedPolicySchema } from '../../src/artifacts/committed-policy-schema.js'
import { ProofFileSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { surefireViolations } from '../junit-schema.js'
import { BIN, readArtifact, ROOT, runCli, runNodeIn, tempDir } from '../utils.js'

/**
 * The CI features on Jest (issue 18, item 5) on test/fixtures/jest-ci, whose failures come from
 * counters: 20 copies of `flaky` fail calls 5, 10, 15, 20 (4/20); of `fragile` calls 4, 8, …, 20 (5/20).
 */
const FIXTURE = join(ROOT, 'test/fixtures/jest-ci')
const JEST = join(ROOT, 'node_modules/jest/bin/jest.js')
const FLAKY = 'tests/ci.test.js > flaky: fails every fifth call'
const FRAGILE = 'tests/ci.test.js > fragile: fails every fourth call'
const flakeproofJest = (args: string[], env: Record<string, string> = {}) => runNodeIn(FIXTURE, [BIN, 'jest', ...args], env)

describe('a measurement under GitHub Actions with --flaky-junit', () => {
  it('writes the JUnit file, the step summary and a warning at each flaky test\'s line', async () => {
    const dir = tempDir()
    const summary = join(dir, 'summary.md')
    const result = await flakeproofJest(['--flaky-repeat', '20', '--flaky-junit', join(dir, 'junit.xml'), '--flaky-out', join(dir, 'out'), '--flaky-out-anywhere'], {
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_WORKSPACE: FIXTURE,
    })
    expect(result.code).toBe(0)
    expect(result.stdout + result.stderr).toContain('::warning file=tests/ci.test.js,line=8,title=flakeproof%3A flaky test flaky%3A fails every fifth call::')
    expect(result.stdout + result.stderr).toContain('::warning file=tests/ci.test.js,line=13,title=flakeproof%3A flaky test fragile%3A fails every fourth call::')
    expect(readFileSync(summary, 'utf8')).toContain('**2 flaky, 0 broken** of 3 tests, 20 rounds')
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8')
    expect(junit).toContain('<testsuite name="flakeproof" tests="3" failures="0"')
    expect(surefireViolations(junit)).toEqual([])
  }, 120_000)
})

describe('a committed policy', () => {
  it('is written from a Jest measurement, its quarantined test proven from it, and released with --flaky-update-policy', async () => {
    const dir = tempDir()
    const policyPath = join(dir, 'flakeproof.policy.json')
    const out = ['--flaky-out', join(dir, 'out'), '--flaky-out-anywhere']
    expect((await flakeproofJest(['--flaky-repeat', '100', ...out])).code).toBe(0)
    const written = await runCli(['policy', '--from', join(dir, 'out/rate.json'), '--write', policyPath])
    expect(written.code).toBe(0)
    const policy = readArtifact(policyPath, CommittedPolicySchema)
    // 20/100 → 14 green runs (0.8¹⁴ = 0.044 ≤ 0.05 < 0.8¹³); 25/100 → 11 (0.75¹¹ = 0.042 ≤ 0.05 < 0.75¹⁰).
    expect(policy.tests[FLAKY]).toMatchObject({ trials: 100, failures: 20, green_runs_required: 14 })
    // As an enforced run that quarantined it would: `fragile` is quarantined.
    // Without the measurement's conditions (an entry written before they were recorded): what this test proves is the
    // release itself; the machine's load, which the suite's other files change from minute to minute, is
    // test/e2e/proof-strength.test.ts's to hold still and compare.
    policy.tests[FRAGILE] = { ...(policy.tests[FRAGILE] as NonNullable<(typeof policy.tests)[string]>), measured_under: undefined, quarantine: { since: '2026-01-01', reason: 'failed beyond its retry budget', evidence: ['FRAGILE_BROKEN'] } }
    writeFileSync(policyPath, `${JSON.stringify(policy, null, 2)}\n`)

    // A fresh checkout (no measurement in the output folder) proves the committed policy's quarantined test:
    // 11 copies of `fragile`, whose 4th and 8th calls fail — the proof fails and the quarantine stays.
    const fresh = ['--flaky-out', join(dir, 'fresh'), '--flaky-out-anywhere', '--flaky-policy', policyPath]
    const failed = await flakeproofJest(['--flaky-proof', '--flaky-update-policy', ...fresh])
    expect(failed.code).toBe(1)
    expect(readArtifact(join(dir, 'fresh/proof.json'), ProofFileSchema)).toMatchObject({ passed: false, failures: 2, required: 11 })
    expect(readArtifact(policyPath, CommittedPolicySchema).tests[FRAGILE]?.quarantine).not.toBeNull()

    // Fixed: 11 of 11 copies pass, the proof passes, and the test leaves quarantine.
    const passed = await flakeproofJest(['--flaky-proof', '--flaky-update-policy', ...fresh], { FIXTURE_FIXED: '1' })
    expect(passed.code).toBe(0)
    expect(passed.stderr).toContain(`${FRAGILE}: proof passed, out of quarantine in ${policyPath}`)
    expect(readArtifact(policyPath, CommittedPolicySchema).tests[FRAGILE]?.quarantine).toBeNull()
  }, 240_000)
})

describe('--flaky-budget', () => {
  it('times a calibration run of 3 copies, then measures with the repetitions the budget holds, in one process', async () => {
    const dir = tempDir()
    const result = await flakeproofJest(['--flaky-budget', '2s', '--flaky-out', dir, '--flaky-out-anywhere'])
    expect(result.stderr).toContain('flakeproof budget 2 s: timing 3 runs of the selection first')
    const planned = /flakeproof one run of 3 test\(s\) takes .*repeating (\d+) times/.exec(result.stderr)
    expect(planned).not.toBeNull()
    // The measurement after the calibration, with as many repetitions as the plan said. How many
    // depends on the machine's speed (55 here idle, 3 under a load of 17), so the files are told from
    // the calibration's by what each run printed, in order: the calibration shows no verdicts.
    const rate = readArtifact(join(dir, 'rate.json'), RateFileSchema)
    expect(rate.trials).toBe(Number(planned?.[1]))
    const at = (text: string): number => result.stderr.indexOf(text)
    expect(at('flakeproof calibration: 3 test(s), 3 runs each')).toBeGreaterThan(-1)
    expect(at(planned?.[0] ?? '')).toBeGreaterThan(at('flakeproof calibration: 3 test(s), 3 runs each'))
    expect(at(`flakeproof 3 test(s), files in ${dir}`)).toBeGreaterThan(at(planned?.[0] ?? ''))
  }, 240_000)
})

describe('history from everyday runs (the reporter in the config, no repetitions)', () => {
  it('records each plain run, one record per run', async () => {
    // Into a folder of the test's, not the fixture's .flakeproof: a run of the suite leaves the checkout as it was.
    const out = tempDir()
    const run = await runNodeIn(FIXTURE, [JEST, '--config', 'jest.reporter.config.js'], { FLAKEPROOF_OUT: out })
    // Calls 1 of each counter pass: the plain run is green.
    expect(run.code).toBe(0)
    expect(existsSync(join(FIXTURE, '.flakeproof')), 'the fixture got a .flakeproof of its own').toBe(false)
    // One file per run (the enforced runs below make two).
    const after = readdirSync(join(out, 'history'))
    expect(after).toHaveLength(1)
    const last = after.sort().at(-1) as string
    const lines = readFileSync(join(out, 'history', last), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { test_id: string; outcome: string })
    expect(lines.map((t) => [t.test_id, t.outcome]).sort()).toEqual([
      [FLAKY, 'passed'],
      [FRAGILE, 'passed'],
      ['tests/ci.test.js > steady', 'passed'],
    ])
  }, 120_000)
})

describe('--flaky-enforce', () => {
  it('retries each listed test up to its budget, quarantines one failing beyond it, keeps its failures from failing the run, and goes into history', async () => {
    const dir = tempDir()
    const policyPath = join(dir, 'flakeproof.policy.json')
    const out = ['--flaky-out', join(dir, 'out'), '--flaky-out-anywhere']
    const enforce = ['--flaky-enforce', '--flaky-policy', policyPath, ...out]
    expect((await flakeproofJest(['--flaky-repeat', '100', ...out])).code).toBe(0)
    expect((await runCli(['policy', '--from', join(dir, 'out/rate.json'), '--write', policyPath])).code).toBe(0)
    // 20/100 → retry 2 (0.2³ = 0.008 ≤ 0.01 < 0.2² = 0.04); 25/100 → retry 3 (0.25⁴ = 0.0039 ≤ 0.01 < 0.25³ = 0.0156).
    expect(readArtifact(policyPath, CommittedPolicySchema).tests[FRAGILE]).toMatchObject({ retry_budget: 3, quarantine_after: 1, quarantine: null })

    // `flaky` starts at its failing fifth call and passes on its retry; `fragile` fails all 1 + 3 attempts.
    const broke = await flakeproofJest([...enforce, '--flaky-update-policy'], { FIXTURE_FLAKY_START: '4', FIXTURE_BREAK: '1' })
    expect(broke.code).toBe(1)
    expect(broke.stdout).toContain(`↻ ${FLAKY}  passed after 1 of its 2 retries`)
    expect(broke.stdout).toContain(`✗ ${FRAGILE}  failed beyond its retry budget of 3 (1 consecutive run(s))`)
    expect(broke.stdout).toContain(`! ${FRAGILE}  quarantined in ${policyPath}`)
    // Jest counts each test once: the attempts a retry replaced leave its results, as its own retries do.
    expect(broke.stderr).toContain('Tests:       1 failed, 2 passed, 3 total')
    expect(readArtifact(policyPath, CommittedPolicySchema).tests[FRAGILE]).toMatchObject({ failed_runs: 1, quarantine: { evidence: ['FRAGILE_BROKEN: the cache never warmed'] } })

    // Quarantined: it runs, fails, is reported with its evidence and a warning at its line, and the run passes.
    const summary = join(dir, 'step-summary.md')
    const enforced = await flakeproofJest(enforce, { FIXTURE_BREAK: '1', GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary, GITHUB_WORKSPACE: FIXTURE })
    expect(enforced.code).toBe(0)
    expect(enforced.stdout).toContain(`◌ ${FRAGILE}  failed: FRAGILE_BROKEN: the cache never warmed`)
    expect(enforced.stdout).toContain('::warning file=tests/ci.test.js,line=13,title=flakeproof%3A quarantined test failed fragile%3A fails every fourth call::')
    expect(readFileSync(summary, 'utf8')).toContain('**1 quarantined** (1 failed this run without failing it)')
    // Both enforced runs are everyday runs in history; the quarantined failure counts as a failure.
    const history = readdirSync(join(dir, 'out/history')).sort()
    expect(history).toHaveLength(2)
    const last = readFileSync(join(dir, 'out/history', history.at(-1) as string), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { test_id: string; outcome: string; retries: number })
    expect(last.find((t) => t.test_id === FRAGILE)).toMatchObject({ outcome: 'failed', retries: 3 })
  }, 300_000)

  it('refuses a missing policy before any test runs', async () => {
    const result = await flakeproofJest(['--flaky-enforce', '--flaky-policy', join(tempDir(), 'none.json')])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--flaky-enforce: no committed policy at')
    expect(result.stderr).not.toContain('PASS')
  }, 60_000)
})
