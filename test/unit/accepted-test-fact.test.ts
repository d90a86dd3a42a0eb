import { describe, expect, it } from 'vitest'
import { isAcceptedTestFact } from '../../src/artifacts/_fact-check.js'
import { TestFactSchema } from '../../src/artifacts/test-schemas.js'
import { toFactLines } from '../../src/pipeline/test-facts.js'
import { seeded } from '../seeded.js'
import { reportedTest } from '../reported-test.js'

/**
 * isAcceptedTestFact is the check a run's facts.jsonl lines get before they are written
 * (JsonLinesWriter, src/pipeline/test-run.ts) in place of a TestFactSchema parse: it must never take
 * a line the schema refuses. Fed the lines flakeproof builds (in the builder's key order, which is
 * not the schema's) and seeded mutations of them, in memory as the writer gets them: `undefined`
 * and non-JSON values included, keys dropped, added and reordered.
 */

type Random = () => number
const pick = <T>(random: Random, xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T

/** Values a mutation puts in a field: every type, in-memory ones too, and the edges of each check. */
const VALUES: readonly unknown[] = [
  undefined, null, true, false, 0, -0, 1, -1, 0.5, 2 ** 53 - 1, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY, -1e-300,
  '', 'x', 'fast', 'paired', 'passed', 'failed', 'skipped', 'base', 'load', 'flaky',
  [], [{ name: 'a', path: 'b' }], [{ path: 'b', name: 'a' }], [{ name: 'a', path: 1 }], {}, { a: 1 }, new Date(0), Symbol('s'), 10n,
]

function builtLine(random: Random): Record<string, unknown> {
  const test = reportedTest(`t${Math.floor(random() * 5)}`, pick(random, ['.', 'x', '.x', 'xx.']))
  const place = random() < 0.3 ? { before: 3, round: 2, condition: pick(random, ['base', 'serial', 'load'] as const) } : { before: 0 }
  return { ...pick(random, toFactLines(test, place)) }
}

function mutated(random: Random, valid: Record<string, unknown>): unknown {
  let line: Record<string, unknown> = { ...valid }
  for (let edits = Math.floor(random() * 4); edits > 0; edits--) {
    const key = pick(random, Object.keys(line))
    const edit = random()
    if (edit < 0.2) delete line[key]
    else if (edit < 0.75) line[key] = pick(random, VALUES)
    else if (edit < 0.9) line[`extra_${Math.floor(random() * 3)}`] = pick(random, VALUES)
    else line = Object.fromEntries(Object.entries(line).reverse())
  }
  if (random() < 0.02) return pick(random, VALUES)
  return line
}

describe('isAcceptedTestFact takes only lines TestFactSchema accepts', () => {
  it('takes every line the run builds, in the builder\'s key order (200 seeded lines)', () => {
    const random = seeded(21)
    for (let i = 0; i < 200; i++) {
      const line = builtLine(random)
      expect(TestFactSchema.safeParse(line).success).toBe(true)
      expect(isAcceptedTestFact(line), JSON.stringify(line)).toBe(true)
    }
  })

  it('on 3 000 seeded mutations: whatever it takes, the schema takes', () => {
    const random = seeded(22)
    let taken = 0
    let refusedBySchema = 0
    for (let i = 0; i < 3000; i++) {
      const line = mutated(random, builtLine(random))
      const accepted = TestFactSchema.safeParse(line).success
      if (!accepted) refusedBySchema++
      if (isAcceptedTestFact(line)) {
        taken++
        if (!accepted) expect(accepted, String(JSON.stringify(line))).toBe(true)
      }
    }
    // Both outcomes are exercised, or the comparison proves nothing.
    expect(taken).toBeGreaterThan(300)
    expect(refusedBySchema).toBeGreaterThan(300)
  })

  it.each([
    { name: 'a key the schema does not know', line: { ...toFactLines(reportedTest('t', '.'))[0], extra: 1 } },
    { name: 'an optional key given undefined', line: { ...toFactLines(reportedTest('t', '.'))[0], stack: undefined } },
    { name: 'a required key missing', line: { ...toFactLines(reportedTest('t', '.'))[0], outcome: undefined } },
    { name: 'a NaN', line: { ...toFactLines(reportedTest('t', '.'))[0], elapsed_ms: Number.NaN } },
  ])('leaves to the schema $name', ({ line }) => {
    expect(isAcceptedTestFact(line)).toBe(false)
  })
})
