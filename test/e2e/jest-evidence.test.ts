import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { PolicyFileSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { BIN, type CliResult, readArtifact, ROOT, runNodeIn, tempDir } from '../utils.js'

/**
 * Fresh-state evidence on Jest (issue 17, items 1–2, through the runner-neutral session): a single
 * switch that chance makes as easily as a cause is gathered more evidence on by runs of its file
 * anew (a new runCLI each, every file loaded again), as with Vitest (test/e2e/vitest-evidence.test.ts).
 */
const FIXTURE = join(ROOT, 'test/fixtures/jest-evidence')
const CHANCE = 'tests/first-ever.test.js > failed once, by chance, on its first repetition'
const LEAKS = 'tests/leaks.test.js > registers a handler once'
const AFTER = 'tests/after-first.test.js > passes its first execution ever, and no other'
const ONCE = 'tests/loads-once.test.js > passes its first copy in a process'
const NUMBERED = 'tests/numbered.test.js > names its observable after the ones made before it'
const EVERYWHERE = 'tests/numbered.test.js > fails every time'

describe('flakeproof jest --flaky-repeat 10 on a chance FPPPPPPPPP, a state-leaking PFFFFFFFFF, one that fails every execution but its first ever, and a file that loads once', () => {
  const out = tempDir()
  const coverage = tempDir()
  const reports = tempDir()
  let result: CliResult
  const rateOf = (id: string) => readArtifact(join(out, 'rate.json'), RateFileSchema).tests?.find((t) => t.id === id)

  beforeAll(async () => {
    // With the user's reports: jest-junit's, `--json` to a file, and coverage, whose threshold (every line
    // of src/) the measured run meets through tests/counted.test.js alone.
    const reporting = ['--reporters=default', '--reporters=jest-junit', '--json', '--outputFile', join(reports, 'results.json'), '--coverage', '--coverageDirectory', coverage]
    // tests/numbered.test.js has a broken test, which fails the run: its own run is below.
    const others = ['--testPathIgnorePatterns', 'numbered']
    result = await runNodeIn(FIXTURE, [BIN, 'jest', '--flaky-repeat', '10', '--flaky-out', out, '--flaky-out-anywhere', ...others, ...reporting], { FIXTURE_STATE: tempDir(), JEST_JUNIT_OUTPUT_DIR: reports })
  }, 180_000)

  it('writes the chance of each single switch given its counts: 1 of 10 arrangements, too likely to decide alone', () => {
    // One failure among 10 repetitions sits at repetition 1 in 1 of C(10, 1) = 10 equally likely
    // orders; nine failures after a pass likewise in 1 of C(10, 9) = 10.
    for (const id of [CHANCE, LEAKS, AFTER, ONCE]) expect(rateOf(id)?.independence).toMatchObject({ pattern: 'one-switch', switch_p_value: 0.1, switch_significant: false })
  })

  it('gathers fresh-state evidence in 2 more runs of the four files, and decides each', () => {
    expect(result.stderr).toContain('fresh-state evidence: 2 more rounds of 4 file(s)')
    // 2 runs anew, 10 copies each: the first copies 2 of 2 passed; the later ones 18 of 18 passed
    // (chance) or 18 of 18 failed (state), against the first copies' 0 of 2.
    expect(rateOf(CHANCE)?.fresh_evidence).toMatchObject({ rounds: 2, budget: 2, fresh_first: { trials: 2, failures: 0 }, in_process: { trials: 18, failures: 0 }, p_value: 1, decided: 'flaky' })
    expect(rateOf(LEAKS)?.fresh_evidence).toMatchObject({ rounds: 2, budget: 2, fresh_first: { trials: 2, failures: 0 }, in_process: { trials: 18, failures: 18 }, decided: 'non-idempotent' })
    // Fisher's exact, two-sided: the 18 failures all among the 18 later copies of 20, C(18, 18)/C(20, 18) = 1/190,
    // and no other table as extreme.
    expect(rateOf(LEAKS)?.fresh_evidence?.p_value).toBeCloseTo(1 / 190, 12)
    expect(rateOf(CHANCE)?.verdict).toBe('flaky')
    expect(rateOf(LEAKS)?.verdict).toBe('non-idempotent')
    expect(readArtifact(join(out, 'rate.json'), RateFileSchema).complete).toBe(true)
  })

  it('calls the PFFFFFFFFF that fresh runs fail throughout flaky, and its failed fresh runs change no exit code', () => {
    // Fresh-first 2 of 2 failed against 18 of 18 after: what the later copies did, p = 1.
    expect(rateOf(AFTER)).toMatchObject({ trials: 10, failures: 9, verdict: 'flaky' })
    expect(rateOf(AFTER)?.fresh_evidence).toMatchObject({ fresh_first: { trials: 2, failures: 2 }, in_process: { trials: 18, failures: 18 }, p_value: 1, decided: 'flaky' })
    // Every copy failed in each fresh run (Jest's own verdict there: failed); evidence, whose reporters
    // no longer print: the measured run's flaky copies are advisory.
    expect(result.code, result.stderr).toBe(0)
  })

  it('says what failed outside a test in a fresh run, which no reporter of Jest prints there, and leaves the exit code to the measured run', () => {
    // loads-once.test.js cannot load again: no fresh execution, so the switch stays undetermined.
    expect(rateOf(ONCE)).toMatchObject({ trials: 10, failures: 9, verdict: 'undetermined' })
    expect(result.stderr).toContain('[flakeproof] fresh-state round 1 of 2: tests/loads-once.test.js: ')
    expect(result.stderr).toContain('RELOADED: this file loads once ever')
    // Jest fails each fresh run for the file that could not run (a runtime error, never advisory): evidence only.
    expect(result.code, result.stderr).toBe(0)
  })

  it('leaves the coverage report and its threshold to the measured run: the two runs anew are without coverage', () => {
    // The measured run loaded src/double.js once (its `module.exports`) and called double 10 times; a
    // report of the evidence runs' four files would have both at 0 and print Jest's unmet threshold, as it did before.
    const report = JSON.parse(readFileSync(join(coverage, 'coverage-final.json'), 'utf8')) as Record<string, { s: Record<string, number> }>
    expect(Object.keys(report).map((path) => relative(FIXTURE, path))).toEqual(['src/double.js'])
    expect(Object.values(Object.values(report)[0]?.s ?? {})).toEqual([10, 1])
    expect(`${result.stdout}${result.stderr}`).not.toContain('threshold')
    // Every failed copy passed another: advisory.
    expect(result.code, result.stderr).toBe(0)
  })

  it("leaves the user's reports to the measured run: jest-junit's and --json's hold its five files, the terminal one summary", () => {
    // The two runs anew, reported as well, would replace both files with their four files and print a summary each.
    const suites = [...readFileSync(join(reports, 'junit.xml'), 'utf8').matchAll(/<testsuite name="[^"]*"[^>]* tests="(\d+)"/g)].map((m) => m[1])
    expect(suites).toEqual(['10', '10', '10', '10', '10'])
    const json = JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')) as { testResults: { name: string }[] }
    expect(json.testResults.map((r) => relative(FIXTURE, r.name)).sort()).toEqual(['tests/after-first.test.js', 'tests/counted.test.js', 'tests/first-ever.test.js', 'tests/leaks.test.js', 'tests/loads-once.test.js'])
    expect(result.stderr.match(/Test Suites: /g)).toHaveLength(1)
    expect(result.stderr).toContain('fresh-state round 2 of 2')
    // Jest's summary counts the 50 copies as 50 tests (28 failed: first-ever's first, nine each of
    // leaks, after-first and loads-once): flakeproof's says so.
    expect(result.stderr).toMatch(/Tests: +28 failed, 22 passed, 50 total/)
    expect(result.stderr.replace(/\s+/g, ' ')).toContain("Jest's own Tests count is of copies, each copy of a test counted as a test")
  })
})

describe('flakeproof jest --flaky-repeat 10 on a test the repetitions break (numbered as mobx numbers its observables) and one that fails everywhere', () => {
  const out = tempDir()
  let result: CliResult
  const rateOf = (id: string) => readArtifact(join(out, 'rate.json'), RateFileSchema).tests?.find((t) => t.id === id)

  beforeAll(async () => {
    result = await runNodeIn(FIXTURE, [BIN, 'jest', '--flaky-repeat', '10', '--flaky-out', out, '--flaky-out-anywhere', 'tests/numbered.test.js'])
  }, 180_000)

  it('runs their file three times more as usual, each test once, beside a control with repetitions, and calls the test that passes there non-idempotent', () => {
    expect(result.stderr).toContain('plain-run evidence: 3 run(s) of 1 file(s) as usual (each test once) and a control with repetitions, for 2 test(s) that failed every repetition')
    expect(result.stderr).toContain('control run with repetitions')
    expect(result.stderr).toContain('plain run 3 of 3 (each test once)')
    // The three plain runs passed it against 10 of 10 failed copies: Fisher two-sided 1/C(13, 3) = 1/286;
    // the control's 10 copies failed as the measured ones did.
    const numbered = rateOf(NUMBERED)
    expect(numbered).toMatchObject({ trials: 10, failures: 10, verdict: 'non-idempotent' })
    expect(numbered?.plain_evidence).toMatchObject({ rounds: 3, budget: 3, plain: { trials: 3, failures: 0 }, control: { trials: 10, failures: 10 }, measured: { trials: 10, failures: 10 }, decided: 'non-idempotent' })
    expect(numbered?.plain_evidence?.p_value).toBeCloseTo(1 / 286, 12)
    expect(readArtifact(join(out, 'policy.json'), PolicyFileSchema).tests?.[NUMBERED]).toBeUndefined()
  })

  it('confirms the test that fails everywhere broken, and says to fix it with no caveat left', () => {
    expect(rateOf(EVERYWHERE)).toMatchObject({ verdict: 'broken', plain_evidence: { plain: { trials: 3, failures: 3 }, p_value: 1, decided: 'broken' } })
    expect(result.stderr.replace(/\s+/g, ' ')).toContain('broken: it failed every repetition, and every run of its file as usual; run its file and read the error: npx jest tests/numbered.test.js')
    // The measured run's exit code: the broken test fails it, as `jest` would.
    expect(result.code).toBe(1)
  })

  it('records the control and each plain run apart from the measurement: 3 tests × 10 copies in round 1, then each test once in rounds 2 to 4', () => {
    const lines = readFileSync(join(out, 'evidence_facts.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { round: number; test_id: string; outcome: string })
    expect(lines.filter((l) => l.test_id === NUMBERED).map((l) => [l.round, l.outcome])).toEqual([...Array.from({ length: 10 }, () => [1, 'failed']), [2, 'passed'], [3, 'passed'], [4, 'passed']])
    expect(lines).toHaveLength(39)
  })

  it('explains the test the repetitions break with the command that measures its rate in ordinary runs, in the terminal and flaky_report.md', () => {
    const command = 'npx flakeproof jest --flaky-rounds 20 --flaky-repeat 1 tests/numbered.test.js'
    expect(result.stderr.replace(/\s*\\\n\s*/g, ' ').replace(/\s+/g, ' ')).toContain(command)
    const report = readFileSync(join(out, 'flaky_report.md'), 'utf8')
    expect(report).toContain('**non-idempotent**. It failed every repetition, yet passes when its file runs as usual (3 of 3 plain runs of its file passed it, against 0 of 10 measured copies; p = 0.00350; 10 of 10 copies failed in a control run of its file with repetitions)')
    expect(report).toContain(`\`${command}\``)
  })
})

describe('plain-run evidence while observing (--flaky-observe): no gapped copy in the evidence runs', () => {
  it('runs the control with the 4 fast copies only, and each plain run each test once', async () => {
    const out = tempDir()
    const args = [BIN, 'jest', '--flaky-repeat', '4', '--flaky-observe', '--flaky-slow-repeat', '5', '--flaky-gap-ms', '1', '--flaky-out', out, '--flaky-out-anywhere', 'tests/numbered.test.js']
    await runNodeIn(FIXTURE, args)
    // The measured run did gap the failing tests' copies; the evidence runs do not need them.
    expect(readFileSync(join(out, 'facts.jsonl'), 'utf8')).toContain('"mode":"slow"')
    const lines = readFileSync(join(out, 'evidence_facts.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { mode: string })
    // 3 tests × 4 copies in the control, 3 plain runs × 3 tests (4 copies: 3 runs, 1/C(7, 3) = 1/35).
    expect(lines.map((l) => l.mode)).toEqual(Array(12 + 9).fill('fast'))
  }, 180_000)
})

describe('flakeproof jest --flaky-repeat 10 --coverage, a flaky test and an unmet coverage threshold', () => {
  it('fails as `jest` fails: the flaky copies are advisory, the threshold is not', async () => {
    const out = tempDir()
    const args = [BIN, 'jest', '--flaky-repeat', '10', '--flaky-out', out, '--flaky-out-anywhere', '--coverage', '--coverageDirectory', tempDir(), 'tests/first-ever.test.js']
    const result = await runNodeIn(FIXTURE, args, { FIXTURE_STATE: tempDir() })
    expect(readArtifact(join(out, 'rate.json'), RateFileSchema).tests?.find((t) => t.id === CHANCE)).toMatchObject({ trials: 10, failures: 1, verdict: 'flaky' })
    // src/double.js is not covered by this file: Jest's own line, then its exit code (before, the flaky copies made it 0).
    expect(result.stderr).toContain('Coverage for lines (0%) does not meet "global" threshold (100%)')
    expect(result.code).toBe(1)
  }, 180_000)
})
