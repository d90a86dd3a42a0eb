import { describe, expect, it } from 'vitest'
import { renderReport } from '../../src/artifacts/markdown.js'
import type { PolicyFile, RateFile } from '../../src/artifacts/schemas.js'
import { rateFile } from '../rate-file.js'

type TestRate = NonNullable<RateFile['tests']>[number]

const measured = { trials: 10, failures: 9, rate: 0.9, ci_low: 0.596, ci_high: 0.982 }
const independent = { runs: 2, expected_runs: 2.8, p_value: 1, method: 'exact' as const, pattern: 'independent' as const, switch_at: null, switched_to: null, period: null }

function rateWith(tests: NonNullable<RateFile['tests']>, extra: Partial<RateFile> = {}): RateFile {
  return rateFile(measured, { tests, ...extra })
}

describe('the test-mode report', () => {
  it('keeps a test whose name has a newline and a pipe on one table row', () => {
    const id = 'a.test.ts > a name\nwith a newline | and a pipe'
    const report = renderReport({ rate: rateWith([{ id, project: '', file: 'a.test.ts', name: 'a name\nwith a newline | and a pipe', ...measured, verdict: 'flaky', independence: independent }]) }, 'en')
    const row = report.split('\n').find((line) => line.startsWith('| `a.test.ts'))
    expect(row).toBe('| `a.test.ts > a name\\nwith a newline \\| and a pipe` | 9 of 10 | 90.0% | 59.6% – 98.2% | flaky |')
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
    ['en', '- Error outside any test in `a.test.ts`: unhandled during "waits": rejected (3 times)\n'],
    ['ko', '- `a.test.ts`의 테스트 밖 오류: unhandled during "waits": rejected (3회)\n'],
  ] as const)('lists the same error of each copy once, with how many times it came (%s)', (lang, line) => {
    const late = { project: '', file: 'a.test.ts', error: 'unhandled during "waits": rejected' }
    const report = renderReport({ rate: rateWith([], { complete: false, run_errors: [late, late, { ...late, file: 'b.test.ts' }, late] }) }, lang)
    expect(report).toContain(line)
    expect(report.match(/a\.test\.ts`/g)).toHaveLength(1)
    expect(report).toContain('b.test.ts`')
  })

  it.each([
    ['vitest run -- --flaky-repeat 10', '`npx vitest run -- --flaky-repeat 200 --flaky-observe`'],
    ['flakeproof vitest --flaky-repeat 10 src', '`npx flakeproof vitest --flaky-repeat 200 --flaky-observe`'],
  ])('quotes the next step in the form the run was started with (%s)', (command, hint) => {
    expect(renderReport({ rate: rateWith([], { command }) }, 'en')).toContain(hint)
  })
})

describe('the test-mode report: sections and rows', () => {
  const test = (name: string, failures: number, verdict: TestRate['verdict'], extra: Partial<TestRate> = {}): TestRate => ({
    id: `a.test.ts > ${name}`,
    project: '',
    file: 'a.test.ts',
    name,
    trials: 10,
    failures,
    rate: failures / 10,
    ci_low: 0.1,
    ci_high: 0.5,
    verdict,
    independence: independent,
    ...extra,
  })
  // One switch (P then F F F F F F F F F): docs/contracts.md §5.
  const oneSwitch = { runs: 2, expected_runs: 2.8, p_value: 0.4, method: 'exact' as const, pattern: 'one-switch' as const, switch_at: 2, switched_to: 'failed' as const, period: null }
  const tests = [
    test('stable one', 0, 'stable'),
    // Wilson 10/10 at z = 1.96: low = n / (n + z²) = 10 / 13.8416 = 0.722460 (hand division)
    test('broken', 10, 'broken', { rate: 1, ci_low: 0.72246, ci_high: 1 }),
    test('leaves state', 9, 'non-idempotent', { rate: 0.9, independence: oneSwitch }),
    test('stable two', 0, 'stable'),
    test('flaky', 3, 'flaky', { rate: 0.3 }),
  ]

  it.each(['en', 'ko'] as const)('has the four sections of docs/contracts.md §3, in order (%s)', (lang) => {
    const headings = renderReport({ rate: rateWith(tests) }, lang).match(/^## .*/gm)
    expect(headings).toEqual(
      lang === 'en'
        ? ['## How often', '## True only when it fails', '## What observation changed', '## What it takes to say it is fixed']
        : ['## 얼마나 자주인가', '## 실패할 때만 참인 것', '## 관측이 바꾼 것', '## 고쳤다고 말하려면'],
    )
  })

  it('gives a row to each flaky, non-idempotent and broken test, in that order, and hides the stable ones', () => {
    const report = renderReport({ rate: rateWith(tests) }, 'en')
    const rows = report.split('\n').filter((line) => line.startsWith('| `'))
    // Percentages by hand: 3/10 = 30.0%, 9/10 = 90.0%, 10/10 = 100.0%; interval cells as given above.
    expect(rows).toEqual([
      '| `a.test.ts > flaky` | 3 of 10 | 30.0% | 10.0% – 50.0% | flaky |',
      '| `a.test.ts > leaves state` | 9 of 10 | 90.0% | 10.0% – 50.0% | non-idempotent |',
      '| `a.test.ts > broken` | 10 of 10 | 100.0% | 72.2% – 100.0% | broken |',
    ])
    expect(report).toContain('| Test | failures/trials | rate | interval | verdict |')
    expect(report).toContain('- 2 stable test(s) not listed (no failure).')
    expect(report).not.toContain('stable one')
    expect(report).not.toContain('stable two')
    // The non-idempotent test gets its cause, not a number.
    expect(report).toContain('- `a.test.ts > leaves state`: **non-idempotent**.')
  })

  it('lists no table and no stable line when every test is stable', () => {
    const report = renderReport({ rate: rateWith([test('stable one', 0, 'stable')], { failures: 0, rate: 0, verdict: 'stable' }) }, 'en')
    expect(report).not.toContain('| Test |')
    expect(report).toContain('- 1 stable test(s) not listed (no failure).')
  })

  it('plans the flaky test in the last section, gives the broken one no green runs and the non-idempotent one no number', () => {
    const policyFor = (failures: number, verdict: TestRate['verdict']) => ({
      observed_rate: failures / 10, trials: 10, failures, verdict,
      green_runs_required: failures === 10 ? 3 : 9, retry_budget: failures === 10 ? null : 3, quarantine_after: failures === 10 ? null : 1,
    })
    const policy: PolicyFile = {
      schema_version: 1, observed_rate: 0.3, trials: 10, failures: 3, basis: 'observed', confidence: 0.95,
      green_runs_required: 9, retry_budget: 3, quarantine_after: 1, notes: [],
      tests: { 'a.test.ts > flaky': policyFor(3, 'flaky'), 'a.test.ts > broken': policyFor(10, 'broken') },
    }
    const report = renderReport({ rate: rateWith(tests), policy }, 'en')
    const fixed = report.slice(report.indexOf('## What it takes to say it is fixed'))
    expect(fixed.split('\n').filter((line) => line.startsWith('| `'))).toEqual([
      '| `a.test.ts > flaky` | 9 | 3 | 1 | – |',
      '| `a.test.ts > broken` | none: it fails every time, fix it as a bug | – | – | – |',
    ])
    expect(fixed).toContain('- `a.test.ts > leaves state`: ')
    expect(fixed).not.toContain('stable one')
  })
})
