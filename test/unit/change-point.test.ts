import { describe, expect, it } from 'vitest'
import { BATCH_EFFICIENCY, chooseStep, type StepCosts } from '../../src/core/bisect-policy.js'
import { changePointPosterior, informationGain, JEFFREYS, type RatePriors, splitAt, type Tally, UNINFORMED } from '../../src/core/change-point.js'
import { logBeta, logGamma } from '../../src/core/log-gamma.js'

const UNIFORM: RatePriors = { before: { alpha: 1, beta: 1 }, after: { alpha: 1, beta: 1 } }
const t = (trials: number, failures: number): Tally => ({ trials, failures })
const empty = (n: number): Tally[] => Array.from({ length: n }, () => t(0, 0))

describe('logGamma', () => {
  it.each([
    // Γ(½) = √π; Γ(1) = Γ(2) = 1; Γ(10) = 9! = 362880; Γ(3½) = (15/8)√π; ln Γ(100) = ln 99! (Python's math.lgamma); Γ(0.1) by reflection.
    [0.5, 0.5 * Math.log(Math.PI)],
    [1, 0],
    [2, 0],
    [10, Math.log(362880)],
    [3.5, Math.log((15 / 8) * Math.sqrt(Math.PI))],
    [100, 359.1342053695754],
    [0.1, 2.252712651734206],
    [1e6, 12815504.569147611],
  ])('ln Γ(%d) = %d', (x, expected) => {
    expect(Math.abs(logGamma(x) - expected)).toBeLessThan(4e-15 * Math.max(1, Math.abs(expected)))
  })

  it('gives ln B(a, b): B(½, ½) = π, B(2, 3) = 1/12', () => {
    expect(logBeta(0.5, 0.5)).toBeCloseTo(Math.log(Math.PI), 14)
    expect(logBeta(2, 3)).toBeCloseTo(Math.log(1 / 12), 14)
  })
})

describe('changePointPosterior', () => {
  it('weighs each change point by its two Beta-Binomial marginals', () => {
    // good 0/2, commit 1 2/2, bad 2/2, Jeffreys both sides (B(½, ½) = π).
    // k = 1: before 0/2, after 4/4: B(½, 2½)·B(4½, ½)/π² = (3/8)(35/128) = 105/1024.
    // k = 2: before 2/4, after 2/2: B(2½, 2½)·B(2½, ½)/π² = (3/128)(3/8) = 9/1024.
    const posterior = changePointPosterior([t(2, 0), t(2, 2), t(2, 2)], UNINFORMED)
    expect(posterior.probability[0]).toBe(0)
    expect(posterior.probability[1]).toBeCloseTo(105 / 114, 14)
    expect(posterior.probability[2]).toBeCloseTo(9 / 114, 14)
    expect(posterior.best).toBe(1)
    expect(posterior.noChange).toBe(0)
  })

  it('is uniform over the candidates before anything is seen', () => {
    const posterior = changePointPosterior(empty(5), UNINFORMED)
    expect(posterior.probability).toEqual([0, 0.25, 0.25, 0.25, 0.25])
  })

  it('adds "no change" as a hypothesis with its own prior (history)', () => {
    // Nothing seen: every hypothesis keeps its prior, ½ for no change and ½ shared by the two commits.
    const posterior = changePointPosterior(empty(3), UNINFORMED, 0.5)
    expect(posterior.noChange).toBeCloseTo(0.5, 15)
    expect(posterior.probability).toEqual([0, 0.25, 0.25])
  })

  it('stays finite and normalised for 2000 commits and 200 000 executions', () => {
    // 100 executions at every commit: 5% failing before commit 1234, 30% from it on.
    const tallies = Array.from({ length: 2000 }, (_, i) => t(100, i < 1234 ? 5 : 30))
    const { probability, best } = changePointPosterior(tallies, UNINFORMED)
    expect(probability.every(Number.isFinite)).toBe(true)
    expect(probability.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12)
    expect(best).toBe(1234)
    expect(probability[1234]).toBeGreaterThan(0.999)
  })

  it('splits the executions at a commit: before it, and from it on', () => {
    expect(splitAt([t(2, 0), t(3, 1), t(4, 4)], 1)).toEqual({ before: t(2, 0), after: t(7, 5) })
  })
})

