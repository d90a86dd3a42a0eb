import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ObserverFileSchema, PolicyFileSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { type CliResult, readArtifact, ROOT, runFlakeproofVitest, tempDir } from '../utils.js'

// Patterns chance makes as easily as a cause (test/fixtures/vitest-evidence): a verdict only when
// chance explains them badly, and the evidence gathered when the pattern alone cannot tell.
const FIXTURE = join(ROOT, 'test/fixtures/vitest-evidence')
const CHANCE = 'tests/first-ever.test.ts > failed once, by chance, on its first repetition'
const LEAKS = 'tests/leaks.test.ts > registers a handler once'
const FOURTH = 'tests/every-fourth.test.ts > fails on every fourth call, whatever the gap'
const AFTER = 'tests/after-first.test.ts > passes its first execution ever, and no other'
const NUMBERED = 'tests/numbered.test.ts > names its observable after the ones made before it'
const EVERYWHERE = 'tests/numbered.test.ts > fails every time'

describe('flakeproof vitest --flaky-repeat 10 on a chance FPPPPPPPPP, a state-leaking PFFFFFFFFF and one that fails every execution but its first ever', () => {
  const out = tempDir()
  const coverage = tempDir()
  const junit = join(tempDir(), 'junit.xml')
  let result: CliResult
  const rateOf = (id: string) => readArtifact(join(out, 'rate.json'), RateFileSchema).tests?.find((t) => t.id === id)

  beforeAll(async () => {
    // With the user's own JUnit report, and coverage with a threshold the measured run meets:
    // src/fourth.ts is covered by every-fourth's file alone (flaky, no evidence asked).
    const coverageArgs = ['--coverage.enabled', '--coverage.include=src/**', '--coverage.reporter=json', `--coverage.reportsDirectory=${coverage}`, '--coverage.thresholds.lines=100']
    const reporterArgs = ['--reporter=default', '--reporter=junit', `--outputFile.junit=${junit}`]
    const args = ['--flaky-repeat', '10', '--flaky-out', out, '--flaky-out-anywhere', ...coverageArgs, ...reporterArgs, 'tests/first-ever.test.ts', 'tests/leaks.test.ts', 'tests/every-fourth.test.ts', 'tests/after-first.test.ts']
    result = await runFlakeproofVitest(args, { FIXTURE_STATE: tempDir() }, FIXTURE)
  }, 120_000)

  it('writes the chance of each single switch given its counts: 1 of 10 arrangements, too likely to decide alone', () => {
    // One failure among 10 repetitions sits at repetition 1 in 1 of C(10, 1) = 10 equally likely
    // orders; nine failures after a pass likewise in 1 of C(10, 9) = 10.
    for (const id of [CHANCE, LEAKS, AFTER]) expect(rateOf(id)?.independence).toMatchObject({ pattern: 'one-switch', switch_p_value: 0.1, switch_significant: false })
  })

  it('gathers fresh-state evidence within its budget: 2 more rounds of the three files', () => {
    // 2 rounds: were the switch real, fresh-first 2 of 2 against 18 of 18 the other way has
    // Fisher p = 1/C(20, 2) = 1/190 < 0.05; one round (1/10) could never decide.
    expect(rateOf(CHANCE)?.fresh_evidence).toMatchObject({ rounds: 2, budget: 2, fresh_first: { trials: 2, failures: 0 }, in_process: { trials: 18, failures: 0 }, p_value: 1, decided: 'flaky' })
    expect(rateOf(LEAKS)?.fresh_evidence).toMatchObject({ rounds: 2, budget: 2, fresh_first: { trials: 2, failures: 0 }, in_process: { trials: 18, failures: 18 }, decided: 'non-idempotent' })
    expect(rateOf(LEAKS)?.fresh_evidence?.p_value).toBeCloseTo(1 / 190, 12)
    expect(result.stdout).toContain('fresh-state evidence: 2 more rounds of 3 file(s)')
  })

  it('calls the PFFFFFFFFF that fresh processes fail throughout flaky, and its failed fresh rounds change no exit code', () => {
    // Fresh-first 2 of 2 failed against 18 of 18 after: what the later repetitions did, p = 1.
    expect(rateOf(AFTER)).toMatchObject({ trials: 10, failures: 9, verdict: 'flaky' })
    expect(rateOf(AFTER)?.fresh_evidence).toMatchObject({ fresh_first: { trials: 2, failures: 2 }, in_process: { trials: 18, failures: 18 }, p_value: 1, decided: 'flaky' })
    // Vitest calls its file failed in each fresh round (every copy failed) and sets exit code 1 there:
    // evidence, whose reporters no longer print; the measured run's flaky copies are advisory.
    expect(result.code, result.stderr).toBe(0)
  })

  it('calls the chance FPPPPPPPPP flaky, with a retry budget, and keeps the measured counts', () => {
    expect(rateOf(CHANCE)).toMatchObject({ trials: 10, failures: 1, verdict: 'flaky' })
    const policy = readArtifact(join(out, 'policy.json'), PolicyFileSchema)
    expect(policy.tests?.[CHANCE]).toMatchObject({ verdict: 'flaky', retry_budget: 1 })
  })

  it('never calls the state-leaking PFFFFFFFFF flaky: non-idempotent, with no policy entry', () => {
    expect(rateOf(LEAKS)).toMatchObject({ trials: 10, failures: 9, verdict: 'non-idempotent' })
    expect(readArtifact(join(out, 'policy.json'), PolicyFileSchema).tests?.[LEAKS]).toBeUndefined()
  })

  it('leaves the coverage report and its thresholds to the measured run: the fresh-state rounds of three files run without coverage', () => {
    // The measured run executed isFourth 10 times; a report of the evidence rounds' three files would
    // have it at 0 and fail the 100% threshold (exit 1), as it did before.
    const report = JSON.parse(readFileSync(join(coverage, 'coverage-final.json'), 'utf8')) as Record<string, { s: Record<string, number> }>
    expect(Object.keys(report).map((path) => relative(FIXTURE, path))).toEqual(['src/fourth.ts'])
    expect(Object.values(Object.values(report)[0]?.s ?? {})).toEqual([10])
    expect(`${result.stdout}${result.stderr}`).not.toContain('does not meet')
    expect(rateOf(FOURTH)).toMatchObject({ trials: 10, failures: 2, verdict: 'flaky' })
    // Every failed copy passed another: advisory.
    expect(result.code, result.stderr).toBe(0)
  })

  it("leaves the user's reporters to the measured run: the JUnit report holds its four files, the terminal one summary", () => {
    // The fresh-state rounds' three files, reported as well, would replace the JUnit file and print a summary each.
    const suites = [...readFileSync(junit, 'utf8').matchAll(/<testsuite name="([^"]+)"[^>]* tests="(\d+)"/g)].map((m) => [m[1], m[2]])
    expect(suites.sort()).toEqual([
      ['tests/after-first.test.ts', '1'],
      ['tests/every-fourth.test.ts', '1'],
      ['tests/first-ever.test.ts', '1'],
      ['tests/leaks.test.ts', '1'],
    ])
    expect(result.stdout.match(/Test Files /g)).toHaveLength(1)
    expect(result.stdout).toContain('fresh-state round 2 of 2')
  })
})

