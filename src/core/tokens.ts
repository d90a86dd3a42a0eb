import { stripAnsi } from './ansi.js'

/** What token discrimination needs of one trial. */
export interface TokenEvidence {
  failed: boolean
  stdout: string
  stderr: string
}

/** discriminateTokens' answer: the word to grep for in a failure's output, and every other candidate. */
export interface TokenResult {
  /** The preferred token: the first ALL-CAPS candidate, else the first candidate; null if none. */
  token: string | null
  /** Every word in the stderr of every failure and in the output of no success, preferred first. */
  candidates: string[]
}

/**
 * Words present in the stderr of every failure and in the output (stdout or stderr) of no success
 * (docs/contracts.md §3). ALL-CAPS words come first (STALE, ECONNRESET), each group in the order the words
 * appear in the first failure's stderr, so the answer does not depend on hash order. `words` is
 * wordsInOrder, or a memo of it when the caller tokenizes the same texts again.
 */
export function discriminateTokens(trials: readonly TokenEvidence[], words: (text: string) => readonly string[] = wordsInOrder): TokenResult {
  const failures = trials.filter((t) => t.failed)
  const [first, ...rest] = failures
  if (!first) return { token: null, candidates: [] }
  let common: readonly string[] = words(first.stderr)
  for (const failure of rest) {
    const seen = new Set(words(failure.stderr))
    common = common.filter((w) => seen.has(w))
    if (common.length === 0) return { token: null, candidates: [] }
  }
  const seenInSuccess = new Set<string>()
  for (const trial of trials) {
    if (trial.failed) continue
    for (const w of words(trial.stdout)) seenInSuccess.add(w)
    for (const w of words(trial.stderr)) seenInSuccess.add(w)
  }
  const distinct = common.filter((w) => !seenInSuccess.has(w))
  const candidates = [...distinct.filter(isAllCaps), ...distinct.filter((w) => !isAllCaps(w))]
  return { token: candidates[0] ?? null, candidates }
}

/**
 * The distinct words of a text in order of first appearance. A word starts with a letter or '_' and
 * has at least two characters, so numbers (which differ per trial) and stray letters never qualify.
 * Colour codes are stripped first: `\u001b[31mSTALE\u001b[39m` is the word STALE, not `mSTALE`.
 */
export function wordsInOrder(text: string): string[] {
  return [...new Set(stripAnsi(text).match(WORD) ?? [])]
}

/**
 * wordsInOrder, remembering each text's words: a test's failures often repeat one message, and its
 * tally reads each message twice (tokens, then predicates). One per test, so it holds one test's texts.
 */
export function memoWordsInOrder(): (text: string) => readonly string[] {
  const seen = new Map<string, readonly string[]>()
  return (text) => {
    let words = seen.get(text)
    if (words === undefined) {
      words = wordsInOrder(text)
      seen.set(text, words)
    }
    return words
  }
}

/** A word of capital letters (digits and '_' allowed after the first letter), e.g. ETIMEDOUT. */
export function isAllCaps(word: string): boolean {
  return /^[A-Z][A-Z0-9_]*$/.test(word) && /[A-Z].*[A-Z]/.test(word)
}

// --- internal ---

const WORD = /[A-Za-z_][A-Za-z0-9_]+/g
