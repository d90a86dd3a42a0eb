import { describe, expect, it } from 'vitest'
import { stripAnsi } from '../../src/core/ansi.js'
import type { ConditionsFile } from '../../src/artifacts/conditions-schema.js'
import { hintsFor } from '../../src/core/hints.js'
import type { TestOutcome } from '../../src/pipeline/test-run.js'
import { renderTable, TABLE_ROWS, type TableContext } from '../../src/session/_table.js'
import { EXPLAINED, renderRunEnd } from '../../src/session/run-end-text.js'
import type { TestRunResult } from '../../src/pipeline/test-run.js'

interface Given {
  id: string
  name: string
  file?: string
  verdict: TestOutcome['verdict']
  fast: [number, number]
  ci: [number, number]
  greenRuns: number | null
  slow?: [number, number]
  errors?: string[]
}

/** Only the fields renderTable reads; the rest of a TestOutcome does not reach the terminal table. */
function outcome({ id, name, file = 'a.test.ts', verdict, fast, ci, greenRuns, slow = [0, 0], errors = [] }: Given): TestOutcome {
  return {
    tally: { id, project: '', file, name, errors, fast: { failures: fast[0], trials: fast[1] }, slow: { failures: slow[0], trials: slow[1], gapMs: 2000 } },
    verdict,
    ci: { low: ci[0], high: ci[1] },
    greenRuns,
  } as unknown as TestOutcome
}

const VITEST = hintsFor({ runner: 'vitest', form: 'wrapper' })
const at = (width: number, hints = VITEST): TableContext => ({ width, hints, confidence: 0.95, repeat: 200 })
// Colour depends on the terminal; the layout is what is tested.
const render = (outcomes: TestOutcome[], context: TableContext): string[] => renderTable(outcomes, context).map(stripAnsi)

const FLAKY = outcome({ id: 'a.test.ts > flaky', name: 'flaky', verdict: 'flaky', fast: [40, 200], ci: [0.150451, 0.260856], greenRuns: 14, slow: [0, 20], errors: ['AssertionError: expected 5 to be 0\n    at a.test.ts:3:5'] })
const BROKEN = outcome({ id: 'tests/deeply/nested/folder/cart.test.ts > checkout > keeps the total', name: 'checkout > keeps the total', file: 'tests/deeply/nested/folder/cart.test.ts', verdict: 'broken', fast: [10, 10], ci: [0.72246, 1], greenRuns: null })

