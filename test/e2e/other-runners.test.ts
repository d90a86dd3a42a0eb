import { spawn } from 'node:child_process'
import { copyFileSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PolicyFileSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { TestFactSchema } from '../../src/artifacts/test-schemas.js'
import { type CliResult, ROOT, readArtifact, runCli, settle, tempDir } from '../utils.js'

const rows = (dir: string) => readArtifact(join(dir, 'rate.json'), RateFileSchema).tests?.map((t) => [t.id, t.trials, t.failures, t.verdict])
const facts = (dir: string) =>
  readFileSync(join(dir, 'facts.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => TestFactSchema.parse(JSON.parse(line)))

function runExample(out: string, state: string): Promise<CliResult> {
  const child = spawn('sh', [join(ROOT, 'examples/pytest/measure.sh')], {
    env: { ...process.env, OUT_DIR: out, EXAMPLE_STATE_DIR: state, RUNS: '8' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return settle(child)
}

// Every test has a folder of its own (ingest reads committed fixtures only): they run at once.
describe.concurrent('flakeproof repeat', { timeout: 60_000 }, () => {
  it('measures the pytest example exactly: the every-fourth-run bug fails runs 4 and 8 of 8', async () => {
    const dir = tempDir()
    const out = join(dir, 'out')
    const result = await runExample(out, join(dir, 'state'))
    // Without pytest the example exits 2 saying how to install it; that message is the failure shown here.
    expect(result.code, result.stderr).toBe(0)
    // The pool hands out 1, 2, 3, 0, 1, 2, 3, 0 workers (examples/pytest/batches.py): 0 in runs 4 and 8.
    expect(rows(out)).toEqual([
      ['test_batches > test_split_covers_all_items', 8, 2, 'flaky'],
      ['test_batches > test_split_is_even', 8, 0, 'stable'],
    ])
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    // Wilson 95%, z = 1.96, 2 of 8 (docs/contracts.md §2, Python 3 by hand): [0.0714776888580276, 0.5907301208974108].
    expect(rate.tests?.[0]?.ci_low).toBeCloseTo(0.0714776888580276, 12)
    expect(rate.tests?.[0]?.ci_high).toBeCloseTo(0.5907301208974108, 12)
    // Rounds are runs: runs 4 and 8 failed.
    expect(rate).toMatchObject({ trials: 8, failures: 2, complete: true, requested_trials: 8 })
    const lines = facts(out)
    expect(lines).toHaveLength(16)
    expect(lines.filter((l) => l.outcome === 'failed').map((l) => [l.trial, l.error?.split('\n')[0]])).toEqual([
      [4, 'ZeroDivisionError: integer division or modulo by zero'],
      [8, 'ZeroDivisionError: integer division or modulo by zero'],
    ])
    expect(readArtifact(join(out, 'policy.json'), PolicyFileSchema).tests).toHaveProperty(['test_batches > test_split_covers_all_items'])
    expect(JSON.parse(result.stdout)).toMatchObject({ runs: 8, complete: true })
  }, 300_000) // 8 pytest starts: 67 s on two cores shared with five other engineers

  it('counts a run that wrote no report for no test, says so in one line, and marks the measurement incomplete', async () => {
    const dir = tempDir()
    const report = `<testsuite name="s"><testcase classname="c" name="t"/></testsuite>`
    // After `--`, as the shell split it: the quoted script stays one word, and {run} is substituted in it.
    const script = `if [ {run} -ne 2 ]; then printf '%s' '${report}' > ${dir}/r-{run}.xml; fi`
    const result = await runCli(['repeat', '--runs', '3', '--junit', `${dir}/r-{run}.xml`, '--out-dir', join(dir, 'out'), '--', 'sh', '-c', script])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain(`flakeproof ${dir}/r-2.xml: run 2 wrote no report there (exit code 0); does the command write its report to this path?`)
    expect(rows(join(dir, 'out'))).toEqual([['c > t', 2, 0, 'stable']])
    expect(readArtifact(join(dir, 'out', 'rate.json'), RateFileSchema)).toMatchObject({ complete: false, trials: 2, requested_trials: 3 })
  })

  it('exits 2 when no run left a report, after one line per run saying why', async () => {
    const dir = tempDir()
    const result = await runCli(['repeat', '--runs', '2', '--timeout-ms', '300', '--junit', 'r-{run}.xml', '--out-dir', 'out', '--', 'sleep', '5'], { cwd: dir })
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split('\n')).toEqual([
      'flakeproof r-1.xml: run 1 wrote no report there (timed out); does the command write its report to this path?',
      'flakeproof r-2.xml: run 2 wrote no report there (timed out); does the command write its report to this path?',
      'flakeproof repeat: no report could be read (2 errors, above); nothing was written. See `flakeproof repeat --help`.',
    ])
  })

  it('does not count a report a run left as it was: an old one is not this run’s', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'r-1.xml'), '<testsuite name="s"><testcase classname="c" name="t"/></testsuite>')
    // An hour old: a previous measurement's report, which `true` does not rewrite.
    const hourAgo = new Date(Date.now() - 3_600_000)
    utimesSync(join(dir, 'r-1.xml'), hourAgo, hourAgo)
    const result = await runCli(['repeat', '--runs', '1', '--junit', 'r-{run}.xml', '--out-dir', 'out', '--', 'true'], { cwd: dir })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('flakeproof r-1.xml: run 1 left it as it was, older than the run (exit code 0); not counted')
  })

  it('reads a fixed report path run by run: the old file moved aside first, each run’s kept, a run that wrote none is its own error', async () => {
    const dir = tempDir()
    const report = (name: string) => `<testsuite name="s"><testcase classname="c" name="${name}"/></testsuite>`
    // The user's own report from before: kept, never read as run 1's.
    writeFileSync(join(dir, 'junit.xml'), report('old'))
    // Run 2 writes nothing: its report must not be run 1's left in place.
    const script = `if [ {run} -ne 2 ]; then printf '%s' '${report('t')}' > junit.xml; fi`
    const result = await runCli(['repeat', '--runs', '3', '--junit', 'junit.xml', '--out-dir', 'out', '--', 'sh', '-c', script], { cwd: dir })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr.trim()).toBe('flakeproof junit.xml: run 2 wrote no report there (exit code 0); does the command write its report to this path?')
    expect(rows(join(dir, 'out'))).toEqual([['c > t', 2, 0, 'stable']])
    expect(readFileSync(join(dir, 'out/run-reports/before/junit.xml'), 'utf8')).toBe(report('old'))
    expect(readFileSync(join(dir, 'out/run-reports/run-3/junit.xml'), 'utf8')).toBe(report('t'))
    // The last run's report stays where the runner wrote it, for the user's other tools.
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toBe(report('t'))
  })

  it('reads a folder per run (Surefire writes one file per class): every .xml below it is that run’s', async () => {
    const dir = tempDir()
    const script = `mkdir -p out-{run} && printf '%s' '<testsuite name="A"><testcase classname="A" name="a"/></testsuite>' > out-{run}/TEST-A.xml && printf '%s' '<testsuite name="B"><testcase classname="B" name="b"/></testsuite>' > out-{run}/TEST-B.xml`
    const result = await runCli(['repeat', '--runs', '2', '--junit', 'out-{run}', '--out-dir', 'out', '--', 'sh', '-c', script], { cwd: dir })
    expect(result.code, result.stderr).toBe(0)
    expect(rows(join(dir, 'out'))).toEqual([
      ['A > a', 2, 0, 'stable'],
      ['B > b', 2, 0, 'stable'],
    ])
    expect(readArtifact(join(dir, 'out', 'rate.json'), RateFileSchema)).toMatchObject({ trials: 2, requested_trials: 2 })
  })

  it.each([
    [['--runs', '3', '--junit', 'r.xml', '--jobs', '2', '--', 'true'], 'repeat: --junit "r.xml" is one path for every run, and --jobs 2 runs 2 at once into it; put {run} in both the path and the command, or use --jobs 1'],
    [['--runs', '3', '--junit', 'r-{run}.xml', '--libtest', 'l-{run}.log', '--', 'true'], 'repeat: pass exactly one of --junit, --libtest (got 2)'],
    [['--runs', '3', '--junit', 'r-{run}.xml'], 'repeat: give the command to repeat after `--`'],
    [['--runs', '3', '--junit', 'r-{run}.xml', '--cmd', 'true', '--', 'true'], 'repeat: give the command once: after `--` or in --cmd, not both'],
  ])('refuses %j in one line, before any run', async (args, message) => {
    const result = await runCli(['repeat', ...args], { cwd: tempDir() })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`flakeproof ${message}`)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
  })
})

