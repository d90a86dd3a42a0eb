import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { HistoryRecordSchema } from '../../src/artifacts/history-schemas.js'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import { FLAKY, installedBin, project, stressTest } from '../projects.js'
import { type CliResult, readArtifact, ROOT, runNodeIn } from '../utils.js'

/**
 * A measurement survives everyday runs (issue 19 item 1, docs/contracts.md §11): with flakeproof's
 * reporter in the config, an ordinary `npx vitest run` / `npx jest` writes history only, and leaves
 * every file of the last measurement as it was, byte for byte; a repeat the setup cannot make stops
 * the run before any test, in one line that says how to get it.
 */

const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs')
const JEST = join(ROOT, 'node_modules/jest/bin/jest.js')
// The project's own flakeproof (test/projects.ts), as `npx flakeproof` runs it there.
const BIN = installedBin()

/** Every file of the output folder but history's and the run markers', with its bytes. */
function measurementFiles(dir: string): Record<string, string> {
  const out = join(dir, '.flakeproof')
  return Object.fromEntries(
    readdirSync(out)
      .filter((name) => name !== 'history' && name !== 'running')
      .sort()
      .map((name) => [name, readFileSync(join(out, name), 'base64')]),
  )
}

const historyFiles = (dir: string): string[] => (existsSync(join(dir, '.flakeproof/history')) ? readdirSync(join(dir, '.flakeproof/history')).sort() : [])
/** How many times the fixture's tests were called: a run stopped before any test leaves it as it was. */
const calls = (dir: string): string => readFileSync(join(dir, 'state/marked'), 'utf8')
const shown = (r: CliResult): string => `exit ${r.code}\n${r.stdout}\n${r.stderr}`

const RUNNERS = {
  vitest: {
    files: {
      'package.json': '{ "type": "module" }\n',
      // The README's everyday form beside the plugin: the reporter listed by its package name.
      'vitest.config.mjs':
        "import { flakeproof } from 'flakeproof/vitest'\nexport default { plugins: [flakeproof()], test: { globals: true, include: ['tests/**/*.test.js'], reporters: ['default', 'flakeproof/reporter'] } }\n",
      'vitest.reporter.config.mjs': "export default { test: { globals: true, include: ['tests/**/*.test.js'], reporters: ['default', 'flakeproof/reporter'] } }\n",
      'tests/stress.test.js': stressTest('esm'),
    },
    measure: (dir: string, env: Record<string, string>) => runNodeIn(dir, [VITEST, 'run', '--', '--flaky-repeat', '100', '--flaky-observe', '--flaky-slow-repeat', '5', '--flaky-gap-ms', '1'], env),
    prove: (dir: string, env: Record<string, string>) => runNodeIn(dir, [VITEST, 'run', '--', '--flaky-proof'], env),
    everyday: (dir: string, env: Record<string, string>) => runNodeIn(dir, [VITEST, 'run'], env),
  },
  jest: {
    files: {
      'package.json': '{ "type": "commonjs" }\n',
      'jest.config.js': "module.exports = { testEnvironment: 'node', reporters: ['default', 'flakeproof/jest/reporter'], setupFilesAfterEnv: ['flakeproof/jest/setup'] }\n",
      'jest.reporter.config.js': "module.exports = { testEnvironment: 'node', reporters: ['default', 'flakeproof/jest/reporter'] }\n",
      'tests/stress.test.js': stressTest('cjs'),
    },
    measure: (dir: string, env: Record<string, string>) => runNodeIn(dir, [BIN, 'jest', '--flaky-repeat', '100', '--flaky-observe', '--flaky-slow-repeat', '5', '--flaky-gap-ms', '1'], env),
    prove: (dir: string, env: Record<string, string>) => runNodeIn(dir, [BIN, 'jest', '--flaky-proof'], env),
    everyday: (dir: string, env: Record<string, string>) => runNodeIn(dir, [JEST], env),
  },
}

