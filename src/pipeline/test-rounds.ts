import { complement, type Fraction, lessThan, quotient } from '../core/fraction.js'
import { type Independence, switchChance, testIndependence } from '../core/independence.js'
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
 * One test over whole-run rounds (docs/contracts.md §13): its executions of every round counted
 * together, plus `fresh`, the first fast execution of each round — fresh module state, what one
 * ordinary `vitest run` sees, so a test that breaks its own later repetitions still gets a true rate.
 * Repetition dependence is judged inside rounds: a test that switched once, the same way, in every
 * round (passed, then failed every later repetition) has the shape of a state switch; the rounds
 * joined end to end would read as an alternation. It is non-idempotent when chance explains that
 * badly, otherwise fresh-state evidence decides it (fresh-evidence.ts).
 */
export function tallyRounds(rounds: readonly RoundResult[], confidence: Fraction, ranBefore: (round: RoundResult) => readonly string[] = () => []): TestTally {
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
  // What each execution's round says of it, for the predicates: the condition, the test run just
  // before it in its worker (itself, from its second repetition on) and its file, the worker, each test that ran
  // earlier in its file and worker. The previous outcome stops at the round's edge: the previous
  // round is another process.
  const before = rounds.map((r) => new Set(ranBefore(r)))
  const earlier = [...new Set(before.flatMap((set) => [...set]))]
  const facts = rounds.flatMap((round, k) =>
    round.test.evidence.repetitions.map((_, i) => ({
      condition: round.condition,
      previous_test: i === 0 ? (round.test.evidence.previousTest ?? '(none)') : round.test.evidence.id,
      previous_file: i === 0 ? (round.test.evidence.previousFile ?? '(none)') : round.test.file,
      worker: round.test.evidence.worker,
      ...(i === 0 ? { previous_outcome: undefined } : {}),
      ...Object.fromEntries(earlier.map((id) => [`ran after ${id}`, before[k]?.has(id) ? 'yes' : 'no'])),
    })),
  )
  const tally = tallyTest(merged, confidence, facts)
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
  // Rounds are processes of their own: a single switch is read inside each (sameSwitchInEveryRound),
  // never across them, where a switch at a round's edge is the round's doing (its order, its
  // condition), not state one repetition left the next.
  const joined = rounds.length > 1 ? testIndependence(tally.fast.trials, tally.fast.failureTrials, complement(confidence), { oneSwitch: false }) : tally.independence
  return { ...tally, fresh, independence: sameSwitchInEveryRound(rounds, confidence) ?? joined }
}

/**
 * For a round result, the tests that ran before it in the same round, project, file and worker:
 * where module state one test leaves can reach another.
 */
export function earlierTests(perTest: ReadonlyMap<string, readonly RoundResult[]>): (result: RoundResult) => string[] {
  const key = ({ round, test }: RoundResult): string => JSON.stringify([round, test.project, test.file, test.evidence.worker])
  const groups = new Map<string, { id: string; order: number }[]>()
  for (const [id, rounds] of perTest) {
    for (const result of rounds) {
      const group = groups.get(key(result)) ?? []
      group.push({ id, order: result.test.evidence.order })
      groups.set(key(result), group)
    }
  }
  return (result) => (groups.get(key(result)) ?? []).filter((t) => t.order < result.test.evidence.order && t.id !== result.test.evidence.id).map((t) => t.id)
}

// --- internal ---

/**
 * One switch in the same direction in every round, as a one-switch result: PF PF PF, or PPFFF and
 * PPPFF when state builds up with time, is the shape of a state switch, even though one round's
 * second block may be too short for the one-switch rule alone. `switch_at` is the earliest round's
 * switch. Its chance given each round's counts (switchChance: every order of a round equally
 * likely) is `switch_p_value`; `switch_significant` when below 1 − confidence, exactly (PFF in each
 * of 4 rounds: 2/3⁴ = 0.025), otherwise a suggestive shape that fresh-state evidence decides.
 * Undefined when some round is no single switch, or they switch different ways, and for one round.
 */
function sameSwitchInEveryRound(rounds: readonly RoundResult[], confidence: Fraction): Independence | undefined {
  if (rounds.length < 2) return undefined
  const alpha = complement(confidence)
  const switches = rounds.map(({ test }) => {
    const fast = test.evidence.repetitions.filter((r) => r.mode === 'fast')
    const failures = fast.flatMap((r, i) => (r.ok ? [] : [i + 1]))
    const independence = testIndependence(fast.length, failures, alpha)
    if (independence.runs !== 2) return undefined
    const toPassed = failures[0] === 1
    return { independence, counts: { trials: fast.length, failures: failures.length }, at: toPassed ? failures.length + 1 : (failures[0] as number), to: toPassed ? ('passed' as const) : ('failed' as const) }
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
