import { existsSync } from 'node:fs'
import { forEachLine, isBlankLine, lineText } from './_lines.js'
import { parseJsonLine } from './read.js'
import { TestFactSchema } from './test-schemas.js'

/**
 * The tests that failed in a test-mode facts.jsonl, each with the signature of its last failed
 * execution (null when the line has none), in the order they first failed. Read line by line: a
 * large run's facts are never held whole. None when the file does not exist.
 */
export function readFailedTests(factsPath: string): { id: string; signature: string | null }[] {
  const failed = new Map<string, string | null>()
  if (!existsSync(factsPath)) return []
  forEachLine(factsPath, (data, from, to, _start, _end, line) => {
    if (isBlankLine(data, from, to)) return
    // Only a failed execution's line is decoded and parsed: most lines of a run are passes.
    const text = lineText(data, from, to)
    if (!text.includes('"failed"')) return
    const fact = parseJsonLine(text, TestFactSchema, `${factsPath}: line ${line}`, 'Re-run the step that writes it.')
    if (fact.outcome === 'failed') failed.set(fact.test_id, fact.signature ?? null)
  })
  return [...failed].map(([id, signature]) => ({ id, signature }))
}
