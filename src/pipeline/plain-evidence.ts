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
 * (each test once, new workers each run) tells them apart, beside a control: one more run of its
 * file with the measured repetitions, under the same conditions as the plain ones (its file alone,
 * no coverage), so that only the repetitions differ between them. Null hypothesis: an execution in a
 * plain run fails at the rate of the measured copies (Fisher's exact test, two-sided). Decided:
 * - `non-idempotent` when p < 1 − confidence, every plain run passed and every control copy failed:
 *   the repetitions break it;
 * - `broken` when every plain run failed too (or none ran it: the measured verdict stands);
 * - `undetermined` otherwise: a plain run passed, yet too few did, or the control's copies passed
 *   as well (then what failed it was the measured run's other conditions, not the repetitions).
 */

/** Plain runs at least: below 3, a test failing 90% of executions independently that happened to fail every copy would pass one plain run 1 time in 10. */
export const MIN_PLAIN_ROUNDS = 3

/** Plain runs at most, whatever the copies: 5 decide from 2 copies on (p = 1/21). */
export const MAX_PLAIN_ROUNDS = 5

/**
 * The broken tests whose repetitions may have broken them: each ran more than once in a process
 * (`perRound`, the repetitions per process), so there were repetitions to blame.
 */
export function brokenSuspectsOf(outcomes: readonly TestOutcome[], perRound: number): TestOutcome[] {
  if (perRound < 2) return []
  return outcomes.filter((o) => o.verdict === 'broken' && !o.tally.once && o.tally.fast.trials >= 2)
}

/**
 * Plain runs asked for a test that failed all `copies` measured copies: the fewest R with Fisher
 * p < alpha for R passing plain runs against them (p = 1/C(copies + R, R)), at least
 * MIN_PLAIN_ROUNDS: 3 from 4 copies on (4: 1/35; 5: 1/56), 4 at 3 copies (1/35), 5 at 2 (1/21).
 */
export function plainRoundsBudget(copies: number, alpha: Fraction): number {
  for (let rounds = MIN_PLAIN_ROUNDS; rounds <= MAX_PLAIN_ROUNDS; rounds++) {
    if (compareCounts({ trials: rounds, failures: 0 }, { trials: copies, failures: copies }, alpha).significant) return rounds
  }
  return MAX_PLAIN_ROUNDS
}

/**
 * What the plain runs and the control (each run's executions of the test, in order) say of a test
 * that failed all its `measured` copies.
 */
export function decideFromPlain(
  measured: { trials: number; failures: number },
  runs: { plain: readonly (readonly Repetition[])[]; control: readonly (readonly Repetition[])[] },
  budget: number,
  confidence: Fraction,
): PlainEvidence {
  const plain = { trials: 0, failures: 0 }
  for (const round of runs.plain) {
    // A plain run executes each test once: the execution an ordinary run makes.
    const first = round.find((r) => r.mode === 'fast')
    if (!first) continue
    plain.trials++
    if (!first.ok) plain.failures++
  }
  const fast = runs.control.flatMap((round) => round.filter((r) => r.mode === 'fast'))
  const control = { trials: fast.length, failures: fast.filter((r) => !r.ok).length }
  const { pValue, significant } = compareCounts(plain, measured, complement(confidence))
  const repeatedFail = control.trials > 0 && control.failures === control.trials
  const decided = plain.failures === plain.trials ? 'broken' : significant && plain.failures === 0 && repeatedFail ? 'non-idempotent' : 'undetermined'
  const finding = { rounds: runs.plain.length, budget, plain, control, measured: { trials: measured.trials, failures: measured.failures }, p_value: pValue, decided } as const
  return { ...finding, note: INDEPENDENCE_TEXT.en.plain(finding) }
}
