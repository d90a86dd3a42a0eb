import { informationGain, type RatePriors, type Tally } from './change-point.js'

/**
 * Where `flakeproof bisect` looks next, and how many executions it runs there in one go
 * (docs/bisect.md, "Choosing the next commit"). Pure: the pipeline measures the costs, the
 * simulation (bisect-simulation.ts) sets them, and both call this one function.
 */

/** What a batch costs, as measured from the runs themselves (or set by the simulation). */
export interface StepCosts {
  /** Starting the process that runs the batch (Vitest's or Jest's start-up; for `--cmd`, one execution's own start). */
  startMs: number
  /** One more repetition inside a process that has started. */
  repetitionMs: number
  /** `--cmd`: every execution is its own process, so a batch of m costs m starts. */
  processPerExecution: boolean
  /** Preparing commit j before its first execution (`--setup` when its lockfile was not set up yet); 0 otherwise. */
  visitMs: (commit: number) => number
}

export interface StepLimits {
  /** Executions left in the budget (at least 1). */
  remaining: number
  /** Commits that can still be observed (one that could not be set up or run is left out). */
  observable: (commit: number) => boolean
  /** The floor on information per execution of a batch: BATCH_EFFICIENCY unless given (0 for `--optimize time`). */
  efficiency?: number
}

export interface Step {
  commit: number
  batch: number
  /** Expected information gain about the culprit, in bits. */
  gainBits: number
  /** Expected cost of the step, ms. */
  costMs: number
}

/** Batch sizes considered: roughly geometric, so a batch never overshoots its best size by more than half. */
export const BATCH_SIZES: readonly number[] = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256]

/**
 * With `--optimize executions`: the least information per execution a batch may carry, as a share
 * of the best single execution's. A batch is cheaper per execution in start-ups but blind inside
 * (its 10th execution cannot go where the first 9 say it should), so it is then allowed only where
 * that loses at most 15% of what each execution could tell: executions stay about as few as
 * one-at-a-time bisection needs, and starts drop only where one execution says little (low rates).
 * The default, `--optimize time`, has no floor (0): the measured costs alone size the batch.
 * Compared in the calibration (docs/bisect.md).
 */
export const BATCH_EFFICIENCY = 0.85

/** The first batch at the bad commit in a process that repeats in itself, before any cost is measured. */
export const FIRST_BATCH = 8

/**
 * The step with the most information per unit of cost among those whose information per execution
 * is at least BATCH_EFFICIENCY of the best single execution's. Before anything is known every
 * commit tells as little (both rates unknown, both sides alike), so the first step is at the bad
 * commit, which anchors the "after" rate.
 */
export function chooseStep(tallies: readonly Tally[], priors: RatePriors, posterior: readonly number[], costs: StepCosts, limits: StepLimits): Step {
  const n = tallies.length
  const bad = n - 1
  const batches = BATCH_SIZES.filter((m) => m <= limits.remaining && (m === 1 || !costs.processPerExecution))
  const costOf = (commit: number, m: number): number => costs.visitMs(commit) + cheapestCost(costs, m)
  const single = informationGain(tallies, priors, posterior, 1)
  let bestSingle = 0
  for (let j = 0; j < n; j++) if (limits.observable(j)) bestSingle = Math.max(bestSingle, single[j] as number)
  if (bestSingle <= 1e-12) {
    const first = costs.processPerExecution ? 1 : Math.min(FIRST_BATCH, limits.remaining)
    const commit = limits.observable(bad) ? bad : firstObservable(n, limits)
    return { commit, batch: first, gainBits: 0, costMs: costOf(commit, first) }
  }
  const middle = medianOf(posterior)
  // No batch can tell more about k than there is to know, the posterior's entropy: once that, per
  // the cheapest cost of a batch of m, is below the best score found, no larger batch can beat it.
  const bound = entropyBits(posterior)
  let chosen: Step | undefined
  let chosenScore = Number.NEGATIVE_INFINITY
  for (const m of batches) {
    if (bound / cheapestCost(costs, m) < chosenScore) break
    const gain = m === 1 ? single : informationGain(tallies, priors, posterior, m)
    // Information from m executions at one commit is concave in m, so gain/m only falls: once no
    // commit passes the efficiency floor, no larger batch will.
    let passes = false
    for (let j = 0; j < n; j++) {
      const g = gain[j] as number
      if (!limits.observable(j) || g / m < (limits.efficiency ?? BATCH_EFFICIENCY) * bestSingle) continue
      passes = true
      const cost = costOf(j, m)
      const score = g / cost
      // Equal scores (symmetric posteriors) go to the commit nearest the posterior's median.
      const better = score > chosenScore * (1 + 1e-9) || (score >= chosenScore * (1 - 1e-9) && chosen !== undefined && Math.abs(j - middle) < Math.abs(chosen.commit - middle))
      if (better) {
        chosen = { commit: j, batch: m, gainBits: g, costMs: cost }
        chosenScore = score
      }
    }
    if (!passes) break
  }
  return chosen as Step
}

// --- internal ---

/** A batch of m at a commit already prepared. */
function cheapestCost(costs: StepCosts, m: number): number {
  return costs.processPerExecution ? m * (costs.startMs + costs.repetitionMs) : costs.startMs + m * costs.repetitionMs
}

/** The entropy of a distribution, in bits. */
function entropyBits(p: readonly number[]): number {
  let h = 0
  for (const x of p) if (x > 0) h -= x * Math.log2(x)
  return h
}

function firstObservable(n: number, limits: StepLimits): number {
  for (let j = n - 1; j >= 0; j--) if (limits.observable(j)) return j
  return n - 1
}

/** The commit where the posterior's cumulative mass reaches ½. */
function medianOf(posterior: readonly number[]): number {
  let sum = 0
  for (const [k, p] of posterior.entries()) {
    sum += p
    if (sum >= 0.5) return k
  }
  return posterior.length - 1
}
