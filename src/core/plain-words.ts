/**
 * Words that explain nothing about a failure: grammar, and the vocabulary every assertion message
 * shares. A predicate "output contains the" or a token "expected" would be true of any failure, so
 * such words never become predicates (docs/contracts.md §13).
 */
const PLAIN = new Set([
  'the', 'and', 'for', 'not', 'but', 'with', 'was', 'were', 'are', 'has', 'have', 'had', 'this', 'that', 'from', 'into', 'than',
  'then', 'when', 'its', 'all', 'any', 'one', 'our', 'you', 'your', 'can', 'did', 'does', 'will', 'been', 'being', 'there',
  'expected', 'received', 'error', 'assertionerror', 'equal', 'deep', 'deeply', 'strict', 'strictly', 'object', 'is',
  'true', 'false', 'null', 'undefined', 'value', 'tobe', 'toequal', 'expect', 'assert', 'equality',
])

/** A word worth a predicate: three characters or more, and not one every failure message has. */
export function isMeaningfulWord(word: string): boolean {
  return word.length >= 3 && !PLAIN.has(word.toLowerCase())
}
