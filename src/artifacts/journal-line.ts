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

/** One line: a repetition ended (`done`), one began (`begin`, its index), or the test ended (`end`). */
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
  /** When a repetition began (`begin`), ms since the epoch. */
  at?: number
  done?: JournalRepetition
  begin?: number
  end?: true
}

/** A repetition as the journal keeps it: no console output or stack, the error capped (meta carries them whole). */
export function forJournal({ stdout: _stdout, stderr: _stderr, stack: _stack, ...repetition }: Repetition): JournalRepetition {
  return repetition.error !== undefined && repetition.error.length > JOURNAL_ERROR_LIMIT
    ? { ...repetition, error: `${repetition.error.slice(0, JOURNAL_ERROR_LIMIT)}… [flakeproof: cut]` }
    : repetition
}
