import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CommittedPolicySchema } from '../../src/artifacts/committed-policy-schema.js'
import { ConditionsFileSchema } from '../../src/artifacts/conditions-schema.js'
import { HistoryRecordSchema } from '../../src/artifacts/history-schemas.js'
import { PolicyFileSchema, ProofFileSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { TestFactSchema } from '../../src/artifacts/test-schemas.js'
import { BIN, type CliResult, readArtifact, ROOT, runCli, runNodeIn, tempDir } from '../utils.js'

/**
 * The Playwright adapter as a user meets it (docs/playwright.md): the real @playwright/test in
 * Debian's Chromium on test/fixtures/playwright-pages (two projects, `retries: 2` in its config,
 * its own `list` reporter), every count known from the copy and attempt numbers (its README).
 * Each copy of --repeat-each runs in a worker of its own (and Playwright ends a worker at every
 * failure), so workers are what cost: one measured run of 4 copies is shared by every `it` that reads
 * it, the other runs are one project or file, and every describe runs at once (describe.concurrent:
 * no two write the same folder, and nothing here is timed), so the file costs about its measured run
 * and proofs, not the sum of its runs.
 */
const FIXTURE = join(ROOT, 'test/fixtures/playwright-pages')
const PLAYWRIGHT = join(ROOT, 'node_modules/@playwright/test/cli.js')
const RUN_TIMEOUT = 1_200_000
/** Playwright starting, loading the config and refusing: no test runs. */
const START_TIMEOUT = 60_000

const TOTAL = 'tests/cart.spec.js > cart > shows the total'

/**
 * One Chromium for every Playwright run of this file: the fixture's global setup launches one per
 * run unless PAGES_BROWSER names one, and each run's workers connect to it (a context and page per
 * test, so runs at once share no page). Launched by the fixture's own global setup, with its flags.
 */
let browser = ''
let closeBrowser: (() => Promise<void>) | undefined
beforeAll(async () => {
  // The global setup launches a browser only when PAGES_BROWSER names none, and leaves its address there.
  delete process.env.PAGES_BROWSER
  const setup = createRequire(import.meta.url)(join(FIXTURE, 'global-setup.cjs')) as () => Promise<(() => Promise<void>) | undefined>
  closeBrowser = await setup()
  browser = process.env.PAGES_BROWSER ?? ''
}, START_TIMEOUT)
afterAll(() => closeBrowser?.())

/** Playwright's own artifacts (test-results/) go to a temporary folder, never into the fixture; the file's browser. */
const playwrightEnv = () => ({ PLAYWRIGHT_OUTPUT_DIR: tempDir(), PAGES_BROWSER: browser })
const flakeproofPlaywright = (args: string[], env: Record<string, string> = {}): Promise<CliResult> => runNodeIn(FIXTURE, [BIN, 'playwright', ...args], { ...playwrightEnv(), ...env })
const countsIn = (out: string): Record<string, unknown> =>
  Object.fromEntries((readArtifact(join(out, 'rate.json'), RateFileSchema).tests ?? []).map((t) => [t.id, [t.trials, t.failures, t.verdict]]))
/**
 * The measured run, started by the first that asks. Runs of tests/cart.spec.js elsewhere in the file
 * wait for it to end: flakeproof counts its runs of the same files at once
 * (`measured_under.concurrent_runs`, docs/proof-strength.md), and the measurement's must not depend
 * on what else this file runs; runs of checkout.spec.js alone go beside it.
 */
const MEASURED = { out: tempDir(), state: tempDir(), summary: join(tempDir(), 'summary.md') }
let measuring: Promise<CliResult> | undefined
const measurement = (): Promise<CliResult> => {
  // Under GitHub Actions, as CI runs it: annotations at each test's line, and the step summary.
  const github = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: MEASURED.summary, GITHUB_WORKSPACE: ROOT }
  measuring ??= flakeproofPlaywright(['--flaky-repeat', '4', '--workers=2', 'tests/cart.spec.js', '--flaky-out', MEASURED.out, '--flaky-out-anywhere'], { FLAKE_STATE: MEASURED.state, ...github })
  return measuring
}
const factsOf = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => TestFactSchema.parse(JSON.parse(line)))
/** Each failed execution on a line, with the first line of its error: what a wrong count says, so a failure on a loaded CI machine shows its cause. */
const failuresIn = (path: string): string =>
  factsOf(path)
    .filter((f) => f.outcome !== 'passed')
    .map((f) => `${f.test_id} #${f.trial}: ${f.error?.split('\n')[0]}`)
    .join('\n')

