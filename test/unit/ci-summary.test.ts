import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, tempDir } from '../utils.js'

/**
 * The end of `.ci/run` (.ci/summary.mjs): the slowest files, then one plain closing line that a
 * failure can never turn into `0 failed`. The reports are the shapes Vitest's JSON reporter and
 * test/durations-reporter.ts write: a file that failed at import has status "failed" and no test.
 */
function summary(results: unknown, durations: ({ file: string; ms: number } | { file: string; cpu_ms: number })[] | undefined, slowest = '2', left = '', status = '0'): string[] {
  const dir = tempDir()
  const resultsFile = join(dir, 'results.json')
  const durationsFile = join(dir, 'durations.jsonl')
  const leftFile = join(dir, 'left.txt')
  if (results !== undefined) writeFileSync(resultsFile, JSON.stringify(results))
  if (durations !== undefined) writeFileSync(durationsFile, durations.map((d) => `${JSON.stringify(d)}\n`).join(''))
  writeFileSync(leftFile, left)
  const run = spawnSync(process.execPath, [join(ROOT, '.ci/summary.mjs'), resultsFile, durationsFile, slowest, leftFile, status], { encoding: 'utf8' })
  expect(run.status, run.stderr).toBe(0)
  return run.stdout.trimEnd().split('\n')
}

const passedFile = { status: 'passed', assertionResults: [{ status: 'passed' }, { status: 'passed' }] }
const failedTest = { status: 'failed', assertionResults: [{ status: 'passed' }, { status: 'failed' }] }
const failedImport = { status: 'failed', assertionResults: [] }

describe('.ci/summary.mjs', () => {
  it.each([
    // 2 + 1 passed; one failed test, no file failure of its own.
    ['a failed test', '3 passed, 1 failed', { numPassedTests: 3, numFailedTests: 1, testResults: [passedFile, failedTest] }],
    // The import failure has no test to fail: it is one more failure (1 + 1).
    ['a file that failed at import', '3 passed, 2 failed', { numPassedTests: 3, numFailedTests: 1, testResults: [passedFile, failedTest, failedImport] }],
    ['all green', '2 passed, 0 failed', { numPassedTests: 2, numFailedTests: 0, testResults: [passedFile] }],
    // No report: the suite never ran, which is a failure, not `0 failed`.
    ['no report at all', '0 passed, 1 failed', undefined, '1'],
    // Vitest refused its config (projects it cannot group) and wrote a report of no file, exit 1.
    ['an error before any file ran', '0 passed, 1 failed', { numPassedTests: 0, numFailedTests: 0, success: false, testResults: [] }, '1'],
    // An unhandled error beside passing tests: Vitest exits 1, its JSON report counts no failure.
    ['an error outside every test', '2 passed, 1 failed', { numPassedTests: 2, numFailedTests: 0, success: true, testResults: [passedFile] }, '1'],
    // A failed test is counted once, whatever the exit status says.
    ['a failed test, exit 1', '3 passed, 1 failed', { numPassedTests: 3, numFailedTests: 1, testResults: [passedFile, failedTest] }, '1'],
  ])('%s: closes on "%s"', (_, closing, results, status = '0') => {
    const lines = summary(results, [{ file: 'test/e2e/a.test.ts', ms: 1_000 }], '2', '', status)
    expect(lines.at(-1)).toBe(closing)
  })

  it('counts what the suite left in the checkout as one failure more, and names it', () => {
    // What .ci/run's `comm -13` gives: the `git status --porcelain --ignored` lines that appeared during the run.
    const left = '!! test/fixtures/jest-ci/.flakeproof/history/2026-12-07T01-09-12-397Z-11582-0ae94144.jsonl\n M test/fixtures/jest-flaky/tests/__snapshots__/a.test.js.snap\n'
    expect(summary({ numPassedTests: 2, numFailedTests: 0, testResults: [passedFile] }, [], '2', left)).toEqual([
      'the suite left 2 paths in the checkout (git status --porcelain --ignored), which a run must leave as it found it:',
      '  !! test/fixtures/jest-ci/.flakeproof/history/2026-12-07T01-09-12-397Z-11582-0ae94144.jsonl',
      '   M test/fixtures/jest-flaky/tests/__snapshots__/a.test.js.snap',
      '2 passed, 1 failed',
    ])
    // Nothing left: the closing line as before.
    expect(summary({ numPassedTests: 2, numFailedTests: 0, testResults: [passedFile] }, [], '2', '')).toEqual(['2 passed, 0 failed'])
  })

  it('lists the slowest files, slowest first, before the closing line', () => {
    const durations = [
      { file: 'test/unit/quick.test.ts', ms: 120 },
      { file: 'test/e2e/consumer.test.ts', ms: 95_400 },
      { file: 'test/e2e/jest.test.ts', ms: 41_000 },
    ]
    // 120 + 95 400 + 41 000 = 136 520 ms: 137 s; the two slowest, at one decimal of a second.
    expect(summary({ numPassedTests: 5, numFailedTests: 0, testResults: [] }, durations)).toEqual([
      'slowest of 3 test files (137 s in all, run side by side):',
      '    95.4 s  test/e2e/consumer.test.ts',
      '    41.0 s  test/e2e/jest.test.ts',
      '5 passed, 0 failed',
    ])
  })

  it("puts each file's CPU time beside its wall time, and their sum in the heading, when every file has one", () => {
    const durations = [
      { file: 'test/e2e/consumer.test.ts', ms: 95_400 },
      { file: 'test/unit/quick.test.ts', ms: 120 },
      // test/setup.ts writes its line when the file's hooks end, after or before the reporter's.
      { file: 'test/e2e/consumer.test.ts', cpu_ms: 61_230 },
      { file: 'test/unit/quick.test.ts', cpu_ms: 90 },
    ]
    // 95 400 + 120 = 95 520 ms: 96 s; 61 230 + 90 = 61 320 ms of CPU: 61 s.
    expect(summary({ numPassedTests: 5, numFailedTests: 0, testResults: [] }, durations)).toEqual([
      'slowest of 2 test files (96 s in all, run side by side, 61 s of CPU):',
      '    95.4 s    61.2 s CPU  test/e2e/consumer.test.ts',
      '     0.1 s     0.1 s CPU  test/unit/quick.test.ts',
      '5 passed, 0 failed',
    ])
  })
})
