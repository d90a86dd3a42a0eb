import { describe, expect, it } from 'vitest'
import { renderHtmlReport } from '../../src/artifacts/html.js'
import { binStrip, DURATION_POINTS, ExecutionCollector, STRIP_MARKS, toExecutionLine } from '../../src/artifacts/html-executions.js'
import { DETAILED_SUBJECTS, detailedSubjects, TABLE_ROWS } from '../../src/artifacts/html-subjects.js'
import type { RateFile } from '../../src/artifacts/schemas.js'
import { rateFile } from '../rate-file.js'

// Wilson 95% for 2 of 10 (z = 1.96): [0.0567, 0.5098] (docs/contracts.md §2, hand computation).
const measured = { trials: 10, failures: 2, rate: 0.2, ci_low: 0.0567, ci_high: 0.5098 }

function commandRate(extra: Partial<RateFile> = {}): RateFile {
  return rateFile(measured, { command: 'node job.js', duration_ms: 1200, independence: null, ...extra })
}

/** Trials 1..n of one subject, failing where `fails(trial)`, each lasting `trial` ms. */
function collect(subject: string, n: number, fails: (trial: number) => boolean, mode: 'fast' | 'slow' = 'fast'): ExecutionCollector {
  const collector = new ExecutionCollector([subject])
  for (let trial = 1; trial <= n; trial++) {
    collector.add({ subject, trial, failed: fails(trial), elapsedMs: trial, mode, error: fails(trial) ? `STALE on call ${trial}\n  at job.js:1` : null })
  }
  return collector
}

describe('the per-execution summaries of report.html', () => {
  it.each([
    // [executions, marks, executions per mark]: ceil(n / 400) per mark, ceil(n / per mark) marks.
    [10, 10, 1],
    [400, 400, 1],
    [401, 201, 2],
    [100_000, 400, 250],
  ])('bins %i executions into %i marks of %i', (executions, marks, binSize) => {
    const trials = Int32Array.from({ length: executions }, (_, i) => i + 1)
    const failed = Uint8Array.from({ length: executions }, (_, i) => ((i + 1) % 5 === 0 ? 1 : 0))
    const segment = binStrip('fast', trials, failed, executions)
    expect(segment.marks).toHaveLength(marks)
    expect(segment.binSize).toBe(binSize)
    expect(segment.marks.length).toBeLessThanOrEqual(STRIP_MARKS)
    // Every fifth fails: floor(n / 5) failures, none lost to binning.
    expect(segment.failures).toBe(Math.floor(executions / 5))
    expect(segment.marks.reduce((sum, m) => sum + m.count, 0)).toBe(executions)
  })

  it('thins 100 000 durations to at most 200 points, keeping exact count, mean and range', () => {
    const summary = collect('t', 100_000, (trial) => trial % 5 === 0).summarise().subjects.get('t')
    const passed = summary?.durations.passed
    // 80 000 passes: the stride doubles from 1 until at most 200 remain: 80 000 / 512 → 157 points.
    expect(passed).toMatchObject({ count: 80_000, minMs: 1, maxMs: 99_999, stride: 512 })
    expect(passed?.points.length).toBeLessThanOrEqual(DURATION_POINTS)
    // Mean of 1..100 000 without the multiples of 5: (5 000 050 000 − 5·(1..20 000 sum = 200 010 000)) / 80 000 = 50 000.
    expect(passed?.meanMs).toBe(50_000)
    expect(summary?.firstError).toBe('STALE on call 5')
  })

  it('reads command-mode and test-mode fact lines, skips skipped ones and flags what is not a fact', () => {
    expect(toExecutionLine({ trial: 3, outcome: 'failed', elapsed_ms: 12, stderr: 'BOOM' }, 'cmd')).toEqual({ subject: 'cmd', trial: 3, failed: true, elapsedMs: 12, mode: 'fast', error: 'BOOM' })
    expect(toExecutionLine({ trial: 1, test_id: 'a > b', outcome: 'passed', elapsed_ms: 1, mode: 'slow', error: null }, null)).toMatchObject({ subject: 'a > b', mode: 'slow' })
    expect(toExecutionLine({ trial: 1, test_id: 'a', outcome: 'skipped', elapsed_ms: 0 }, null)).toBe('skipped')
    expect(toExecutionLine({ trial: 'x' }, null)).toBeUndefined()
    expect(toExecutionLine(null, null)).toBeUndefined()
  })
})

