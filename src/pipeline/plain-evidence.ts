import { INDEPENDENCE_TEXT } from '../artifacts/independence-text.js'
import type { PlainEvidence } from '../artifacts/test-schemas.js'
import { compareCounts } from '../core/difference.js'
import { complement, type Fraction } from '../core/fraction.js'
import type { Repetition } from '../core/repetition.js'
import type { TestOutcome } from './test-bundle.js'

/**
 * Plain-run evidence for a test that failed every repetition (docs/contracts.md §5). Repetitions can
 * break a test that passes in an ordinary run: each copy of the tests before it in its file (or of
 * itself) advances state they share — a global id counter an inline snapshot holds, a registry
 * that refuses a name twice — so every copy fails, the first included. Such a test is not broken,
 * and "fix it as a bug" would send its owner after a bug that is not there. Its file run as usual
 * (each test once, a fresh process each run) tells them apart. Null hypothesis: an execution in a
 * plain run fails at the rate of the measured copies (Fisher's exact test, two-sided). Decided:
 * - `non-idempotent` when p < 1 − confidence: the plain runs passed, so the repetitions break it;
 * - `broken` when every plain run failed too (or none ran it: the measured verdict stands);
 * - `undetermined` otherwise: a plain run passed, yet too few ran to say the repetitions did it.
 * The budget is the fewest plain runs whose passing every time would be significant, so a test the
 * repetitions break is decided within it, while a broken one costs that many runs of its file.
 */

/** Plain runs at most, whatever the copies: 5 decide from 2 copies on (p = 1/21). */
export const MAX_PLAIN_ROUNDS = 5

/**
 * Whether a run's broken tests may be broken by the repetitions themselves: each test ran more than
 * once in a process (`perRound`, the repetitions per process). A plain run is never such a suspect.
 */
export function brokenSuspectsOf(outcomes: readonly TestOutcome[], perRound: number): TestOutcome[] {
  if (perRound < 2) return []
  return outcomes.filter((o) => o.verdict === 'broken' && !o.tally.once && o.tally.fast.trials >= 2 && o.tally.plainEvidence === undefined)
}

/**
 * Plain runs needed to decide a test that failed all `copies` measured copies: the fewest R with
 * Fisher p < alpha for R passing plain runs against them (p = 1/C(copies + R, R): 20 copies, 1 run,
 * p = 1/21; 5 to 19 copies, 2 runs (5: 1/21); 3 copies, 4 runs, 1/35; 2 copies, 5 runs, 1/21).
 */
export function plainRoundsBudget(copies: number, alpha: Fraction): number {
  for (let rounds = 1; rounds <= MAX_PLAIN_ROUNDS; rounds++) {
    if (compareCounts({ trials: rounds, failures: 0 }, { trials: copies, failures: copies }, alpha).significant) return rounds
  }
  return MAX_PLAIN_ROUNDS
}

/** What the plain runs (each run's executions of the test, in order) say of a test that failed all its `measured` copies. */
export function decideFromPlain(measured: { trials: number; failures: number }, rounds: readonly (readonly Repetition[])[], budget: number, confidence: Fraction): PlainEvidence {
  const plain = { trials: 0, failures: 0 }
  for (const round of rounds) {
    // A plain run executes each test once; its first execution is the one an ordinary run sees.
    const first = round.find((r) => r.mode === 'fast')
    if (!first) continue
    plain.trials++
    if (!first.ok) plain.failures++
  }
  const { pValue, significant } = compareCounts(plain, measured, complement(confidence))
  const decided = significant ? 'non-idempotent' : plain.failures < plain.trials ? 'undetermined' : 'broken'
  const finding = { rounds: rounds.length, budget, plain, measured: { trials: measured.trials, failures: measured.failures }, p_value: pValue, decided } as const
  return { ...finding, note: INDEPENDENCE_TEXT.en.plain(finding) }
}
