/** One group of executions of a test: a merged job's folder, a commit's runs. */
export interface OutcomeGroup {
  key: string
  trials: number
  failures: number
}

/**
 * The failing and passing groups when the test's outcome follows the group, not chance: every
 * group all failures or all passes, both kinds present, and, were the executions independent at
 * the pooled rate p, every group uniform has probability Π (pⁿ + (1 − p)ⁿ) below `alpha`. So one
 * execution per group is never such a split (each factor is 1). Undefined otherwise.
 */
export function splitByGroup(groups: readonly OutcomeGroup[], alpha: number): { failing: OutcomeGroup[]; passing: OutcomeGroup[] } | undefined {
  const failing = groups.filter((g) => g.trials > 0 && g.failures === g.trials)
  const passing = groups.filter((g) => g.trials > 0 && g.failures === 0)
  if (failing.length === 0 || passing.length === 0 || failing.length + passing.length < groups.length) return undefined
  const trials = groups.reduce((sum, g) => sum + g.trials, 0)
  const p = groups.reduce((sum, g) => sum + g.failures, 0) / trials
  const chance = groups.reduce((product, g) => product * (p ** g.trials + (1 - p) ** g.trials), 1)
  return chance < alpha ? { failing, passing } : undefined
}
