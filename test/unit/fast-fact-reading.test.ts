import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { checkedTestFact, checkedTestFactKeys } from '../../src/artifacts/_fact-check.js'
import { COMPILE_AFTER_LINES, compiledSchema, lineSchema } from '../../src/artifacts/_compiled-schema.js'
import { WrittenTestIds } from '../../src/artifacts/_fact-id.js'
import { checkedHistoryRecord, checkedHistoryRecordKeys } from '../../src/artifacts/_history-check.js'
import { forEachLine } from '../../src/artifacts/_lines.js'
import { HistoryRecordSchema } from '../../src/artifacts/history-schemas.js'
import { FactSchema } from '../../src/artifacts/schemas.js'
import { indexTestFacts } from '../../src/artifacts/test-facts-index.js'
import { TestFactSchema } from '../../src/artifacts/test-schemas.js'
import { toFactLines } from '../../src/pipeline/test-facts.js'
import { seeded } from '../seeded.js'
import { reportedTest } from '../reported-test.js'
import { tempDir } from '../utils.js'

/**
 * The fast paths of reading facts (merge, report, history) against the slow ones they replace, on
 * the same seeded random and mutated lines: a fast path that accepted, rejected, returned or
 * attributed one line differently would change a merge's numbers.
 */

type Random = () => number
const pick = <T>(random: Random, xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T

/** JSON values a mutation puts in a field: every type, and the edges of each check the schemas make. */
const VALUES: readonly unknown[] = [
  null, true, false, 0, -0, 1, -1, 0.5, 2, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 1e308, -1e-300,
  '', ' ', 'x', 'fast', 'slow', 'proof', 'single', 'paired', 'passed', 'failed', 'skipped', 'base', 'serial', 'load', 'flaky',
  '2026-01-31T12:00:00.000Z', '2026-01-31T12:00:00Z', '2026-13-31T12:00:00Z', '2026-01-31', 'é\u0000\u001b[31m',
  [], [1], {}, { a: 1 },
]

function testFact(random: Random): Record<string, unknown> {
  const test = reportedTest(`t${Math.floor(random() * 5)}`, pick(random, ['.', 'x', '.x', 'xx.']))
  const lines = toFactLines(test, random() < 0.3 ? { before: 3, round: 2, condition: pick(random, ['base', 'serial', 'load'] as const) } : { before: 0 })
  const line: Record<string, unknown> = { ...pick(random, lines) }
  if (random() < 0.3) line.origin = 'shard-1'
  if (random() < 0.3) line.previous_file = random() < 0.5 ? null : 'b.test.ts'
  return line
}

function commandFact(random: Random): Record<string, unknown> {
  const failed = random() < 0.5
  return {
    trial: 1 + Math.floor(random() * 9),
    exit_code: failed ? (random() < 0.5 ? null : 3) : 0,
    outcome: failed ? 'failed' : pick(random, ['passed', 'skipped']),
    elapsed_ms: random() * 40,
    stderr: failed ? 'STALE entry' : '',
    stdout: 'ok\n',
    signal: failed && random() < 0.3 ? 'SIGKILL' : null,
    timed_out: false,
    started_at: '2026-01-31T12:00:00.000Z',
    offset_ms: random() * 1000,
    gap_ms: 0,
    worker: 1,
    concurrent: 0,
    stdout_bytes: 3,
    stderr_bytes: failed ? 11 : 0,
    ...(random() < 0.3 ? { origin: 'a' } : {}),
  }
}

function historyRecord(random: Random): Record<string, unknown> {
  return {
    test_id: 'a.test.ts > t', project: '', file: 'a.test.ts', name: 't',
    outcome: pick(random, ['passed', 'failed', 'flaky']), retries: Math.floor(random() * 3), duration_ms: random() * 10,
    commit: random() < 0.5 ? null : 'abc123', branch: 'main', os: 'linux', at: '2026-01-31T12:00:00.000Z',
  }
}

/** 0 to 3 random edits: drop a field, give it another value, add an unknown one; then through JSON, as a file holds it. */
function mutated(random: Random, valid: Record<string, unknown>): unknown {
  const line = { ...valid }
  for (let edits = Math.floor(random() * 4); edits > 0; edits--) {
    const key = pick(random, Object.keys(line))
    const edit = random()
    if (edit < 0.25) delete line[key]
    else if (edit < 0.85) line[key] = pick(random, VALUES)
    else line[`extra_${Math.floor(random() * 3)}`] = pick(random, VALUES)
  }
  if (random() < 0.02) return pick(random, VALUES)
  return JSON.parse(JSON.stringify(line))
}

/** A copy of `base` with one edit: a table row's line. */
function editedFrom(base: Record<string, unknown>): (edit: (line: Record<string, unknown>) => void) => Record<string, unknown> {
  return (edit) => {
    const line = { ...base }
    edit(line)
    return line
  }
}

/** One table row: whether the schema takes `line`, whether the hand check does, and if so the line itself, as the schema gives it. */
function expectCheckedAsSchema(schema: z.ZodType, check: (line: unknown) => unknown, line: unknown, taken: boolean, valid: boolean): void {
  const parsed = schema.safeParse(line)
  expect(parsed.success).toBe(valid)
  const checked = check(line)
  expect(checked !== undefined).toBe(taken)
  if (checked !== undefined) {
    expect(checked).toBe(line)
    expect(JSON.stringify(checked)).toBe(JSON.stringify(parsed.data))
  }
}

/** 3 000 seeded, mutated values: whatever the hand check takes the schema takes, with the same JSON, and the check takes over 300. */
function expectSeededAgreement(schema: z.ZodType, check: (line: unknown) => unknown, make: (random: Random) => Record<string, unknown>, seed: number): void {
  const random = seeded(seed)
  let taken = 0
  let valid = 0
  for (let i = 0; i < 3000; i++) {
    const line = mutated(random, make(random))
    const parsed = schema.safeParse(line)
    const checked = check(line)
    if (parsed.success) valid++
    if (checked === undefined) continue
    taken++
    expect(parsed.success, JSON.stringify(line)).toBe(true)
    expect(JSON.stringify(checked)).toBe(JSON.stringify(parsed.data))
  }
  expect(taken).toBeGreaterThan(300)
  expect(taken).toBeLessThanOrEqual(valid)
}

describe('compiled schemas (z.compile) accept, reject and return exactly what the schemas do', () => {
  it.each([
    { name: 'TestFactSchema (facts.jsonl, test mode)', schema: TestFactSchema as z.ZodType, make: testFact, seed: 1 },
    { name: 'FactSchema (facts.jsonl, command mode)', schema: FactSchema as z.ZodType, make: commandFact, seed: 2 },
    { name: 'HistoryRecordSchema (history/*.jsonl)', schema: HistoryRecordSchema as z.ZodType, make: historyRecord, seed: 3 },
  ])('$name, 3 000 seeded lines', ({ schema, make, seed }) => {
    const random = seeded(seed)
    const fast = compiledSchema(schema)
    expect(fast).not.toBe(schema)
    let accepted = 0
    for (let i = 0; i < 3000; i++) {
      const line = mutated(random, make(random))
      const slow = schema.safeParse(line)
      const quick = fast.safeParse(line)
      // Each comparison is made on every line; \`expect\` (costlier than the parses) is reached only
      // when it fails, or to decide what strict equality cannot (toEqual is the looser of the two).
      if (quick.success !== slow.success) expect(quick.success, JSON.stringify(line)).toBe(slow.success)
      if (slow.success) {
        accepted++
        // Same value, same key order: the merge writes what it parsed.
        const [a, b] = [JSON.stringify(quick.data), JSON.stringify(slow.data)]
        if (a !== b) expect(a).toBe(b)
      } else if (!isDeepStrictEqual(quick.error?.issues, slow.error.issues)) {
        expect(quick.error?.issues).toEqual(slow.error.issues)
      }
    }
    // Both outcomes are exercised, or the comparison proves nothing.
    expect(accepted).toBeGreaterThan(300)
    expect(accepted).toBeLessThan(2700)
  })

  it(`takes the compiled schema for a file's lines after the first ${COMPILE_AFTER_LINES}`, () => {
    const schema = TestFactSchema.extend({})
    const used = Array.from({ length: COMPILE_AFTER_LINES + 2 }, () => lineSchema(schema))
    expect(used.slice(0, COMPILE_AFTER_LINES).every((s) => s === schema)).toBe(true)
    expect(used.slice(COMPILE_AFTER_LINES).every((s) => s === compiledSchema(schema))).toBe(true)
  })
})

describe('checkedTestFact (TestFactSchema by hand) takes a line only where the schema gives it back unchanged', () => {
  it('knows the schema\'s keys, in the schema\'s order', () => {
    expect(checkedTestFactKeys()).toEqual(Object.keys(TestFactSchema.shape))
  })

  const written = {
    trial: 3, test_id: 'a.test.ts > t', project: '', file: 'a.test.ts', name: 't', outcome: 'failed', elapsed_ms: 1.5, error: 'STALE',
    stack: 'Error: STALE\n    at a.test.ts:3:9', stdout: '', stderr: '', repeat: 2, order: 1, previous_test: null, worker: '1', seed: null, gap_ms: 0, mode: 'fast',
  }
  const OPTIONAL: Record<string, unknown> = {
    attachments: [{ name: 'trace', path: '/t.zip' }], origin: 's1', round: 2, previous_file: null, condition: 'load', attempt: 1, excluded: true, signature: 'Error: STALE @ a.test.ts',
  }
  const edited = editedFrom(written)
  // taken: returned as it is; schema: left to TestFactSchema (whose own verdict is in `valid`).
  it.each([
    { what: 'a line as the recorder writes it', line: written, taken: true, valid: true },
    { what: 'every optional field, in order', line: Object.fromEntries(Object.keys(TestFactSchema.shape).map((key) => [key, key in written ? written[key as keyof typeof written] : OPTIONAL[key]])), taken: true, valid: true },
    { what: 'elapsed_ms -0 (>= 0 takes it)', line: edited((l) => { l.elapsed_ms = -0 }), taken: true, valid: true },
    { what: 'seed a float', line: edited((l) => { l.seed = 0.25 }), taken: true, valid: true },
    { what: 'keys out of order (the schema reorders)', line: Object.fromEntries(Object.entries(written).reverse()), taken: false, valid: true },
    { what: 'an unknown key (the schema drops it)', line: { ...written, colour: 'red' }, taken: false, valid: true },
    { what: 'an attachment with an unknown key', line: { ...written, attachments: [{ name: 'a', path: '/a', size: 3 }] }, taken: false, valid: true },
    { what: 'an attachment path before its name', line: { ...written, attachments: [{ path: '/a', name: 'a' }] }, taken: false, valid: true },
    { what: 'a required key missing', line: edited((l) => { delete l.worker }), taken: false, valid: false },
    { what: 'trial 0', line: edited((l) => { l.trial = 0 }), taken: false, valid: false },
    { what: 'trial 2^53 (no safe integer)', line: edited((l) => { l.trial = 2 ** 53 }), taken: false, valid: false },
    { what: 'repeat 1.5', line: edited((l) => { l.repeat = 1.5 }), taken: false, valid: false },
    { what: 'elapsed_ms negative', line: edited((l) => { l.elapsed_ms = -1 }), taken: false, valid: false },
    { what: 'elapsed_ms 1e400 (JSON.parse: Infinity)', line: JSON.parse(JSON.stringify(written).replace('"elapsed_ms":1.5', '"elapsed_ms":1e400')) as Record<string, unknown>, taken: false, valid: false },
    { what: 'outcome flaky', line: edited((l) => { l.outcome = 'flaky' }), taken: false, valid: false },
    { what: 'mode unknown', line: edited((l) => { l.mode = 'warm' }), taken: false, valid: false },
    { what: 'error a number', line: edited((l) => { l.error = 3 }), taken: false, valid: false },
    { what: 'worker a number', line: edited((l) => { l.worker = 1 }), taken: false, valid: false },
    { what: 'excluded false', line: { ...written, excluded: false }, taken: false, valid: false },
    { what: 'condition unknown', line: { ...written, condition: 'hot' }, taken: false, valid: false },
    { what: 'an array', line: [written], taken: false, valid: false },
    { what: 'null', line: null, taken: false, valid: false },
  ])('$what', ({ line, taken, valid }) => expectCheckedAsSchema(TestFactSchema, checkedTestFact, line, taken, valid))

  it('on 3 000 seeded and mutated lines: whatever it takes the schema takes, with the same JSON', () => {
    // Lines as written (no edit, or an edit the schema takes unchanged) are taken: the fast path is used.
    expectSeededAgreement(TestFactSchema, checkedTestFact, testFact, 5)
  })
})

describe('checkedHistoryRecord (HistoryRecordSchema by hand) takes a record only where the schema gives it back unchanged', () => {
  it('knows the schema\'s keys, in the schema\'s order', () => {
    expect(checkedHistoryRecordKeys()).toEqual(Object.keys(HistoryRecordSchema.shape))
  })

  const written = {
    test_id: 'a.test.ts > t', project: '', file: 'a.test.ts', name: 't', outcome: 'flaky', retries: 1, duration_ms: 3, commit: 'abc123', branch: null, os: 'linux', at: '2026-01-31T12:00:00.000Z',
  }
  const edited = editedFrom(written)
  // taken: returned as it is; schema: left to HistoryRecordSchema (whose own verdict is in `valid`).
  it.each([
    { what: 'a record as the reporter writes it', line: written, taken: true, valid: true },
    { what: 'every optional field, in order', line: { ...written, run_id: 'r1', signature: 'Error: STALE @ a.test.ts', runner: 'vitest' }, taken: true, valid: true },
    { what: 'at without milliseconds', line: edited((l) => { l.at = '2026-01-31T12:00:00Z' }), taken: true, valid: true },
    { what: 'retries 10 000 (MAX_RETRIES)', line: edited((l) => { l.retries = 10_000 }), taken: true, valid: true },
    { what: 'duration_ms 31 days (MAX_TEST_MS)', line: edited((l) => { l.duration_ms = 31 * 86_400_000 }), taken: true, valid: true },
    { what: 'keys out of order (the schema reorders)', line: Object.fromEntries(Object.entries(written).reverse()), taken: false, valid: true },
    { what: 'an unknown key (the schema drops it)', line: { ...written, colour: 'red' }, taken: false, valid: true },
    { what: 'retries 10 001', line: edited((l) => { l.retries = 10_001 }), taken: false, valid: false },
    { what: 'retries 1.5', line: edited((l) => { l.retries = 1.5 }), taken: false, valid: false },
    { what: 'duration_ms over 31 days', line: edited((l) => { l.duration_ms = 31 * 86_400_000 + 1 }), taken: false, valid: false },
    { what: 'duration_ms negative', line: edited((l) => { l.duration_ms = -1 }), taken: false, valid: false },
    { what: 'at a date alone', line: edited((l) => { l.at = '2026-01-31' }), taken: false, valid: false },
    { what: 'at in month 13', line: edited((l) => { l.at = '2026-13-31T12:00:00Z' }), taken: false, valid: false },
    { what: 'at with an offset', line: edited((l) => { l.at = '2026-01-31T12:00:00+01:00' }), taken: false, valid: false },
    { what: 'at a number', line: edited((l) => { l.at = 1 }), taken: false, valid: false },
    { what: 'outcome skipped', line: edited((l) => { l.outcome = 'skipped' }), taken: false, valid: false },
    { what: 'os null', line: edited((l) => { l.os = null }), taken: false, valid: false },
    { what: 'a required key missing', line: edited((l) => { delete l.commit }), taken: false, valid: false },
    { what: 'an array', line: [written], taken: false, valid: false },
  ])('$what', ({ line, taken, valid }) => expectCheckedAsSchema(HistoryRecordSchema, checkedHistoryRecord, line, taken, valid))

  it('on 3 000 seeded and mutated records: whatever it takes the schema takes, with the same JSON', () => {
    expectSeededAgreement(HistoryRecordSchema, checkedHistoryRecord, historyRecord, 6)
  })
})

/** A facts line as text: a written one, or one edited where the id reader looks (escapes, a second key, spacing, a cut). */
function factText(random: Random): string {
  const written = JSON.stringify(testFact(random))
  const edit = random()
  if (edit < 0.4) return written
  if (edit < 0.45) return written.replace('"test_id":"', '"test_id":"q\\"uo\\u0074e ')
  if (edit < 0.5) return written.replace('"test_id":"', '"test_id":"back\\\\slash ')
  if (edit < 0.6) return written.replace(/}$/, ',"test_id":"other"}')
  if (edit < 0.7) return written.replace(/}$/, ',"test\\u005fid":"escaped"}')
  if (edit < 0.75) return written.replace(/}$/, ',"stdout":"\\u001b[31mSTALE"}')
  if (edit < 0.8) return written.replace('"test_id":"', '"test_id":"é ✓ ')
  if (edit < 0.85) return written.replace('{"trial":', '{ "trial":')
  if (edit < 0.9) return written.replace(/"trial":\d+/, '"trial":"7"')
  if (edit < 0.95) return written.slice(0, Math.floor(random() * written.length))
  return `{"trial":1,"test_id":"cut`
}