describe.concurrent('npx flakeproof playwright --flaky-repeat 4 (two projects, retries in the config, the user’s reporter kept)', () => {
  const { out, state, summary } = MEASURED
  let measured: CliResult

  beforeAll(async () => {
    measured = await measurement()
  }, RUN_TIMEOUT)

  it('counts every copy exactly, each test apart per project', () => {
    // Desktop's copies 1 and 3 (0-based) render late: 2 of 4; mobile's never do, the same title apart by project.
    // The retry test fails every first attempt; mobile's worker exits every copy.
    // Four copies, not more: every copy costs Playwright a worker and one more per failure (the file's
    // largest cost), and four give desktop's `shows the total` two copies of each outcome.
    expect(countsIn(out), failuresIn(join(out, 'facts.jsonl'))).toEqual({
      [`[desktop] ${TOTAL}`]: [4, 2, 'flaky'],
      [`[mobile] ${TOTAL}`]: [4, 0, 'stable'],
      '[desktop] tests/cart.spec.js > cart > adds an item': [4, 0, 'stable'],
      '[mobile] tests/cart.spec.js > cart > adds an item': [4, 0, 'stable'],
      '[desktop] tests/cart.spec.js > cart > passes on retry': [4, 4, 'broken'],
      '[mobile] tests/cart.spec.js > cart > passes on retry': [4, 4, 'broken'],
      '[desktop] tests/cart.spec.js > cart > keeps the browser': [4, 0, 'stable'],
      '[mobile] tests/cart.spec.js > cart > keeps the browser': [4, 4, 'broken'],
    })
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    // Wilson 95% for 2/4 (z = 1.959964): centre (0.5 + z²/8) / (1 + z²/4) = 0.5, half-width
    // z / (1 + z²/4) · √(0.25/4 + z²/64) = 0.999796 · 0.350033 = 0.349961 → [0.150039, 0.849961].
    expect(rate.tests?.find((t) => t.id === `[desktop] ${TOTAL}`)?.ci_low).toBeCloseTo(0.150039, 5)
    expect(rate).toMatchObject({ complete: true, runner: { name: 'playwright', version: '1.65.1' } })
  })

  it('annotates each flaky and broken test at its line under GitHub Actions, and appends the step summary', () => {
    const annotations = (measured.stdout + measured.stderr).split('\n').filter((line) => /^::(warning|error) .*title=flakeproof/.test(line))
    // Lines of tests/cart.spec.js: `keeps the browser` 20, `shows the total` 28, `passes on retry` 36; one annotation per project
    // where it failed.
    const file = 'test/fixtures/playwright-pages/tests/cart.spec.js'
    expect(annotations.map((line) => line.split('::')[1]).sort()).toEqual([
      `error file=${file},line=20,title=flakeproof%3A broken test cart > keeps the browser`,
      `error file=${file},line=36,title=flakeproof%3A broken test cart > passes on retry`,
      `error file=${file},line=36,title=flakeproof%3A broken test cart > passes on retry`,
      `warning file=${file},line=28,title=flakeproof%3A flaky test cart > shows the total`,
    ])
    // 2/4: Wilson 95% [15.0%, 85.0%] (above); 5 green runs required (0.5⁵ ≤ 0.05, below).
    expect(annotations).toContainEqual(expect.stringContaining(`::[desktop] ${TOTAL} failed 2 of 4 times (rate 50.0%25, interval 15.0%25 – 85.0%25). A fix must pass 5 runs in a row.`))
    const text = readFileSync(summary, 'utf8')
    expect(text).toContain('**1 flaky, 3 broken** of 8 tests, 4 rounds')
    expect(text).toContain(`| \`[desktop] ${TOTAL}\` | 2 of 4 | 50.0% | 15.0% – 85.0% | flaky | 5 |`)
  })

  it('turns the configured retries off while measuring: no test was retried', () => {
    // `passes on retry` leaves a file when retried (retries: 2 in the config would have retried all 8 failures).
    expect(readdirSync(state)).toEqual([])
  })

  it('fails the run: a test that failed every copy is no flake to be advisory about', () => {
    expect(measured.code).toBe(1)
    expect(measured.stderr).toContain(`FLAKY   2 of 4  [15.0%, 85.0%]   fix: 5 green runs`)
    expect(measured.stderr).toContain(`[desktop] ${TOTAL}`)
    // Playwright's own reporter printed its own lines too.
    // 4 tests × 2 projects × 4 copies.
    expect(measured.stdout).toContain('Running 32 tests using 2 workers')
  })

  it('writes one fact per copy with Playwright’s error and where it was thrown; a worker that exited is the failure of the test it cut', () => {
    const facts = factsOf(join(out, 'facts.jsonl'))
    expect(facts).toHaveLength(32)
    const total = facts.filter((f) => f.test_id === `[desktop] ${TOTAL}`)
    expect(total.filter((f) => f.outcome === 'failed').map((f) => f.trial)).toEqual([2, 4])
    expect(total[1]?.error).toContain('toHaveText')
    expect(total[1]?.error).toContain('at tests/cart.spec.js:31:42')
    // Every failure of the copies is the same way of failing: one signature, naming the test's own file.
    const signatures = new Set(total.filter((f) => f.outcome === 'failed').map((f) => f.signature))
    expect(signatures.size).toBe(1)
    expect([...signatures][0]).toContain('tests/cart.spec.js')
    // Playwright's trace and screenshot of a failed copy (trace: 'retain-on-failure' in the config), linked from report.html.
    expect(total[1]?.attachments?.map((a) => a.name)).toEqual(expect.arrayContaining(['trace', 'screenshot']))
    const trace = total[1]?.attachments?.find((a) => a.name === 'trace')?.path as string
    expect(existsSync(trace)).toBe(true)
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain(`href="${relative(out, trace).split('/').map(encodeURIComponent).join('/')}"`)
    const crashed = facts.filter((f) => f.test_id === '[mobile] tests/cart.spec.js > cart > keeps the browser')
    expect(crashed.every((f) => f.outcome === 'failed' && f.error?.startsWith('Error: worker process exited unexpectedly (code=1'))).toBe(true)
  })

  it('proves the fixed version and fails the unfixed one: the policy’s tests by exact title and project, their required times', async () => {
    const required = readArtifact(join(out, 'policy.json'), PolicyFileSchema).tests?.[`[desktop] ${TOTAL}`]?.green_runs_required
    // 2/4, planned from the observed rate 0.5: 0.5⁵ = 0.031 ≤ 0.05 < 0.5⁴ = 0.0625.
    expect(required).toBe(5)
    // Each proof in a copy of the measurement's folder, both at once: neither reads what the other writes.
    const [unfixedOut, fixedOut] = [tempDir(), tempDir()]
    for (const dir of [unfixedOut, fixedOut]) cpSync(out, dir, { recursive: true })
    const [unfixed, fixed] = await Promise.all([
      flakeproofPlaywright(['--flaky-proof', '--workers=2', '--flaky-out', unfixedOut, '--flaky-out-anywhere']),
      flakeproofPlaywright(['--flaky-proof', '--workers=2', '--flaky-out', fixedOut, '--flaky-out-anywhere'], { CART_FIXED: '1' }),
    ])
    expect(unfixed.code).toBe(1)
    const failedProof = readArtifact(join(unfixedOut, 'proof.json'), ProofFileSchema)
    // Copies 1 and 3 of 5 fail.
    expect(failedProof.tests?.[`[desktop] ${TOTAL}`], failuresIn(join(unfixedOut, 'proof_facts.jsonl'))).toMatchObject({ required: 5, trials: 5, failures: 2, passed: false })
    // Only the flaky test is proven: broken ones are fixed first, and the grep reached no other test, not even the
    // same title in the other project.
    expect(Object.keys(failedProof.tests ?? {})).toEqual([`[desktop] ${TOTAL}`])
    expect(factsOf(join(unfixedOut, 'proof_facts.jsonl')).map((f) => f.test_id)).toEqual(Array(5).fill(`[desktop] ${TOTAL}`))

    expect(fixed.code).toBe(0)
    const proof = readArtifact(join(fixedOut, 'proof.json'), ProofFileSchema)
    expect(proof, failuresIn(join(fixedOut, 'proof_facts.jsonl'))).toMatchObject({ passed: true, complete: true, trials: 5, failures: 0 })
    expect(fixed.stderr).toContain('proof passed')
  }, RUN_TIMEOUT)
})

