/** One execution of one test, as a test-runner adapter saw it: plain data, it crosses worker boundaries. */

/** `paired`: a fast repetition interleaved with the gapped (`slow`) ones while observing. */
export type RepetitionMode = 'fast' | 'slow' | 'paired' | 'proof' | 'single'

/** Whether the gapped repetition comes first in pair `pair` (0-based) of one test's observation. */
export type PairOrder = (pair: number) => boolean

/**
 * The kind of a test's repetition `index` (0-based) in a measuring run: `repeat` fast ones, then,
 * when observing, pairs of one gapped and one fast repetition (docs/contracts.md §13.4), so machine
 * load or time drifting during the observation falls on both sides alike; inside each pair a coin
 * (`gappedFirst`, pairOrder) says which comes first, so no period of the test's own (every 4th
 * call) can line up with the design and read as the gap's effect.
 */
export function measuringModeOf(index: number, repeat: number, gappedFirst: PairOrder): RepetitionMode {
  if (index < repeat) return 'fast'
  const step = index - repeat
  return (step % 2 === 0) === gappedFirst(Math.floor(step / 2)) ? 'slow' : 'paired'
}

/**
 * The coins of one test's pairs, from the run's assignment seed and the test's id: each pair's coin
 * a bit of a 32-bit hash (FNV-1a of the id, mixed with the seed and the pair's index by murmur3's
 * finaliser), so the same seed replays the same assignment, tests get independent coins, and one
 * coin costs a few multiplications.
 */
export function pairOrder(seed: number, id: string): PairOrder {
  let hash = 0x811c9dc5
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193)
  const base = mix((hash ^ seed) >>> 0)
  return (pair) => mix((base + Math.imul(pair + 1, 0x9e3779b9)) >>> 0) >>> 31 === 1
}

/** The largest assignment seed: a 31-bit whole number, as `--flaky-seed` accepts. */
export const MAX_ASSIGNMENT_SEED = 2 ** 31 - 1

/** A file the runner kept of one execution: its name as the runner gives it (`trace`) and where it is. */
export interface Attachment {
  name: string
  path: string
}

/** One execution of one test. */
export interface Repetition {
  /** Passed (with `fails` tests inverted, as the runner counts them). */
  ok: boolean
  elapsedMs: number
  /** First error message of this execution, capped. */
  error?: string
  /** Failure signature of that error (src/core/signature.ts), taken where its stack is still whole. */
  signature?: string
  /** That error's stack trace as the runner gave it, capped: where it failed, for the HTML report. */
  stack?: string
  /** Files the runner kept of this execution (Playwright's trace and screenshot), absolute paths, for report.html to link. */
  attachments?: Attachment[]
  /** Console output of this execution, capped per stream. */
  stdout?: string
  stderr?: string
  mode: RepetitionMode
  gapMs: number
}

// --- internal ---

/** murmur3's 32-bit finaliser: every input bit reaches every output bit. */
function mix(x: number): number {
  let h = x
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}
