import { isLibtestProblem, LibtestParser, type LibtestResult } from '../core/libtest.js'
import { readTextChunks } from './_chunks.js'
import { type JUnitCase, MAX_CASE_TEXT, type ReadCounters } from './junit-read.js'

/**
 * Every test result of a saved `cargo test` log (stdout and stderr together, as `2>&1` or a CI log
 * keeps them), as test cases keyed by binary (src/core/libtest.ts): the binary is the case's
 * classname and its suite. Read in fixed-size chunks, line by line. An `ignored` test is skipped.
 * Results are handed over once the log has ended, since a failure's text comes after all results of
 * its binary; what is held meanwhile is one small record per result and the capped failure texts.
 * @throws Error naming the file and line when a line looks like a result but cannot be read, or
 *   when the log holds no libtest output at all (no `Running` or `Doc-tests` line); nothing of it
 *   is handed over then.
 */
export function readLibtestFile(path: string, onCase: (c: JUnitCase) => void, counters?: ReadCounters): void {
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
  const binaries = new Map<string, number>()
  for (const { binary, name, outcome } of results) {
    if (!binaries.has(binary)) binaries.set(binary, binaries.size)
    onCase({
      classname: binary,
      name,
      file: '',
      suites: [binary],
      hostname: '',
      suite: binaries.get(binary) as number,
      skipped: outcome === 'ignored',
      attempts: [outcome === 'failed' ? { ok: false, error: parser.messageOf(binary, name) ?? 'FAILED' } : { ok: true, error: null }],
      elapsedMs: 0,
      stdout: '',
      stderr: '',
    })
  }
}

/** Every test case of the log, as a list (small logs, tests). */
export function readLibtestCases(path: string): JUnitCase[] {
  const cases: JUnitCase[] = []
  readLibtestFile(path, (c) => cases.push(c))
  return cases
}
