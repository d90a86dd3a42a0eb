import { binomialCoefficient } from '../core/fraction.js'
import type { Independence } from '../core/independence.js'
import { doubleQuoted, shellWord } from './independence-text.js'

/**
 * The command that would decide an `undetermined` test (docs/contracts.md §5): a single switch that
 * chance explains too well. One function, so the runner-aware hints (the command a runner's user
 * types) can take its place; every rendering of `undetermined` asks it.
 *
 * - A test of a Vitest run: whole-run rounds of its file, run whole (the switch may need its
 *   siblings): each round starts with fresh module state, so a real switch repeats in every round
 *   and a chance one does not; the run also gathers fresh-state evidence itself.
 * - A test of a Jest run (no fresh-state rounds yet): more copies, enough that the same switch
 *   continued would be significant on its own.
 * - A command: more trials, likewise.
 */
export interface UndeterminedSubject {
  /** How the measurement was started (rate.json `command`): it tells the runner. */
  command: string
  /** A test of a test-mode run; absent for a command. */
  test?: { project: string; file: string }
  independence: Pick<Independence, 'switch_at' | 'switched_to'>
  trials: number
}

export function decidingCommand(subject: UndeterminedSubject): string {
  const { test, command } = subject
  if (test && /^(npx )?jest\b|flakeproof jest\b/.test(command)) return `npx flakeproof jest --flaky-repeat ${trialsToDecide(subject.independence, subject.trials)} ${shellWord(test.file)}`
  if (test) {
    const project = test.project === '' ? '' : ` --project ${shellWord(test.project)}`
    return `npx flakeproof vitest --flaky-rounds 3 --flaky-repeat 10${project} ${shellWord(test.file)}`
  }
  return `npx flakeproof measure --cmd ${doubleQuoted(command)} --trials ${trialsToDecide(subject.independence, subject.trials)}`
}

// --- internal ---

/**
 * Twice the trials at which the same first block, the switch continued, would have chance below 5%:
 * a block of `first` then n − first the other way is one of C(n, first) orders, as is its mirror
 * when `first` >= 2 (switchChance).
 */
function trialsToDecide(independence: Pick<Independence, 'switch_at' | 'switched_to'>, trials: number): number {
  const first = (independence.switch_at ?? 2) - 1
  const directions = first >= 2 ? 2n : 1n
  for (let n = first + 2; n <= 10_000; n++) {
    if (binomialCoefficient(n, first) > 20n * directions) return Math.max(2 * trials, 2 * n)
  }
  return 2 * trials
}