describe('renderHtmlReport', () => {
  it('draws the command, one mark per trial, and the proof from proof.json', async () => {
    const executions = collect('node job.js', 10, (trial) => trial % 5 === 0).summarise()
    const html = renderHtmlReport(
      {
        rate: commandRate(),
        proof: { schema_version: 1, command: 'node job.js --fixed', required: 3, required_from: '--runs', trials: 3, failures: 0, rate: 0, ci_low: 0, ci_high: 0.5615, passed: true, failure_trials: [], complete: true },
      },
      executions,
    )
    expect(html.match(/<rect class="mark /g)).toHaveLength(13)
    expect(html.match(/<rect class="mark fail"/g)).toHaveLength(2)
    expect(html.match(/class="mark pass mode-proof"/g)).toHaveLength(3)
    expect(html).not.toMatch(/<script|https?:\/\/|src=/)
    await expect(html).toMatchFileSnapshot('./__snapshots__/html-report.command.html')
  })

  it('gives a non-idempotent test its fresh-run command as code, with no markdown backquote or shell backslash leaking', () => {
    // PFFFFFFFFF: passed repetition 1, then failed every one from 2 on (runs = 2).
    const independence = { runs: 2, expected_runs: 2.8, p_value: 0.4, method: 'exact' as const, pattern: 'one-switch' as const, switch_at: 2, switched_to: 'failed' as const, period: null }
    const tests = [{ id: 'a.test.ts > leaks', project: '', file: 'a.test.ts', name: 'leaks', trials: 10, failures: 9, rate: 0.9, ci_low: 0.5958, ci_high: 0.9821, verdict: 'non-idempotent' as const, independence }]
    const html = renderHtmlReport({ rate: commandRate({ command: 'flakeproof vitest --flaky-repeat 10', tests }) }, new ExecutionCollector([]).summarise())
    // It passed first among its file's tests: the file runs whole (src/core/hints.ts); `"` is escaped for HTML, not for sh.
    expect(html).toContain(
      'Measure it with fresh runs instead, its file run whole (it may need the tests before it): <code>npx flakeproof measure --cmd &quot;npx vitest run a.test.ts&quot; --trials 20 --out .flakeproof/fresh-rate.json</code>.',
    )
    const note = /<p class="warn">[^]*?<\/p>/.exec(html)?.[0] ?? ''
    expect(note).toContain('<code>npx flakeproof measure')
    expect(note).not.toMatch(/`|\\\$/)
  })

  it('escapes test names, which are user text', () => {
    const id = 'a.test.ts > <img src=x onerror=alert(1)> & "quoted"'
    const rate = commandRate({ command: 'vitest run', tests: [{ id, project: '', file: 'a.test.ts', name: id, ...measured, verdict: 'flaky' }] })
    const html = renderHtmlReport({ rate }, new ExecutionCollector([]).summarise())
    expect(html).not.toContain('<img')
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quoted&quot;')
  })

  it('stays bounded for 10 000 flaky tests of 100 000 repetitions each, and says it summarised', () => {
    const tests = Array.from({ length: 10_000 }, (_, i) => ({
      id: `t${String(i).padStart(5, '0')}.test.ts > flaky`,
      project: '',
      file: `t${i}.test.ts`,
      name: 'flaky',
      trials: 100_000,
      failures: 20_000,
      rate: 0.2,
      ci_low: 0.1975,
      ci_high: 0.2025,
      verdict: 'flaky' as const,
    }))
    const bundle = { rate: commandRate({ command: 'vitest run', trials: 100_000, failures: 100_000, rate: 1, ci_low: 0.99996, ci_high: 1, tests }) }
    const detailed = detailedSubjects(bundle).map((s) => s.id)
    expect(detailed).toHaveLength(DETAILED_SUBJECTS)
    const collector = new ExecutionCollector(detailed)
    for (const subject of detailed) {
      for (let trial = 1; trial <= 100_000; trial++) collector.add({ subject, trial, failed: trial % 5 === 0, elapsedMs: trial % 97, mode: 'fast', error: 'STALE' })
    }
    const html = renderHtmlReport(bundle, collector.summarise())
    // 300 table rows, 20 strips of 400 marks and 20 duration plots of at most 400 points: about 2 MB.
    expect(html.length).toBeLessThan(3_000_000)
    expect(html.match(/<tr data-id=/g)?.length).toBe(2 * TABLE_ROWS)
    expect(html).toContain(`the first ${TABLE_ROWS} shown, ${10_000 - TABLE_ROWS} more in rate.json`)
    expect(html).toContain(`${10_000 - DETAILED_SUBJECTS} more flaky test(s) not drawn`)
    expect(html).toContain('250 executions per mark')
  })
})
