import { type Step, type StepCosts, chooseStep } from './bisect-policy.js'
import { type ChangePointPosterior, changePointPosterior, JEFFREYS, type RatePriors, type Tally } from './change-point.js'

/**
 * The bookkeeping of one bisection, shared by the command (src/pipeline/bisect.ts, which runs each
 * step for real) and the simulation (which draws it): what was seen at each commit, the posterior,
 * and when to stop — at posterior ≥ confidence, or when the execution budget is spent.
 */

/**
 * The rate priors of a bisection with no measured rate: Beta(½, 2) before the change (mean 0.2: the
 * commit the user calls good more likely passes than fails) and Jeffreys' Beta(½, ½) after it. Against
 * Jeffreys on both sides it used 0–5% fewer executions on the calibration's scenarios at the same
 * accuracy (docs/bisect.md, "The model"); a measured rate given with --prior-from is added as
 * executions on top of these.
 */
export const BISECT_PRIORS: RatePriors = { before: { alpha: 0.5, beta: 2 }, after: JEFFREYS }

export interface BisectProblem {
  /** Commits 0 … commits−1, oldest first: 0 is the good one, commits−1 the bad one. */
  commits: number
  priors: RatePriors
  confidence: number
  maxExecutions: number
  /** The floor on information per execution of a batch (BATCH_EFFICIENCY unless given; 0 for `--optimize time`). */
  batchEfficiency?: number
}

/** What one step gave: `executions` at `commit`, of which `failures` failed, in `starts` process starts. */
export interface Visit {
  commit: number
  executions: number
  failures: number
  starts: number
}

export type StopReason = 'found' | 'budget'

export interface BisectSummary {
  posterior: ChangePointPosterior
  /** The most likely culprit and its posterior probability. */
  best: number
  probability: number
  found: boolean
  executions: number
  starts: number
}

export class BisectLedger {
  readonly problem: BisectProblem
  readonly tallies: Tally[]
  readonly visits: Visit[] = []
  /** Commits that could not be observed (setup or start failed): never chosen again. */
  readonly unobservable = new Set<number>()
  executions = 0
  starts = 0
  private _posterior: ChangePointPosterior

  /** `seen`: executions known before the first step (a measurement or history given as the prior, by commit). */
  constructor(problem: BisectProblem, seen: readonly Tally[] = []) {
    this.problem = problem
    this.tallies = Array.from({ length: problem.commits }, (_, i) => ({ trials: seen[i]?.trials ?? 0, failures: seen[i]?.failures ?? 0 }))
    this._posterior = changePointPosterior(this.tallies, problem.priors)
  }

  get posterior(): ChangePointPosterior {
    return this._posterior
  }

  record(visit: Visit): void {
    const tally = this.tallies[visit.commit] as Tally
    tally.trials += visit.executions
    tally.failures += visit.failures
    this.executions += visit.executions
    this.starts += visit.starts
    this.visits.push(visit)
    this._posterior = changePointPosterior(this.tallies, this.problem.priors)
  }

  /** Why to stop now, or undefined to go on. */
  stopReason(): StopReason | undefined {
    if (this.summary().found) return 'found'
    if (this.executions >= this.problem.maxExecutions) return 'budget'
    if (this.unobservable.size >= this.problem.commits) return 'budget'
    return undefined
  }

  next(costs: StepCosts): Step {
    return chooseStep(this.tallies, this.problem.priors, this._posterior.probability, costs, {
      remaining: Math.max(1, this.problem.maxExecutions - this.executions),
      observable: (commit) => !this.unobservable.has(commit),
      ...(this.problem.batchEfficiency === undefined ? {} : { efficiency: this.problem.batchEfficiency }),
    })
  }

  summary(): BisectSummary {
    const { best } = this._posterior
    const probability = this._posterior.probability[best] as number
    return { posterior: this._posterior, best, probability, found: probability >= this.problem.confidence, executions: this.executions, starts: this.starts }
  }
}

/** A whole bisection with a synchronous observer: the simulation's loop. */
export function runBisect(problem: BisectProblem & { costs: StepCosts; observe: (commit: number, batch: number) => Visit; seen?: readonly Tally[] }): BisectSummary {
  const ledger = new BisectLedger(problem, problem.seen)
  while (ledger.stopReason() === undefined) {
    const step = ledger.next(problem.costs)
    ledger.record(problem.observe(step.commit, step.batch))
  }
  return ledger.summary()
}
