import { closeSync, openSync, readSync } from 'node:fs'
import { forEachLine } from './_lines.js'
import { parseJsonLine } from './read.js'
import { type TestFact, TestFactSchema } from './test-schemas.js'

/**
 * Where each test's lines are in one facts.jsonl (test mode), so a merge can take one test at a
 * time from every folder without holding all of them: memory O(tests), as a run's recorder keeps.
 */
export interface TestFactsIndex {
  /** Test ids, in the order their first line appears. */
  readonly ids: readonly string[]
  /** This test's lines in this file, in file order; none when the file has no line of it. */
  linesOf(id: string): TestFact[]
}

/**
 * Reads facts.jsonl once, in chunks, validating every line (a bad one is an error naming file and
 * line), and keeps only the byte ranges of each test's lines: a recorder writes a test's lines
 * together, so that is usually one range per test.
 */
export function indexTestFacts(path: string, flag: string, hint: string): TestFactsIndex {
  const ranges = new Map<string, [number, number][]>()
  forEachLine(path, (text, start, end, line) => {
    if (text.trim() === '') return
    const { test_id } = parseJsonLine(text, TestFactSchema, `${flag} ${path}: line ${line}`, hint)
    const own = ranges.get(test_id) ?? []
    const last = own.at(-1)
    if (last !== undefined && last[1] === start) last[1] = end
    else own.push([start, end])
    ranges.set(test_id, own)
  })
  return {
    ids: [...ranges.keys()],
    linesOf(id: string): TestFact[] {
      const lines: TestFact[] = []
      const fd = openSync(path, 'r')
      try {
        for (const [start, end] of ranges.get(id) ?? []) {
          const bytes = Buffer.alloc(end - start)
          readSync(fd, bytes, 0, bytes.length, start)
          for (const text of bytes.toString('utf8').split('\n')) {
            if (text.trim() !== '') lines.push(parseJsonLine(text, TestFactSchema, `${flag} ${path}`, hint))
          }
        }
      } finally {
        closeSync(fd)
      }
      return lines
    },
  }
}
