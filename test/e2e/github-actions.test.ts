import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { surefireViolations } from '../junit-schema.js'
import { BIN, type CliResult, labCommand, ROOT, runFlakeproofVitest, runNodeIn, runVitest, tempDir } from '../utils.js'

const FIXTURE = join(ROOT, 'test/fixtures/vitest-github')
const FILE = 'test/fixtures/vitest-github/tests/checkout.test.ts'

/** A simulated GitHub Actions step: the runner's variables, a fresh summary file, the checkout at ROOT. */
function githubEnv(): { env: Record<string, string>; summary: string } {
  const summary = join(tempDir(), 'step-summary.md')
  writeFileSync(summary, '')
  return { env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary, GITHUB_WORKSPACE: ROOT }, summary }
}
/** flakeproof's annotations (Vitest's own github-actions reporter adds its own for failed tests). */
const annotations = (output: string): string[] => output.split('\n').filter((line) => /^::(warning|error) .*title=flakeproof/.test(line))

describe('a Vitest run under GitHub Actions (test/fixtures/vitest-github, 20 repetitions)', { timeout: 60_000 }, () => {
  const out = tempDir()
  const junit = join(out, 'junit.xml')
  const { env, summary } = githubEnv()
  let result: CliResult

  beforeAll(async () => {
    result = await runVitest(['run', '--', '--flaky-repeat', '20', '--flaky-out', out, '--flaky-out-anywhere', '--flaky-junit', junit], env, FIXTURE)
    // A describe's timeout covers its tests, not its hooks.
  }, 60_000)

  it('annotates the flaky tests as warnings and the broken one as an error, at their file and line', () => {
    // Lines counted in the fixture: describe at 8, its first test at 9; `always fails` at 19; `100%: a, b` at 24.
    // Counts by the counters: every 4th of 20 calls → 5; every 5th → 4. The broken test failed the plain
    // runs of its file after the measurement too: no caveat left.
    expect(annotations(result.stdout)).toEqual([
      `::warning file=${FILE},line=9,title=flakeproof%3A flaky test checkout > fails on every fourth call::tests/checkout.test.ts > checkout > fails on every fourth call failed 5 of 20 times (rate 25.0%25, interval 11.2%25 – 46.9%25). A fix must pass 11 runs in a row. First error: STALE cart on call 4`,
      `::warning file=${FILE},line=24,title=flakeproof%3A flaky test 100%25%3A a%2C b::tests/checkout.test.ts > 100%25: a, b failed 4 of 20 times (rate 20.0%25, interval 8.1%25 – 41.6%25). A fix must pass 14 runs in a row. First error: ODD on call 5`,
      `::error file=${FILE},line=19,title=flakeproof%3A broken test always fails::tests/checkout.test.ts > always fails failed 20 of 20 times (rate 100.0%25, interval 83.9%25 – 100.0%25). It failed every repetition, and every run of its file as usual: fix it as a normal bug. First error: expected 'broken' to be 'fixed' // Object.is equality`,
    ])
  })

  it('appends flaky and broken tables with counts, intervals and runs required to the step summary', () => {
    const text = readFileSync(summary, 'utf8')
    expect(text).toContain('**2 flaky, 1 broken** of 4 tests, 20 rounds')
    expect(text).toContain('| `tests/checkout.test.ts > checkout > fails on every fourth call` | 5 of 20 | 25.0% | 11.2% – 46.9% | flaky | 11 |')
    expect(text).toContain('| `tests/checkout.test.ts > always fails` | 20 of 20 | 100.0% | 83.9% – 100.0% |')
  })

  it('writes JUnit valid against the Surefire 3.0 schema, with a flakyFailure per failing repetition', () => {
    const xml = readFileSync(junit, 'utf8')
    expect(surefireViolations(xml)).toEqual([])
    expect(xml.match(/<flakyFailure /g)).toHaveLength(5 + 4)
    expect(xml.match(/<failure /g)).toHaveLength(1)
  })

  it('appends the proof result to the summary of a proof run, and writes its JUnit', async () => {
    const proofJunit = join(out, 'proof-junit.xml')
    const proof = await runVitest(['run', '--', '--flaky-proof', '--flaky-out', out, '--flaky-out-anywhere', '--flaky-junit', proofJunit], { ...env, FIXTURE_FIXED: '1' }, FIXTURE)
    expect(proof.code).toBe(0)
    const text = readFileSync(summary, 'utf8')
    expect(text).toContain('### Proof: **passed**')
    // 11 and 14 green runs required (the policy of the measurement above).
    expect(text).toContain('| `tests/checkout.test.ts > checkout > fails on every fourth call` | 11 of 11 runs | 0 | passed |')
    expect(text).toContain('| `tests/checkout.test.ts > 100%: a, b` | 14 of 14 runs | 0 | passed |')
    // A passed proof has nothing to annotate, and the measurement's tests are not annotated again.
    expect(annotations(proof.stdout)).toEqual([])
    const xml = readFileSync(proofJunit, 'utf8')
    expect(surefireViolations(xml)).toEqual([])
    expect(xml).toContain('<testsuite name="flakeproof" tests="2" failures="0" errors="0" skipped="0"')
  })
})