function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

describe('WrittenTestIds reads the id of a line flakeproof wrote, and of no other', () => {
  it('matches JSON.parse(line).test_id on 4 000 seeded lines read as a file is, chunk by chunk', () => {
    const random = seeded(7)
    const texts = Array.from({ length: 4000 }, () => factText(random))
    const path = join(tempDir(), 'facts.jsonl')
    writeFileSync(path, `${texts.join('\n')}\n`)
    const reader = new WrittenTestIds()
    let read = 0
    forEachLine(path, (data, from, to, _start, _end, line) => {
      const text = texts[line - 1] as string
      const id = reader.idOf(data, from, to)
      const parsed = jsonOrUndefined(text) as { test_id?: unknown } | undefined
      // Read without parsing only where it is exactly what parsing gives; lines that are no JSON are parsed later and refused.
      if (id !== undefined && parsed !== undefined) expect(id, text).toBe(parsed.test_id)
      if (id !== undefined) read++
      // A line as flakeproof writes it is read fast, or the fast path would be a slow path in disguise.
      if (text === JSON.stringify(parsed) && /^\{"trial":\d+,"test_id":"[^"\\]*"/.test(text) && !text.slice(20).includes('\\u') && text.split('"test_id"').length === 2) {
        expect(id, text).toBe((parsed as { test_id: string }).test_id)
      }
    })
    expect(read).toBeGreaterThan(1500)
  })
})

