import { BISECT_PRIORS, type BisectSummary, type Visit, runBisect } from './bisect-run.js'
import type { RatePriors } from './change-point.js'
import type { StepCosts } from './bisect-policy.js'
import { seededRandom } from './seeded-random.js'

/**
 * The seeded simulation that calibrates `flakeproof bisect` (bench/bisect-calibration.mjs and its
 * smoke version in test/unit/bisect-calibration.test.ts): the same decision code as the real
 * command (runBisect), with executions drawn from known rates instead of run.
 */

export interface Scenario {
  /** Commits in the range, the good one included (git-bayesect's `commits`): the culprit is one of the other commits − 1. */
  commits: number
  before: number
  after: number
}

export interface SimulationSettings {
  confidence: number
  maxExecutions: number
  costs: Omit<StepCosts, 'visitMs'>
  priors?: RatePriors
  /** The floor on information per execution of a batch: BATCH_EFFICIENCY (`--optimize executions`) unless given; 0 is `--optimize time`, the command's default. */
  batchEfficiency?: number
  /** Executions measured at the bad commit before the bisection (`--prior-from rate.json`), drawn from its rate. */
  priorAtBad?: number
}

export interface TrialResult {
  culprit: number
  summary: BisectSummary
  correct: boolean
}

/**
 * One simulated bisection. The culprit is uniform over commits 1 … commits−1; each commit draws its
 * executions from its own generator, seeded from the trial's, so the same commit gives the same
 * sequence of outcomes whatever order it is visited in (common random numbers, as git-bayesect's
 * calibration does).
 */
export function simulateBisect(scenario: Scenario, settings: SimulationSettings, seed: number): TrialResult {
  const random = seededRandom(seed)
  const culprit = 1 + Math.floor(random() * (scenario.commits - 1))
  const draws = Array.from({ length: scenario.commits }, () => seededRandom(Math.floor(random() * 2 ** 32)))
  // Drawn apart from the bad commit's own sequence, so a prior never changes what the bisection sees there.
  const measure = seededRandom(Math.floor(random() * 2 ** 32))
  const seen = Array.from({ length: scenario.commits }, () => ({ trials: 0, failures: 0 }))
  const atBad = seen[scenario.commits - 1] as { trials: number; failures: number }
  for (let i = 0; i < (settings.priorAtBad ?? 0); i++) {
    atBad.trials++
    if (measure() < scenario.after) atBad.failures++
  }
  const summary = runBisect({
    seen,
    commits: scenario.commits,
    priors: settings.priors ?? BISECT_PRIORS,
    confidence: settings.confidence,
    maxExecutions: settings.maxExecutions,
    ...(settings.batchEfficiency === undefined ? {} : { batchEfficiency: settings.batchEfficiency }),
    costs: { ...settings.costs, visitMs: () => 0 },
    observe: (commit, batch): Visit => {
      const rate = commit >= culprit ? scenario.after : scenario.before
      const draw = draws[commit] as () => number
      let failures = 0
      for (let i = 0; i < batch; i++) if (draw() < rate) failures++
      return { commit, executions: batch, failures, starts: settings.costs.processPerExecution ? batch : 1 }
    },
  })
  return { culprit, summary, correct: summary.best === culprit }
}

export interface Calibration {
  trials: number
  /** Share of trials whose answer (at confidence or not) was the culprit. */
  accuracy: number
  /** √(a(1 − a)/trials): the standard error of `accuracy`. */
  standardError: number
  /** Share of trials that reached the confidence within the budget. */
  converged: number
  executions: Spread
  starts: Spread
}

export interface Spread {
  mean: number
  p50: number
  p95: number
}

/** `trials` seeded bisections of one scenario: accuracy with its standard error, executions and starts. */
export function calibrate(scenario: Scenario, settings: SimulationSettings, trials: number, seed: number): Calibration {
  const seeds = seededRandom(seed)
  const results = Array.from({ length: trials }, () => simulateBisect(scenario, settings, Math.floor(seeds() * 2 ** 32)))
  const accuracy = results.filter((r) => r.correct).length / trials
  return {
    trials,
    accuracy,
    standardError: Math.sqrt((accuracy * (1 - accuracy)) / trials),
    converged: results.filter((r) => r.summary.found).length / trials,
    executions: spread(results.map((r) => r.summary.executions)),
    starts: spread(results.map((r) => r.summary.starts)),
  }
}

// --- internal ---

/** Mean, median and 95th percentile (nearest rank). */
function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b)
  const rank = (q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number
  return { mean: values.reduce((a, b) => a + b, 0) / values.length, p50: rank(0.5), p95: rank(0.95) }
}
