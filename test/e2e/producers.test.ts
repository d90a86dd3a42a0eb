import { spawn } from 'node:child_process'
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import { BIN, readArtifact, ROOT, runCli, settle, tempDir } from '../utils.js'

/**
 * `ingest` over reports recorded from the real tools (test/fixtures/recorded/<variant>/README.md names
 * tool, version and command; scripts/record-junit-fixtures.mjs re-records them). Every generator
 * project (test/fixtures/<producer>-project/) has the same known truth: a test whose counter fails
 * when it is a multiple of 3 (runs 3 and 6 of 6), a same-named test in a second file or class that
 * fails every run, a unicode/`<`/`&` name, a skipped test. Expected counts are worked out by hand
 * from that rule beside each row, never from the code under test.
 */
type Row = [id: string, trials: number, failures: number, verdict: string]

/** The rows of rate.json for the flaky and broken tests, the ones whose identity and counts matter most. */
const concerning = (rows: Row[]) => rows.filter(([, , failures]) => failures > 0)

// mocha-junit-reporter writes absolute paths: the recording's temporary copy of the project.
const shown = (id: string) => id.replace(/^\/tmp\/record-mocha-[^/]+\/project\//, '')

async function ingest(args: string[]) {
  const out = join(tempDir(), 'out')
  const result = await runCli(['ingest', ...args, '--out-dir', out])
  return { result, out }
}

describe('ingest gives the exact per-test counts of each producer’s recorded series', () => {
  it.each<[string, string[], Row[], string[]]>([
    // pytest 9: classname is the module path and class, so test_a's and test_b's TestAlpha::test_same are two tests.
    [
      'pytest',
      ['--junit', 'test/fixtures/recorded/pytest/*.xml'],
      [
        ['tests.test_a.TestAlpha > test_every_third_run', 6, 2, 'flaky'],
        ['tests.test_b.TestAlpha > test_same', 6, 6, 'broken'],
      ],
      ['pytest'],
    ],
    // jest-junit with the recipe's settings: the id Jest's own adapter gives (file > describe > test).
    [
      'jest-junit-recipe',
      ['--junit', 'test/fixtures/recorded/jest-junit-recipe/*.xml'],
      [
        ['a.test.js > Alpha > every third run', 6, 2, 'flaky'],
        ['b.test.js > Alpha > same', 6, 6, 'broken'],
        ['twin-2.test.js > Twin > same', 6, 6, 'broken'],
      ],
      ['jest-junit'],
    ],
    // jest-junit's defaults: no file; Alpha's two `same` are told apart by their siblings (Jest reorders files between runs).
    [
      'jest-junit',
      ['--junit', 'test/fixtures/recorded/jest-junit/*.xml'],
      [
        ['Alpha > Alpha every third run', 6, 2, 'flaky'],
        ['Alpha > Alpha same (beside "Alpha only in b")', 6, 6, 'broken'],
      ],
      ['jest-junit'],
    ],
    // Vitest's junit reporter: classname is the file, names joined by ` > `: Vitest's own ids.
    [
      'vitest',
      ['--junit', 'test/fixtures/recorded/vitest/*.xml'],
      [
        ['a.test.js > Alpha > every third run', 6, 2, 'flaky'],
        ['b.test.js > Alpha > same', 6, 6, 'broken'],
      ],
      ['vitest'],
    ],
    // mocha-junit-reporter: the file is on the suite, the title in classname.
    [
      'mocha',
      ['--junit', 'test/fixtures/recorded/mocha/*.xml'],
      [
        ['test/a.test.cjs > Alpha > every third run', 6, 2, 'flaky'],
        ['test/b.test.cjs > Alpha > same', 6, 6, 'broken'],
      ],
      ['mocha'],
    ],
    // node:test: no file, describes nested; the two files' `Alpha > same` told apart by their siblings.
    [
      'node-test',
      ['--junit', 'test/fixtures/recorded/node-test/*.xml'],
      [
        ['Alpha > every third run', 6, 2, 'flaky'],
        ['Alpha > same (beside "only in b")', 6, 6, 'broken'],
      ],
      ['node-test'],
    ],
    // Playwright, two projects (hostname), --retries 1 with includeRetries: the counter is per project and
    // per attempt: 1 ok, 2 ok, 3 fail + 4 ok, 5 ok, 6 fail + 7 ok, 8 ok → 8 attempts, 2 failed (runs 3 and 5).
    // b's `same` fails both attempts of 6 runs: 12 of 12.
    [
      'playwright',
      ['--junit', 'test/fixtures/recorded/playwright/*.xml'],
      [
        ['[one] a.spec.cjs > Alpha > every third run', 8, 2, 'flaky'],
        ['[two] a.spec.cjs > Alpha > every third run', 8, 2, 'flaky'],
        ['[one] b.spec.cjs > Alpha > same', 12, 12, 'broken'],
        ['[two] b.spec.cjs > Alpha > same', 12, 12, 'broken'],
      ],
      ['playwright'],
    ],
    // Playwright --repeat-each 3, 2 runs: one suite per repetition, attempts of one test; counter 1..6 fails at 3 and 6.
    [
      'playwright-repeat-each',
      ['--junit', 'test/fixtures/recorded/playwright-repeat-each/*.xml'],
      [
        ['[one] a.spec.cjs > Alpha > every third run', 6, 2, 'flaky'],
        ['[one] b.spec.cjs > Alpha > same', 6, 6, 'broken'],
      ],
      ['playwright'],
    ],
    // Surefire, rerunFailingTestsCount=2, a folder per run. everyThirdRun: 1, 2, 3 fail + 4, 5, 6 fail + 7, 8
    // → 8 attempts, 2 failed; its rerun is in a second file (the @Nested class's). Inner.everySecondRun:
    // 1, 2 fail + 3, 4 fail + 5, 6 fail + 7, 8 fail + 9, 10 fail + 11 → 11 attempts, 5 failed. BetaTest.same: 3 × 6.
    [
      'surefire',
      ['--junit', 'test/fixtures/recorded/surefire/run-*'],
      [
        ['example.AlphaTest$Inner > everySecondRun', 11, 5, 'flaky'],
        ['example.AlphaTest > everyThirdRun', 8, 2, 'flaky'],
        ['example.BetaTest > same', 18, 18, 'broken'],
      ],
      ['surefire'],
    ],
    // The same series reached file by file: TEST-<class>.xml files of one folder are one run (not 18 runs of 3 classes).
    [
      'surefire, a glob of its files',
      ['--junit', 'test/fixtures/recorded/surefire/**/TEST-*.xml'],
      [
        ['example.AlphaTest$Inner > everySecondRun', 11, 5, 'flaky'],
        ['example.AlphaTest > everyThirdRun', 8, 2, 'flaky'],
        ['example.BetaTest > same', 18, 18, 'broken'],
      ],
      ['surefire'],
    ],
    // cargo test --no-fail-fast logs: keyed by binary, `#[ignore]` outside the counts.
    [
      'cargo',
      ['--libtest', 'test/fixtures/recorded/cargo/*.log'],
      [
        ['alpha > tests::every_third_run', 6, 2, 'flaky'],
        ['beta > tests::same', 6, 6, 'broken'],
      ],
      ['libtest'],
    ],
    // nextest's documented form (unrecorded: nextest cannot be installed here), one run: flakyFailure then a
    // pass is 2 attempts, 1 failed; failure + 2 rerunFailure is 3 of 3.
    [
      'nextest (documented form)',
      ['--junit', 'test/fixtures/junit/nextest.xml'],
      [
        ['alpha > tests::every_second_run', 2, 1, 'flaky'],
        ['beta > tests::adds', 3, 3, 'broken'],
      ],
      ['nextest'],
    ],
  ])('%s', async (_, args, expected, producers) => {
    const { result, out } = await ingest(args)
    expect(result.code, result.stderr).toBe(0)
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    const rows = (rate.tests ?? []).map((t): Row => [shown(t.id), t.trials, t.failures, t.verdict])
    expect(concerning(rows)).toEqual(expected)
    expect(rate.producers).toEqual(producers)
    // Skipped, xfail, todo and #[ignore] tests are outside the counts: no test of them has a rate.
    expect(rows.filter(([id]) => /not yet|not_yet|skipped|expected_to_fail/.test(id))).toEqual([])
  })

  it('jest-junit’s defaults: two files holding the same tests cannot be told apart; they are left out, named, with the setting that fixes it', async () => {
    const { result, out } = await ingest(['--junit', 'test/fixtures/recorded/jest-junit/*.xml'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr.trim()).toBe(
      `flakeproof Twin > Twin same: 2 tests of this name in one run, in suites that hold the same tests, so no report tells which is which; left out of the counts. set jest-junit's classNameTemplate to "{filepath}" and addFileAttribute to "true" (JEST_JUNIT_CLASSNAME='{filepath}' JEST_JUNIT_ADD_FILE_ATTRIBUTE=true), docs/other-runners.md`,
    )
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect(rate.complete).toBe(false)
    expect(rate.tests?.some((t) => t.id.includes('Twin'))).toBe(false)
  })

  it('Vitest projects running the same files: nothing tells their tests apart, so nothing is counted (exit 2), each named', async () => {
    const { result } = await ingest(['--junit', 'test/fixtures/recorded/vitest-projects/*.xml'])
    expect(result.code).toBe(2)
    const lines = result.stderr.trim().split('\n')
    // a.test.js: same, every third run, the unicode name, not yet, later; b.test.js: same, only in b.
    expect(lines).toHaveLength(8)
    expect(lines[0]).toBe(
      "flakeproof a.test.js > Alpha > same: 2 tests of this name in one run, in suites that hold the same tests, so no report tells which is which; left out of the counts. Vitest's junit reporter names no project: write one report per project (`vitest run --project <name> --outputFile=<file>`), or measure with flakeproof's Vitest plugin, docs/other-runners.md",
    )
    expect(lines.at(-1)).toBe('flakeproof ingest: no test of the 3 reports read could be told apart from another (above); nothing was written. See `flakeproof ingest --help`.')
  })
})

describe('what the report advises after reports from another runner', () => {
  it('a test that fails the first runs, then passes: no fresh-process Vitest command (every run was fresh), pytest’s own; annotations name no file that is not there', async () => {
    const dir = tempDir()
    mkdirSync(join(dir, 'reports'))
    // Recorded pytest reports: run 3 fails test_every_third_run, run 1 passes it. Runs 1–4 fail, 5–12 pass.
    for (let run = 1; run <= 12; run++) copyFileSync(join(ROOT, 'test/fixtures/recorded/pytest', run <= 4 ? 'run-3.xml' : 'run-1.xml'), join(dir, 'reports', `run-${run}.xml`))
    const result = await runCli(['ingest', '--junit', 'reports/*.xml', '--out-dir', 'out'], { cwd: dir })
    expect(result.code, result.stderr).toBe(0)
    const rate = readArtifact(join(dir, 'out', 'rate.json'), RateFileSchema)
    expect(rate.tests?.find((t) => t.id === 'tests.test_a.TestAlpha > test_every_third_run')).toMatchObject({ trials: 12, failures: 4, verdict: 'non-idempotent' })
    const report = readFileSync(join(dir, 'out', 'flaky_report.md'), 'utf8')
    expect(report).not.toContain('npx vitest')
    expect(report).toContain(
      "Each run was a fresh process already, so the state that changed outlives the process (files, a database, a cache, a service): reset it before every run (`-- sh -c '<reset> && <test command>'`), and look at the test alone with its runner: `python3 -m pytest -k test_every_third_run`.",
    )
    // Under GitHub Actions, `report` annotates the flaky and broken tests; their classname is no file here.
    const child = spawn(process.execPath, [BIN, 'report', '--dir', 'out'], { cwd: dir, env: { ...process.env, GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: dir, GITHUB_STEP_SUMMARY: '' }, stdio: ['ignore', 'pipe', 'pipe'] })
    const published = await settle(child)
    expect(published.code, published.stderr).toBe(0)
    const annotations = published.stderr.split('\n').filter((line) => line.startsWith('::'))
    expect(annotations.map((line) => line.split(' ')[0])).toEqual(['::warning', '::error'])
    expect(annotations.some((line) => line.includes('file='))).toBe(false)
  })
})

describe('merge of ingested halves', () => {
  it('adds attempts as trials and runs as rounds: two halves of the Surefire series merge to the counts of the whole', async () => {
    const dir = tempDir()
    for (const [half, runs] of [['a', '[1-3]'], ['b', '[4-6]']] as const) {
      const result = await runCli(['ingest', '--junit', join(ROOT, `test/fixtures/recorded/surefire/run-${runs}`), '--out-dir', half], { cwd: dir })
      expect(result.code, result.stderr).toBe(0)
    }
    const merged = await runCli(['merge', 'a', 'b', '--out', 'm'], { cwd: dir })
    expect(merged.code, merged.stderr).toBe(0)
    const rate = readArtifact(join(dir, 'm', 'rate.json'), RateFileSchema)
    // As the whole series reads (above): 6 rounds, every one failed (BetaTest.same).
    expect(rate).toMatchObject({ trials: 6, failures: 6 })
    expect(concerning((rate.tests ?? []).filter((t) => t.id !== 'example.AlphaTest > notYet').map((t): Row => [t.id, t.trials, t.failures, t.verdict]))).toEqual([
      ['example.AlphaTest$Inner > everySecondRun', 11, 5, 'flaky'],
      ['example.AlphaTest > everyThirdRun', 8, 2, 'flaky'],
      ['example.BetaTest > same', 18, 18, 'broken'],
    ])
  })
})
