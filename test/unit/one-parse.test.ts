import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { ONE_PARSE } from '../../src/_zod.js'
import { COMPILE_FROM_RECORDS, compiledSchema, safeParseWhole } from '../../src/artifacts/_compiled-schema.js'
import { RunMarkerSchema } from '../../src/artifacts/run-marker.js'
import { OnlyWhenFailFileSchema, PolicyFileSchema, RateFileSchema, RunsNeededFileSchema, SummaryFileSchema } from '../../src/artifacts/schemas.js'
import { seeded } from '../seeded.js'

/**
 * writeJsonAtomic and readJsonFile parse a whole artifact with zod's interpreter (ONE_PARSE,
 * src/_zod.ts) or, once it holds many records, its compiled schema (safeParseWhole), where other
 * readers take zod's generated fast path: all three must accept, refuse and return exactly the
 * same, on the artifacts a run writes and on seeded mutations of them (a value replaced anywhere in
 * the tree, a key dropped or added). A zod upgrade that parts them fails here.
 */

type Random = () => number
const pick = <T>(random: Random, xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T

/** JSON values a mutation puts in place: every type, and the edges of the checks the schemas make. */
const VALUES: readonly unknown[] = [
  null, true, false, 0, -0, 1, -1, 0.5, 2, 2 ** 53, -(2 ** 53), 1e308, '', 'x', 'flaky', 'stable', 'passed', 'failed',
  '2026-01-31T12:00:00.000Z', '2026-13-31T12:00:00Z', [], [1], {}, { a: 1 },
]

const fixture = (dir: string, file: string): unknown => JSON.parse(readFileSync(join('test/fixtures', dir, file), 'utf8'))

/** Every object and array in `value`, the root included. */
function containers(value: unknown, into: (Record<string, unknown> | unknown[])[] = []): (Record<string, unknown> | unknown[])[] {
  if (typeof value !== 'object' || value === null) return into
  into.push(value as Record<string, unknown> | unknown[])
  for (const child of Object.values(value)) containers(child, into)
  return into
}

/** A deep copy with 1 to 3 random edits anywhere in it. */
function mutated(random: Random, valid: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(valid)) as unknown
  for (let edits = 1 + Math.floor(random() * 3); edits > 0; edits--) {
    const target = pick(random, containers(copy))
    const keys = Object.keys(target)
    const edit = random()
    if (keys.length > 0 && edit < 0.2) {
      if (Array.isArray(target)) target.splice(Number(pick(random, keys)), 1)
      else delete target[pick(random, keys)]
    } else if (keys.length > 0 && edit < 0.85) (target as Record<string, unknown>)[pick(random, keys)] = pick(random, VALUES)
    else if (!Array.isArray(target)) target[`extra_${Math.floor(random() * 3)}`] = pick(random, VALUES)
  }
  return copy
}

describe('artifacts parsed once, interpreted or compiled, give exactly what the fast path gives', () => {
  it.each([
    { name: 'rate.json', schema: RateFileSchema as z.ZodType, value: fixture('recorded-runs/vitest-basic', 'rate.json'), seed: 11 },
    { name: 'rate.json (jest, observe)', schema: RateFileSchema as z.ZodType, value: fixture('recorded-runs/jest-basic-observe', 'rate.json'), seed: 12 },
    { name: 'policy.json', schema: PolicyFileSchema as z.ZodType, value: fixture('recorded-runs/vitest-basic', 'policy.json'), seed: 13 },
    { name: 'only_when_fail.json', schema: OnlyWhenFailFileSchema as z.ZodType, value: fixture('recorded-runs/vitest-basic', 'only_when_fail.json'), seed: 14 },
    { name: 'runs_needed.json', schema: RunsNeededFileSchema as z.ZodType, value: fixture('written-artifacts', 'runs_needed.json'), seed: 15 },
    { name: 'summary.json', schema: SummaryFileSchema as z.ZodType, value: fixture('written-artifacts', 'summary.json'), seed: 16 },
    {
      name: 'a run marker',
      schema: RunMarkerSchema as z.ZodType,
      value: { schema_version: 1, pid: 4242, started_at: '2026-01-31T12:00:00.000Z', runner: 'jest', files: ['a.test.js', 'b.test.js'], process_start: '123456' },
      seed: 17,
    },
  ])('$name: the artifact as written, then 400 seeded mutations', ({ schema, value, seed }) => {
    const compiled = compiledSchema(schema)
    expect(compiled).not.toBe(schema)
    // The artifact as a run wrote it parses, and gives back the same bytes.
    expect(JSON.stringify(schema.parse(value, ONE_PARSE), null, 2)).toBe(JSON.stringify(value, null, 2))
    expect(JSON.stringify(compiled.parse(value), null, 2)).toBe(JSON.stringify(value, null, 2))
    const random = seeded(seed)
    let accepted = 0
    for (let i = 0; i < 400; i++) {
      const input = mutated(random, value)
      // The first `quick` parse generates each object schema's fast path; the ones after take it.
      const slow = schema.safeParse(input, ONE_PARSE)
      for (const quick of [schema.safeParse(input), compiled.safeParse(input)]) {
        // `expect` is reached only on a difference: comparing 400 trees through it would dominate the test.
        if (quick.success !== slow.success) expect(quick.success, JSON.stringify(input)).toBe(slow.success)
        if (slow.success) {
          const [a, b] = [JSON.stringify(quick.data, null, 2), JSON.stringify(slow.data, null, 2)]
          if (a !== b) expect(a).toBe(b)
        } else if (!isDeepStrictEqual(quick.error?.issues, slow.error.issues)) {
          expect(quick.error?.issues).toEqual(slow.error.issues)
        }
      }
      if (slow.success) accepted++
    }
    // Both outcomes are exercised, or the comparison proves nothing.
    expect(accepted).toBeGreaterThan(20)
    expect(accepted).toBeLessThan(380)
  })
})

describe('safeParseWhole', () => {
  // rate.json of the recorded Vitest run with its tests copied under new ids, to either side of the threshold.
  const rate = fixture('recorded-runs/vitest-basic', 'rate.json') as { tests: { id: string }[] }
  const withTests = (n: number): unknown => ({ ...rate, tests: Array.from({ length: n }, (_, i) => ({ ...rate.tests[i % rate.tests.length], id: `t${i}` })) })

  it.each([COMPILE_FROM_RECORDS, COMPILE_FROM_RECORDS + 1])('%i tests: what the schema gives, and its first issue on a broken one', (n) => {
    const value = withTests(n)
    expect(safeParseWhole(RateFileSchema, value)).toEqual(RateFileSchema.safeParse(value))
    const broken = { ...(value as object), trials: 'many' }
    const refused = safeParseWhole(RateFileSchema, broken)
    expect(refused.success).toBe(false)
    expect(refused.error?.issues).toEqual(RateFileSchema.safeParse(broken).error?.issues)
  })
})
