import { describe, expect, it } from 'vitest'
import { decidingCommand } from '../../src/artifacts/deciding-command.js'

const passedOnce = { switch_at: 2, switched_to: 'failed' as const }

describe('decidingCommand: what would decide an undetermined switch', () => {
  it.each([
    // Vitest: whole-run rounds of the file, run whole (a test may need its siblings).
    [{ command: 'vitest run', test: { project: '', file: 'tests/a.test.ts' }, independence: passedOnce, trials: 10 }, 'npx flakeproof vitest --flaky-rounds 3 --flaky-repeat 10 tests/a.test.ts'],
    [{ command: 'flakeproof vitest --flaky-repeat 10', test: { project: 'web ui', file: 'a b.test.ts' }, independence: passedOnce, trials: 10 }, "npx flakeproof vitest --flaky-rounds 3 --flaky-repeat 10 --project 'web ui' 'a b.test.ts'"],
    // Jest, and a command: the same switch over n trials is 1 order in C(n, 1) = n, below 0.05 from
    // n = 21; twice that. Two failures first (FFPP…) and its mirror: 2 in C(n, 2), below 0.05 once
    // C(n, 2) > 40: n = 10 (45); twice that, 20.
    [{ command: 'jest', test: { project: '', file: 'test/a.test.js' }, independence: passedOnce, trials: 10 }, 'npx flakeproof jest --flaky-repeat 42 test/a.test.js'],
    [{ command: 'node job.js', independence: passedOnce, trials: 10 }, 'npx flakeproof measure --cmd "node job.js" --trials 42'],
    [{ command: 'node job.js', independence: { switch_at: 3, switched_to: 'passed' as const }, trials: 5 }, 'npx flakeproof measure --cmd "node job.js" --trials 20'],
  ])('%j', (subject, command) => {
    expect(decidingCommand(subject)).toBe(command)
  })
})
