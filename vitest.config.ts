import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { setExtraCaCertsAside } from './test/extra-ca-certs.js'

// Before any test file's process starts: none of them needs the bundle Node would read at each start.
setExtraCaCertsAside()

// CI asks for a machine-readable tally (FLAKEPROOF_TEST_RESULTS) to print `N passed, N failed`, and
// for each file's time (FLAKEPROOF_TEST_DURATIONS) to print the slowest.
const resultsFile = process.env.FLAKEPROOF_TEST_RESULTS
const durationsFile = process.env.FLAKEPROOF_TEST_DURATIONS

const UNIT = ['test/unit/**/*.test.ts']
const E2E = ['test/e2e/**/*.test.ts']
const EXCLUDE = ['**/node_modules/**', 'test/fixtures/**', 'examples/**']

/**
 * Unit files that replace a module (vi.mock): Vitest replaces it in the module cache its worker
 * shares, so they keep a worker of their own (the suite's), as every e2e file does.
 */
const MOCKING = ['test/unit/run-trials.test.ts']

/**
 * Files whose assertions depend on how fast the machine is (a 100 ms test timeout, a time budget,
 * signals sent as output appears): they run after the others, one at a time, on a quiet machine.
 */
const ALONE = ['test/e2e/vitest-observe.test.ts', 'test/e2e/vitest-budget.test.ts', 'test/e2e/interruption.test.ts']

/**
 * Test files at once. Vitest's default on a 2-core machine is one, but an e2e file waits on the
 * CLI, Vitest, Jest or npm it starts (their start-up, gapped repetitions, installs). With four, both
 * cores stay busy until the `alone` group (vmstat every 5 s from minute 11 of a fresh-clone
 * `.ci/run` on: 0% idle until then), so a fifth would add load, not throughput.
 * FLAKEPROOF_TEST_WORKERS=1 runs the files one after another.
 */
const WORKERS = Number(process.env.FLAKEPROOF_TEST_WORKERS ?? Math.max(4, availableParallelism() * 2))

export default defineConfig({
  test: {
    // Sized for a unit test or a short CLI run on a loaded machine (three files at once on two cores
    // can make a 5 s test take 20 s); slower tests carry their own timeout beside them, so a hang
    // shows within a minute, not after ten.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Removes the folders of test/utils.ts `tempDir` once each file has run.
    setupFiles: ['test/setup.ts'],
    reporters: [
      'default',
      ...(resultsFile ? [['json', { outputFile: resultsFile }] satisfies [string, object]] : []),
      ...(durationsFile ? [['./test/durations-reporter.ts', { file: durationsFile }] satisfies [string, object]] : []),
    ],
    // Each project names its files: `extends` would add the root's include to its own.
    projects: [
      // The unit files share their workers (`isolate: false`): a fresh process per file cost them 85 s of
      // CPU against 52 s shared, for files that keep no state between them.
      { extends: true, test: { name: 'unit', include: UNIT, exclude: [...EXCLUDE, ...MOCKING], isolate: false, maxWorkers: WORKERS } },
      { extends: true, test: { name: 'suite', include: [...E2E, ...MOCKING], exclude: [...EXCLUDE, ...ALONE], maxWorkers: WORKERS } },
      // maxWorkers 1: Vitest runs these after every other group, each file on its own.
      { extends: true, test: { name: 'alone', include: ALONE, maxWorkers: 1 } },
    ],
  },
})
