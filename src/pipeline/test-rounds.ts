import { complement, type Fraction } from '../core/fraction.js'
import { groupedIndependence } from '../core/grouped-independence.js'
import type { RoundCondition } from '../artifacts/conditions-schema.js'
import type { ReportedTest } from './test-evidence.js'
import type { TrialFacts } from '../core/isolation.js'
import { type Tally, type TestTally, tallyTest } from './test-tally.js'

const NO_WORDS: ReadonlySet<string> = new Set()

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
  // What each execution's round says of it, for the predicates: the test run just before it in its
  // worker (itself, from its second repetition on) and its file; the previous outcome stops at the
  // round's edge, the previous round being another process. Facts of the whole round (its
  // condition, the worker, each test that ran earlier in its file and worker) are the same for every
  // execution of the round, and are judged per round (rankPredicates).
  const facts = rounds.flatMap((round) =>
    round.test.evidence.repetitions.map((_, i) => ({
      previous_test: i === 0 ? (round.test.evidence.previousTest ?? '(none)') : round.test.evidence.id,
      previous_file: i === 0 ? (round.test.evidence.previousFile ?? '(none)') : round.test.file,
      ...(i === 0 ? { previous_outcome: undefined } : {}),
    })),
  )
  const tally = tallyTest(merged, confidence, facts, factsOfRounds(rounds, ranBefore))
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
  // Rounds are processes of their own: a single switch is read inside each, never across them.
  const fastFailed = rounds.map(({ test }) => test.evidence.repetitions.filter((r) => r.mode === 'fast').map((r) => !r.ok))
  return { ...tally, fresh, independence: groupedIndependence(fastFailed, complement(confidence)) }
}

/**
 * The facts of each whole round, for the predicates (rankPredicates `rounds`): its condition, the
 * worker, and `ran after <id>` for each test that ran earlier in its file and worker in some round.
 * None unless the test failed in some rounds and passed others, where no fact of the round can tell
 * the failing ones apart: built only then, since each test of a file of n tests has up to n earlier
 * ones (immer's base.js, 3 287 tests: 26 s of a 2-round run went to building them for every test).
 */
function factsOfRounds(rounds: readonly RoundResult[], ranBefore: (round: RoundResult) => readonly string[]): TrialFacts[] {
  const failed = rounds.map((round) => round.test.evidence.repetitions.some((r) => !r.ok))
  if (!failed.includes(true) || !failed.includes(false)) return []
  const before = rounds.map((r) => new Set(ranBefore(r)))
  const earlier = [...new Set(before.flatMap((set) => [...set]))]
  return rounds.map((round, k) => {
    const categorical: Record<string, string> = { condition: round.condition, worker: round.test.evidence.worker }
    for (const id of earlier) categorical[`ran after ${id}`] = before[k]?.has(id) ? 'yes' : 'no'
    return { failed: failed[k] === true, categorical, numeric: {}, words: NO_WORDS }
  })
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