describe('renderTable (the terminal summary of a test run, every runner)', () => {
  it('at 80 columns: a row per test, its id on its own line, its first error, the terms in words, one next step per verdict', () => {
    const lines = render([FLAKY, BROKEN], at(80))
    // Row: two-space indent, columns two apart; widths by hand: verdict 6 (BROKEN), counts 9 (40 of 200,
    // right-aligned), interval 15 ([72.2%, 100.0%]), runs 18 (fix: 14 green runs), then slow 0 of 20:
    // 2+6+2+9+2+15+2+18+2+12 = 70 ≤ 80, one line. Percentages: 15.0451 → 15.0%, 26.0856 → 26.1%, 72.246 → 72.2%.
    // 5% = 1 − 0.95; 0.8¹⁴ = 0.044 ≤ 0.05 is where the 14 comes from (pipeline/plan.ts), not the table.
    expect(lines).toEqual([
      '  FLAKY   40 of 200  [15.0%, 26.1%]   fix: 14 green runs  slow 0 of 20',
      '    a.test.ts > flaky',
      '    AssertionError: expected 5 to be 0',
      '  BROKEN   10 of 10  [72.2%, 100.0%]',
      '    tests/deeply/nested/folder/cart.test.ts > checkout > keeps the total',
      '',
      '  fix: 14 green runs: once you fix it, the test must pass 14 runs in a row; a',
      '    test still failing as often as measured would do that at most 5% of the',
      '    time.',
      '  slow 0 of 20: of 20 repetitions each after a pause of 2000 ms, 0 failed,',
      '    against 40 of 200 without the pause; a difference means time between runs',
      '    matters (observer.json says whether it is one).',
      '',
      '  next:',
      '    broken: it failed every repetition; run its file as usual and read the error',
      '      (if the test passes there, the repetitions broke it with state they',
      '      leave):',
      '      npx vitest run tests/deeply/nested/folder/cart.test.ts',
      '    flaky: find the cause in report.html; once fixed, prove it (its green runs):',
      '      npx flakeproof vitest --flaky-proof',
    ])
  })

  it('at 40 columns: the id cut from the left (its own name stays), the green runs after it, commands broken with \\', () => {
    const lines = render([BROKEN, FLAKY], at(40, hintsFor({ runner: 'jest' })))
    // Room for the id: 40 − 4 = 36, so … and its last 35 characters.
    expect(lines.slice(0, 7)).toEqual([
      '  BROKEN   10 of 10  [72.2%, 100.0%]',
      '    …est.ts > checkout > keeps the total',
      '  FLAKY   40 of 200  [15.0%, 26.1%]',
      '    a.test.ts > flaky',
      '    fix: 14 green runs  slow 0 of 20',
      '    AssertionError: expected 5 to be 0',
      '',
    ])
    // Only a command's one word may be wider than the terminal (a path cannot be broken and still run).
    expect(lines.filter((line) => line.length > 40)).toEqual(['        tests/deeply/nested/folder/cart.test.ts'])
    expect(lines.slice(-12)).toEqual([
      '    broken: it failed every repetition;',
      '      run its file as usual and read the',
      '      error (if the test passes there,',
      '      the repetitions broke it with',
      '      state they leave):',
      '      npx jest \\',
      '        tests/deeply/nested/folder/cart.test.ts',
      '    flaky: find the cause in',
      '      report.html; once fixed, prove it',
      '      (its green runs):',
      '      npx flakeproof jest \\',
      '        --flaky-proof',
    ])
  })

  it('suggests only the runner’s own commands: a Jest run never names vitest', () => {
    const lines = render([BROKEN, FLAKY, outcome({ id: 'a.test.ts > p', name: 'p', verdict: 'partial', fast: [1, 3], ci: [0.1, 0.9], greenRuns: 5 })], at(80, hintsFor({ runner: 'jest' })))
    expect(lines.filter((line) => line.includes('vitest'))).toEqual([])
    expect(lines.filter((line) => line.startsWith('      npx'))).toEqual([
      '      npx jest tests/deeply/nested/folder/cart.test.ts',
      '      npx flakeproof jest --flaky-proof',
      '      npx flakeproof jest --flaky-repeat 200',
    ])
  })

  it('measures a cut-short test again as the run was made: its rounds too', () => {
    const partial = outcome({ id: 'a.test.ts > p', name: 'p', verdict: 'partial', fast: [1, 16], ci: [0.011, 0.283], greenRuns: 47 })
    const lines = render([partial], { ...at(80), repeat: 3, rounds: 6 })
    expect(lines.slice(-2)).toEqual(['    partial: cut short before all its repetitions ran; measure it again:', '      npx flakeproof vitest --flaky-rounds 6 --flaky-repeat 3'])
  })

  it('writes a newline in a test name as \\n, so the id stays one line', () => {
    const lines = render([outcome({ id: 'a.test.ts > two\nlines', name: 'two\nlines', verdict: 'flaky', fast: [1, 10], ci: [0.1, 0.5], greenRuns: 30 })], at(80))
    expect(lines.slice(0, 2)).toEqual(['  FLAKY  1 of 10  [10.0%, 50.0%]  fix: 30 green runs', '    a.test.ts > two\\nlines'])
  })

  it('headlines a test the order search tagged order-dependent, with its culprit instead of green runs when it fails only after it', () => {
    const order = (otherwise: number) => ({ culprit: 'a.test.ts > writer', otherwise: { trials: 3, failures: otherwise }, tag: 'order-dependent' as const })
    const conditions = (otherwise: number) => ({ tests: { 'a.test.ts > reader': { comparisons: [], order: order(otherwise), tags: ['order-dependent' as const] } } }) as unknown as ConditionsFile
    const reader = outcome({ id: 'a.test.ts > reader', name: 'reader', verdict: 'flaky', fast: [1, 4], ci: [0.046, 0.699], greenRuns: 11 })
    expect(render([reader], { ...at(80), conditions: conditions(0) }).slice(0, 2)).toEqual(['  ORDER-DEPENDENT  1 of 4  [4.6%, 69.9%]  fails after a.test.ts > writer', '    a.test.ts > reader'])
    expect(render([reader], { ...at(80), conditions: conditions(1) }).slice(0, 2)).toEqual(['  ORDER-DEPENDENT  1 of 4  [4.6%, 69.9%]  fix: 11 green runs', '    a.test.ts > reader'])
    // No row shows green runs when it names its culprit instead: no legend line explains them.
    expect(render([reader], { ...at(80), conditions: conditions(0) }).join('\n')).not.toContain('once you fix it')
  })

  it('names every test the rounds cannot tell apart, and a test that fails unless another runs first', () => {
    const needs = { culprit: 'a.test.ts > setup', tied: ['a.test.ts > seed'], direction: 'needs' as const, significant: true, after_culprit: { trials: 3, failures: 0 }, otherwise: { trials: 3, failures: 3 }, tag: 'order-dependent' as const }
    const conditions = { tests: { 'a.test.ts > reader': { comparisons: [], order: needs, tags: ['order-dependent' as const] } } } as unknown as ConditionsFile
    const reader = outcome({ id: 'a.test.ts > reader', name: 'reader', verdict: 'flaky', fast: [3, 6], ci: [0.188, 0.812], greenRuns: 5 })
    expect(render([reader], { ...at(110), conditions }).slice(0, 2)).toEqual([
      '  ORDER-DEPENDENT  3 of 6  [18.8%, 81.2%]  fails unless a.test.ts > setup or a.test.ts > seed runs first',
      '    a.test.ts > reader',
    ])
  })

  it('drops the caveat from a broken test plain runs of its file failed too, and explains nothing it does not show', () => {
    const confirmed = { ...BROKEN, tally: { ...BROKEN.tally, plainEvidence: { plain: { trials: 1, failures: 1 } } } } as unknown as TestOutcome
    const lines = render([confirmed], at(80))
    expect(lines.slice(2)).toEqual([
      '',
      '  next:',
      '    broken: it failed every repetition, and every run of its file as usual; run',
      '      its file and read the error:',
      '      npx vitest run tests/deeply/nested/folder/cart.test.ts',
    ])
    // A broken row has no green runs, so no legend line explains them (its plan is not for the table).
    expect(render([{ ...confirmed, greenRuns: 2 }], at(80)).join('\n')).not.toContain('green runs')
  })

  it('drops the caveat from a broken test whose every trial was an ordinary run (rounds of one repetition)', () => {
    const lines = render([BROKEN], { ...at(80), repeat: 1, rounds: 20 })
    expect(lines.slice(-3)).toEqual([
      '    broken: it failed in every run, each test of its file once a run; run its',
      '      file and read the error:',
      '      npx vitest run tests/deeply/nested/folder/cart.test.ts',
    ])
  })

  it('renders nothing for no test', () => {
    expect(renderTable([], at(80))).toEqual([])
  })
})

