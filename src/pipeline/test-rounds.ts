import { complement, type Fraction } from '../core/fraction.js'
import { type Independence, testIndependence } from '../core/independence.js'
import type { RoundCondition } from '../artifacts/conditions-schema.js'
import type { ReportedTest } from './test-evidence.js'
import { type Tally, type TestTally, tallyTest } from './test-tally.js'

/** One test's results in one whole-run round (1-based), and the condition that round ran under. */
export interface RoundResult {
  round: number
  condition: RoundCondition
  test: ReportedTest
}

/**
 * One test over whole-run rounds (docs/contracts.md §7): its executions of every round counted
 * together, plus `fresh`, the first fast execution of each round — fresh module state, what one
 * ordinary `vitest run` sees, so a test that breaks its own later repetitions still gets a true rate.
 * Repetition dependence is judged inside rounds: a test that switched once at the same repetition in
 * every round (passed, then failed every later repetition) is non-idempotent; the rounds joined end
 * to end would read as an alternation, and calling a deterministic test flaky is the worst mistake.
 */
export function tallyRounds(rounds: readonly RoundResult[], confidence: Fraction): TestTally {
  const [first] = rounds
  if (!first) throw new Error('tallyRounds needs at least one round')
  const merged: ReportedTest = {
    ...first.test,
    evidence: {
      ...first.test.evidence,
      repetitions: rounds.flatMap((r) => r.test.evidence.repetitions),
      ...(rounds.some((r) => r.test.evidence.cut) ? { cut: true as const } : {}),
    },
  }
  const tally = tallyTest(merged, confidence)
  const fresh: Tally = { trials: 0, failures: 0, failureTrials: [] }
  for (const { round, test } of rounds) {
    const firstFast = test.evidence.repetitions.find((r) => r.mode === 'fast')
    if (!firstFast) continue
    fresh.trials++
    if (!firstFast.ok) {
      fresh.failures++
      fresh.failureTrials.push(round)
    }
  }
  return { ...tally, fresh, independence: sameSwitchInEveryRound(rounds, confidence) ?? tally.independence }
}

// --- internal ---

/**
 * The same single switch at the same repetition in every round, as a one-switch result of the first
 * round: PF PF PF is a pattern, not chance, even though one round's second block is too short for
 * the one-switch rule alone. Undefined when the rounds differ or there is one round.
 */
function sameSwitchInEveryRound(rounds: readonly RoundResult[], confidence: Fraction): Independence | undefined {
  if (rounds.length < 2) return undefined
  const switches = rounds.map(({ test }) => {
    const fast = test.evidence.repetitions.filter((r) => r.mode === 'fast')
    const failures = fast.flatMap((r, i) => (r.ok ? [] : [i + 1]))
    const independence = testIndependence(fast.length, failures, complement(confidence))
    if (independence.runs !== 2) return undefined
    const toPassed = failures[0] === 1
    return { independence, at: toPassed ? failures.length + 1 : (failures[0] as number), to: toPassed ? ('passed' as const) : ('failed' as const) }
  })
  const [first] = switches
  if (!first || switches.some((s) => s?.at !== first.at || s.to !== first.to)) return undefined
  return { ...first.independence, pattern: 'one-switch', switch_at: first.at, switched_to: first.to }
}
