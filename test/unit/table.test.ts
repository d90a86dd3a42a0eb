import { describe, expect, it } from 'vitest'
import { stripAnsi } from '../../src/core/ansi.js'
import type { TestOutcome } from '../../src/pipeline/test-run.js'
import { renderTable } from '../../src/session/_table.js'

/** Only the fields renderTable reads; the rest of a TestOutcome does not reach the terminal table. */
function outcome(id: string, verdict: TestOutcome['verdict'], fast: [number, number], ci: [number, number], greenRuns: number | null, slow: [number, number] = [0, 0]): TestOutcome {
  return {
    tally: { id, fast: { failures: fast[0], trials: fast[1] }, slow: { failures: slow[0], trials: slow[1] } },
    verdict,
    ci: { low: ci[0], high: ci[1] },
    greenRuns,
  } as unknown as TestOutcome
}

// Colour depends on the terminal; the layout is what is tested.
const render = (outcomes: TestOutcome[]): string[] => renderTable(outcomes).map(stripAnsi)

describe('renderTable (the terminal summary of a Vitest run)', () => {
  it('aligns the columns across rows and keeps the order it is given', () => {
    const lines = render([
      outcome('a.test.ts > flaky', 'flaky', [40, 200], [0.150451, 0.260856], 14, [0, 20]),
      outcome('a.test.ts > broken', 'broken', [10, 10], [0.72246, 1], null),
    ])
    // Columns joined by two spaces after a one-space indent; widths by hand: verdict 6 (BROKEN),
    // counts 6 (40/200, right-aligned), interval 15 ([72.2%, 100.0%]), runs 18 (fix: 14 green runs),
    // slow 9 (slow 0/20); percentages: 15.0451 → 15.0%, 26.0856 → 26.1%, 72.246 → 72.2%.
    expect(lines).toEqual([
      '   FLAKY   40/200  [15.0%, 26.1%]   fix: 14 green runs  slow 0/20  a.test.ts > flaky',
      '   BROKEN   10/10  [72.2%, 100.0%]  –                              a.test.ts > broken',
    ])
  })

  it('writes a newline in a test name as \\n, so a row stays one line', () => {
    const [line] = render([outcome('a.test.ts > two\nlines', 'flaky', [1, 10], [0.1, 0.5], 30)])
    expect(line).toBe('   FLAKY  1/10  [10.0%, 50.0%]  fix: 30 green runs    a.test.ts > two\\nlines')
  })

  it('renders nothing for no test', () => {
    expect(renderTable([])).toEqual([])
  })
})