describe.each(['vitest', 'jest'] as const)('%s: an everyday run after a measurement', { timeout: 180_000 }, (name) => {
  const runner = RUNNERS[name]
  const dir = project(runner.files)
  const marker = join(dir, 'marker')
  const env = { FIXTURE_STATE: join(dir, 'state'), FIXTURE_MARKER: marker }
  let before: Record<string, string>

  beforeAll(async () => {
    writeFileSync(marker, 'fails\n')
    const measured = await runner.measure(dir, env)
    expect(measured.code, shown(measured)).toBe(0)
    const proved = await runner.prove(dir, env)
    // Still under the marker: calls 104, 108… fail, so the proof of the unfixed test fails.
    expect(proved.code, shown(proved)).toBe(1)
    before = measurementFiles(dir)
    // A describe's timeout covers its tests, not its hooks: two runner processes on a loaded machine.
  }, 180_000)

  it('finds the measurement it must keep: 25 of 100, observed, and a proof', () => {
    // Calls 4, 8, …, 100 of the first 100 fail: 25.
    expect(readArtifact(join(dir, '.flakeproof/rate.json'), RateFileSchema).tests?.find((t) => t.id === FLAKY)).toMatchObject({ trials: 100, failures: 25 })
    expect(Object.keys(before)).toEqual(expect.arrayContaining(['facts.jsonl', 'observer.json', 'policy.json', 'proof.json', 'proof_facts.jsonl', 'rate.json', 'report.html', 'summary.json']))
  })

  it('writes history only: every file of the measurement stays byte for byte, history gains one file', async () => {
    const earlier = historyFiles(dir)
    const result = await runner.everyday(dir, env)
    // The marker is still there and call 4k may come: the run's own verdict is the runner's.
    expect([0, 1], shown(result)).toContain(result.code)
    expect(measurementFiles(dir)).toEqual(before)
    const added = historyFiles(dir).filter((f) => !earlier.includes(f))
    expect(added).toHaveLength(1)
    const lines = readFileSync(join(dir, '.flakeproof/history', added[0] as string), 'utf8').trim().split('\n').map((l) => HistoryRecordSchema.parse(JSON.parse(l)))
    expect(lines.map((l) => l.test_id).sort()).toEqual(['tests/stress.test.js > always passes', FLAKY])
  })

  it.each(
    name === 'vitest'
      ? [
          [
            'flags after --',
            ['--config', 'vitest.reporter.config.mjs', '--', '--flaky-repeat', '5'],
            {},
            "flakeproof: --flaky-repeat 5 asks for repetitions, which flakeproof/reporter alone cannot make (it records everyday runs): add the plugin to the config (import flakeproof from 'flakeproof/vitest'; plugins: [flakeproof()]), or run `npx flakeproof vitest --flaky-repeat 5`",
          ],
          ['FLAKEPROOF_REPEAT', ['--config', 'vitest.reporter.config.mjs'], { FLAKEPROOF_REPEAT: '5' }, 'flakeproof: FLAKEPROOF_REPEAT=5 asks for repetitions, which flakeproof/reporter alone cannot make'],
        ]
      : [
          [
            // Jest takes both as test path patterns: with none matching, its own "No tests found" stops it before any reporter.
            'flags after --, with a file to run',
            ['tests/stress.test.js', '--', '--flaky-repeat', '5'],
            {},
            "flakeproof: Jest reads what follows -- as test path patterns, not as flags, so --flaky-repeat 5 would repeat nothing: run `npx flakeproof jest --flaky-repeat 5`",
          ],
          [
            'FLAKEPROOF_REPEAT without flakeproof\'s test runner',
            ['--config', 'jest.reporter.config.js'],
            { FLAKEPROOF_REPEAT: '5' },
            "flakeproof: repetitions need flakeproof's test runner in every Jest project, and this project has none: add testRunner: 'flakeproof/jest/runner' to its config, or run `npx flakeproof jest --flaky-repeat 5`, which sets it",
          ],
        ],
  )('a repeat it cannot make (%s) stops before any test, in one line, and changes nothing', async (_case, args, extra, line) => {
    const [calledBefore, historyBefore] = [calls(dir), historyFiles(dir)]
    const result = await runNodeIn(dir, [name === 'vitest' ? VITEST : JEST, ...args], { ...env, ...extra })
    expect(result.code, shown(result)).toBe(1)
    const ours = `${result.stdout}\n${result.stderr}`.split('\n').filter((l) => l.includes('flakeproof'))
    expect(ours, shown(result)).toEqual([expect.stringContaining(line)])
    expect(calls(dir)).toBe(calledBefore)
    expect(measurementFiles(dir)).toEqual(before)
    expect(historyFiles(dir)).toEqual(historyBefore)
  })
})