describe('--flaky-junit', { timeout: 60_000 }, () => {
  it('refuses a path that is a folder before any test runs', async () => {
    const out = tempDir()
    const result = await runFlakeproofVitest(['--flaky-repeat', '2', '--flaky-out', out, '--flaky-out-anywhere', '--flaky-junit', out], {}, FIXTURE)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`junit (--flaky-junit) ${out} is a folder, not a regular file`)
    expect(existsSync(join(out, 'rate.json'))).toBe(false)
  })
})

describe('outside GitHub Actions', { timeout: 60_000 }, () => {
  it('prints no annotation and writes no summary', async () => {
    const out = tempDir()
    const summary = join(out, 'step-summary.md')
    const result = await runVitest(['run', '--', '--flaky-repeat', '5', '--flaky-out', out, '--flaky-out-anywhere'], { GITHUB_STEP_SUMMARY: summary }, FIXTURE)
    expect(result.stdout).toContain('flakeproof')
    expect(annotations(result.stdout)).toEqual([])
    expect(existsSync(summary)).toBe(false)
  })
})

describe('commands under GitHub Actions', { timeout: 60_000 }, () => {
  const cli = (args: string[], env: Record<string, string>): Promise<CliResult> => runNodeIn(ROOT, [BIN, ...args], env)

  it('measure: a warning for a flaky command on stderr (stdout stays JSON) and a summary row', async () => {
    const { env, summary } = githubEnv()
    const dir = tempDir()
    // The lab job fails every fifth quick call: 4 of 20 (examples/lab/job.js).
    const result = await cli(['measure', '--cmd', labCommand(dir), '--trials', '20', '--out', join(dir, 'out/rate.json')], env)
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout).failures).toBe(4)
    expect(annotations(result.stderr)).toEqual([`::warning title=flakeproof%3A flaky command::${labCommand(dir)} failed 4 of 20 times (rate 20.0%25, interval 8.1%25 – 41.6%25)`])
    expect(readFileSync(summary, 'utf8')).toContain('| flaky | 4 of 20 | 20.0% | 8.1% – 41.6% | – |')
  })

  it('report --junit: the same summary and JUnit from a folder', async () => {
    const { env, summary } = githubEnv()
    const dir = tempDir()
    const out = join(dir, 'out')
    await cli(['measure', '--cmd', labCommand(dir), '--trials', '10', '--out', join(out, 'rate.json')], {})
    const junit = join(dir, 'junit.xml')
    const result = await cli(['report', '--dir', out, '--junit', junit], env)
    expect(result.code).toBe(0)
    expect(annotations(result.stderr)).toHaveLength(1)
    expect(readFileSync(summary, 'utf8')).toContain('| flaky | 2 of 10 |')
    const xml = readFileSync(junit, 'utf8')
    expect(surefireViolations(xml)).toEqual([])
    expect(xml).toContain('flakeproof: 2 of 10 repetitions failed')
  })

  it('investigate: the measurement, the runs a fix must pass and the proof in one summary', async () => {
    const { env, summary } = githubEnv()
    const dir = tempDir()
    const args = ['investigate', '--cmd', labCommand(dir), '--fixed-cmd', labCommand(dir, '--fixed'), '--trials', '10', '--slow-trials', '2', '--gap-ms', '0', '--out-dir', join(dir, 'out')]
    const result = await cli(args, env)
    expect(result.code).toBe(0)
    // 2 of 10 quick calls fail (every fifth); 95% Wilson [5.7%, 51.0%]; ln(0.05) / ln(0.8) = 13.4 → 14 runs (README, plan).
    expect(annotations(result.stderr)).toHaveLength(1)
    const text = readFileSync(summary, 'utf8')
    expect(text).toContain('| flaky | 2 of 10 | 20.0% | 5.7% – 51.0% | 14 |')
    expect(text).toContain('### Proof: **passed**\n\n14 of 14 required runs, 0 failed')
  })

  it('proof: an error annotation and a FAILED summary when the fix still fails', async () => {
    const { env, summary } = githubEnv()
    const result = await cli(['proof', '--cmd', 'node -e "process.exit(1)"', '--runs', '3', '--out', join(tempDir(), 'proof.json')], env)
    expect(result.code).toBe(1)
    expect(annotations(result.stderr)).toEqual(['::error title=flakeproof%3A proof failed::node -e "process.exit(1)": 3 of 3 runs failed (3 required).'])
    expect(readFileSync(summary, 'utf8')).toContain('### Proof: **FAILED**\n\n3 of 3 required runs, 3 failed (required from `--runs`).')
  })
})