describe.concurrent('flakeproof ingest', { timeout: 60_000 }, () => {
  it('gives exact per-test rates from recorded cargo test logs: keyed by binary, doc-tests by crate, partial when unseen', async () => {
    const out = join(tempDir(), 'out')
    const result = await runCli(['ingest', '--libtest', 'test/fixtures/libtest/*.log', '--out-dir', out])
    expect(result.code, result.stderr).toBe(0)
    // Runs 1-3: `cargo test --workspace`; run 4: `-p alpha` only. alpha's counter test fails every 2nd run (2, 4).
    expect(rows(out)).toEqual([
      ['alpha > tests::every_second_run', 4, 2, 'flaky'],
      ['beta (doc-tests) > beta/src/lib.rs - add (line 10)', 3, 0, 'partial'],
      ['beta (doc-tests) > beta/src/lib.rs - double (line 3)', 3, 0, 'partial'],
      ['beta > tests::adds', 3, 0, 'partial'],
      ['alpha (doc-tests) > alpha/src/lib.rs - add (line 3)', 4, 0, 'stable'],
      ['alpha > tests::adds', 4, 0, 'stable'],
      ['api > api_adds', 4, 0, 'stable'],
    ])
    expect(facts(out).filter((l) => l.outcome === 'failed').map((l) => [l.trial, l.worker])).toEqual([
      [2, 'test/fixtures/libtest/run-02.log'],
      [4, 'test/fixtures/libtest/run-04.log'],
    ])
  })

  it('gives exact per-test rates from the eight JUnit reports the pytest example recorded', async () => {
    const out = join(tempDir(), 'out')
    const result = await runCli(['ingest', '--junit', 'test/fixtures/junit-runs/pytest/*.xml', '--out-dir', out])
    expect(result.code, result.stderr).toBe(0)
    // Recorded by examples/pytest/measure.sh (README "Other runners"): runs 4 and 8 hit 0 free workers.
    expect(rows(out)).toEqual([
      ['test_batches > test_split_covers_all_items', 8, 2, 'flaky'],
      ['test_batches > test_split_is_even', 8, 0, 'stable'],
    ])
    expect(readArtifact(join(out, 'rate.json'), RateFileSchema)).toMatchObject({ trials: 8, failures: 2, complete: true, reports: 'junit' })
    expect(facts(out).filter((l) => l.outcome === 'failed').map((l) => l.trial)).toEqual([4, 8])
  })

  it('counts every readable JUnit report, names a malformed one by file and line, and marks the run incomplete', async () => {
    const dir = tempDir()
    const reports = join(dir, 'reports', 'nested')
    mkdirSync(reports, { recursive: true })
    for (const name of ['pytest.xml', 'vitest.xml', 'nextest.xml']) copyFileSync(join(ROOT, 'test/fixtures/junit', name), join(reports, name))
    copyFileSync(join(ROOT, 'test/fixtures/junit-malformed/unclosed.xml'), join(reports, 'unclosed.xml'))
    writeFileSync(join(dir, 'reports', 'run-2.xml'), readFileSync(join(ROOT, 'test/fixtures/junit/vitest.xml'), 'utf8').replace('<failure', '<skipped/><!--').replace('</failure>', '-->'))
    const out = join(dir, 'out')
    const result = await runCli(['ingest', '--junit', 'reports/**/*.xml', '--out-dir', out], { cwd: dir })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr.trim()).toBe('flakeproof reports/nested/unclosed.xml:5:14: Unexpected close tag')
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect(rate).toMatchObject({ complete: false, trials: 4, run_errors: [{ project: null, file: 'reports/nested/unclosed.xml', error: 'reports/nested/unclosed.xml:5:14: Unexpected close tag' }] })
    // 4 reports read; each test is in 1 of them (partial); Vitest's `adds items` is in 2, and its `rounds` is skipped in run-2.xml.
    // nextest's attempts are trials: failure + 2 rerunFailure is 3 of 3, flakyFailure then a pass 1 of 2.
    expect(rows(out)).toEqual([
      ['beta > tests::adds', 3, 3, 'partial'],
      ['alpha > tests::every_second_run', 2, 1, 'partial'],
      ['cart.test.ts > cart > totals > rounds every other run', 1, 1, 'partial'],
      ['test_batches > test_split_covers_all_items', 1, 1, 'partial'],
      ['alpha > tests::adds', 1, 0, 'partial'],
      ['cart.test.ts > cart > adds items', 2, 0, 'partial'],
      ['test_batches > test_split_is_even', 1, 0, 'partial'],
    ])
  })

  it.each([
    [['--junit', 'x/*.xml', '--libtest', 'y/*.log'], 'ingest: pass exactly one of --junit, --libtest (got 2)'],
    [['--junit', 'nothing/*.xml'], 'ingest: --junit "nothing/*.xml" matches no file'],
  ])('refuses %j in one line', async (args, message) => {
    const result = await runCli(['ingest', ...args], { cwd: tempDir() })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`flakeproof ${message}`)
  })
})