describe('a run with many concerning tests (mobx: 145 rule-tester cases, each non-idempotent)', () => {
  // Sorted worst first, as a run's outcomes are: 2 flaky, then 30 non-idempotent.
  const switched = { runs: 2, expected_runs: 2.6, p_value: 0.8, method: 'exact', pattern: 'one-switch', switch_at: 2, switched_to: 'failed', period: null, switch_p_value: 0.2, switch_significant: false, period_p_value: null }
  const many = [
    ...[1, 2].map((i) => outcome({ id: `a.test.ts > flaky ${i}`, name: `flaky ${i}`, verdict: 'flaky', fast: [1, 5], ci: [0.036, 0.624], greenRuns: 14 })),
    ...Array.from({ length: 30 }, (_, i) => {
      // A rule tester's case is named by its code, line breaks and all.
      const o = outcome({ id: `rules.test.ts > case\n${i}`, name: `case\n${i}`, file: 'rules.test.ts', verdict: 'non-idempotent', fast: [4, 5], ci: [0.376, 0.964], greenRuns: null })
      return { ...o, tally: { ...o.tally, independence: switched } } as TestOutcome
    }),
  ]

  it(`lists the first ${TABLE_ROWS} and counts the rest by verdict`, () => {
    const lines = render(many, at(120))
    expect(lines.filter((line) => /^ {2}(FLAKY|NON-IDEMPOTENT) /.test(line))).toHaveLength(TABLE_ROWS)
    expect(lines).toContain('  … and 7 more (7 non-idempotent): report.html and flaky_report.md list every one')
    // The next steps still come from every test, shown or not.
    expect(lines).toContain('    flaky: find the cause in report.html; once fixed, prove it (its green runs):')
  })

  it(`explains the first ${EXPLAINED} non-idempotent tests, and says where the others are`, () => {
    const result = { dir: process.cwd(), unchanged: false, tests: many, summary: undefined, proof: undefined, conditions: undefined, bundle: undefined } as unknown as TestRunResult
    const lines = renderRunEnd(result, { unfinished: [], runErrors: [], calibration: false, repeat: 5, confidence: 0.95, hints: VITEST, width: 80 }).map(stripAnsi)
    expect(lines.filter((line) => line.startsWith('  non-idempotent: '))).toHaveLength(EXPLAINED)
    expect(lines.filter((line) => line.startsWith('  non-idempotent: rules.test.ts > case\\n0: Passed repetition 1'))).toHaveLength(1)
    expect(lines).toContain(`  … and ${30 - EXPLAINED} more explained in flaky_report.md, each with its command`)
  })
})
