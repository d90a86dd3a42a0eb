import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CommittedPolicySchema } from '../../src/artifacts/committed-policy-schema.js'
import { ProofFileSchema } from '../../src/artifacts/schemas.js'
import { rateFile } from '../rate-file.js'
import { readArtifact, ROOT, runCli, runFlakeproofVitest, runVitest, tempDir } from '../utils.js'

const FIXTURE = join(ROOT, 'test/fixtures/vitest-ci')
const FLAKY = 'tests/ci.test.ts > flaky: fails every fifth call'
const FRAGILE = 'tests/ci.test.ts > fragile: fails every fourth call'

/**
 * The CI life of a committed policy on a fixture whose failures come from counters: measured, written,
 * enforced (a flaky test passes within its budget, a test failing beyond it is quarantined, a
 * quarantined failure does not fail the run, an unlisted failure does), then proven and released.
 */
describe('a committed policy in CI', () => {
  it('is written from a measurement, enforced, quarantines, and is cleared by a proof', async () => {
    const dir = tempDir()
    const policyPath = join(dir, 'flakeproof.policy.json')
    const policy = ['--flaky-policy', policyPath]
    const out = ['--flaky-out', join(dir, 'out'), '--flaky-out-anywhere']
    const vitest = (args: string[], env: Record<string, string> = {}) => runVitest(['run', '--', ...args], env, FIXTURE)

    const measured = await vitest(['--flaky-repeat', '100', ...out])
    expect(measured.code).toBe(0)
    const written = await runCli(['policy', '--from', join(dir, 'out/rate.json'), '--write', policyPath])
    expect(written.code).toBe(0)
    expect(JSON.parse(written.stdout)).toMatchObject({ added: [FRAGILE, FLAKY], tests: 2 })
    const first = readArtifact(policyPath, CommittedPolicySchema)
    // 20/100 → retry 2 (0.2³ = 0.008 ≤ 0.01 < 0.2² = 0.04); 25/100 → retry 3 (0.25⁴ = 0.0039 ≤ 0.01 < 0.25³ = 0.0156);
    // green runs: 0.8¹⁴ = 0.044 ≤ 0.05 < 0.8¹³; 0.75¹¹ = 0.042 ≤ 0.05 < 0.75¹⁰ = 0.056. Steady and unlisted never failed: not listed.
    expect(Object.keys(first.tests)).toEqual([FLAKY, FRAGILE])
    expect(first.tests[FLAKY]).toMatchObject({ trials: 100, failures: 20, retry_budget: 2, quarantine_after: 1, green_runs_required: 14, quarantine: null })
    expect(first.tests[FRAGILE]).toMatchObject({ trials: 100, failures: 25, retry_budget: 3, quarantine_after: 1, green_runs_required: 11, quarantine: null })
    // Each entry keeps the conditions of its measurement; a proof under less is weaker (test/e2e/proof-strength.test.ts).
    expect(first.tests[FRAGILE]?.measured_under).toMatchObject({ repeat: 100, workers: 1, concurrent_runs: 1, pool: 'forks', isolate: true, load_source: expect.any(String) })
    // This test is about the policy's life, not the machine's load: on a shared machine the load per
    // CPU of the measurement and of the proofs below differ by more than the 0.5 a proof may lack.
    // Without it (as in entries written before it was recorded), the load is not compared.
    const unloaded = Object.fromEntries(Object.entries(first.tests).map(([id, e]) => [id, { ...e, measured_under: { ...e.measured_under, load_per_cpu: null } }]))
    writeFileSync(policyPath, `${JSON.stringify({ ...first, tests: unloaded }, null, 2)}\n`)

    // The fragile test now fails every attempt: beyond its budget of 3, so the run fails and, on the
    // first such run (quarantine_after 1), it is quarantined with its error as evidence.
    const dayBefore = new Date().toISOString().slice(0, 10)
    const broke = await vitest(['--flaky-enforce', '--flaky-update-policy', ...policy, ...out], { FIXTURE_BREAK: '1' })
    // The day the run quarantined it: the day it began, or the next if it ran past midnight (UTC).
    const since = [dayBefore, new Date().toISOString().slice(0, 10)]
    expect(broke.code).toBe(1)
    expect(broke.stdout).toContain(`↻ ${FLAKY}  passed after 1 of its 2 retries`)
    expect(broke.stdout).toContain(`✗ ${FRAGILE}  failed beyond its retry budget of 3 (1 consecutive run(s))`)
    expect(broke.stdout).toContain(`! ${FRAGILE}  quarantined in ${policyPath}`)
    const quarantined = readArtifact(policyPath, CommittedPolicySchema).tests[FRAGILE]
    expect(quarantined).toMatchObject({ failed_runs: 1, quarantine: { evidence: ['FRAGILE_BROKEN: the cache never warmed'] } })
    expect(since).toContain(quarantined?.quarantine?.since)

    // Quarantined: it runs, fails, is reported with its evidence, and the run passes.
    const before = readFileSync(policyPath, 'utf8')
    // Under GitHub Actions it is also in the step summary and gets a warning at its line.
    const summary = join(dir, 'step-summary.md')
    const github = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary, GITHUB_WORKSPACE: FIXTURE }
    const enforced = await vitest(['--flaky-enforce', ...policy, ...out], { FIXTURE_BREAK: '1', ...github })
    expect(enforced.code).toBe(0)
    expect(enforced.stdout).toContain('quarantined (ran and reported; cannot fail the run):')
    expect(enforced.stdout).toContain(`◌ ${FRAGILE}  failed: FRAGILE_BROKEN: the cache never warmed`)
    expect(enforced.stdout).toContain('evidence: FRAGILE_BROKEN: the cache never warmed')
    expect(enforced.stdout).toContain('::warning file=tests/ci.test.ts,line=15,title=flakeproof%3A quarantined test failed fragile%3A fails every fourth call::')
    const summaryText = readFileSync(summary, 'utf8')
    expect(summaryText).toContain('**1 quarantined** (1 failed this run without failing it), **0 failed beyond their retry budget**')
    expect(summaryText).toContain(`| \`${FRAGILE}\` | failed | ${quarantined?.quarantine?.since} | failed beyond its retry budget of 3 in 1 consecutive enforced run(s)`)
    // Without --flaky-update-policy the file is left as it was.
    expect(readFileSync(policyPath, 'utf8')).toBe(before)
    // Enforced runs are everyday runs: each went into history, the quarantined failure as a failure.
    const history = readdirSync(join(dir, 'out/history')).sort()
    expect(history).toHaveLength(2)
    const lastRun = readFileSync(join(dir, 'out/history', history[1] as string), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { test_id: string; outcome: string })
    expect(lastRun.find((r) => r.test_id === FRAGILE)?.outcome).toBe('failed')
    expect(lastRun.find((r) => r.test_id === FLAKY)?.outcome).toBe('flaky')

    // A test the policy does not list fails the run as always, through the wrapper too; a blanket
    // `--retry 3` gives it no second try (call 2 never happens), and listed tests keep their budget.
    const unlisted = await runFlakeproofVitest(['--flaky-enforce', ...policy, ...out, '--retry', '3'], { FIXTURE_UNLISTED_FAIL: '1' }, FIXTURE)
    expect(unlisted.code).toBe(1)
    expect(unlisted.stdout + unlisted.stderr).toContain('UNLISTED_BUG: a new failure (call 1)')
    expect(unlisted.stdout + unlisted.stderr).not.toContain('(call 2)')
    expect(unlisted.stdout).toContain(`↻ ${FLAKY}  passed after 1 of its 2 retries`)

    // A proof of the still-fragile test: 11 repetitions, calls 4 and 8 fail, so it stays quarantined.
    const still = await vitest(['--flaky-proof', '--flaky-update-policy', ...policy, ...out])
    expect(still.code).toBe(1)
    expect(readArtifact(join(dir, 'out/proof.json'), ProofFileSchema).tests?.[FRAGILE]).toMatchObject({ required: 11, trials: 11, failures: 2, failure_trials: [4, 8] })
    expect(readArtifact(policyPath, CommittedPolicySchema).tests[FRAGILE]?.quarantine).not.toBeNull()

    // Fixed: 11 green repetitions, and --flaky-update-policy releases it.
    // Two spinning processes keep the proof at least as loaded as the measurement was by the suite's other
    // files running beside it (a proof under less load is weaker and releases nothing: docs/proof-strength.md).
    const fixed = await vitest(['--flaky-proof', '--flaky-update-policy', '--flaky-load-procs', '2', ...policy, ...out], { FIXTURE_FIXED: '1' })
    expect(fixed.code).toBe(0)
    expect(fixed.stdout).toContain(`${FRAGILE}: proof passed, out of quarantine in ${policyPath}`)
    expect(readArtifact(policyPath, CommittedPolicySchema).tests[FRAGILE]).toMatchObject({ failed_runs: 0, quarantine: null })

    // Nothing left to prove: passes with a line saying so, unless a proof is required.
    const nothing = await vitest(['--flaky-proof', ...policy, ...out])
    expect(nothing.code).toBe(0)
    expect(nothing.stdout).toContain(`nothing to prove: no test is quarantined in ${policyPath}`)
    const required = await vitest(['--flaky-proof', '--flaky-proof-required', ...policy, ...out])
    expect(required.code).toBe(1)
    expect(required.stderr).toContain('--flaky-proof-required: nothing to prove')
    // The file reads the same way each time it is written: sorted ids, two-space JSON, a final newline.
    expect(readFileSync(policyPath, 'utf8')).toBe(`${JSON.stringify(readArtifact(policyPath, CommittedPolicySchema), null, 2)}\n`)
  }, 300_000)

  it('refuses to enforce without a policy, before any test runs', async () => {
    const missing = join(tempDir(), 'flakeproof.policy.json')
    const result = await runFlakeproofVitest(['--flaky-enforce', '--flaky-policy', missing], {}, FIXTURE)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`--flaky-enforce: no committed policy at ${missing}`)
    expect(result.stderr).toContain('flakeproof policy --from .flakeproof/rate.json --write flakeproof.policy.json')
  }, 30_000)

  it.each([
    [['--rate', '0.2', '--write', 'flakeproof.policy.json'], '--write needs --from <rate.json> (a Vitest measurement)'],
    [['--from', 'rate.json'], 'pass --out policy.json, --write flakeproof.policy.json, or both'],
  ])('policy %j is refused: %s', async (args, message) => {
    const result = await runCli(['policy', ...args])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(message)
  })

  it('refuses to write the committed policy from a command-mode measurement, which lists no tests', async () => {
    const dir = tempDir()
    const from = join(dir, 'rate.json')
    writeFileSync(from, JSON.stringify(rateFile({ trials: 10, failures: 2, rate: 0.2, ci_low: 0.057, ci_high: 0.51 })))
    const result = await runCli(['policy', '--from', from, '--write', join(dir, 'flakeproof.policy.json')])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('measured a command, not tests; --write lists tests')
  })
})
