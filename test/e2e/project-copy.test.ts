import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import { FLAKY, project, stressTest } from '../projects.js'
import { BIN, readArtifact, runNodeIn } from '../utils.js'

/**
 * A flakeproof CLI that is not the project's (a global install, another checkout; here the
 * repository's own build) in a project that installed flakeproof and names it in its config: the
 * project's copy runs (src/cli/project-copy.ts), as jest and eslint hand over to a project's own.
 * Before, `flakeproof jest` took the project's runner for the user's own and wrapped it, a runner
 * wrapping itself until the stack overflowed, and added its reporter beside the project's.
 */
const RUNNERS = {
  jest: {
    'package.json': '{ "type": "commonjs" }\n',
    'jest.config.js': "module.exports = { testEnvironment: 'node', testRunner: 'flakeproof/jest/runner', reporters: ['default', 'flakeproof/jest/reporter'], setupFilesAfterEnv: ['flakeproof/jest/setup'] }\n",
    'tests/stress.test.js': stressTest('cjs'),
  },
  vitest: {
    'package.json': '{ "type": "module" }\n',
    'vitest.config.mjs': "import { flakeproof } from 'flakeproof/vitest'\nexport default { plugins: [flakeproof()], test: { globals: true, include: ['tests/**/*.test.js'], reporters: ['default', 'flakeproof/reporter'] } }\n",
    'tests/stress.test.js': stressTest('esm'),
  },
}

describe.concurrent.each(['jest', 'vitest'] as const)('another copy’s `flakeproof %s` in a project with its own flakeproof in the config', (name) => {
  it('runs the project’s copy: one reporter, one recording per repetition, the exact counts', async () => {
    const dir = project(RUNNERS[name])
    const marker = join(dir, 'marker')
    writeFileSync(marker, 'fails\n')
    const result = await runNodeIn(dir, [BIN, name, '--flaky-repeat', '8', '--flaky-out', 'out'], { FIXTURE_STATE: join(dir, 'state'), FIXTURE_MARKER: marker })
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0)
    // One end-of-run block, from one reporter.
    expect(`${result.stdout}${result.stderr}`.match(/ flakeproof \d+ test\(s\)/g)).toEqual([' flakeproof 2 test(s)'])
    // Calls 4 and 8 of the marked test fail while the marker exists: 2 of 8. Two tests × 8 copies, one fact each.
    const counts = Object.fromEntries((readArtifact(join(dir, 'out/rate.json'), RateFileSchema).tests ?? []).map((t) => [t.id, [t.trials, t.failures, t.verdict]]))
    expect(counts).toEqual({ [FLAKY]: [8, 2, 'flaky'], 'tests/stress.test.js > always passes': [8, 0, 'stable'] })
    expect(readFileSync(join(dir, 'out/facts.jsonl'), 'utf8').trim().split('\n')).toHaveLength(16)
  }, 120_000)
})
