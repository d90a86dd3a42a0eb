import { isLibtestProblem, LibtestParser, type LibtestResult } from '../core/libtest.js'
import { readTextChunks } from './_chunks.js'
import { type JUnitCase, MAX_CASE_TEXT, type ReadCounters } from './junit-read.js'

/**
 * Every test result of a saved `cargo test` log (stdout and stderr together, as `2>&1` or a CI log
 * keeps them), as test cases keyed by binary (src/core/libtest.ts). Read in fixed-size chunks, line
 * by line. An `ignored` test is `skipped`.
 * @throws Error naming the file and line when a line looks like a result but cannot be read, or
 *   when the log holds no libtest output at all (no `Running` or `Doc-tests` line); nothing of it
 *   is returned then.
 */
export function readLibtestFile(path: string, counters?: ReadCounters): JUnitCase[] {
  const parser = new LibtestParser(MAX_CASE_TEXT)
  const results: LibtestResult[] = []
  const push = (line: string): void => {
    const result = parser.push(line)
    if (result === undefined) return
    if (isLibtestProblem(result)) throw new Error(`${path}:${result.line}: ${result.message}`)
    results.push(result)
  }
  let carry = ''
  readTextChunks(path, (text, bytes) => {
    const lines = (carry + text).split('\n')
    carry = lines.pop() as string
    for (const line of lines) push(line)
    if (counters) {
      counters.bytes += bytes
      counters.maxHeldChars = Math.max(counters.maxHeldChars, text.length + carry.length)
    }
  })
  push(carry)
  if (parser.sections === 0) throw new Error(`${path}:1: not a libtest log: no \`Running <binary>\` or \`Doc-tests <crate>\` line`)
  if (counters) counters.files++
  return results.map(({ binary, name, outcome }) => ({
    group: binary,
    name,
    outcome: outcome === 'ignored' ? 'skipped' : outcome,
    retries: 0,
    error: outcome === 'failed' ? (parser.messageOf(binary, name) ?? 'FAILED') : null,
    elapsedMs: 0,
    stdout: '',
    stderr: '',
  }))
}