describe.concurrent('flakeproof/playwright in the config, beside the user’s list reporter', () => {
  it('records an everyday run in history only (a measurement is never replaced by it): a retry as flaky, same-named tests of two files apart', async () => {
    await measurement()
    const out = tempDir()
    const result = await runNodeIn(FIXTURE, [PLAYWRIGHT, 'test', '-c', 'playwright.reporter.config.cjs', '--project=desktop'], { ...playwrightEnv(), FLAKEPROOF_OUT: out })
    // Playwright decides: `passes on retry` passed on its retry (flaky), so the run passes.
    expect(result.code).toBe(0)
    // An everyday run keeps the measurement's files as they are (docs/contracts.md §11): it writes none.
    expect(existsSync(join(out, 'rate.json'))).toBe(false)
    const [file] = readdirSync(join(out, 'history'))
    const records = readFileSync(join(out, 'history', file as string), 'utf8').trim().split('\n').map((line) => HistoryRecordSchema.parse(JSON.parse(line)))
    expect(records.find((r) => r.test_id === '[desktop] tests/cart.spec.js > cart > passes on retry')).toMatchObject({ outcome: 'flaky', retries: 1, signature: expect.stringContaining('tests/cart.spec.js') })
    // Playwright's list reporter printed each failure's error.
    expect(records.filter((r) => r.outcome === 'passed'), result.stdout).toHaveLength(4)
  }, RUN_TIMEOUT)

  it('refuses to measure from the config, where it cannot make Playwright repeat', async () => {
    const result = await runNodeIn(FIXTURE, [PLAYWRIGHT, 'test', '-c', 'playwright.reporter.config.cjs', '--list'], { ...playwrightEnv(), FLAKEPROOF_REPEAT: '20' })
    expect(result.code).toBe(1)
    // One line, no stack: Playwright prints a reporter's error whole.
    expect(result.stdout + result.stderr).toContain('flakeproof: a reporter cannot make Playwright repeat or prove tests; run `npx flakeproof playwright --flaky-repeat 20`')
    expect(result.stdout + result.stderr).not.toMatch(/^\s+at /m)
  }, START_TIMEOUT)
})

