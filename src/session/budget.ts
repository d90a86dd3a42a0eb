import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { readJsonFile } from '../artifacts/read.js'
import { RateFileSchema } from '../artifacts/schemas.js'
import { MAX_TRIALS } from '../config/flags.js'
import type { ResolvedVitestOptions } from '../config/vitest-options.js'
import { type BudgetPlan, CALIBRATION_RUNS, planBudgetRepeats } from '../core/time-budget.js'
import { FlakeproofError } from '../errors.js'
import type { RunOnce, WrapperEnd } from './runner-adapter.js'


/**
 * `flakeproof <runner> --flaky-budget 5m` (docs/contracts.md §9): the selection runs CALIBRATION_RUNS
 * times first, which times one run and checks it is not simply broken; then it is measured with as
 * many repetitions as the budget holds (src/core/time-budget.ts). A selection in which a test failed
 * every calibration run is not repeated: that is a bug to fix, not a flake to measure.
 */
export async function runWithBudget(resolved: ResolvedVitestOptions, budgetMs: number, runOnce: RunOnce, log: (line: string) => void): Promise<WrapperEnd> {
  const startedAt = Date.now()
  log(` flakeproof budget ${formatMs(budgetMs)}: timing ${CALIBRATION_RUNS} runs of the selection first`)
  // `budget` stays set: the reporter then knows this is the calibration and shows no verdicts.
  const calibration = await runOnce({ ...resolved, repeat: CALIBRATION_RUNS, observe: false })
  const ratePath = join(calibration.outDir, 'rate.json')
  // A runner that stopped before any test (a package it lacks, a config it refused) said why itself.
  if (calibration.code !== 0 && !existsSync(ratePath)) return { code: calibration.code, ending: calibration.ending }
  const rate = readJsonFile(ratePath, RateFileSchema, '--flaky-budget', 'The calibration run wrote no measurement; check that the selection has tests.')
  if (Date.parse(rate.started_at) < startedAt - 1000 || rate.trials === 0) {
    if (calibration.code !== 0) return { code: calibration.code, ending: calibration.ending }
    throw new FlakeproofError(`--flaky-budget: no test ran in the calibration run, so there is nothing to time (${ratePath} is older); check the selection`, 'E_INPUT')
  }
  const tests = rate.tests ?? []
  const failedEveryRun = tests.filter((t) => t.trials === rate.trials && t.failures === t.trials)
  // Tests and hooks of all modules summed, over the runs: parallel workers make the wall time shorter,
  // so the budget is, if anything, underused, never overrun.
  const singleRunMs = calibration.testTimeMs / rate.trials
  const plan = planBudgetRepeats({ budgetMs, singleRunMs, tests: tests.length, runs: rate.trials, failedEveryRun: failedEveryRun.length, maxRepeat: MAX_TRIALS })
  for (const line of describePlan(plan, budgetMs, singleRunMs, tests.length, failedEveryRun)) log(line)
  if (plan.kind === 'deterministic') return { code: 1, ending: calibration.ending }
  process.exitCode = 0
  const { code, ending } = await runOnce({ ...resolved, budget: undefined, repeat: plan.repeat })
  return { code, ending }
}

// --- internal ---

function describePlan(plan: BudgetPlan, budgetMs: number, singleRunMs: number, tests: number, failedEveryRun: readonly { id: string }[]): string[] {
  if (plan.kind === 'deterministic') {
    return [
      ` flakeproof ${plan.failedEveryRun} test(s) failed all ${CALIBRATION_RUNS} of their first runs: a deterministic failure, not a flake. Fix it as a normal bug; nothing is repeated.`,
      ...failedEveryRun.map((t) => `   ${t.id}`),
    ]
  }
  const one = ` flakeproof one run of ${tests} test(s) takes ${formatMs(singleRunMs)}`
  const fitted = `round(${formatMs(budgetMs)} / ${formatMs(singleRunMs)}) = ${plan.fitted}`
  if (plan.forcedFewer) {
    const floor = plan.overBudget ? `, raised to ${plan.repeat}, the fewest that can show a flake` : ''
    return [`${one}; 100 runs would take ${formatMs(100 * singleRunMs)}, past the ${formatMs(budgetMs)} budget, so the budget forces fewer: repeating ${plan.repeat} times (${fitted}${floor})`]
  }
  if (plan.overBudget) return [`${one}; repeating ${plan.repeat} times: a single test gets at least 100, past the ${formatMs(budgetMs)} budget (${fitted})`]
  return [`${one}; repeating ${plan.repeat} times: max(100, ${fitted})`]
}

function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 120_000) return `${Number((ms / 1000).toFixed(1))} s`
  return `${Number((ms / 60_000).toFixed(1))} min`
}
