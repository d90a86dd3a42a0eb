import { describe, expect, it } from 'vitest'
import { parseDurationMs } from '../../src/core/duration.js'
import { planBudgetRepeats } from '../../src/core/time-budget.js'

const MAX = 1_000_000

describe('planBudgetRepeats: N = max(100, round(budget / one run)) (shakedown skill, step 2)', () => {
  // Hand arithmetic beside each row; the seed's own example: a 10 s single test still gets 100.
  it.each([
    // budgetMs, singleRunMs, tests, repeat, fitted, forcedFewer, overBudget
    [300_000, 10_000, 1, 100, 30, false, true], // 300 s / 10 s = 30 → raised to 100 (seed: "10s → still --count 100")
    [300_000, 1_000, 1, 300, 300, false, false], // 300 / 1 = 300
    [300_000, 700, 1, 429, 429, false, false], // 300 / 0.7 = 428.57 → 429
    [300_000, 3_000, 1, 100, 100, false, false], // exactly 100
    [300_000, 1_000, 12, 300, 300, false, false], // a selection that fits 100+ runs gets them
    [300_000, 10_000, 12, 30, 30, true, false], // 100 runs of 10 s would be 1000 s: cut to 30, said out loud
    [300_000, 200_000, 12, 2, 2, true, false], // 300 / 200 = 1.5 → 2
    [300_000, 400_000, 12, 2, 1, true, true], // 0.75 → 1, floored at 2: past the budget, said
    [300_000, 0.2, 1, 300_000, 300_000, false, false], // a run under 1 ms counts as 1 ms
    [3_600_000 * 24 * 20, 1, 1, MAX, MAX, false, false], // capped at the repeat limit
  ])('budget %i ms, one run %i ms, %i test(s) → %i', (budgetMs, singleRunMs, tests, repeat, fitted, forcedFewer, overBudget) => {
    expect(planBudgetRepeats({ budgetMs, singleRunMs, tests, runs: 3, failedEveryRun: 0, maxRepeat: MAX })).toEqual({ kind: 'planned', repeat, fitted, forcedFewer, overBudget })
  })

  it.each([
    [1, { kind: 'deterministic', failedEveryRun: 1 }], // a test failed all 3 calibration runs: fix it as a normal bug
    // Every run may have failed with no test failing them all (flaky tests failing in turn): not deterministic.
    [0, { kind: 'planned', repeat: 300, fitted: 300, forcedFewer: false, overBudget: false }],
  ])('%i test(s) failing every calibration run → %o', (failedEveryRun, plan) => {
    expect(planBudgetRepeats({ budgetMs: 300_000, singleRunMs: 1_000, tests: 4, runs: 3, failedEveryRun, maxRepeat: MAX })).toEqual(plan)
  })
})

describe('parseDurationMs', () => {
  it.each([
    ['5m', 300_000],
    ['300s', 300_000],
    ['1.5h', 5_400_000],
    ['250ms', 250],
    ['1200', 1200],
    [' 2m ', 120_000],
  ])('%s → %i ms', (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms)
  })

  it.each(['5 min', '-1m', '1e3s', 'm', '', '5d'])('refuses %j', (text) => {
    expect(parseDurationMs(text)).toBeUndefined()
  })
})