describe.concurrent('flakeproof playwright --flaky-enforce', () => {
  it('gives each test its budget as its retries and none to the rest; a quarantined failure does not fail the run', async () => {
    await measurement()
    const mobile = (name: string) => `[mobile] tests/cart.spec.js > cart > ${name}`
    const entry = (name: string, retry: number | null, quarantined: boolean) => ({
      project: 'mobile',
      file: 'tests/cart.spec.js',
      name: `cart > ${name}`,
      trials: 20,
      failures: 20,
      rate: 1,
      ci_low: 0.838875,
      ci_high: 1,
      verdict: 'broken',
      retry_budget: retry,
      quarantine_after: null,
      green_runs_required: 2,
      failed_runs: 0,
      quarantine: quarantined ? { since: '2026-01-05', reason: 'its worker exits', evidence: ['Error: worker process exited unexpectedly'] } : null,
    })
    /** Each policy in a folder of its own, with its own output folder: the two enforced runs go at once. */
    const enforce = (tests: Record<string, unknown>) => {
      const dir = tempDir()
      const policyPath = join(dir, 'flakeproof.policy.json')
      writeFileSync(policyPath, JSON.stringify({ schema_version: 1, confidence: 0.95, tests }))
      readArtifact(policyPath, CommittedPolicySchema)
      return flakeproofPlaywright(['--flaky-enforce', '--flaky-policy', policyPath, '--project=mobile', 'tests/cart.spec.js', '--flaky-out', join(dir, 'out'), '--flaky-out-anywhere'])
    }

    const [within, unlisted] = await Promise.all([
      enforce({ [mobile('keeps the browser')]: entry('keeps the browser', 0, true), [mobile('passes on retry')]: entry('passes on retry', 1, false) }),
      // Unlisted, `passes on retry` gets no retry: the configured `retries: 2` does not hide its failure.
      enforce({ [mobile('keeps the browser')]: entry('keeps the browser', 0, true) }),
    ])
    expect(within.stderr).toContain(`↻ ${mobile('passes on retry')}  passed after 1 of its 1 retries`)
    expect(within.stderr).toContain(mobile('keeps the browser'))
    expect(within.code).toBe(0)
    expect(unlisted.code).toBe(1)
  }, RUN_TIMEOUT)

  it('refuses a missing committed policy before any test runs', async () => {
    const result = await flakeproofPlaywright(['--flaky-enforce', '--flaky-policy', join(tempDir(), 'none.json'), '--list'])
    expect(result.code).not.toBe(0)
    expect(result.stdout + result.stderr).toContain('flakeproof: --flaky-enforce: no committed policy at')
    expect(result.stdout + result.stderr).not.toMatch(/^\s+at /m)
  }, START_TIMEOUT)
})

