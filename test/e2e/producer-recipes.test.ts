import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import { readArtifact, ROOT, runCli, tempDir } from '../utils.js'

/**
 * Each recipe of docs/other-runners.md, run once with the real tool through `flakeproof repeat`
 * (3 runs), as a new user would: the generator project (test/fixtures/<producer>-project/) in a
 * fresh folder, its counter test failing when its counter is a multiple of 3, so exactly in run 3,
 * and a same-named test in a second file or class failing every run. Every other case is checked on
 * the recordings (test/e2e/producers.test.ts); here each tool costs one test. A tool that is missing
 * fails its test saying what installs it: nothing is skipped. The tools run at once
 * (describe.concurrent: each in its own copy, with its own counters, nothing timed), the slowest
 * first, so the file costs about its slowest tool, not the sum.
 */
type Row = [id: string, trials: number, failures: number, verdict: string]

const bin = (path: string) => join(ROOT, 'node_modules', path)

/** A copy of the generator project, with the repository's node_modules, and a fresh counter folder. */
function project(name: string): { dir: string; state: string } {
  const root = tempDir()
  const dir = join(root, 'project')
  cpSync(join(ROOT, 'test/fixtures', `${name}-project`), dir, { recursive: true })
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  const state = join(root, 'state')
  mkdirSync(state)
  return { dir, state }
}

/** Fails, naming what installs the tool, when it is not there (without blocking the other tools' runs). */
async function requireTool(command: string, args: string[], install: string): Promise<void> {
  try {
    await promisify(execFile)(command, args, { encoding: 'utf8' })
  } catch (error) {
    const { message, stderr } = error as Error & { stderr?: string }
    throw new Error(`${command} ${args.join(' ')} failed (${stderr?.trim() || message}): ${install}`)
  }
}

async function repeat(dir: string, args: string[]) {
  const result = await runCli(['repeat', '--runs', '3', ...args], { cwd: dir })
  const rate = result.code === 0 ? readArtifact(join(dir, '.flakeproof', 'rate.json'), RateFileSchema) : undefined
  const rows = (rate?.tests ?? []).filter((t) => t.failures > 0).map((t): Row => [t.id, t.trials, t.failures, t.verdict])
  return { result, rate, rows }
}

