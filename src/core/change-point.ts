import { logBeta } from './log-gamma.js'

/**
 * One change-point model, for `flakeproof bisect` and for `flakeproof history`'s rate change
 * (docs/bisect.md, "The model"). Commits 0 … n−1 are in order, oldest first, each with the
 * executions seen there. Some commit k ≥ 1 is the first with the "after" rate: every execution at
 * a commit before k fails independently with an unknown rate p₀, every one at k or later with an
 * unknown rate p₁. p₀ and p₁ have Beta priors and are integrated out, so the evidence for k is a
 * product of two Beta-Binomial marginals (closed form, in log space):
 *
 *   P(data | k) ∝ B(α₀ + F<k, β₀ + S<k) / B(α₀, β₀) · B(α₁ + F≥k, β₁ + S≥k) / B(α₁, β₁)
 *
 * (F, S: failures and passes before / from k; the binomial coefficients are alike for every k and
 * cancel). With a uniform prior over k the posterior is that, normalised; the same as
 * git-bayesect's model, with the good commit excluded as a candidate because the user says it is good.
 */

export interface Tally {
  trials: number
  failures: number
}

export interface BetaPrior {
  alpha: number
  beta: number
}

/** Beta priors of the rate before the change (p₀) and from it on (p₁). */
export interface RatePriors {
  before: BetaPrior
  after: BetaPrior
}

/** Jeffreys' prior Beta(½, ½): invariant, and git-bayesect's default, which it warns against moving (overconfidence). */
export const JEFFREYS: BetaPrior = { alpha: 0.5, beta: 0.5 }
export const UNINFORMED: RatePriors = { before: JEFFREYS, after: JEFFREYS }

export interface ChangePointPosterior {
  /** `probability[k]`: that commit k is the first with the after rate; `probability[0]` is 0 (the first commit is "before" by assumption). */
  probability: number[]
  /** That nothing changed (one rate throughout), when the prior allowed it; else 0. */
  noChange: number
  /** The most likely k (the earliest of equals). */
  best: number
}

/**
 * The posterior over the change point. `noChangePrior` (history) is the prior probability that no
 * commit changed the rate, whose evidence is one Beta-Binomial marginal under `before`; bisect
 * leaves it 0, because the user says the bad commit is worse than the good one.
 */
export function changePointPosterior(tallies: readonly Tally[], priors: RatePriors, noChangePrior = 0): ChangePointPosterior {
  const n = tallies.length
  const { trials, failures } = cumulative(tallies)
  const allTrials = trials[n] as number
  const allFailures = failures[n] as number
  const logs = new Array<number>(n).fill(Number.NEGATIVE_INFINITY)
  const logUniform = n > 1 ? Math.log((1 - noChangePrior) / (n - 1)) : Number.NEGATIVE_INFINITY
  for (let k = 1; k < n; k++) {
    const t0 = trials[k] as number
    // Hypotheses with no execution between them have the same evidence: computed once per stretch.
    if (k > 1 && t0 === trials[k - 1]) {
      logs[k] = logs[k - 1] as number
      continue
    }
    const f0 = failures[k] as number
    logs[k] = logUniform + logMarginal(priors.before, f0, t0) + logMarginal(priors.after, allFailures - f0, allTrials - t0)
  }
  const logNoChange = noChangePrior > 0 ? Math.log(noChangePrior) + logMarginal(priors.before, allFailures, allTrials) : Number.NEGATIVE_INFINITY
  const top = Math.max(logNoChange, ...logs)
  let sum = Math.exp(logNoChange - top)
  for (const l of logs) sum += Math.exp(l - top)
  const probability = logs.map((l) => Math.exp(l - top) / sum)
  let best = 1
  for (let k = 2; k < n; k++) if ((probability[k] as number) > (probability[best] as number)) best = k
  return { probability, noChange: Math.exp(logNoChange - top) / sum, best: Math.min(best, n - 1) }
}

/**
 * Expected information gain, in bits, about the change point from `batch` more executions at each
 * commit j (the mutual information between the number of failures and k): H(predictive) − Σₖ P(k) ·
 * H(Beta-Binomial under k). Under hypothesis k, commit j is "after" when j ≥ k, and its failures
 * follow the Beta-Binomial of that side's posterior. Hypotheses between two visited commits share
 * their posteriors, so the distributions are computed once per stretch: O(n · batch) per call.
 */
