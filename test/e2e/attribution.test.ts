import { cpSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { AttributionFileSchema } from '../../src/artifacts/attribution-schema.js'
import { HistoryRecordSchema } from '../../src/artifacts/history-schemas.js'
import { project } from '../projects.js'
import { type CliResult, readArtifact, ROOT, runNodeIn, runVitest, tempDir, BIN } from '../utils.js'

/**
 * test/fixtures/vitest-attribution: 30 everyday runs on main, recorded by flakeproof/reporter itself
 * (its record.mjs re-records them). The price test failed runs 5, 10, …, 30 (6/30, always
 * `STALE price cache on call <n>` in fetchPrice); the cart test never failed.
 */
const FIXTURE = join(ROOT, 'test/fixtures/vitest-attribution')
const PRICE = 'tests/shop.test.ts > reads the cached price'
const CART = 'tests/shop.test.ts > totals the cart'
const COUPON = 'tests/shop.test.ts > applies the coupon'
const STALE = 'Error: STALE price cache on call <n> @ src/price.ts (fetchPrice)'
const NEW_WAY = 'TypeError: Cannot read properties of undefined (reading <str>) @ src/price.ts (convertCurrency)'

/** A copy of the recorded history as the output folder of a red run, on a pull request against main. */
function redRun(env: Record<string, string>): { out: string; summary: string; run: Promise<CliResult> } {
  const dir = tempDir()
  const out = join(dir, 'out')
  cpSync(join(FIXTURE, 'recorded/history'), join(out, 'history'), { recursive: true })
  const summary = join(dir, 'summary.md')
  const github = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary, GITHUB_WORKSPACE: FIXTURE, GITHUB_BASE_REF: 'main', GITHUB_HEAD_REF: 'feature', GITHUB_SHA: 'feed'.padEnd(40, '0') }
  return { out, summary, run: runVitest(['run'], { FIXTURE_OUT: out, FIXTURE_STATE: join(dir, 'state'), ...github, ...env }, FIXTURE) }
}