describe('indexTestFacts', () => {
  it('gives every test the lines JSON.parse gives it, in file order, and refuses a bad line by its number', () => {
    const random = seeded(11)
    const texts = Array.from({ length: 1500 }, () => JSON.stringify(testFact(random)))
    // Lines read fast and lines parsed at once, mixed: an escaped id, a second key, spacing.
    texts[10] = (texts[10] as string).replace('"test_id":"', '"test_id":"q\\"')
    texts[20] = (texts[20] as string).replace(/}$/, ',"test_id":"a.test.ts > t9"}')
    texts[30] = (texts[30] as string).replace('{"trial":', '{ "trial":')
    const path = join(tempDir(), 'facts.jsonl')
    writeFileSync(path, `${texts.join('\n')}\n`)
    const expected = new Map<string, unknown[]>()
    for (const text of texts) {
      const line = TestFactSchema.parse(JSON.parse(text))
      expected.set(line.test_id, [...(expected.get(line.test_id) ?? []), line])
    }
    const index = indexTestFacts(path, 'input', 'hint')
    expect(index.ids).toEqual([...expected.keys()])
    for (const id of index.ids) expect(index.linesOf(id)).toEqual(expected.get(id))

    // A line that begins as written but is cut is refused when its test is read, by file and line.
    const cut = [...texts.slice(0, 5), (texts[5] as string).slice(0, 60)]
    writeFileSync(path, `${cut.join('\n')}\n`)
    const bad = indexTestFacts(path, 'input', 'hint')
    const id = (JSON.parse(texts[5] as string) as { test_id: string }).test_id
    expect(() => bad.linesOf(id)).toThrow(`input ${path}: line 6 is not valid JSON`)
  })
})
