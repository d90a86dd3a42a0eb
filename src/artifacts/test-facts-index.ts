import { closeSync, openSync } from 'node:fs'
import { checkedTestFact } from './_fact-check.js'
import { keepText } from './_fact-text.js'
import { WrittenTestIds } from './_fact-id.js'
import { forEachLine, isBlankLine, lineText, linesInRange } from './_lines.js'
import { parseJsonLine } from './read.js'
import { type TestFact, TestFactSchema } from './test-schemas.js'

/**
 * Where each test's lines are in one facts.jsonl (test mode), so a merge can take one test at a
 * time from every folder without holding all of them: memory O(tests), as a run's recorder keeps.
 */
export interface TestFactsIndex {
  /** Test ids, in the order their first line appears. */
  readonly ids: readonly string[]
  /**
   * This test's lines in this file, in file order, each validated (a bad one is an error naming
   * file and line); none when the file has no line of it.
   */
  linesOf(id: string): TestFact[]
}

/** A run of consecutive lines of one test: bytes [start, end), the first line's number. */
type Range = [start: number, end: number, line: number]

/**
 * Reads facts.jsonl once, in chunks, and keeps only the byte ranges of each test's lines: a
 * recorder writes a test's lines together, so that is usually one range per test. A line written
 * as flakeproof writes them gives its test id without being parsed (WrittenTestIds); any other
 * line is parsed and validated here. Every line is parsed and validated exactly once in all: the
 * first kind when `linesOf` reads it, so the merge parses each execution once, not twice.
 */
export function indexTestFacts(path: string, flag: string, hint: string): TestFactsIndex {
  const ranges = new Map<string, Range[]>()
  const written = new WrittenTestIds()
  forEachLine(path, (data, from, to, start, end, line) => {
    if (isBlankLine(data, from, to)) return
    const id = written.idOf(data, from, to) ?? parseJsonLine(lineText(data, from, to), TestFactSchema, `${flag} ${path}: line ${line}`, hint, checkedTestFact).test_id
    const own = ranges.get(id)
    const last = own?.at(-1)
    if (last !== undefined && last[1] === start) last[1] = end
    else if (own !== undefined) own.push([start, end, line])
    else ranges.set(id, [[start, end, line]])
  })
  return {
    ids: [...ranges.keys()],
    linesOf(id: string): TestFact[] {
      const lines: TestFact[] = []
      const fd = openSync(path, 'r')
      try {
        for (const [start, end, first] of ranges.get(id) ?? []) {
          let line = first
          for (const text of linesInRange(fd, start, end)) {
            if (text.trim() !== '') {
              const at = line
              // Taken as written (the hand check, not the schema): a merge writes it back from its text.
              let asWritten = false
              const fact = parseJsonLine(text, TestFactSchema, () => `${flag} ${path}: line ${at}`, hint, (data) => {
                const checked = checkedTestFact(data)
                asWritten = checked !== undefined
                return checked
              })
              if (asWritten) keepText(fact, text)
              lines.push(fact)
            }
            line++
          }
        }
      } finally {
        closeSync(fd)
      }
      return lines
    },
  }
}