describe('attribution of a red run against 30 recorded everyday runs', () => {
  // The fifth price run fails the known way; the cart total is broken by the change; a new test fails.
  const red = redRun({ FIXTURE_RUN: '35', FIXTURE_BROKEN_TOTAL: '1', FIXTURE_NEW_TEST: '1' })
  // The known flake failing another way, in another function.
  const newWay = redRun({ FIXTURE_RUN: '1', FIXTURE_NEW_WAY: '1' })
  let result: CliResult
  let newWayResult: CliResult

  beforeAll(async () => {
    ;[result, newWayResult] = await Promise.all([red.run, newWay.run])
  }, 240_000)

  it('calls the known flake known-flake, the never-failing test new-failure and the new test no-history, in attribution.json', () => {
    expect(result.code, result.stderr).toBe(1)
    const file = readArtifact(join(red.out, 'attribution.json'), AttributionFileSchema)
    expect(file.base).toEqual({ branch: 'main', from: 'GITHUB_BASE_REF' })
    expect(file.current_branch).toBe('feature')
    expect(file.history_runs).toBe(30)
    expect(Object.keys(file.tests).sort()).toEqual([COUPON, PRICE, CART].sort())
    // Wilson 95% for 6/30, by hand (docs/contracts.md §2): center 0.23406, half 0.13901: [0.09505, 0.37306]; Jeffreys 6.5/31.
    expect(file.tests[PRICE]).toMatchObject({ call: 'known-flake', basis: 'history', branch: 'main', runs: 30, failures: 6, signature: STALE, signature_seen: true, unseen_share: 0 })
    expect(file.tests[PRICE]?.ci_low).toBeCloseTo(0.09505, 4)
    expect(file.tests[PRICE]?.ci_high).toBeCloseTo(0.37306, 4)
    expect(file.tests[PRICE]?.predictive).toBeCloseTo(6.5 / 31, 12)
    expect(file.tests[PRICE]?.signatures).toEqual([{ signature: STALE, count: 6, first_commit: '0005c0ffee'.padEnd(40, '0'), last_commit: '0030c0ffee'.padEnd(40, '0') }])
    // 0/30: Jeffreys 0.5/31 = 1.6% < 5%; Wilson upper end 3.8416/33.8416 = 11.4%.
    expect(file.tests[CART]).toMatchObject({ call: 'new-failure', runs: 30, failures: 0 })
    expect(file.tests[CART]?.predictive).toBeCloseTo(0.5 / 31, 12)
    expect(file.tests[CART]?.ci_high).toBeCloseTo(3.8416 / 33.8416, 4)
    // Never in history: 10 passing runs would tell (0.5/11 < 5%).
    expect(file.tests[COUPON]).toMatchObject({ call: 'no-history', basis: 'none', runs: 0, runs_to_tell: 10 })
  })

  it('prints one line per failed test after the summary, with the numbers behind each call', () => {
    expect(result.stdout).toContain('whose failure is it: 3 failed test(s) against 30 past run(s), base branch main (GITHUB_BASE_REF)')
    expect(result.stdout).toContain(`  known-flake   ${PRICE}: known flake: 6/30 on main [9.5%, 37.3%], same signature \`${STALE}\``)
    expect(result.stdout).toContain(`  new-failure   ${CART}: new failure: 0/30 on main [0.0%, 11.4%]; a failure had a 1.6% chance ((0 + ½)/(30 + 1)), below 5.0%`)
    expect(result.stdout).toContain(`  no-history    ${COUPON}: no history to tell: no past run; 10 passing runs would tell`)
    // After Vitest's own summary.
    expect(result.stdout.indexOf('whose failure is it')).toBeGreaterThan(result.stdout.indexOf('Test Files'))
  })

  it('adds a column to the step summary and says it in the annotations', () => {
    const summary = readFileSync(red.summary, 'utf8')
    // One run measures no rate: no counts or verdicts, whose failure each failed test is.
    expect(summary).toContain('**3 failed** of 3 tests in one everyday run; whose failure each is, against 30 past run(s)')
    expect(summary).toContain('| Test | Whose failure |')
    expect(summary).toContain(`| \`${PRICE}\` | known-flake: 6/30 on main |`)
    expect(summary).toContain(`| \`${CART}\` | new-failure: 0/30 on main, 1.6% |`)
    expect(summary).not.toContain('broken')
    // `%` is escaped as %25 in a workflow command's message (docs/contracts.md §8).
    expect(result.stdout).toContain(`::warning file=tests/shop.test.ts,line=23,title=flakeproof%3A known-flake reads the cached price::${PRICE}: known flake: 6/30 on main [9.5%25, 37.3%25], same signature \`${STALE}\``)
    expect(result.stdout).toMatch(/::error file=tests\/shop\.test\.ts,line=30,title=flakeproof%3A new-failure totals the cart::/)
  })

  it('judges before recording: the red run joins the history afterwards, with its signatures', () => {
    const file = readArtifact(join(red.out, 'attribution.json'), AttributionFileSchema)
    expect(file.history_runs).toBe(30)
    const latest = readFileSync(join(red.out, 'history', readdirSorted(join(red.out, 'history')).at(-1) as string), 'utf8').trim().split('\n').map((l) => HistoryRecordSchema.parse(JSON.parse(l)))
    expect(latest.find((r) => r.test_id === PRICE)).toMatchObject({ outcome: 'failed', branch: 'feature', signature: STALE })
  })

  it('calls the known flake failing a new way new-signature, naming the way history has seen', () => {
    expect(newWayResult.code, newWayResult.stderr).toBe(1)
    const file = readArtifact(join(newWay.out, 'attribution.json'), AttributionFileSchema)
    expect(Object.keys(file.tests)).toEqual([PRICE])
    expect(file.tests[PRICE]).toMatchObject({ call: 'new-signature', runs: 30, failures: 6, signature: NEW_WAY, signature_seen: false })
    expect(newWayResult.stdout).toContain(
      `  new-signature ${PRICE}: known flaky test failing a new way: 6/30 on main [9.5%, 37.3%], never with \`${NEW_WAY}\` before (seen: \`${STALE}\` 6×)`,
    )
    expect(readFileSync(newWay.summary, 'utf8')).toContain(`| \`${PRICE}\` | new-signature: 6/30 on main |`)
  })

  it('flakeproof explain prints the counts by branch and the signatures with their commits', async () => {
    const explained = await runNodeIn(FIXTURE, [BIN, 'explain', 'cached price', '--history', join(newWay.out, 'history/*.jsonl'), '--dir', newWay.out])
    expect(explained.code, explained.stderr).toBe(0)
    // 30 runs on main and the red run on feature: 7 of 31, Wilson 95% [11.4%, 39.8%].
    expect(explained.stderr).toContain('history: failed 7 of 31 everyday runs, 22.6% [11.4%, 39.8%]')
    expect(explained.stderr).toContain('by branch: main 6/30, feature 1/1')
    expect(explained.stderr).toContain(`6×  ${STALE}  (first 0005c0ffee00, last 0030c0ffee00)`)
    expect(explained.stderr).toContain(`1×  ${NEW_WAY}  (first feed00000000, last feed00000000)`)
    // In Vitest's syntax (the history's records say Vitest ran them), through its wrapper: the red run
    // had the reporter alone in its config, where the plugin's flags would do nothing; -t anchored.
    expect(explained.stderr).toContain("next: measure it where it fails, with the signature history shows: npx flakeproof vitest --flaky-repeat 200 tests/shop.test.ts -t '^reads the cached price$'")
    const story = JSON.parse(explained.stdout) as { id: string; signatures: { count: number }[] }
    expect(story.id).toBe(PRICE)
    expect(story.signatures.map((s) => s.count)).toEqual([6, 1])
  })

  it('flakeproof explain lists the matches of an ambiguous part of an id, exit 2', async () => {
    const explained = await runNodeIn(FIXTURE, [BIN, 'explain', 'shop.test', '--history', join(red.out, 'history/*.jsonl'), '--dir', join(red.out, 'none')])
    expect(explained.code).toBe(2)
    expect(explained.stderr).toContain('3 tests match "shop.test"; give more of the id:')
    expect(explained.stderr).toContain(`\n  ${CART}`)
  })

  it('flakeproof report attributes a CI JUnit report, ingested', async () => {
    const dir = tempDir()
    const junit = join(dir, 'junit.xml')
    // The same red run, as CI's JUnit report has it (Vitest's own JUnit reporter; no flakeproof reporter, no history).
    await runVitest(['run', '--reporter=junit', `--outputFile.junit=${junit}`], { FIXTURE_STATE: join(dir, 'state'), FIXTURE_RUN: '35', FIXTURE_BROKEN_TOTAL: '1' }, FIXTURE)
    const ingested = join(dir, 'ingested')
    expect((await runNodeIn(FIXTURE, [BIN, 'ingest', '--junit', junit, '--out-dir', ingested])).code).toBe(0)
    const history = join(FIXTURE, 'recorded/history/*.jsonl')
    const reported = await runNodeIn(FIXTURE, [BIN, 'report', '--dir', ingested, '--history', history, '--base', 'main'])
    expect(reported.code, reported.stderr).toBe(0)
    const file = readArtifact(join(ingested, 'attribution.json'), AttributionFileSchema)
    expect(file.base).toEqual({ branch: 'main', from: '--base' })
    // JUnit's text gives the signature the reporter's error object gave.
    expect(file.tests[PRICE]).toMatchObject({ call: 'known-flake', signature: STALE, runs: 30, failures: 6 })
    expect(file.tests[CART]).toMatchObject({ call: 'new-failure' })
    expect(reported.stderr).toContain(`known-flake   ${PRICE}: known flake: 6/30 on main`)
  }, 120_000)
})

