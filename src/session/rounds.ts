import type { RoundCondition } from '../artifacts/conditions-schema.js'
import type { ResolvedVitestOptions } from '../config/vitest-options.js'
import type { PlannedRound } from '../pipeline/conditions.js'

/**
 * Evidence rounds a measurement asks for, in order, each the files it runs whole, in new workers:
 * fresh-state rounds with the measured repetitions (src/pipeline/fresh-evidence.ts), then for tests
 * that failed every repetition a control with the measured repetitions and `plain` ones, where each
 * test runs once as in an ordinary run (src/pipeline/plain-evidence.ts).
 */
export interface FreshRounds {
  rounds: readonly FreshRound[]
}

export interface FreshRound {
  kind: 'fresh' | 'control' | 'plain'
  files: readonly { project: string; file: string }[]
}

/** What the loop tells the reporter before each round, and asks of it. */
export interface RoundsReporter {
  /** A measurement is under way: more rounds may join it. */
  readonly roundsOpen: boolean
  planRound(round: PlannedRound, of: number): void
  endRounds(): void
  /** The loop can run evidence rounds when asked: whether this run may ask (a measurement, not a proof or a budget's calibration). */
  expectFreshEvidence(): boolean
  /** After the planned rounds: the evidence rounds the measurement asks for (fresh-state, control, plain), if any. */
  freshEvidence(): FreshRounds | undefined
  /** Evidence round `round` (1-based, of those freshEvidence() asked for) begins: the loop runs its files next. */
  planFreshRound(round: number): void
}

/** Set in the environment of each round's workers: a test or fixture may read its round's condition. */
export const CONDITION_ENV = 'FLAKEPROOF_CONDITION'

/**
 * The rounds to run (docs/contracts.md §13): `rounds` of each condition, the conditions alternating
 * round by round, so a change of machine load over time falls on all of them alike. With `shuffle`
 * each round gets its own seed, `seed` + its index (a random base when no seed is given).
 */
export function planRounds(options: Pick<ResolvedVitestOptions, 'rounds' | 'divergence' | 'load' | 'shuffle' | 'seed'>, randomBase: () => number): PlannedRound[] {
  const conditions: RoundCondition[] = ['base', ...(options.divergence ? ['serial' as const] : []), ...(options.load ? ['load' as const] : [])]
  const base = options.shuffle ? (options.seed ?? randomBase()) : (options.seed ?? null)
  const plan: PlannedRound[] = []
  for (let k = 0; k < options.rounds; k++) {
    for (const condition of conditions) {
      const index = plan.length
      plan.push({ round: index + 1, condition, seed: base === null ? null : options.shuffle ? base + index : base })
    }
  }
  return plan
}
