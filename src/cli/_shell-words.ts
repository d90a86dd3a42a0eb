/** Words a POSIX shell passes through unchanged, quoted or not. */
const PLAIN = /^[\w./:,+@%=-]+$/

/**
 * Words as the user's shell split them (`repeat … -- python3 -m pytest -k "a or b"`), joined back
 * into one command line that a shell splits the same way: each word that is not plain goes in
 * single quotes, a quote inside written `'\''`.
 */
export function joinShellWords(words: readonly string[]): string {
  return words.map((w) => (PLAIN.test(w) ? w : `'${w.split("'").join(`'\\''`)}'`)).join(' ')
}
