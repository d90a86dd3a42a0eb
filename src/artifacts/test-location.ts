import { readFileSync } from 'node:fs'

/**
 * The line of a test's declaration in its file, found by its own name in a `test(`/`it(` call, for
 * annotations when Vitest gave no location (commands that read rate.json, or a run without
 * `includeTaskLocation`). The first matching call wins; a name built at run time (`test.each` with
 * `%i`, template literals) is not found, and the annotation then points at the file alone.
 */
export function findTestLine(path: string, name: string): number | undefined {
  let source: string
  try {
    source = readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
  const literal = [`'${name.replaceAll("'", "\\'")}'`, `"${name.replaceAll('"', '\\"')}"`, `\`${name.replaceAll('`', '\\`')}\``]
  const call = /\b(?:test|it)(?:\.[a-zA-Z]+)*\s*\(\s*/g
  for (const match of source.matchAll(call)) {
    const after = source.slice(match.index + match[0].length)
    if (literal.some((quoted) => after.startsWith(quoted))) return source.slice(0, match.index).split('\n').length
  }
  return undefined
}
