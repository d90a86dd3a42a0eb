import { closeSync, openSync, readSync } from 'node:fs'
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

// --- internal ---

const CHUNK_BYTES = 1 << 20

/** Each line of a file with its byte range [start, end), the newline included, and its number from 1. */
function forEachLine(path: string, visit: (text: string, start: number, end: number, line: number) => void): void {
  const fd = openSync(path, 'r')
  try {
    const chunk = Buffer.alloc(CHUNK_BYTES)
    let carry = Buffer.alloc(0)
    // Byte offset in the file of the first byte of `carry`.
    let carryStart = 0
    let position = 0
    let line = 0
    for (let read = readSync(fd, chunk, 0, CHUNK_BYTES, position); read > 0; read = readSync(fd, chunk, 0, CHUNK_BYTES, position)) {
      position += read
      const data = Buffer.concat([carry, chunk.subarray(0, read)])
      let from = 0
      for (let newline = data.indexOf(10); newline !== -1; newline = data.indexOf(10, from)) {
        visit(data.toString('utf8', from, newline), carryStart + from, carryStart + newline + 1, ++line)
        from = newline + 1
      }
      carry = data.subarray(from)
      carryStart += from
    }
    if (carry.length > 0) visit(carry.toString('utf8'), carryStart, carryStart + carry.length, ++line)
  } finally {
    closeSync(fd)
  }
}