function readdirSorted(dir: string): string[] {
  return readdirSync(dir).sort()
}

describe('attribution of an enforced run against the committed policy (no history yet)', () => {
  // A copy of test/fixtures/vitest-ci: a Vitest run marks its project as running, and
  // test/e2e/vitest-ci-policy.test.ts, which may run beside this file, checks that its own measurement
  // of the fixture met no other run (concurrent_runs 1).
  const FROM = join(ROOT, 'test/fixtures/vitest-ci')
  const CI = project({
    'tests/ci.test.ts': readFileSync(join(FROM, 'tests/ci.test.ts'), 'utf8'),
    'vitest.config.ts': readFileSync(join(FROM, 'vitest.config.ts'), 'utf8'),
  })
  const FRAGILE = 'tests/ci.test.ts > fragile: fails every fourth call'
  const UNLISTED = 'tests/ci.test.ts > unlisted: fails only when told to'

  it('calls a listed test known-flake on its measured rate, and an unlisted one no-history', async () => {
    const dir = tempDir()
    const policyPath = join(dir, 'flakeproof.policy.json')
    const out = ['--flaky-out', join(dir, 'out'), '--flaky-out-anywhere']
    const vitest = (args: string[], env: Record<string, string> = {}) => runVitest(['run', '--', ...args], { GITHUB_HEAD_REF: 'feature', ...env }, CI)
    expect((await vitest(['--flaky-repeat', '100', ...out])).code).toBe(0)
    expect((await runNodeIn(CI, [BIN, 'policy', '--from', join(dir, 'out/rate.json'), '--write', policyPath])).code).toBe(0)
    // Every attempt of the fragile test fails, and a test the policy does not list fails too.
    const enforced = await vitest(['--flaky-enforce', '--flaky-update-policy', '--flaky-policy', policyPath, ...out], { FIXTURE_BREAK: '1', FIXTURE_UNLISTED_FAIL: '1' })
    expect(enforced.code).toBe(1)
    const file = readArtifact(join(dir, 'out/attribution.json'), AttributionFileSchema)
    expect(file.policy).toBe(policyPath)
    // Judged by the policy as it was before the run (this run then quarantined it): 25/100 measured,
    // Wilson 95% [17.5%, 34.3%]; nothing recorded how it failed, so no claim of a new way.
    expect(file.tests[FRAGILE]).toMatchObject({ call: 'known-flake', basis: 'committed-policy', runs: 100, failures: 25, signature_seen: null })
    expect(enforced.stdout).toContain(`known-flake   ${FRAGILE}: known flake: 25/100 in the committed policy [17.5%, 34.3%], no signature in history to compare`)
    expect(file.tests[UNLISTED]).toMatchObject({ call: 'no-history', basis: 'none', runs: 0 })
  }, 180_000)
})

