import type { FreshEvidence } from '../artifacts/test-schemas.js'
import { compareCounts } from '../core/difference.js'
import { complement, type Fraction } from '../core/fraction.js'
import type { Independence } from '../core/independence.js'
import { decideFromPlain } from './plain-evidence.js'
import type { Repetition } from '../core/repetition.js'
import type { TestOutcome } from './test-bundle.js'

/**
 * Fresh-state evidence for a suggestive single switch (docs/contracts.md §5). A test whose
 * repetitions read PFFF… or FPPP… switched state — or chance put its failures there: at 10
 * repetitions either shape is 1 order in 10. Runs in fresh processes tell them apart. Null
 * hypothesis: a fresh process's first execution fails at the same rate as the executions that
 * follow it in that process (Fisher's exact test, two-sided, on the fresh rounds alone: the round
 * that raised the suspicion is not evidence for it). Decided:
 * - `non-idempotent` when p < 1 − confidence;
 * - `flaky` when some fresh first execution did what the later ones did before (a fresh start is
 *   no different: the first block was chance);
 * - `undetermined` otherwise (every fresh start still agreed with the switch, yet too few to say).
 * The budget is the fewest fresh rounds whose exact repetition of the switch would be significant,
 * so a real switch is decided within it and a chance one almost always refuted.
 */

/** Fresh rounds at most, whatever the repetitions: 8 rounds decide a switch from 2 repetitions on. */
export const MAX_FRESH_ROUNDS = 8

/** The tests of a run that need fresh-state evidence: a single switch too likely by chance to decide alone. */
export function suspectsOf(outcomes: readonly TestOutcome[]): TestOutcome[] {
  return outcomes.filter((o) => o.verdict === 'undetermined' && o.tally.freshEvidence === undefined)
}

/**
 * Fresh rounds needed to decide a switch of a test repeated `repeat` times in each: the fewest R
 * with Fisher p < alpha for R fresh first executions all one way and R·(repeat − 1) later ones
 * all the other (10 repetitions: 2 rounds, p = 1/190; 3: 3 rounds, 1/84; 2: 4 rounds, 2/70).
 */
export function freshRoundsBudget(repeat: number, alpha: Fraction): number {
  for (let rounds = 1; rounds <= MAX_FRESH_ROUNDS; rounds++) {
    const later = rounds * Math.max(0, repeat - 1)
    if (compareCounts({ trials: rounds, failures: rounds }, { trials: later, failures: 0 }, alpha).significant) return rounds
  }
  return MAX_FRESH_ROUNDS
}

/**
 * What the fresh rounds (each round's fast repetitions, in order) say of a test whose measured
 * repetitions switched as `independence` describes.
 */
export function decideFromFresh(independence: Independence, rounds: readonly (readonly Repetition[])[], budget: number, confidence: Fraction): FreshEvidence {
  const freshFirst = { trials: 0, failures: 0 }
  const inProcess = { trials: 0, failures: 0 }
  // The switch's own prediction for a fresh start: what its first block did.
  const firstBlockFailed = independence.switched_to === 'passed'
  let agreed = true
  for (const round of rounds) {
    const fast = round.filter((r) => r.mode === 'fast')
    const [first, ...later] = fast
    if (!first) continue
    freshFirst.trials++
    if (!first.ok) freshFirst.failures++
    if (!first.ok !== firstBlockFailed) agreed = false
    inProcess.trials += later.length
    inProcess.failures += later.filter((r) => !r.ok).length
  }
  const { pValue, significant } = compareCounts(freshFirst, inProcess, complement(confidence))
  const decided = significant ? 'non-idempotent' : freshFirst.trials > 0 && !agreed ? 'flaky' : 'undetermined'
  const counts = `first execution of each fresh process ${freshFirst.failures} failed of ${freshFirst.trials}, the executions after it ${inProcess.failures} of ${inProcess.trials}, p = ${pValue.toPrecision(3)}`
  const note =
    decided === 'non-idempotent'
      ? `Fresh processes repeat the switch (${counts}): a repetition changes the state the next one meets.`
      : decided === 'flaky'
        ? `A fresh start did what the later repetitions did (${counts}): the single switch was chance, and the rate stands.`
        : freshFirst.trials === 0
          ? `No fresh-state execution ran (${rounds.length} of ${budget} rounds gathered): the switch stays undecided.`
          : `Every fresh start agreed with the switch, but ${freshFirst.trials} are too few to decide (${counts}).`
  return { rounds: rounds.length, budget, fresh_first: freshFirst, in_process: inProcess, p_value: pValue, decided, note }
}

/** The fresh rounds a run gathered: its budget, and each test's fast repetitions per fresh round. */
export interface FreshRounds {
  budget: number
  byTest: ReadonlyMap<string, readonly (readonly Repetition[])[]>
  /** Plain runs of the files of tests that failed every repetition, and their control (plain-evidence.ts): the tests asked for, and each one's executions per run. */
  plain?: {
    asked: ReadonlySet<string>
    budget: number
    byTest: ReadonlyMap<string, readonly (readonly Repetition[])[]>
    control: ReadonlyMap<string, readonly (readonly Repetition[])[]>
  }
}

/**
 * The outcomes once fresh-state evidence is weighed: each suspect decided from its fresh rounds
 * (none gathered: still `undetermined`, with a note saying so), each test plain runs were asked for
 * from those. Without `fresh` (a runner that cannot run fresh processes, merge, history) suspects
 * stay as they are.
 */
export function withFreshEvidence(
  outcomes: readonly TestOutcome[],
  fresh: FreshRounds | undefined,
  decide: (tally: TestOutcome['tally']) => TestOutcome,
  confidence: Fraction,
): TestOutcome[] {
  if (!fresh) return [...outcomes]
  const suspects = new Set(suspectsOf(outcomes))
  const { plain } = fresh
  return outcomes.map((o) => {
    if (plain?.asked.has(o.tally.id)) {
      const runs = { plain: plain.byTest.get(o.tally.id) ?? [], control: plain.control.get(o.tally.id) ?? [] }
      return decide({ ...o.tally, plainEvidence: decideFromPlain(o.tally.fast, runs, plain.budget, confidence) })
    }
    if (!suspects.has(o)) return o
    const freshEvidence = decideFromFresh(o.tally.independence, fresh.byTest.get(o.tally.id) ?? [], fresh.budget, confidence)
    return decide({ ...o.tally, freshEvidence })
  })
}
