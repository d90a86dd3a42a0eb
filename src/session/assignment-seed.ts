import { randomInt } from 'node:crypto'
import { MAX_ASSIGNMENT_SEED } from '../core/repetition.js'

/**
 * The seed of the coin that orders each gapped/fast pair while observing (src/core/repetition.ts
 * pairOrder), for any runner: the run's own order seed when it has one (`--flaky-seed`, Jest's
 * `--seed`), so the same seed replays the same assignment, else drawn here. observer.json records it
 * as `assignment_seed` either way.
 */
export function assignmentSeedOf(seed: number | null | undefined): number {
  return seed === null || seed === undefined ? randomInt(MAX_ASSIGNMENT_SEED) : Math.abs(seed) % (MAX_ASSIGNMENT_SEED + 1)
}