describe('flakeproof vitest --flaky-repeat 10 on a test the repetitions break (numbered as mobx numbers its observables) and one that fails everywhere', () => {
  const out = tempDir()
  let result: CliResult
  const rateOf = (id: string) => readArtifact(join(out, 'rate.json'), RateFileSchema).tests?.find((t) => t.id === id)

  beforeAll(async () => {
    result = await runFlakeproofVitest(['--flaky-repeat', '10', '--flaky-out', out, '--flaky-out-anywhere', 'tests/numbered.test.ts'], {}, FIXTURE)
  }, 120_000)

  it('runs their file three times more as usual, each test once, beside a control with repetitions, and calls the test that passes there non-idempotent', () => {
    expect(result.stdout).toContain('plain-run evidence: 3 run(s) of 1 file(s) as usual (each test once) and a control with repetitions, for 2 test(s) that failed every repetition')
    // The three plain runs passed it against 10 of 10 failed copies: Fisher two-sided 1/C(13, 3) = 1/286;
    // the control's 10 copies failed as the measured ones did.
    const numbered = rateOf(NUMBERED)
    expect(numbered).toMatchObject({ trials: 10, failures: 10, verdict: 'non-idempotent' })
    expect(numbered?.plain_evidence).toMatchObject({ rounds: 3, budget: 3, plain: { trials: 3, failures: 0 }, control: { trials: 10, failures: 10 }, measured: { trials: 10, failures: 10 }, decided: 'non-idempotent' })
    expect(numbered?.plain_evidence?.p_value).toBeCloseTo(1 / 286, 12)
    expect(result.stdout.replace(/\s*\\\n\s*/g, ' ').replace(/\s+/g, ' ')).toContain('npx flakeproof vitest --flaky-rounds 20 --flaky-repeat 1 tests/numbered.test.ts')
  })

  it('confirms the test that fails everywhere broken, keeps the exit code of the measured run, and records each plain run once per test', () => {
    expect(rateOf(EVERYWHERE)).toMatchObject({ verdict: 'broken', plain_evidence: { plain: { trials: 3, failures: 3 }, p_value: 1, decided: 'broken' } })
    expect(result.code).toBe(1)
    // The control: 3 tests × 10 copies; then each test once in each plain run.
    const lines = readFileSync(join(out, 'evidence_facts.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { round: number })
    expect(lines.map((l) => l.round)).toEqual([...Array(30).fill(1), 2, 2, 2, 3, 3, 3, 4, 4, 4])
  })
})

describe('plain-run evidence while observing (--flaky-observe): no gapped repetition in the evidence runs', () => {
  it('runs the control with the 4 fast repetitions only, and each plain run each test once', async () => {
    const out = tempDir()
    const args = ['--flaky-repeat', '4', '--flaky-observe', '--flaky-slow-repeat', '5', '--flaky-gap-ms', '1', '--flaky-out', out, '--flaky-out-anywhere', 'tests/numbered.test.ts']
    await runFlakeproofVitest(args, {}, FIXTURE)
    // The measured run did gap the failing tests' repetitions; the evidence runs do not need them.
    expect(readFileSync(join(out, 'facts.jsonl'), 'utf8')).toContain('"mode":"slow"')
    const lines = readFileSync(join(out, 'evidence_facts.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { mode: string })
    // 3 tests × 4 copies in the control, 3 plain runs × 3 tests (4 copies: 3 runs, 1/C(7, 3) = 1/35).
    expect(lines.map((l) => l.mode)).toEqual(Array(12 + 9).fill('fast'))
  }, 120_000)
})

describe('observing a test that fails on every fourth call, whatever the gap', () => {
  it('does not say the gap changes it: gapped and fast repetitions are assigned by a seeded coin in each pair', async () => {
    const out = tempDir()
    const args = ['--flaky-repeat', '20', '--flaky-observe', '--flaky-slow-repeat', '40', '--flaky-gap-ms', '1', '--flaky-seed', '7', '--flaky-out', out, '--flaky-out-anywhere', 'tests/every-fourth.test.ts']
    await runFlakeproofVitest(args, {}, FIXTURE)
    const observer = readArtifact(join(out, 'observer.json'), ObserverFileSchema)
    const observed = observer.tests?.[FOURTH]
    // Calls 21…100 after the first block: 20 of them fail (every fourth). A fixed alternation put all
    // 20 on the fast side (20/40 against 0/40, p = 7.8e-8); a coin per pair splits them by chance.
    expect(observed).toMatchObject({ paired: { trials: 40 }, slow: { trials: 40 }, changed: false })
    expect((observed?.paired?.failures ?? 0) + (observed?.slow.failures ?? 0)).toBe(20)
    expect(observed?.note).not.toContain('the gap itself changes it')
    expect(observer.assignment_seed).toBe(7)
  }, 60_000)
})
