import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { renderHtmlReport } from '../../src/artifacts/html.js'
import { FAILURES_IN_FULL, TEXT_CHARS } from '../../src/artifacts/html-executions.js'
import { HELD_SUBJECTS, HeldSummaries } from '../../src/artifacts/html-held.js'
import { type FactsRange, readExecutionSummaries } from '../../src/artifacts/html-read.js'
import { detailedSubjects } from '../../src/artifacts/html-subjects.js'
import { type TestFact, TestFactSchema } from '../../src/artifacts/test-schemas.js'
import { JsonLinesWriter } from '../../src/artifacts/write.js'
import { rateFile, testRate } from '../rate-file.js'
import { seeded } from '../seeded.js'
import { tempDir } from '../utils.js'

/**
 * report.html's summaries held by a merge as it writes each test's lines (the fast path) against the
 * same summaries read back from the written facts.jsonl (the slow path): equal, and the pages they
 * render equal byte for byte, on seeded lines that reach every edge of the reading (-0, skipped
 * lines, more failures than shown in full, texts longer than their caps, markup, lone surrogates,
 * attachments, every mode), with more tests than are held so both paths make the one page.
 */

type Random = () => number
const pick = <T>(random: Random, xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T

const TEXTS = ['', 'STALE entry', '<b>"&\'</b>', 'é\u0000\u001b[31m', 'lone \ud800 surrogate', 'x'.repeat(TEXT_CHARS.stack + 1), '<'.repeat(TEXT_CHARS.error), 'line 1\r\nline 2\n']
const MODES = ['fast', 'single', 'slow', 'paired', 'proof'] as const

function lineOf(random: Random, id: string, i: number): TestFact {
  const outcome = pick(random, ['passed', 'failed', 'failed', 'skipped'] as const)
  const line: TestFact = {
    trial: i + 1,
    test_id: id,
    project: '',
    file: 'tests/a.test.ts',
    name: id.split(' > ')[1] ?? id,
    outcome,
    elapsed_ms: pick(random, [-0, 0, 0.5, 1.25, 1e-300, random() * 100]),
    error: outcome === 'failed' ? pick(random, TEXTS) : null,
    stdout: pick(random, TEXTS),
    stderr: pick(random, TEXTS),
    repeat: i,
    order: 1 + Math.floor(random() * 3),
    previous_test: random() < 0.5 ? null : 'tests/a.test.ts > other',
    worker: '1',
    seed: null,
    gap_ms: 0,
    mode: pick(random, MODES),
    origin: pick(random, ['shards/s1', 'shards/s2']),
  }
  if (random() < 0.5) line.stack = pick(random, TEXTS)
  if (random() < 0.2) line.attachments = [{ name: 'trace', path: 'trace.zip' }]
  if (random() < 0.2) line.round = 1 + Math.floor(random() * 4)
  return line
}

describe('report.html summaries held by a merge', () => {
  it.each([1, 2, 3])('equal the ones read back from the written facts, and render the same page (seed %i)', (seed) => {
    const random = seeded(seed)
    const dir = tempDir()
    const writer = new JsonLinesWriter(join(dir, 'facts.jsonl'), TestFactSchema)
    const ranges = new Map<string, FactsRange>()
    const held = new HeldSummaries()
    // Ten more tests than are held: those are read back. Up to 3 × FAILURES_IN_FULL lines each, so some show only the first in full.
    const ids = Array.from({ length: HELD_SUBJECTS + 10 }, (_, t) => `tests/a.test.ts > t${t}`)
    for (const id of ids) {
      const lines = Array.from({ length: 1 + Math.floor(random() * 3 * FAILURES_IN_FULL) }, (_, i) => lineOf(random, id, i))
      const start = writer.size
      writer.appendAll(lines)
      ranges.set(id, [start, writer.size])
      held.hold(lines)
    }
    writer.close()
    // Every test flaky, surest first in a seeded order, so the 20 detailed ones are held ones and read ones alike.
    const tests = ids.map((id, t) => ({ ...testRate(`t${t}`, 1, random() * 0.5, 0.9, 'flaky'), id }))
    const bundle = { rate: rateFile({ trials: 20, failures: 1, rate: 0.05, ci_low: 0.01, ci_high: 0.9 }, { tests }) }
    const detailed = detailedSubjects(bundle).map((s) => s.id)
    expect(detailed.some((id) => held.summaries.has(id))).toBe(true)
    expect(detailed.some((id) => !held.summaries.has(id))).toBe(true)
    expect(held.summaries.size).toBe(HELD_SUBJECTS)
    const slow = readExecutionSummaries(dir, bundle, dir, ranges)
    const fast = readExecutionSummaries(dir, bundle, dir, ranges, held.summaries)
    // toStrictEqual tells -0 from 0 (Object.is), and the subjects' order too through the page.
    expect(fast).toStrictEqual(slow)
    expect([...fast.subjects.keys()]).toEqual([...slow.subjects.keys()])
    expect(renderHtmlReport(bundle, fast)).toBe(renderHtmlReport(bundle, slow))
  })

  it('holds a test handed twice by neither hand: its lines are in two places, so the page reads them', () => {
    const random = seeded(7)
    const held = new HeldSummaries()
    held.hold([lineOf(random, 'a > t', 0)])
    held.hold([lineOf(random, 'a > t', 1)])
    held.hold([lineOf(random, 'a > t', 2)])
    held.hold([])
    expect([...held.summaries.keys()]).toEqual([])
  })

  it('holds at most its limit, the first tests handed', () => {
    const random = seeded(8)
    const held = new HeldSummaries(2)
    for (const id of ['a > 1', 'a > 2', 'a > 3']) held.hold([lineOf(random, id, 0)])
    expect([...held.summaries.keys()]).toEqual(['a > 1', 'a > 2'])
  })
})
