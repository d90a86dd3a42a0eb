import { type Fraction, lessThan, quotient } from './fraction.js'
import { type Independence, switchChance, testIndependence } from './independence.js'

/**
 * The order of a subject's outcomes when they come from groups that are processes of their own (the
 * rounds of `--flaky-rounds`, the folders of a merge), each group's outcomes in their order and the
 * groups joined end to end; `failed[g][i]` is whether the i-th execution of group g failed.
 *
 * Repetition dependence is read inside groups: one switch the same way in every group (PF PF PF, or
 * PPFFF and PPPFF) has the shape of a state switch (sameSwitchInEveryGroup). Across groups only the
 * runs test and the period are read: a switch at a group's edge is the group's doing (its order, its
 * condition, its job's machine), not state one repetition left the next. One group is read as one
 * sequence.
 */
export function groupedIndependence(failed: readonly (readonly boolean[])[], alpha: Fraction): Independence {
  const joined = failed.flat()
  const failureTrials = joined.flatMap((f, i) => (f ? [i + 1] : []))
  if (failed.length < 2) return testIndependence(joined.length, failureTrials, alpha)
  return sameSwitchInEveryGroup(failed, alpha) ?? testIndependence(joined.length, failureTrials, alpha, { oneSwitch: false })
}

// --- internal ---

/**
 * One switch in the same direction in every group, as a one-switch result: PF PF PF, or PPFFF and
 * PPPFF when state builds up with time, is the shape of a state switch, even though one group's
 * second block may be too short for the one-switch rule alone. `switch_at` is the earliest group's
 * switch. Its chance given each group's counts (switchChance: every order of a group equally
 * likely) is `switch_p_value`; `switch_significant` when below alpha, exactly (PFF in each of 4
 * groups: 2/3⁴ = 0.025), otherwise a suggestive shape that fresh-state evidence decides.
 * Undefined when some group is no single switch, or they switch different ways.
 */
function sameSwitchInEveryGroup(failed: readonly (readonly boolean[])[], alpha: Fraction): Independence | undefined {
  const switches = failed.map((group) => {
    const failures = group.flatMap((f, i) => (f ? [i + 1] : []))
    const independence = testIndependence(group.length, failures, alpha)
    if (independence.runs !== 2) return undefined
    const toPassed = failures[0] === 1
    return { independence, counts: { trials: group.length, failures: failures.length }, at: toPassed ? failures.length + 1 : (failures[0] as number), to: toPassed ? ('passed' as const) : ('failed' as const) }
  })
  const found = switches.filter((s) => s !== undefined)
  const [first] = found
  if (!first || found.length < switches.length || found.some((s) => s.to !== first.to)) return undefined
  const chance = switchChance(found.map((s) => s.counts))
  // The block after the switches holds fewer than two executions in all: no switch that stayed.
  if (chance.num === 0n) return undefined
  const earliest = found.reduce((a, b) => (b.at < a.at ? b : a))
  return {
    ...earliest.independence,
    pattern: 'one-switch',
    switch_at: earliest.at,
    switched_to: first.to,
    switch_p_value: quotient(chance.num, chance.den),
    switch_significant: lessThan(chance, alpha),
  }
}
