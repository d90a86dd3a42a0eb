import { spawn } from 'node:child_process'
import { existsSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import { stripAnsi } from '../../src/core/ansi.js'
import { installedBin, project } from '../projects.js'
import { childEnv, type CliResult, readArtifact, ROOT, runNodeIn, settle, tempDir, waitFor } from '../utils.js'

/**
 * `flakeproof vitest` and `flakeproof jest` run Vitest and Jest from their APIs, in flakeproof's
 * process: what each runner's own CLI does before that (its environment, its reading of the
 * arguments) must be done by the wrapper too, or the tests it measures are not the ones `vitest run`
 * and `jest` run, nor run as they do. Each test here passes under the runner's own CLI, and a wrapper
 * that skipped that step counted it broken (NODE_ENV was 'development' under Vitest, unset under
 * Jest), ran tests it was not asked for (`--exclude` replaced Vitest's node_modules exclusion) or
 * measured other tests than the ones asked for (`--typecheck.only` ran the runtime tests), called a
 * run `--bail` cut short complete (Jest's), or never
 * ended where the runner ends it (`jest --forceExit`, `vitest run` after its teardownTimeout).
 */
const ENV_TEST = [
  "import { expect, test } from 'vitest'",
  '',
  "test('sees what vitest run gives its tests', () => {",
  "  expect([process.env.NODE_ENV, process.env.TEST, process.env.VITEST, process.env.CONFIG_SAW]).toEqual(['test', 'true', 'true', 'test true'])",
  '})',
  "test('is chosen by its line', () => {})",
  '',
].join('\n')
/** Line 6 of ENV_TEST. */
const BY_LINE = 'tests/env.test.ts:6'

const dir = project({
  // What the config saw as it loaded, handed to the tests.
  'vitest.config.ts': "import { defineConfig } from 'vitest/config'\nexport default defineConfig({ test: { env: { CONFIG_SAW: `${process.env.NODE_ENV} ${process.env.VITEST}` } } })\n",
  'broken.config.ts': "throw new Error('this config refuses to load')\n",
  'unparsable.config.ts': 'export default {\n  test: { include: [ }\n}\n',
  'tests/env.test.ts': ENV_TEST,
  'tests/excluded.test.ts': "import { test } from 'vitest'\ntest('is left out by --exclude', () => { throw new Error('--exclude did not leave this file out') })\n",
  'tests/types.test-d.ts': "import { expectTypeOf, test } from 'vitest'\ntest('a type test', () => { expectTypeOf(1).toEqualTypeOf<number>() })\n",
  'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'esnext', moduleResolution: 'bundler', target: 'es2022', skipLibCheck: true }, include: ['tests/*.test-d.ts'] }),
  // A global setup that leaves a server listening: `vitest run` warns and exits after teardownTimeout.
  'hanging.config.ts': "import { defineConfig } from 'vitest/config'\nexport default defineConfig({ test: { include: ['hang/*.check.ts'], globalSetup: ['./hang/setup.js'], teardownTimeout: 500 } })\n",
  'hang/setup.js': "import { createServer } from 'node:http'\nexport default function () {\n  createServer().listen(0)\n}\n",
  'hang/a.check.ts': "import { test } from 'vitest'\ntest('runs beside a server left open', () => {})\n",
  // --bail: a test failing its second call, in the file that runs first (by name for Vitest, the largest for Jest), and one the run never reaches.
  'bail.config.ts': [
    "import { defineConfig } from 'vitest/config'",
    "import { BaseSequencer, type TestSpecification } from 'vitest/node'",
    'class ByName extends BaseSequencer {',
    '  async sort(files: TestSpecification[]) {',
    '    return [...files].sort((a, b) => a.moduleId.localeCompare(b.moduleId))',
    '  }',
    '}',
    "export default defineConfig({ test: { include: ['bail/*.check.ts'], sequence: { sequencer: ByName }, fileParallelism: false } })",
    '',
  ].join('\n'),
  'bail/a.check.ts': "import { test } from 'vitest'\nlet calls = 0\ntest('fails its second call', () => {\n  if (++calls === 2) throw new Error('second call')\n})\n",
  'bail/b.check.ts': "import { test } from 'vitest'\ntest('is never reached', () => {})\n",
  'jest.bail.cjs': "module.exports = { testMatch: ['<rootDir>/bail/*.check.js'], testEnvironment: 'node' }\n",
  'jest.broken.cjs': "throw new Error('this config refuses to load')\n",
  'jest.watch.cjs': "module.exports = { testMatch: ['<rootDir>/jest/env.check.js'], testEnvironment: 'node', watchAll: true }\n",
  'bail/a.check.js': `// Jest runs the largest file first when it has no timings.${' '.repeat(400)}\nlet calls = 0\ntest('fails its second call', () => {\n  if (++calls === 2) throw new Error('second call')\n})\n`,
  'bail/b.check.js': "test('is never reached', () => {})\n",
  // A dependency's own test file: Vitest's default excludes keep it out of every run.
  'node_modules/a-dependency/own.test.js': "import { test } from 'vitest'\ntest('a dependency test', () => { throw new Error('a test under node_modules ran') })\n",
  // Jest's project: its config reads NODE_ENV as it loads, its test when it runs (named so Vitest's default include leaves it out).
  'jest.config.cjs': "module.exports = { testMatch: ['<rootDir>/jest/*.check.js'], testEnvironment: 'node', globals: { CONFIG_SAW: String(process.env.NODE_ENV) } }\n",
  'jest/env.check.js': "test('sees what jest gives its tests', () => {\n  expect([process.env.NODE_ENV, CONFIG_SAW]).toEqual(['test', 'test'])\n})\n",
  // In band, a timer left running keeps the process alive after the run: `jest --forceExit` ends it.
  'jest/leaves-a-timer.check.js': "test('leaves a timer running', () => {\n  setInterval(() => {}, 1000)\n})\n",
})
symlinkSync(join(ROOT, 'node_modules/typescript'), join(dir, 'node_modules/typescript'))

const RUN_TIMEOUT = 120_000
/** `flakeproof <runner> <args>`, killed if it has not ended in a minute: a process that never ends is the failure, said as such. */
async function ended(runner: 'vitest' | 'jest', args: string[]): Promise<CliResult> {
  const child = spawn(process.execPath, [installedBin(), runner, ...args], { cwd: dir, env: { ...childEnv(), CI: 'true', NO_COLOR: '1' } })
  const hung = setTimeout(() => child.kill('SIGKILL'), 60_000)
  const result = await settle(child)
  clearTimeout(hung)
  return result
}
const vitest = (args: string[]): Promise<CliResult> => runNodeIn(dir, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', ...args])
const wrapped = (runner: 'vitest' | 'jest', args: string[]): Promise<CliResult> => runNodeIn(dir, [installedBin(), runner, ...args])
/** `flakeproof vitest --flaky-repeat 2 <args>` into a folder of its own: each test's [trials, failures, verdict]. */
async function measured(runner: 'vitest' | 'jest', args: string[]): Promise<{ result: CliResult; counts: Record<string, unknown> }> {
  const out = tempDir()
  const result = await wrapped(runner, ['--flaky-repeat', '2', '--flaky-out', out, '--flaky-out-anywhere', ...args])
  expect(result.code, result.stdout + result.stderr).toBe(0)
  const counts = Object.fromEntries((readArtifact(join(out, 'rate.json'), RateFileSchema).tests ?? []).map((t) => [t.id, [t.trials, t.failures, t.verdict]]))
  return { result, counts }
}

describe.concurrent('flakeproof vitest runs what `vitest run` runs, as it runs it', { timeout: RUN_TIMEOUT }, () => {
  it('gives the config and the tests the environment `vitest run` gives, and adds --exclude to the default excludes', async () => {
    const [native, { counts }] = await Promise.all([vitest(['--exclude', 'tests/excluded.test.ts']), measured('vitest', ['--exclude', 'tests/excluded.test.ts'])])
    expect(native.code, native.stdout + native.stderr).toBe(0)
    expect(counts).toEqual({
      'tests/env.test.ts > sees what vitest run gives its tests': [2, 0, 'stable'],
      'tests/env.test.ts > is chosen by its line': [2, 0, 'stable'],
    })
  })

  it('measures the one test a file:line filter names', async () => {
    const { counts } = await measured('vitest', [BY_LINE])
    expect(counts).toEqual({ 'tests/env.test.ts > is chosen by its line': [2, 0, 'stable'] })
  })

  it('runs the type tests alone under --typecheck.only', async () => {
    const { counts } = await measured('vitest', ['--typecheck.only'])
    // Typecheck is not repeated: each type test runs once.
    expect(counts).toEqual({ '[typecheck] tests/types.test-d.ts > a type test': [1, 0, 'stable'] })
  })

  it('ends the process after teardownTimeout, with a warning, when a global setup left a server open', async () => {
    const out = tempDir()
    const result = await ended('vitest', ['--flaky-repeat', '2', '--flaky-out', out, '--flaky-out-anywhere', '--config', 'hanging.config.ts'])
    expect(result.code, result.stdout + result.stderr).toBe(0)
    expect(result.stderr).toContain("the process was still running 500 ms after the run (Vitest's teardownTimeout)")
    expect(readArtifact(join(out, 'rate.json'), RateFileSchema).tests?.map((t) => [t.id, t.trials, t.failures])).toEqual([['hang/a.check.ts > runs beside a server left open', 2, 0]])
  })

  it('says the run ended early under --bail, and calls it incomplete', async () => {
    const out = tempDir()
    const result = await wrapped('vitest', ['--flaky-repeat', '3', '--flaky-out', out, '--flaky-out-anywhere', '--config', 'bail.config.ts', '--bail', '1'])
    // Vitest's code for a run its bail ended.
    expect(result.code).toBe(1)
    expect(result.stdout + result.stderr).toContain('the run ended before every test ran (a --bail, or it was stopped)')
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect({ complete: rate.complete, ids: rate.tests?.map((t) => t.id) }).toEqual({ complete: false, ids: ['bail/a.check.ts > fails its second call'] })
  })

  it('stops where `vitest run` stops for a package it lacks, with Vitest\'s line and no stack', async () => {
    const out = tempDir()
    // istanbul's provider: the repository installs v8's (test/e2e/vitest-evidence.test.ts measures with coverage).
    const result = await wrapped('vitest', ['--flaky-repeat', '2', '--flaky-out', out, '--flaky-out-anywhere', '--coverage.enabled', '--coverage.provider=istanbul'])
    expect(result.code).toBe(1)
    expect(stripAnsi(result.stderr)).toMatch(/MISSING DEPENDENCY\s+Cannot find dependency '@vitest\/coverage-istanbul'/)
    // flakeproof's own line: nothing was measured, and nothing written.
    expect(stripAnsi(result.stderr)).toContain(`[flakeproof] no test ran: Vitest stopped before the first (its coverage provider @vitest/coverage-istanbul is not installed); the files in ${out} were left as they were`)
    expect(result.stdout + result.stderr).not.toMatch(/^\s+at |❯ /m)
    expect(existsSync(join(out, 'rate.json'))).toBe(false)
  })

  it.each([
    [['--watch'], '--watch: flakeproof vitest runs the tests once, as `vitest run`; leave it out'],
    [['--config', 'broken.config.ts'], 'Vitest did not start: this config refuses to load'],
    // Where and why, not only "Build failed with 1 error:".
    [['--config', 'unparsable.config.ts'], 'unparsable.config.ts:2'],
  ])('refuses %j in a line, no stack, before any test runs', async (args, message) => {
    const result = await wrapped('vitest', ['--flaky-repeat', '2', ...args])
    expect(result.code).toBe(2)
    // Vite names the config it failed to load on a line of its own first, as under `vitest run`.
    expect(result.stderr.trim().split('\n').at(-1)).toContain(message)
    expect(result.stderr).not.toMatch(/^\s+at /m)
    expect(result.stdout).not.toMatch(/Test Files/)
  })
})

describe('flakeproof jest runs the tests as `jest` does', { timeout: RUN_TIMEOUT }, () => {
  let native: CliResult
  beforeAll(async () => {
    native = await runNodeIn(dir, [join(ROOT, 'node_modules/jest/bin/jest.js'), '--config', 'jest.config.cjs', 'jest/env.check.js'])
  }, RUN_TIMEOUT)

  it('gives the config and the tests NODE_ENV=test, as Jest’s own bin does', async () => {
    expect(native.code, native.stdout + native.stderr).toBe(0)
    const { counts } = await measured('jest', ['--config', 'jest.config.cjs', 'jest/env.check.js'])
    expect(counts).toEqual({ 'jest/env.check.js > sees what jest gives its tests': [2, 0, 'stable'] })
  })

  it('says the run ended early under --bail (Jest ends the process there), and calls it incomplete', async () => {
    const out = tempDir()
    const result = await wrapped('jest', ['--flaky-repeat', '3', '--flaky-out', out, '--flaky-out-anywhere', '--config', 'jest.bail.cjs', '--runInBand', '--bail'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('the run ended before every test ran (a --bail, or it was stopped)')
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect({ complete: rate.complete, tests: rate.tests?.map((t) => [t.id, t.trials, t.failures]) }).toEqual({ complete: false, tests: [['bail/a.check.js > fails its second call', 3, 1]] })
  })

  it.each([
    [['--config', 'jest.config.cjs', '--watchAll'], '--watchAll: flakeproof jest runs the tests once'],
    [['--config', 'jest.config.cjs', '--listTests'], '--listTests: listing the test files runs no test'],
    // Where `jest` prints a stack.
    [['--config', 'jest.broken.cjs'], 'Jest did not start: this config refuses to load'],
  ])('refuses %j in one line before any test runs', async (args, message) => {
    const result = await wrapped('jest', ['--flaky-repeat', '2', ...args])
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining(message)])
    expect(result.stdout + result.stderr).not.toMatch(/^Tests:/m)
  })

  it('refuses watchAll in the config before its first test', async () => {
    const result = await ended('jest', ['--flaky-repeat', '2', '--config', 'jest.watch.cjs'])
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining('watchAll: true in the Jest config: flakeproof jest runs the tests once')])
  })

  it('ends the process under --forceExit once its files are written, whatever the tests left running', async () => {
    const out = tempDir()
    const result = await ended('jest', ['--flaky-repeat', '2', '--flaky-out', out, '--flaky-out-anywhere', '--config', 'jest.config.cjs', '--runInBand', '--forceExit'])
    expect(result.code, result.stdout + result.stderr).toBe(0)
    expect(readArtifact(join(out, 'rate.json'), RateFileSchema).tests?.map((t) => [t.id, t.trials, t.failures])).toEqual([
      ['jest/env.check.js > sees what jest gives its tests', 2, 0],
      ['jest/leaves-a-timer.check.js > leaves a timer running', 2, 0],
    ])
  })

  it('says, as `jest` does, that something keeps the process open, and waits on without --forceExit', async () => {
    const out = tempDir()
    const child = spawn(process.execPath, [installedBin(), 'jest', '--flaky-repeat', '2', '--flaky-out', out, '--flaky-out-anywhere', '--config', 'jest.config.cjs', '--runInBand', '--openHandlesTimeout', '300'], {
      cwd: dir,
      env: { ...childEnv(), CI: 'true', NO_COLOR: '1' },
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const ended = new Promise<number | null>((done) => child.on('close', done))
    try {
      await waitFor('the warning', () => stderr.includes('the process is still running 300 ms after the run, as `jest` would say'))
      // Its files were written before: what it waits on is the test's timer, not flakeproof.
      expect(readArtifact(join(out, 'rate.json'), RateFileSchema).tests).toHaveLength(2)
    } finally {
      child.kill('SIGKILL')
      await ended
    }
  })
})