export function informationGain(tallies: readonly Tally[], priors: RatePriors, posterior: readonly number[], batch: number): Float64Array {
  const n = tallies.length
  const { trials, failures } = cumulative(tallies)
  const allTrials = trials[n] as number
  const allFailures = failures[n] as number
  // Consecutive hypotheses with no visited commit between them share both posteriors: reuse the last.
  let last: { after: [number, number, Predictive]; before: [number, number, Predictive] } | undefined
  const reuse = (side: [number, number, Predictive] | undefined, prior: BetaPrior, f: number, t: number): [number, number, Predictive] =>
    side !== undefined && side[0] === f && side[1] === t ? side : [f, t, betaBinomial(batch, prior.alpha + f, prior.beta + t - f)]
  const after: Predictive[] = []
  const before: Predictive[] = []
  for (let k = 1; k < n; k++) {
    const f0 = failures[k] as number
    const t0 = trials[k] as number
    last = { after: reuse(last?.after, priors.after, allFailures - f0, allTrials - t0), before: reuse(last?.before, priors.before, f0, t0) }
    after[k] = last.after[2]
    before[k] = last.before[2]
  }
  // Sweep j upwards: hypotheses k ≤ j see j "after", the others "before".
  const mixAfter = new Float64Array(batch + 1)
  const mixBefore = new Float64Array(batch + 1)
  let entropyAfter = 0
  let entropyBefore = 0
  for (let k = 1; k < n; k++) {
    const w = posterior[k] as number
    const { pmf, entropy } = before[k] as Predictive
    for (let f = 0; f <= batch; f++) mixBefore[f] = (mixBefore[f] as number) + w * (pmf[f] as number)
    entropyBefore += w * entropy
  }
  const gains = new Float64Array(n)
  const mixed = new Float64Array(batch + 1)
  for (let j = 0; j < n; j++) {
    if (j >= 1) {
      const w = posterior[j] as number
      const a = after[j] as Predictive
      const b = before[j] as Predictive
      for (let f = 0; f <= batch; f++) {
        mixAfter[f] = (mixAfter[f] as number) + w * (a.pmf[f] as number)
        mixBefore[f] = (mixBefore[f] as number) - w * (b.pmf[f] as number)
      }
      entropyAfter += w * a.entropy
      entropyBefore -= w * b.entropy
    }
    // Running sums lose ~1e-16 per step: clamp the tiny negatives, which mean 0.
    for (let f = 0; f <= batch; f++) mixed[f] = Math.max(0, (mixAfter[f] as number) + (mixBefore[f] as number))
    gains[j] = Math.max(0, entropyOf(mixed) - Math.max(0, entropyAfter) - Math.max(0, entropyBefore)) / Math.LN2
  }
  return gains
}

/** Failures and trials at commits before (`counts[k]`) and from (`all − counts[k]`) commit k. */
export function splitAt(tallies: readonly Tally[], k: number): { before: Tally; after: Tally } {
  const { trials, failures } = cumulative(tallies)
  const n = tallies.length
  return {
    before: { trials: trials[k] as number, failures: failures[k] as number },
    after: { trials: (trials[n] as number) - (trials[k] as number), failures: (failures[n] as number) - (failures[k] as number) },
  }
}

// --- internal ---

interface Predictive {
  /** P(f failures of `batch`), f = 0 … batch. */
  pmf: Float64Array
  /** Its entropy, in nats. */
  entropy: number
}

/** ln ∫ p^f (1 − p)^(t − f) Beta(p; α, β) dp: the evidence of one ordered sequence. */
function logMarginal(prior: BetaPrior, failures: number, trials: number): number {
  return logBeta(prior.alpha + failures, prior.beta + trials - failures) - logBeta(prior.alpha, prior.beta)
}

/** Prefix sums: `trials[k]` and `failures[k]` over commits 0 … k−1. */
function cumulative(tallies: readonly Tally[]): { trials: number[]; failures: number[] } {
  const trials = [0]
  const failures = [0]
  for (const [i, t] of tallies.entries()) {
    trials.push((trials[i] as number) + t.trials)
    failures.push((failures[i] as number) + t.failures)
  }
  return { trials, failures }
}

/** The Beta-Binomial(m, a, b) distribution, walked from f = 0 by its term ratio in log space. */
function betaBinomial(m: number, a: number, b: number): Predictive {
  const pmf = new Float64Array(m + 1)
  let log = logBeta(a, b + m) - logBeta(a, b)
  pmf[0] = Math.exp(log)
  for (let f = 0; f < m; f++) {
    log += Math.log((m - f) / (f + 1)) + Math.log((a + f) / (b + m - f - 1))
    pmf[f + 1] = Math.exp(log)
  }
  return { pmf, entropy: entropyOf(pmf) }
}

function entropyOf(p: Float64Array): number {
  let h = 0
  for (const x of p) if (x > 0) h -= x * Math.log(x)
  return h
}
