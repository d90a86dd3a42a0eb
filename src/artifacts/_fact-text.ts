import type { TestFact } from './test-schemas.js'

/**
 * A merge writes back what it reads: each execution's line, only its `trial`, `repeat` and `origin`
 * changed (src/pipeline/merge.ts renumber, withOrigin). A line read as it was written (hand-checked:
 * the schema gives it back unchanged) keeps its text here, and is written from that text with those
 * three fields set, never serialised again: at 500 000 executions JSON.stringify of the merged lines
 * was the largest part of a merge after reading them. From JSON.stringify's own text (every line
 * flakeproof writes) the bytes are JSON.stringify's of the changed line: trial is its first key,
 * `repeat` found as the first `,"repeat":` (no JSON string holds an unescaped quote), origin, when
 * the merge adds it, last, where JSON.stringify puts a key added to a parsed object.
 */
const READ = new WeakMap<object, Read>()

interface Read {
  text: string
  /** The origin it was read with: the merge only ever adds one. */
  origin: string | undefined
}

/** A line as it was read, kept for lineJson: only one that starts with its trial, as written, and is one object. */
export function keepText(fact: TestFact, text: string): void {
  if (text.startsWith(TRIAL) && text.endsWith('}')) READ.set(fact, { text, origin: fact.origin })
}

/** The JSON of one line: from the text it was read from, when keepText kept it, else JSON.stringify's. */
export function lineJson(line: unknown): string {
  const read = typeof line === 'object' && line !== null ? READ.get(line) : undefined
  return (read && spliced(read, line as TestFact)) ?? JSON.stringify(line)
}

// --- internal ---

const TRIAL = '{"trial":'
const REPEAT = ',"repeat":'

/** The text with trial, repeat and (added) origin set; undefined when the text is not laid out to take them. */
function spliced({ text, origin }: Read, fact: TestFact): string | undefined {
  if (fact.origin !== origin && origin !== undefined) return undefined
  const trialEnd = text.indexOf(',', TRIAL.length)
  const repeatAt = trialEnd < 0 ? -1 : text.indexOf(REPEAT, trialEnd)
  const repeatEnd = repeatAt < 0 ? -1 : text.indexOf(',', repeatAt + REPEAT.length)
  if (repeatEnd < 0) return undefined
  const rest = fact.origin === origin ? text.slice(repeatEnd) : `${text.slice(repeatEnd, -1)},"origin":${JSON.stringify(fact.origin)}}`
  return `${TRIAL}${fact.trial}${text.slice(trialEnd, repeatAt)}${REPEAT}${fact.repeat}${rest}`
}
