import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  OnlyWhenFailFileSchema,
  PolicyFileSchema,
  RateFileSchema,
  RunsNeededFileSchema,
  SummaryFileSchema,
} from '../../src/artifacts/schemas.js'
import { HistoryRecordSchema } from '../../src/artifacts/history-schemas.js'
import { TestFactSchema } from '../../src/artifacts/test-schemas.js'
import { stripAnsi } from '../../src/core/ansi.js'
import { type CliResult, readArtifact, runFlakeproofVitest, runVitest, tempDir, VITEST_FIXTURE } from '../utils.js'

const FLAKY = 'tests/counter.test.ts > fails on every fifth call'
const TIMING = 'tests/timing.test.ts > races when called quickly'
const BROKEN = 'tests/counter.test.ts > always fails'
const STABLE = 'tests/counter.test.ts > always passes'
const SNAPSHOT = join(VITEST_FIXTURE, 'tests/__snapshots__/behaviours.test.ts.snap')
const PROJECTS = join(VITEST_FIXTURE, '..', 'vitest-projects')

describe('vitest run -- --flaky-repeat 200 (plugin in vitest.config)', () => {
  const out = tempDir()
  const snapshotBefore = readFileSync(SNAPSHOT, 'utf8')
  let result: CliResult
  const rateOf = (id: string) => readArtifact(join(out, 'rate.json'), RateFileSchema).tests?.find((t) => t.id === id)

  beforeAll(async () => {
    result = await runVitest(['run', '--', '--flaky-repeat', '200', '--flaky-out', out, '--flaky-out-anywhere'])
  }, 120_000)

  it('counts exactly 40 failures in 200 repetitions of a test failing every fifth call', () => {
    expect(rateOf(FLAKY)).toMatchObject({ trials: 200, failures: 40, rate: 0.2, verdict: 'flaky' })
    expect(rateOf(FLAKY)?.ci_low).toBeCloseTo(0.150451, 6)
    expect(rateOf(FLAKY)?.ci_high).toBeCloseTo(0.260856, 6)
    expect(rateOf(TIMING)).toMatchObject({ trials: 200, failures: 40, verdict: 'flaky' })
  })

  it('calls the stable test stable and the broken one broken', () => {
    expect(rateOf(STABLE)).toMatchObject({ trials: 200, failures: 0, verdict: 'stable' })
    expect(rateOf(STABLE)?.ci_high).toBeGreaterThan(0)
    expect(rateOf(BROKEN)).toMatchObject({ trials: 200, failures: 200, verdict: 'broken' })
  })

  it('leaves test.each, nested describe, concurrent, snapshots, fake timers, expect.assertions and fails as without the plugin', () => {
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    const ids = rate.tests?.map((t) => t.id) ?? []
    expect(ids).toContain('tests/behaviours.test.ts > outer > inner > each 1')
    expect(ids).toContain('tests/behaviours.test.ts > outer > inner > each 2')
    for (const name of ['snapshot', 'expect.assertions', 'expected failure', 'concurrent > first', 'concurrent > second']) {
      expect(rateOf(`tests/behaviours.test.ts > ${name}`), name).toMatchObject({ trials: 200, failures: 0, verdict: 'stable' })
    }
    expect(rateOf('tests/timing.test.ts > fake timers behave as without the plugin')).toMatchObject({ failures: 0 })
    expect(ids.some((id) => id.includes('skipped') || id.includes('todo'))).toBe(false)
    expect(readFileSync(SNAPSHOT, 'utf8')).toBe(snapshotBefore)
    expect(result.stdout + result.stderr).not.toMatch(/obsolete|written/i)
  })

  it('fails the run only for the broken test: measuring is advisory for flaky ones', () => {
    expect(result.code).toBe(1)
    const output = result.stdout + result.stderr
    expect(output.match(/FAIL .*always fails/g)).toHaveLength(1)
    expect(output).not.toMatch(/FAIL .*fails on every fifth call/)
    expect(output).toMatch(/FLAKY\s+40 of 200\s+\[15\.0%, 26\.1%\]\s+fix: 14 green runs\s+tests\/counter\.test\.ts > fails on every fifth call/)
    expect(output).toMatch(/BROKEN\s+200 of 200\s+\[98\.1%, 100\.0%\]\n/)
    // A broken test gets no green runs. Three plain runs of its file (the floor) failed it too: its
    // next step is to read the error, no caveat left.
    expect(output).toContain('plain-run evidence: 3 run(s) of 1 file(s) as usual (each test once) and a control with repetitions, for 1 test(s) that failed every repetition')
    expect(output.replace(/\s+/g, ' ')).toContain('broken: it failed every repetition, and every run of its file as usual; run its file and read the error: npx vitest run tests/counter.test.ts')
  })

  it("says after Vitest's summary what its ticks meant, and prints its own end in 80 columns", () => {
    const output = result.stdout
    // Vitest 4: its `Tests  … passed` line, then flakeproof's line about its ticks (src/config/runners.ts).
    const ticks = output.indexOf("Vitest's ✓ and its Tests count are per test")
    const summary = output.search(/^\s+Tests\s+\d/m)
    expect(summary).toBeGreaterThan(-1)
    expect(ticks).toBeGreaterThan(summary)
    expect(output.slice(ticks).search(/^\s+Tests\s+\d/m)).toBe(-1)
    // Not a terminal and no COLUMNS: 80 (src/core/text-layout.ts). Every line of flakeproof's end fits.
    expect(output.slice(ticks).split('\n').filter((line) => line.length > 80)).toEqual([])
    // The broken test's next step is its own runner's command for its file, run as usual.
    expect(output).toMatch(/^ {6}npx vitest run tests\/counter\.test\.ts$/m)
  })

  it('streams one valid fact line per test execution', () => {
    const lines = readFileSync(join(out, 'facts.jsonl'), 'utf8').trim().split('\n').map((l) => TestFactSchema.parse(JSON.parse(l)))
    expect(lines).toHaveLength(12 * 200)
    const flaky = lines.filter((l) => l.test_id === FLAKY)
    expect(flaky.filter((l) => l.outcome === 'failed').map((l) => l.trial)).toEqual(Array.from({ length: 40 }, (_, i) => 5 * (i + 1)))
    expect(flaky[4]).toMatchObject({ repeat: 4, mode: 'fast', error: 'STALE cache entry on call 5', stdout: 'call 5\n', gap_ms: 0 })
    expect(flaky[1]?.previous_test).toBe(flaky[0]?.previous_test)
  })

  it('writes rounds at the top level and a per-test map in every file, all valid', () => {
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    // The broken test fails every repetition, so every round fails.
    expect(rate).toMatchObject({ trials: 200, failures: 200, requested_trials: 200, complete: true })
    const plan = readArtifact(join(out, 'runs_needed.json'), RunsNeededFileSchema)
    expect(plan.tests?.[FLAKY]).toMatchObject({ runs: 14, basis: 'observed', verdict: 'flaky' })
    const policy = readArtifact(join(out, 'policy.json'), PolicyFileSchema)
    expect(policy.tests?.[FLAKY]).toMatchObject({ green_runs_required: 14, retry_budget: 2, quarantine_after: 1 })
    expect(policy.tests?.[BROKEN]).toMatchObject({ retry_budget: null })
    const facts = readArtifact(join(out, 'only_when_fail.json'), OnlyWhenFailFileSchema)
    expect(facts.tests?.[FLAKY]).toMatchObject({ token: 'STALE', failures: 40 })
    expect(facts.tests?.[TIMING]?.token).toBe('RACE')
    const summary = readArtifact(join(out, 'summary.json'), SummaryFileSchema)
    expect(summary.tests?.[FLAKY]).toMatchObject({ trials: 200, failures: 40, token: 'STALE', green_runs_required: 14 })
    const report = readFileSync(join(out, 'flaky_report.md'), 'utf8')
    expect(report.match(/^## .*/gm)).toEqual(['## How often', '## True only when it fails', '## What observation changed', '## What it takes to say it is fixed'])
    expect(report).toContain('| `tests/counter.test.ts > fails on every fifth call` | 40 of 200 | 20.0% | 15.0% – 26.1% | flaky |')
  })
})

// Each test starts Vitest on a fixture (a few seconds each on two busy cores): sized to that, not to the global 20 s.
describe('the other ways to start it', { timeout: 60_000 }, () => {
  it('FLAKEPROOF_REPEAT=50 with the plugin in the config', async () => {
    const out = tempDir()
    const result = await runVitest(['run', 'tests/counter.test.ts', '--', '--flaky-out', out, '--flaky-out-anywhere'], { FLAKEPROOF_REPEAT: '50' })
    expect(result.code).toBe(1)
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect(rate.tests?.find((t) => t.id === FLAKY)).toMatchObject({ trials: 50, failures: 10 })
  })

  it('flakeproof vitest with a config that has no plugin, filtered by -t', async () => {
    const out = tempDir()
    const args = ['--flaky-repeat', '50', '--flaky-out', out, '--flaky-out-anywhere', '--config', 'vitest.plain.config.ts', '-t', 'fifth']
    const result = await runFlakeproofVitest(args)
    expect(result.code).toBe(0)
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect(rate.tests?.map((t) => t.id)).toEqual([FLAKY])
    expect(rate.tests?.[0]).toMatchObject({ trials: 50, failures: 10, verdict: 'flaky' })
    expect(rate.command).toContain('flakeproof vitest --flaky-repeat 50')
  })

  it('stays out of the way without a repeat count: nothing written', async () => {
    rmSync(join(VITEST_FIXTURE, '.flakeproof'), { recursive: true, force: true })
    const result = await runVitest(['run', 'tests/behaviours.test.ts'])
    expect(result.code).toBe(0)
    expect(existsSync(join(VITEST_FIXTURE, '.flakeproof'))).toBe(false)
    expect(result.stdout).not.toContain('flakeproof')
  })

  it('the reporter alone records an everyday run in history, and no measurement file', async () => {
    const out = tempDir()
    const result = await runVitest(['run', '--config', 'vitest.reporter.config.ts', 'tests/counter.test.ts'], { FIXTURE_OUT: out })
    expect(result.code).toBe(1)
    // docs/contracts.md §11: one history file, one line per test that ran; rate.json and the rest are a measurement's only.
    expect(readdirSync(out)).toEqual(['history'])
    const [file] = readdirSync(join(out, 'history'))
    const lines = readFileSync(join(out, 'history', file as string), 'utf8').trim().split('\n').map((l) => HistoryRecordSchema.parse(JSON.parse(l)))
    expect(lines.find((l) => l.test_id === BROKEN)?.outcome).toBe('failed')
    expect(lines.find((l) => l.test_id === FLAKY)?.outcome).toBe('passed')
  })

  it.each([
    ['vitest run --', (args: string[]) => runVitest(['run', '--', ...args], {}, PROJECTS)],
    ['flakeproof vitest', (args: string[]) => runFlakeproofVitest(args, {}, PROJECTS)],
  ])('%s repeats tests of projects that do not extend the root config, with distinct ids', async (_name, start) => {
    const out = tempDir()
    const result = await start(['--flaky-repeat', '40', '--flaky-out', out, '--flaky-out-anywhere'])
    expect(result.code).toBe(0)
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect(rate.tests?.map((t) => [t.id, t.trials, t.failures])).toEqual([
      ['[alpha] same.test.ts > fails every fourth call', 40, 10],
      ['[beta] same.test.ts > fails every fourth call', 40, 10],
    ])
  })

  it.each([
    [['--flaky-repeat', '0'], '--flaky-repeat must be a whole number from 1 to 1000000 (got 0)'],
    [['--flaky-repeat', '20', '--flaky-confidence', '1'], '--flaky-confidence must be a number strictly between 0 and 1 (got 1)'],
    [['--flaky-repaet', '20'], 'unknown flag --flaky-repaet; did you mean --flaky-repeat?'],
  ])('rejects %j before any test runs, in one line under Vitest\'s banner', async (flags, message) => {
    const out = tempDir()
    const result = await runVitest(['run', '--', ...flags, '--flaky-out', out, '--flaky-out-anywhere'])
    expect(result.code).toBe(1)
    const output = stripAnsi(result.stdout + result.stderr)
    // Once, as the line itself: no brackets around it, no stack under it, no `{ [cause] }`.
    expect(output.split('\n').filter((line) => line.includes(message))).toEqual([`flakeproof: ${message}`])
    expect(output).not.toMatch(/^\s+at |\[cause\]/m)
    expect(result.stdout).not.toMatch(/Test Files/)
    expect(existsSync(join(out, 'rate.json'))).toBe(false)
  })
})

describe('the plugin imported by a path (vitest.by-path.config.ts): Vite bundles a copy of it into the config', () => {
  it('counts the same, and refuses a bad flag in one line', async () => {
    const [out, refusedOut] = [tempDir(), tempDir()]
    const [measured, refused] = await Promise.all([
      runVitest(['run', '--config', 'vitest.by-path.config.ts', 'tests/counter.test.ts', '--', '--flaky-repeat', '10', '--flaky-out', out, '--flaky-out-anywhere']),
      runVitest(['run', '--config', 'vitest.by-path.config.ts', '--', '--flaky-repeat', '0', '--flaky-out', refusedOut, '--flaky-out-anywhere']),
    ])
    // Every fifth call of 10 fails: 2.
    expect(readArtifact(join(out, 'rate.json'), RateFileSchema).tests?.find((t) => t.id === FLAKY), measured.stderr).toMatchObject({ trials: 10, failures: 2, verdict: 'flaky' })
    expect(refused.code).toBe(1)
    const output = stripAnsi(refused.stdout + refused.stderr)
    expect(output.split('\n').filter((line) => line.includes('--flaky-repeat must be'))).toEqual(['flakeproof: --flaky-repeat must be a whole number from 1 to 1000000 (got 0)'])
    expect(output).not.toMatch(/^\s+at |\[cause\]/m)
  })
})
