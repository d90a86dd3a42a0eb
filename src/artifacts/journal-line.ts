import type { Repetition } from '../core/repetition.js'
import type { TestIdentity } from '../core/test-id.js'

/**
 * The journal's line format (src/artifacts/journal.ts writes and reads it), apart from any I/O:
 * Vitest's browser mode builds these lines inside the page, which has no `node:fs`, and hands
 * them to the Node side to write.
 */

/** A repetition without its console output and stack, its error capped to JOURNAL_ERROR_LIMIT characters. */
export type JournalRepetition = Omit<Repetition, 'stdout' | 'stderr' | 'stack'>

/** Characters of an error message kept in the journal (the full one travels on the test's meta). */
export const JOURNAL_ERROR_LIMIT = 500

/**
 * A repetition already written (`done`) that failed after it ended: its runner gave it an error
 * later. Jest 30 fails a test with the rejection of a promise the test made and left behind (an
 * un-awaited `waitFor`) when the test's describe block ends, after the test itself was done.
 */
export interface JournalLate {
  /** Which of the test's repetitions, counting its `done` lines from 0. */
  index: number
  error: string
  signature: string
}

/** One line: a repetition ended (`done`), one began (`begin`, its index), the test ended (`end`), or one written failed later (`late`). */
export interface JournalLine {
  id: string
  /** On the first line of a test only. */
  identity?: TestIdentity
  /** On the first line of a test: repetitions it will run, its place in its worker, the worker. */
  planned?: number
  order?: number
  worker?: string
  /** The worker's process id, to tell a dead worker from a live one. */
  pid?: number
  /** On the first line, where the runner's reporter cannot tell (Jest): the line the test is declared at, for annotations. */
  line?: number
  /** On the first line, where the runner's reporter cannot tell (Jest): the test that ran before it in its worker, and its file. */
  previousTest?: string | null
  previousFile?: string | null
  /** When a repetition began (`begin`), ms since the epoch. */
  at?: number
  done?: JournalRepetition
  begin?: number
  end?: true
  late?: JournalLate
  /**
   * Every test id of a file, filtered and skipped ones included, on a line of its own whose `id` is
   * the file's (`[project] file`): what the run collected, for runners whose reporter is not told
   * of tests that did not run (Jest).
   */
  collected?: string[]
}

/** A repetition as the journal keeps it: no console output or stack, the error capped (meta carries them whole). */
export function forJournal({ stdout: _stdout, stderr: _stderr, stack: _stack, ...repetition }: Repetition): JournalRepetition {
  return repetition.error !== undefined && repetition.error.length > JOURNAL_ERROR_LIMIT
    ? { ...repetition, error: `${repetition.error.slice(0, JOURNAL_ERROR_LIMIT)}… [flakeproof: cut]` }
    : repetition
}
