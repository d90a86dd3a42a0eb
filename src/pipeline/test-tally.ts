import { complement, type Fraction } from '../core/fraction.js'
import { type Independence, testIndependence } from '../core/independence.js'
import type { RankedPredicate } from '../core/isolation.js'
import { rankPredicates, type TrialFacts } from '../core/isolation.js'
import { isMeaningfulWord } from '../core/plain-words.js'
import { discriminateTokens, memoWordsInOrder } from '../core/tokens.js'
import type { FreshEvidence, PlainEvidence } from '../artifacts/test-schemas.js'
import type { Repetition, ReportedTest } from './test-evidence.js'

/** Categorical facts a caller knows of one execution; undefined: not observed (test-rounds.ts). */
export type ExtraFacts = Readonly<Record<string, string | undefined>>

/** Counts of one kind of repetition of one test. */
export interface Tally {
  trials: number
  failures: number
  failureTrials: number[]
}

/** What the pipeline keeps of one test once its repetitions are written: O(1) in repetitions. */
export interface TestTally {
  id: string
  project: string
  file: string
  name: string
  fast: Tally
  slow: Tally & { gapMs: number }
  /** Fast repetitions interleaved with the gapped ones while observing. */
  paired: Tally
  proof: Tally
  token: string | null
  tokenCandidates: string[]
  predicates: RankedPredicate[]
  errors: string[]
  /** Ran once by design (typecheck, or no recording runner): no round count applies to it. */
  once: boolean
  /** Its worker died or the run stopped under it: fewer repetitions than planned, whatever the count. */
  cut: boolean
  /** Runs test on the order of the fast repetitions; a significant `one-switch` makes the test non-idempotent. */
  independence: Independence
  /** Whole-run rounds only: the first fast execution of each round, with fresh module state (test-rounds.ts). */
  fresh?: Tally
  /** A suggestive switch decided from fresh processes after the measurement (fresh-evidence.ts). */
  freshEvidence?: FreshEvidence
  /** Failed every repetition: what plain runs of its file after the measurement decided (plain-evidence.ts). */
  plainEvidence?: PlainEvidence
  /** Its outcome followed the merged folder or the commit, unlikely by chance: no flake rate (it is `partial`). */
  split?: { by: 'origin' | 'commit'; failing: string[]; passing: string[]; p_value: number }
}

/**
 * Tallies one test's repetitions by kind, and extracts what is true only in its failing ones (token
 * from error message and stderr; predicates over time, output size, gap, previous repetition; and
 * over `rounds`, the facts of whole rounds, one entry per round: isolation.ts rankPredicates).
 * Tests whether its fast repetitions were independent at significance 1 - `confidence`.
 */
export function tallyTest(test: ReportedTest, confidence: Fraction, facts: readonly ExtraFacts[] = [], rounds: readonly TrialFacts[] = []): TestTally {
  const empty = (): Tally => ({ trials: 0, failures: 0, failureTrials: [] })
  const tally = { fast: empty(), slow: { ...empty(), gapMs: 0 }, paired: empty(), proof: empty() }
  const errors = new Set<string>()
  test.evidence.repetitions.forEach((repetition, index) => {
    const kinds = { slow: tally.slow, paired: tally.paired, proof: tally.proof, fast: tally.fast, single: tally.fast }
    const kind = kinds[repetition.mode]
    kind.trials++
    if (repetition.mode === 'slow') tally.slow.gapMs = repetition.gapMs
    if (!repetition.ok) {
      kind.failures++
      // Fast failures by their place among the fast repetitions alone: with whole-run rounds the
      // gapped and paired ones of a round come before the next round's fast ones.
      kind.failureTrials.push(kind === tally.fast ? tally.fast.trials : index + 1)
      if (repetition.error && errors.size < 5) errors.add(repetition.error)
    }
  })
  const repetitions = test.evidence.repetitions
  const words = memoWordsInOrder()
  // The failure's own message first: a console dump (a DOM, a config) is full of words that merely
  // happen to differ between executions. The console only when the messages say nothing.
  const fromMessages = discriminateTokens(
    repetitions.map((r) => ({ failed: !r.ok, stdout: `${r.stdout ?? ''}\n${r.stderr ?? ''}`, stderr: r.error ?? '' })),
    words,
  )
  const tokens = fromMessages.token !== null ? fromMessages : discriminateTokens(
    repetitions.map((r) => ({ failed: !r.ok, stdout: r.stdout ?? '', stderr: `${r.error ?? ''}\n${r.stderr ?? ''}` })),
    words,
  )
  const candidates = tokens.candidates.filter(isMeaningfulWord)
  const messages = repetitions.some((r) => !r.ok && r.error)
  const wordSets = meaningfulWords(words)
  return {
    id: test.evidence.id,
    project: test.project,
    file: test.file,
    name: test.name,
    ...tally,
    token: candidates[0] ?? null,
    tokenCandidates: candidates,
    predicates: rankPredicates(repetitions.map((r, i) => toTrialFacts(r, repetitions[i - 1], messages, wordSets, facts[i])), undefined, complement(confidence), rounds),
    errors: [...errors],
    once: repetitions.every((r) => r.mode === 'single'),
    cut: test.evidence.cut === true,
    independence: testIndependence(tally.fast.trials, tally.fast.failureTrials, complement(confidence)),
  }
}

// --- internal ---

/**
 * `messages`: some failure has a message, so words come from messages alone (a passing execution's
 * console would otherwise rule out nothing and add dump words). `extra`: facts the caller knows of
 * this execution (its round's condition, the test before it, its worker).
 */
function toTrialFacts(repetition: Repetition, previous: Repetition | undefined, messages: boolean, words: (text: string) => ReadonlySet<string>, extra: ExtraFacts = {}): TrialFacts {
  const text = messages ? (repetition.error ?? '') : `${repetition.error ?? ''}\n${repetition.stderr ?? ''}\n${repetition.stdout ?? ''}`
  return {
    failed: !repetition.ok,
    categorical: { previous_outcome: previous === undefined ? undefined : previous.ok ? 'passed' : 'failed', mode: repetition.mode, ...extra },
    numeric: {
      elapsed_ms: repetition.elapsedMs,
      stdout_bytes: repetition.stdout?.length ?? 0,
      stderr_bytes: repetition.stderr?.length ?? 0,
      gap_ms: repetition.gapMs,
    },
    words: words(text),
  }
}

/**
 * The meaningful words of a text as a set, one set per distinct text: most executions of a test
 * print the same (a passing one often nothing), and a set per execution was a merge's garbage. Shared
 * sets are only read (TrialFacts.words is a ReadonlySet).
 */
function meaningfulWords(words: (text: string) => readonly string[]): (text: string) => ReadonlySet<string> {
  const sets = new Map<string, ReadonlySet<string>>()
  return (text) => {
    let set = sets.get(text)
    if (set === undefined) {
      set = new Set(words(text).filter(isMeaningfulWord))
      sets.set(text, set)
    }
    return set
  }
}
