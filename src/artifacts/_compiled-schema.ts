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
