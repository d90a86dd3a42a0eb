import * as z from '../_zod.js'

/**
 * Lines parsed by a schema's ordinary parser before it is compiled: compiling takes a few
 * milliseconds, which a few hundred lines repay, so a short file never pays it.
 */
export const COMPILE_AFTER_LINES = 256

interface Entry {
  parsed: number
  fast: z.ZodType | undefined
}
const entries = new WeakMap<z.ZodType, Entry>()

/**
 * `schema` compiled by zod (z.compile, zod >= 4.5): a generated validator that gives the same
 * result and the same issues as the schema, falling back to the ordinary parser for any input that
 * fails, so error messages are unchanged. Memoised per schema; test/unit/fast-fact-reading.test.ts
 * feeds both the same seeded random and mutated lines and asserts identical results.
 */
export function compiledSchema<S extends z.ZodType>(schema: S): S {
  const entry = entryOf(schema)
  entry.fast ??= z.compile(schema)
  return entry.fast as S
}

/** The parser for the next line of a JSON-lines file read with `schema`: the compiled one once the file is long. */
export function lineSchema<S extends z.ZodType>(schema: S): S {
  const entry = entryOf(schema)
  if (entry.fast !== undefined) return entry.fast as S
  return ++entry.parsed > COMPILE_AFTER_LINES ? compiledSchema(schema) : schema
}

// --- internal ---

function entryOf(schema: z.ZodType): Entry {
  let entry = entries.get(schema)
  if (entry === undefined) {
    entry = { parsed: 0, fast: undefined }
    entries.set(schema, entry)
  }
  return entry
}

/**
 * Records in a whole artifact above which its schema is compiled to parse it. Compiling costs ~40
 * ms whatever the size, zod's interpreter (z.ONE_PARSE) ~0.13 ms a test: a run's five artifacts
 * parse in 22–33 ms interpreted and 42–56 compiled at 100 tests, 74–82 and 44–54 at 500
 * (docs/benchmarks.md, "Artifacts parsed once").
 */
export const COMPILE_FROM_RECORDS = 200

/**
 * `schema.safeParse(value)` of a whole artifact, which a process reads or writes once: interpreted
 * while it holds few records, through the compiled schema once it holds many. Either way the same
 * result and issues (test/unit/one-parse.test.ts).
 */
export function safeParseWhole<S extends z.ZodType>(schema: S, value: unknown): z.ZodSafeParseResult<z.output<S>> {
  return recordsIn(value) > COMPILE_FROM_RECORDS ? compiledSchema(schema).safeParse(value) : schema.safeParse(value, z.ONE_PARSE)
}

/** The records an artifact holds: its largest top-level list or map (tests, runs, signatures). */
function recordsIn(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0
  let most = 0
  for (const field of Object.values(value)) {
    const n = Array.isArray(field) ? field.length : typeof field === 'object' && field !== null ? Object.keys(field).length : 0
    if (n > most) most = n
  }
  return most
}