describe.concurrent('each producer’s recipe, run with the real tool', () => {
  it('@playwright/test 1.65, two projects, --retries 1 with PLAYWRIGHT_JUNIT_INCLUDE_RETRIES=1: attempts counted, projects apart', async () => {
    const { dir, state } = project('playwright')
    const env = ['env', `FLAKE_STATE=${state}`, 'PLAYWRIGHT_JUNIT_OUTPUT_NAME=r-{run}.xml', 'PLAYWRIGHT_JUNIT_INCLUDE_RETRIES=1', `PLAYWRIGHT_OUTPUT_DIR=${join(state, 'results')}`]
    const { result, rows } = await repeat(dir, ['--junit', 'r-{run}.xml', '--', ...env, 'node', bin('@playwright/test/cli.js'), 'test', '--retries', '1'])
    expect(result.code, result.stderr).toBe(0)
    // Per project, per attempt: 1 ok, 2 ok, 3 fails and its retry 4 passes → 4 attempts, 1 failed. b's `same`: 2 attempts × 3 runs.
    expect(rows).toEqual([
      ['[one] a.spec.cjs > Alpha > every third run', 4, 1, 'flaky'],
      ['[two] a.spec.cjs > Alpha > every third run', 4, 1, 'flaky'],
      ['[one] b.spec.cjs > Alpha > same', 6, 6, 'broken'],
      ['[two] b.spec.cjs > Alpha > same', 6, 6, 'broken'],
    ])
  }, 240_000)

  it('Maven Surefire 3.2.5 offline, rerunFailingTestsCount=2, target/surefire-reports as one folder per run', async () => {
    await requireTool('mvn', ['-o', '-q', '--version'], '.ci/run needs Maven with Surefire 3.2.5 and JUnit Jupiter 5.10.2 in ~/.m2 (Debian: apt-get install -y maven)')
    const { dir, state } = project('surefire')
    // Maven's JVM and Surefire's forked one stop at the first JIT tier, with the serial collector: what
    // the recipe runs is unchanged, and three short runs cost about half the CPU (6.4 → 2.8 s user each).
    const jvm = `JAVA_TOOL_OPTIONS=-XX:TieredStopAtLevel=1 -XX:+UseSerialGC`
    const { result, rows } = await repeat(dir, ['--junit', 'target/surefire-reports', '--', 'env', `FLAKE_STATE=${state}`, jvm, 'mvn', '-o', '-q', 'test', '-Dsurefire.rerunFailingTestsCount=2'])
    expect(result.code, result.stderr).toBe(0)
    // everyThirdRun: 1, 2, then 3 fails and its rerun 4 passes → 4 attempts, 1 failed (its rerun is in the
    // @Nested class's file). Inner.everySecondRun: 1, then 2 fails + 3, then 4 fails + 5 → 5 attempts, 2 failed.
    expect(rows).toEqual([
      ['example.AlphaTest$Inner > everySecondRun', 5, 2, 'flaky'],
      ['example.AlphaTest > everyThirdRun', 4, 1, 'flaky'],
      ['example.BetaTest > same', 9, 9, 'broken'],
    ])
  }, 300_000)

  it('pytest 9: exact as it is', async () => {
    const { dir, state } = project('pytest')
    const { result, rows } = await repeat(dir, ['--junit', 'r-{run}.xml', '--', 'env', `FLAKE_STATE=${state}`, 'python3', '-m', 'pytest', '-p', 'no:cacheprovider', '--junitxml=r-{run}.xml'])
    expect(result.code, result.stderr).toBe(0)
    expect(rows).toEqual([
      ['tests.test_a.TestAlpha > test_every_third_run', 3, 1, 'flaky'],
      ['tests.test_b.TestAlpha > test_same', 3, 3, 'broken'],
    ])
  }, 120_000)

  it('pytest-rerunfailures: --reruns hides failed attempts and repeat says so; -p no:rerunfailures is exact', async () => {
    await requireTool('/usr/bin/python3', ['-c', 'import pytest_rerunfailures'], ".ci/run installs Debian's python3-pytest-rerunfailures for the system python3 (apt-get install -y python3-pytest-rerunfailures)")
    const [first, fresh] = [project('pytest'), project('pytest')]
    const [hidden, exact] = await Promise.all([
      repeat(first.dir, ['--junit', 'r-{run}.xml', '--', 'env', `FLAKE_STATE=${first.state}`, '/usr/bin/python3', '-m', 'pytest', '-p', 'no:cacheprovider', '--reruns', '2', '--junitxml=r-{run}.xml']),
      repeat(fresh.dir, ['--junit', 'r-{run}.xml', '--', 'env', `FLAKE_STATE=${fresh.state}`, '/usr/bin/python3', '-m', 'pytest', '-p', 'no:cacheprovider', '-p', 'no:rerunfailures', '--junitxml=r-{run}.xml']),
    ])
    expect(hidden.result.code, hidden.result.stderr).toBe(0)
    expect(hidden.result.stderr.trim()).toBe(
      'flakeproof pytest-rerunfailures (--reruns) leaves the failed attempts out of the JUnit report: a test that passed on a rerun reads as passed, so failures are undercounted; measure without it (-p no:rerunfailures); these counts are of last attempts only',
    )
    expect(hidden.rate?.complete).toBe(false)
    // Run 3 failed, then passed its rerun: the report says passed.
    expect(hidden.rows).toEqual([['tests.test_b.TestAlpha > test_same', 3, 3, 'broken']])
    expect(exact.result.code, exact.result.stderr).toBe(0)
    expect(exact.rows).toEqual([
      ['tests.test_a.TestAlpha > test_every_third_run', 3, 1, 'flaky'],
      ['tests.test_b.TestAlpha > test_same', 3, 3, 'broken'],
    ])
  }, 120_000)

  it('Jest 30 + jest-junit 17 with the recipe’s settings, its default junit.xml as a fixed path: Jest’s own ids', async () => {
    const { dir, state } = project('jest')
    const env = ['env', `FLAKE_STATE=${state}`, 'JEST_JUNIT_CLASSNAME={filepath}', 'JEST_JUNIT_ADD_FILE_ATTRIBUTE=true', 'JEST_JUNIT_ANCESTOR_SEPARATOR= › ', 'JEST_JUNIT_TITLE={classname} › {title}']
    const { result, rows } = await repeat(dir, ['--junit', 'junit.xml', '--', ...env, 'node', bin('jest/bin/jest.js'), '--ci'])
    expect(result.code, result.stderr).toBe(0)
    expect(rows).toEqual([
      ['a.test.js > Alpha > every third run', 3, 1, 'flaky'],
      ['b.test.js > Alpha > same', 3, 3, 'broken'],
      ['twin-2.test.js > Twin > same', 3, 3, 'broken'],
    ])
  }, 180_000)

  it('Vitest’s junit reporter, outputFile as a fixed path: Vitest’s own ids', async () => {
    const { dir, state } = project('vitest-junit')
    const { result, rows } = await repeat(dir, ['--junit', 'junit.xml', '--', 'env', `FLAKE_STATE=${state}`, 'node', bin('vitest/vitest.mjs'), 'run', '--reporter=junit', '--outputFile=junit.xml'])
    expect(result.code, result.stderr).toBe(0)
    expect(rows).toEqual([
      ['a.test.js > Alpha > every third run', 3, 1, 'flaky'],
      ['b.test.js > Alpha > same', 3, 3, 'broken'],
    ])
  }, 180_000)

  it('mocha 11 + mocha-junit-reporter: the file from the suite, relative to the project', async () => {
    const { dir, state } = project('mocha')
    const { result, rows } = await repeat(dir, ['--junit', 'r-{run}.xml', '--', 'env', `FLAKE_STATE=${state}`, 'MOCHA_FILE=r-{run}.xml', 'node', bin('mocha/bin/mocha.js')])
    expect(result.code, result.stderr).toBe(0)
    expect(rows).toEqual([
      ['test/a.test.cjs > Alpha > every third run', 3, 1, 'flaky'],
      ['test/b.test.cjs > Alpha > same', 3, 3, 'broken'],
    ])
  }, 120_000)

  it('node --test --test-reporter=junit: describes nested, the two files’ `same` told apart by their siblings', async () => {
    const { dir, state } = project('node-test')
    const { result, rows } = await repeat(dir, ['--junit', 'r-{run}.xml', '--', 'env', `FLAKE_STATE=${state}`, 'node', '--test', '--test-reporter=junit', '--test-reporter-destination=r-{run}.xml', 'a.test.cjs', 'b.test.cjs'])
    expect(result.code, result.stderr).toBe(0)
    expect(rows).toEqual([
      ['Alpha > every third run', 3, 1, 'flaky'],
      ['Alpha > same (beside "only in b")', 3, 3, 'broken'],
    ])
  }, 120_000)

  it('cargo test --no-fail-fast (std only, offline): the log of each run, keyed by binary, #[ignore] outside the counts', async () => {
    await requireTool('cargo', ['--version'], '.ci/run needs cargo (Debian: apt-get install -y cargo)')
    const { dir, state } = project('cargo')
    const target = join(state, 'target')
    const command = `FLAKE_STATE=${state} CARGO_TARGET_DIR=${target} cargo test --offline --workspace --no-fail-fast > r-{run}.log 2>&1`
    const { result, rows } = await repeat(dir, ['--libtest', 'r-{run}.log', '--', 'sh', '-c', command])
    expect(result.code, result.stderr).toBe(0)
    expect(rows).toEqual([
      ['alpha > tests::every_third_run', 3, 1, 'flaky'],
      ['beta > tests::same', 3, 3, 'broken'],
    ])
  }, 300_000)
})
