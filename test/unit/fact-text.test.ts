import { describe, expect, it } from 'vitest'
import { checkedTestFact } from '../../src/artifacts/_fact-check.js'
import { keepText, lineJson } from '../../src/artifacts/_fact-text.js'
import type { TestFact } from '../../src/artifacts/test-schemas.js'
import { toFactLines } from '../../src/pipeline/test-facts.js'
import { reportedTest } from '../reported-test.js'
import { seeded } from '../seeded.js'

/** Strings that would trip a splice that searched text carelessly: quotes, escapes, the keys themselves. */
const TRICKY = ['', 'plain', 'say "hi"', 'ends with \\', '","repeat":7,"x":"', '{"trial":3}', ',"origin":"elsewhere"}', 'naïve ✓ 日本', 'line\nbreak\ttab', '\u0000\u001f']

/** A fact as flakeproof writes one (TestFactSchema's key order), its optional keys drawn by `random`. */
function factOf(random: () => number, i: number): TestFact {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T
  const maybe = <T extends object>(value: T): T | object => (random() < 0.5 ? value : {})
  return {
    trial: 1 + Math.floor(random() * 1000),
    test_id: `a.test.ts > ${pick(TRICKY)} ${i}`,
    ...maybe({ project: pick(TRICKY) }),
    file: 'a.test.ts',
    name: `${pick(TRICKY)} ${i}`,
    outcome: pick(['passed', 'failed', 'skipped'] as const),
    elapsed_ms: Math.floor(random() * 5000),
    error: random() < 0.5 ? null : pick(TRICKY),
    ...maybe({ stack: pick(TRICKY) }),
    ...maybe({ attachments: [{ name: pick(TRICKY), path: 'shot.png' }] }),
    stdout: pick(TRICKY),
    stderr: pick(TRICKY),
    repeat: Math.floor(random() * 1000),
    order: 1 + Math.floor(random() * 50),
    previous_test: random() < 0.5 ? null : pick(TRICKY),
    worker: '1',
    seed: random() < 0.5 ? null : Math.floor(random() * 1e6),
    gap_ms: 0,
    mode: pick(['fast', 'slow', 'proof', 'single', 'paired'] as const),
    ...maybe({ origin: pick(TRICKY) }),
    ...maybe({ round: 1 + Math.floor(random() * 5) }),
    ...maybe({ condition: pick(['base', 'serial', 'load'] as const) }),
    ...maybe({ signature: pick(TRICKY) }),
  } as TestFact
}

describe('lineJson: a merged line written from the text it was read from', () => {
  it('gives JSON.stringify’s bytes of the line a merge changed (trial, repeat, an origin added), on 2 000 seeded facts', () => {
    const random = seeded(24)
    for (let i = 0; i < 2000; i++) {
      const text = JSON.stringify(factOf(random, i))
      const fact = checkedTestFact(JSON.parse(text))
      expect(fact, text).toBeDefined()
      if (fact === undefined) continue
      keepText(fact, text)
      // What merge.ts does to a line: renumber, then the folder as origin unless it has one.
      fact.trial = 1 + Math.floor(random() * 500_000)
      fact.repeat = fact.trial - 1
      fact.origin ??= `ci/job-${i}`
      expect(lineJson(fact)).toBe(JSON.stringify(fact))
    }
  })

  it('falls back to JSON.stringify where the text is not laid out as written, or the origin was replaced', () => {
    const fact = factOf(seeded(7), 1)
    const spaced = JSON.stringify(fact, null, 1).replace(/\n/g, '')
    const parsed = JSON.parse(spaced) as TestFact
    keepText(parsed, spaced)
    parsed.trial = 99
    expect(lineJson(parsed)).toBe(JSON.stringify(parsed))

    const text = JSON.stringify({ ...fact, origin: 'first' })
    const read = JSON.parse(text) as TestFact
    keepText(read, text)
    read.origin = 'second'
    expect(lineJson(read)).toBe(JSON.stringify(read))
  })

  it('takes every line the recorder writes as written: its keys in the schema’s order, a round’s and the previous file too', () => {
    const test = reportedTest('t', '.x.')
    const evidence = { ...test.evidence, previousFile: 'b.test.ts', repetitions: test.evidence.repetitions.map((r) => ({ ...r, stack: 'at a.test.ts:1:1' })) }
    for (const place of [{ before: 0 }, { before: 3, round: 2, condition: 'serial' as const }]) {
      for (const line of toFactLines({ ...test, evidence }, place)) expect(checkedTestFact(JSON.parse(JSON.stringify(line))), JSON.stringify(line)).toBeDefined()
    }
  })

  it('writes any other line with JSON.stringify', () => {
    expect(lineJson({ trial: 1, note: 'not read' })).toBe('{"trial":1,"note":"not read"}')
    expect(lineJson('text')).toBe('"text"')
  })
})
