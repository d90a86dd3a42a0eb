import { binomialCoefficient, type Fraction, lessThan, quotient } from './fraction.js'

/** One group of executions of a test: a merged job's folder, a commit's runs. */
export interface OutcomeGroup {
  key: string
  trials: number
  failures: number
}

export interface GroupSplit {
  failing: OutcomeGroup[]
  passing: OutcomeGroup[]
  /** The chance of every group being uniform, given the counts (see splitByGroup). */
  pValue: number
}

/**
 * The failing and passing groups when the test's outcome follows the group, not chance: every
 * group all failures or all passes, both kinds present, and chance explains that badly. Null
 * hypothesis: the executions are exchangeable (independent at one rate), so given F failures among
 * N executions every choice of the F failing ones is equally likely (C(N, F) of them), and the
 * share that leaves every group uniform — the subsets of groups whose sizes add up to F — is the
 * p-value; the split is reported when it is below `alpha`, decided exactly. One execution per
 * group is never such a split (every choice is uniform: p = 1). Undefined otherwise.
 */
export function splitByGroup(groups: readonly OutcomeGroup[], alpha: Fraction): GroupSplit | undefined {
  const failing = groups.filter((g) => g.trials > 0 && g.failures === g.trials)
  const passing = groups.filter((g) => g.trials > 0 && g.failures === 0)
  if (failing.length === 0 || passing.length === 0 || failing.length + passing.length < groups.length) return undefined
  const chance = uniformChance(groups)
  return lessThan(chance, alpha) ? { failing, passing, pValue: quotient(chance.num, chance.den) } : undefined
}

// --- internal ---

/** Subsets of the groups whose sizes add up to the failures, over C(N, F): by counting subset sums. */
function uniformChance(groups: readonly OutcomeGroup[]): Fraction {
  const sizes = groups.map((g) => g.trials).filter((n) => n > 0)
  const total = sizes.reduce((a, b) => a + b, 0)
  const failures = groups.reduce((sum, g) => sum + g.failures, 0)
  // A subset adds up to F exactly when its complement adds up to N − F: count the smaller target.
  const target = Math.min(failures, total - failures)
  const ways: bigint[] = Array.from({ length: target + 1 }, (_, s) => (s === 0 ? 1n : 0n))
  for (const size of sizes) {
    for (let s = target; s >= size; s--) ways[s] = (ways[s] as bigint) + (ways[s - size] as bigint)
  }
  return { num: ways[target] as bigint, den: binomialCoefficient(total, failures) }
}