describe('informationGain', () => {
  it('is the mutual information between one execution and the change point', () => {
    // Uniform priors; good 0/1, bad 1/1, nothing at commit 1: k = 1 and k = 2 are equally likely.
    // At commit 1 a failure has chance 2/3 under k = 1 (after side, 1 of 1 failed: (1+1)/(1+2)) and
    // 1/3 under k = 2 (before side, 0 of 1): gain = H(½) − H(⅓) = 1 − 0.918296 = 0.081704 bits.
    // The good and bad commits are on one side under both hypotheses: they tell nothing about k.
    const tallies = [t(1, 0), t(0, 0), t(1, 1)]
    const posterior = changePointPosterior(tallies, UNIFORM).probability
    expect(posterior).toEqual([0, 0.5, 0.5])
    const gain = informationGain(tallies, UNIFORM, posterior, 1)
    expect(gain[1]).toBeCloseTo(0.08170416594551044, 12)
    expect(gain[0]).toBeCloseTo(0, 12)
    expect(gain[2]).toBeCloseTo(0, 12)
  })

  it('is zero everywhere when nothing is known and both sides have the same prior', () => {
    const tallies = empty(9)
    const gain = informationGain(tallies, UNINFORMED, changePointPosterior(tallies, UNINFORMED).probability, 4)
    expect(Math.max(...gain)).toBeCloseTo(0, 12)
  })

  it('grows with the batch, less than in proportion (more executions at one commit repeat themselves)', () => {
    const tallies = [t(20, 1), ...empty(30), t(20, 6)]
    const posterior = changePointPosterior(tallies, UNINFORMED).probability
    const at = (m: number): number => Math.max(...informationGain(tallies, UNINFORMED, posterior, m))
    const gains = [1, 2, 4, 8, 16].map(at)
    for (let i = 1; i < gains.length; i++) {
      expect(gains[i]).toBeGreaterThan(gains[i - 1] as number)
      expect((gains[i] as number) / 2 ** i).toBeLessThanOrEqual((gains[i - 1] as number) / 2 ** (i - 1) + 1e-12)
    }
  })
})

describe('chooseStep', () => {
  const tallies = [t(20, 1), ...empty(30), t(20, 6)]
  const posterior = changePointPosterior(tallies, UNINFORMED).probability
  const limits = { remaining: 1000, observable: () => true }
  const cmd: StepCosts = { startMs: 50, repetitionMs: 0, processPerExecution: true, visitMs: () => 0 }
  const inProcess: StepCosts = { startMs: 1000, repetitionMs: 10, processPerExecution: false, visitMs: () => 0 }

  it('runs one execution at a time when each is its own process, at the most informative commit', () => {
    const step = chooseStep(tallies, UNINFORMED, posterior, cmd, limits)
    const gain = informationGain(tallies, UNINFORMED, posterior, 1)
    expect(step.batch).toBe(1)
    expect(step.gainBits).toBe(Math.max(...gain))
    expect(step.costMs).toBe(50)
  })

  it('batches repetitions when a start costs 100 of them, keeping each execution at least 85% as informative', () => {
    const step = chooseStep(tallies, UNINFORMED, posterior, inProcess, limits)
    const best = Math.max(...informationGain(tallies, UNINFORMED, posterior, 1))
    expect(step.batch).toBeGreaterThan(1)
    expect(step.gainBits / step.batch).toBeGreaterThanOrEqual(BATCH_EFFICIENCY * best)
    expect(step.costMs).toBe(1000 + 10 * step.batch)
  })

  it('with no floor (--optimize time), lets the measured costs alone size the batch: larger than with the floor', () => {
    const frugal = chooseStep(tallies, UNINFORMED, posterior, inProcess, limits)
    const fast = chooseStep(tallies, UNINFORMED, posterior, inProcess, { ...limits, efficiency: 0 })
    expect(fast.batch).toBeGreaterThan(frugal.batch)
    expect(fast.gainBits / fast.costMs).toBeGreaterThanOrEqual(frugal.gainBits / frugal.costMs)
  })

  it('never asks for more executions than the budget has left, nor at a commit that cannot be observed', () => {
    const step = chooseStep(tallies, UNINFORMED, posterior, inProcess, { remaining: 3, observable: (j) => j !== 16 && j !== 15 })
    expect(step.batch).toBeLessThanOrEqual(3)
    expect([15, 16]).not.toContain(step.commit)
  })

  it('prefers a commit already set up to a slightly more informative one that needs --setup', () => {
    const gain = informationGain(tallies, UNINFORMED, posterior, 1)
    const best = gain.indexOf(Math.max(...gain))
    // The best commit's neighbour tells nearly as much (the posterior is smooth there).
    const ready = best + 1
    expect(gain[ready]).toBeGreaterThan(BATCH_EFFICIENCY * (gain[best] as number))
    const step = chooseStep(tallies, UNINFORMED, posterior, { ...cmd, visitMs: (j) => (j === ready ? 0 : 60_000) }, limits)
    expect(step.commit).toBe(ready)
  })

  it('starts at the bad commit when no commit can tell anything yet', () => {
    const none = empty(9)
    const step = chooseStep(none, UNINFORMED, changePointPosterior(none, UNINFORMED).probability, inProcess, limits)
    expect(step).toMatchObject({ commit: 8, batch: 8, gainBits: 0 })
  })

  it('treats Jeffreys as the default both sides can share', () => {
    expect(UNINFORMED).toEqual({ before: JEFFREYS, after: JEFFREYS })
  })
})
