import { describe, expect, it } from 'vitest'
import { renderReport } from '../../src/artifacts/markdown.js'
import type { RateFile } from '../../src/artifacts/schemas.js'

const measured = { trials: 10, failures: 9, rate: 0.9, ci_low: 0.596, ci_high: 0.982 }
const independent = { runs: 2, expected_runs: 2.8, p_value: 1, method: 'exact' as const, pattern: 'independent' as const, switch_at: null, switched_to: null, period: null }

function rateWith(tests: NonNullable<RateFile['tests']>, extra: Partial<RateFile> = {}): RateFile {
  return {
    schema_version: 1,
    command: 'vitest run',
    ...measured,
    gap_ms: 0,
    confidence: 0.95,
    z: 1.96,
    verdict: 'flaky',
    timed_out: 0,
    timeout_ms: null,
    jobs: 1,
    complete: true,
    requested_trials: 10,
    started_at: '2026-11-30T00:00:00.000Z',
    duration_ms: 1,
    tests,
    ...extra,
  }
}

describe('the test-mode report', () => {
  it('keeps a test whose name has a newline and a pipe on one table row', () => {
    const id = 'a.test.ts > a name\nwith a newline | and a pipe'
    const report = renderReport({ rate: rateWith([{ id, project: '', file: 'a.test.ts', name: 'a name\nwith a newline | and a pipe', ...measured, verdict: 'flaky', independence: independent }]) }, 'en')
    const row = report.split('\n').find((line) => line.startsWith('| `a.test.ts'))
    expect(row).toBe('| `a.test.ts > a name\\nwith a newline \\| and a pipe` | 9/10 | 90.0% | 59.6% – 98.2% | flaky |')
  })

  it('says a run with errors outside tests is incomplete, and lists them with their file', () => {
    const rate = rateWith([], { complete: false, run_errors: [{ project: 'web', file: 'a.test.ts', error: 'BROKEN_IMPORT: cannot load\n  at a.test.ts:1' }, { project: null, file: null, error: 'Worker exited' }] })
    const report = renderReport({ rate }, 'en')
    expect(report).toContain('- Incomplete: not every selected test ran all its repetitions')
    expect(report).toContain('- Error outside any test in `[web] a.test.ts`: BROKEN_IMPORT: cannot load\n')
    expect(report).toContain('- Error outside any test in no file: Worker exited')
    expect(report).not.toContain('Interrupted:')
  })

  it.each([
    ['vitest run -- --flaky-repeat 10', '`vitest run -- --flaky-repeat 200 --flaky-observe`'],
    ['flakeproof vitest --flaky-repeat 10 src', '`flakeproof vitest --flaky-repeat 200 --flaky-observe`'],
  ])('quotes the next step in the form the run was started with (%s)', (command, hint) => {
    expect(renderReport({ rate: rateWith([], { command }) }, 'en')).toContain(hint)
  })
})
