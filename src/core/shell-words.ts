/** Words a POSIX shell passes through unchanged, quoted or not (`#` only inside a word: at its start it opens a comment). */
const PLAIN = /^[\w./:,+@%=-][\w./:,+@%=#-]*$/

/** One word for sh: bare when it is plain, else in single quotes, a quote inside written `'\''`. */
export function shellWord(word: string): string {
  return PLAIN.test(word) ? word : `'${word.split("'").join(`'\\''`)}'`
}

/**
 * Words as the user's shell split them (`repeat … -- python3 -m pytest -k "a or b"`), joined back
 * into one command line that a shell splits the same way.
 */
export function joinShellWords(words: readonly string[]): string {
  return words.map(shellWord).join(' ')
}

/**
 * A whole command line as one double-quoted word (`--cmd "…"`), escaped only where sh would read it
 * otherwise: `"` and backquote always, `$` where it starts an expansion, `\` where it escapes the next
 * character. A regular expression's `\(` or a trailing `$'` stay as written, so the command reads as
 * the one it stands for.
 */
export function doubleQuoted(text: string): string {
  const escaped = text.replace(/["`]|\$(?=[\w{(@*#?$!-])|\\(?=["`$\\\n]|$)/g, '\\$&')
  return `"${escaped}"`
}
