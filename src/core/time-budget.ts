/**
 * The shakedown rule (../shared/seeds/shakedown-flaky-test-skill.txt, step 2): repeat a selection
 * N = max(100, round(budget / one run)) times; a single test gets at least 100 even past the
 * budget, a larger selection is cut to what fits the budget (never below 2, the fewest that can
 * show a flake) and the cut is said out loud. A selection with a test that failed every calibration
 * run holds a deterministic failure and is not repeated at all. Every run failing is not enough:
 * three flaky tests failing in turn fail every run without any of them being deterministic.
 */

/**
 * Runs of the selection timed before planning. One failure could be bad luck; a selection failing
 * three runs in a row is called deterministic (a test failing 20% of the time does that 0.8% of
 * the time, and one failing 90% is a bug to fix either way).
 */
export const CALIBRATION_RUNS = 3
/** Repetitions the rule asks for at least. */
export const BUDGET_MIN_REPEAT = 100
/** Fewest repetitions that can tell a flake from a pass or a failure. */
export const BUDGET_FLOOR_REPEAT = 2

/**
 * How many repetitions fit a time budget (`--flaky-budget`): `deterministic` when some test failed
 * every calibration run (there is no flake to measure), else the repetitions to ask for, how many
 * fitted, and whether the floor forced fewer tests or more time than the budget.
 */
export type BudgetPlan =
  | { kind: 'deterministic'; failedEveryRun: number }
  | { kind: 'planned'; repeat: number; fitted: number; forcedFewer: boolean; overBudget: boolean }

/** The calibration runs of a time budget: what one run of the selection cost and what it found. */
export interface Calibration {
  /** The time budget, in milliseconds. */
  budgetMs: number
  /** Wall time of one run of the whole selection (positive). */
  singleRunMs: number
  /** Tests in the selection. */
  tests: number
  /** Calibration runs of the selection. */
  runs: number
  /** Tests that ran in every calibration run and failed every one. */
  failedEveryRun: number
  /** Most repetitions one run may ask for (the repeat option's limit). */
  maxRepeat: number
}

/**
 * Repetitions for a time budget from its calibration: budget / one run's time, at most `maxRepeat`;
 * at least BUDGET_MIN_REPEAT for a single test (said as over budget when that does not fit), or
 * the floor BUDGET_FLOOR_REPEAT for a selection.
 */
export function planBudgetRepeats(c: Calibration): BudgetPlan {
  if (c.failedEveryRun > 0) return { kind: 'deterministic', failedEveryRun: c.failedEveryRun }
  // A run shorter than a millisecond still takes one: the quotient stays finite.
  const fitted = Math.min(c.maxRepeat, Math.round(c.budgetMs / Math.max(c.singleRunMs, 1)))
  if (c.tests <= 1) {
    const repeat = Math.max(BUDGET_MIN_REPEAT, fitted)
    return { kind: 'planned', repeat, fitted, forcedFewer: false, overBudget: fitted < BUDGET_MIN_REPEAT }
  }
  const repeat = fitted >= BUDGET_MIN_REPEAT ? fitted : Math.max(BUDGET_FLOOR_REPEAT, fitted)
  return { kind: 'planned', repeat, fitted, forcedFewer: fitted < BUDGET_MIN_REPEAT, overBudget: fitted < BUDGET_FLOOR_REPEAT }
}