/**
 * test/fixtures/jest-attribution: the same shop as the Vitest fixture, on Jest, with 30 everyday
 * runs on main recorded by flakeproof/jest/reporter itself (its record.mjs re-records them): the
 * price test failed runs 5, 10, …, 30 (6/30, always `STALE price cache on call <n>` in fetchPrice),
 * the cart test never failed. Jest reaches attribution through the same session as Vitest.
 */
describe('attribution of a red Jest run against 30 recorded everyday Jest runs', () => {
  const JEST_FIXTURE = join(ROOT, 'test/fixtures/jest-attribution')
  const JEST = join(ROOT, 'node_modules/jest/bin/jest.js')
  const JEST_PRICE = 'tests/shop.test.js > reads the cached price'
  const JEST_CART = 'tests/shop.test.js > totals the cart'
  const JEST_STALE = 'Error: STALE price cache on call <n> @ src/price.js (fetchPrice)'
  const dir = tempDir()
  const out = join(dir, 'out')
  let result: CliResult

  beforeAll(async () => {
    cpSync(join(JEST_FIXTURE, 'recorded/history'), join(out, 'history'), { recursive: true })
    // The fifth price run fails the known way; the cart total is broken by the change.
    const env = { FIXTURE_OUT: out, FIXTURE_STATE: join(dir, 'state'), FIXTURE_RUN: '35', FIXTURE_BROKEN_TOTAL: '1', GITHUB_BASE_REF: 'main', GITHUB_HEAD_REF: 'feature', GITHUB_SHA: 'feed'.padEnd(40, '0') }
    result = await runNodeIn(JEST_FIXTURE, [JEST, '--ci'], env)
  }, 120_000)

  it('calls the known flake known-flake and the never-failing test new-failure, in attribution.json and one line each', () => {
    expect(result.code, result.stderr).toBe(1)
    const file = readArtifact(join(out, 'attribution.json'), AttributionFileSchema)
    expect(file.base).toEqual({ branch: 'main', from: 'GITHUB_BASE_REF' })
    expect(file.history_runs).toBe(30)
    expect(Object.keys(file.tests).sort()).toEqual([JEST_PRICE, JEST_CART])
    // Wilson 95% for 6/30 [0.09505, 0.37306] and Jeffreys 6.5/31, as for Vitest above; 0/30: 0.5/31 = 1.6% < 5%.
    expect(file.tests[JEST_PRICE]).toMatchObject({ call: 'known-flake', basis: 'history', branch: 'main', runs: 30, failures: 6, signature: JEST_STALE, signature_seen: true })
    expect(file.tests[JEST_PRICE]?.predictive).toBeCloseTo(6.5 / 31, 12)
    expect(file.tests[JEST_CART]).toMatchObject({ call: 'new-failure', runs: 30, failures: 0 })
    expect(file.tests[JEST_CART]?.predictive).toBeCloseTo(0.5 / 31, 12)
    expect(result.stderr).toContain('whose failure is it: 2 failed test(s) against 30 past run(s), base branch main (GITHUB_BASE_REF)')
    expect(result.stderr).toContain(`  known-flake   ${JEST_PRICE}: known flake: 6/30 on main [9.5%, 37.3%], same signature \`${JEST_STALE}\``)
    expect(result.stderr).toContain(`  new-failure   ${JEST_CART}: new failure: 0/30 on main [0.0%, 11.4%]; a failure had a 1.6% chance ((0 + ½)/(30 + 1)), below 5.0%`)
  })

  it('judges before recording: the red run joins the Jest history afterwards, with its signature and its runner', () => {
    const latest = readdirSorted(join(out, 'history')).at(-1) as string
    const records = readFileSync(join(out, 'history', latest), 'utf8').trim().split('\n').map((l) => HistoryRecordSchema.parse(JSON.parse(l)))
    expect(records.find((r) => r.test_id === JEST_PRICE)).toMatchObject({ outcome: 'failed', branch: 'feature', signature: JEST_STALE, runner: 'jest' })
    expect(records.find((r) => r.test_id === JEST_CART)).toMatchObject({ outcome: 'failed', runner: 'jest' })
  })

  it("flakeproof explain's next command is in Jest's syntax", async () => {
    const explained = await runNodeIn(JEST_FIXTURE, [BIN, 'explain', 'cached price', '--history', join(out, 'history/*.jsonl'), '--dir', join(dir, 'none')])
    expect(explained.code, explained.stderr).toBe(0)
    // 30 runs on main and the red run on feature: 7 of 31.
    expect(explained.stderr).toContain('by branch: main 6/30, feature 1/1')
    expect(explained.stderr).toContain("next: measure it where it fails, with the signature history shows: npx flakeproof jest --flaky-repeat 200 tests/shop.test.js -t '^reads the cached price$'")
  })
})