describe.concurrent('flakeproof playwright --flaky-rounds with --flaky-divergence and --flaky-load', () => {
  it('runs whole Playwright runs under each condition and compares them in conditions.json', async () => {
    const out = tempDir()
    const result = await flakeproofPlaywright(['--flaky-repeat', '1', '--flaky-rounds', '1', '--flaky-divergence', '--flaky-load', '--flaky-load-procs', '1', '--project=desktop', 'tests/checkout.spec.js', '--flaky-out', out, '--flaky-out-anywhere'])
    expect(result.code).toBe(0)
    // The config has one worker: serial rounds are no different, and the run says so.
    expect(result.stderr).toContain('--flaky-divergence: Playwright runs on one worker here already')
    // 1 round of each of base, serial and load, 1 copy each: 3 executions of the one test.
    expect(countsIn(out)).toEqual({ '[desktop] tests/checkout.spec.js > cart > adds an item': [3, 0, 'stable'] })
    const conditions = readArtifact(join(out, 'conditions.json'), ConditionsFileSchema)
    expect(conditions.rounds.map((r) => r.condition)).toEqual(['base', 'serial', 'load'])
    expect(existsSync(join(out, 'policy.json'))).toBe(true)
  }, RUN_TIMEOUT)

  it('fits --flaky-budget: three timed calibration copies, then as many copies as the budget holds', async () => {
    const out = tempDir()
    const result = await flakeproofPlaywright(['--flaky-budget', '1ms', 'tests/checkout.spec.js', '--flaky-out', out, '--flaky-out-anywhere'])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('timing 3 runs of the selection first')
    // Two tests (one per project), each far over 1 ms: round(1 ms / one run) = 0, raised to the floor of 2 (src/core/time-budget.ts).
    // Both projects, not one: a single test gets at least 100 copies (BUDGET_MIN_REPEAT), 100 Playwright workers.
    expect(result.stderr).toContain('so the budget forces fewer: repeating 2 times')
    expect(countsIn(out)).toEqual({ '[desktop] tests/checkout.spec.js > cart > adds an item': [2, 0, 'stable'], '[mobile] tests/checkout.spec.js > cart > adds an item': [2, 0, 'stable'] })
  }, RUN_TIMEOUT)

  it('refuses --flaky-observe with why, and flags Playwright sets itself', async () => {
    const observe = await runCli(['playwright', '--flaky-repeat', '5', '--flaky-observe'], { cwd: FIXTURE })
    expect(observe.code).toBe(2)
    expect(observe.stderr).toContain('every copy of --repeat-each runs in a worker of its own')
    const own = await runCli(['playwright', '--flaky-repeat', '5', '--retries=1'], { cwd: FIXTURE })
    expect(own.code).toBe(2)
    expect(own.stderr).toContain('--retries: flakeproof playwright sets it itself while measuring or proving; leave it out')
  }, START_TIMEOUT)

  it.each([
    [['--flaky-out', '../elsewhere'], `outDir (--flaky-out) "../elsewhere" resolves to ${join(FIXTURE, '..', 'elsewhere')}, outside the project root ${FIXTURE}`],
    [['--flaky-junit', '../x.xml'], `junit (--flaky-junit) "../x.xml" resolves to ${join(FIXTURE, '..', 'x.xml')}, outside the project root ${FIXTURE}`],
    // The config's folder is the root wherever Playwright is started from.
    [['-c', 'playwright-pages/playwright.config.cjs', '--flaky-out', '../elsewhere'], `outDir (--flaky-out) "../elsewhere" resolves to ${join(FIXTURE, '..', 'elsewhere')}, outside the project root ${FIXTURE}`],
  ])('refuses %j, outside the project (the config’s folder), before Playwright starts', async (args, message) => {
    const cwd = args[0] === '-c' ? join(FIXTURE, '..') : FIXTURE
    const result = await runNodeIn(cwd, [BIN, 'playwright', '--flaky-repeat', '5', ...args], playwrightEnv())
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`flakeproof playwright: ${message}`)
    // Playwright never started: not one test of the 30 was reported.
    expect(result.stdout + result.stderr).not.toContain('Running')
    expect(readdirSync(join(FIXTURE, '..')).filter((name) => name === 'elsewhere' || name === 'x.xml')).toEqual([])
  }, START_TIMEOUT)
})
