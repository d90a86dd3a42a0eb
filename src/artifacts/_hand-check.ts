/**
 * A zod object schema checked by hand, for files of a million lines (merge's facts, history's
 * records): a line JSON.parse gave is returned as it is when the schema would accept it and give
 * back an equal object (the same keys in the same order: its fields' order, none unknown, each value
 * of its type); undefined otherwise, and the caller parses it with the schema, which gives the result
 * or the issues. Exact both ways: whatever this accepts, the schema accepts with the same output, and
 * what it refuses only costs the schema's parse (test/unit/fast-fact-reading.test.ts feeds both the
 * same lines, valid and not). A field added to the schema and not to its table sends its lines to
 * the schema.
 */
export function handChecked<T>(fields: readonly Field[]): (data: unknown) => T | undefined {
  const required = fields.filter(([, needed]) => needed).length
  return (data) => {
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined
    const record = data as Record<string, unknown>
    let next = 0
    let seen = 0
    for (const key in record) {
      // Keys in the schema's order: a key before `next` is out of order, one not found is unknown.
      while (next < fields.length && (fields[next] as Field)[0] !== key) next++
      const field = fields[next]
      if (field === undefined || !field[2](record[key])) return undefined
      if (field[1]) seen++
      next++
    }
    return seen === required ? (data as T) : undefined
  }
}

/**
 * Whether the schema accepts a record, checked by hand for one flakeproof built and writes as it is
 * (the schema's output is not what is written, so the keys' order does not matter): true only when
 * every key is the schema's, each value one the schema takes and every required key there; false
 * sends it to the schema, which throws or takes it. Exact one way, all a check needs: whatever this
 * takes, the schema takes.
 */
export function handAccepted(fields: readonly Field[]): (data: unknown) => boolean {
  const required = fields.filter(([, needed]) => needed).length
  const byKey = new Map(fields.map((field) => [field[0], field]))
  return (data) => {
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return false
    const record = data as Record<string, unknown>
    let seen = 0
    for (const key in record) {
      const field = byKey.get(key)
      if (field === undefined || !field[2](record[key])) return false
      if (field[1]) seen++
    }
    return seen === required
  }
}

/** A key, whether the schema requires it, and what its value must be for the schema to take it unchanged. */
export type Field = readonly [key: string, required: boolean, valid: (value: unknown) => boolean]

export const isString = (v: unknown): boolean => typeof v === 'string'
export const isStringOrNull = (v: unknown): boolean => v === null || typeof v === 'string'
/** z.number(): finite (JSON.parse gives Infinity for 1e400). */
export const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
export const isNumberOrNull = (v: unknown): boolean => v === null || isNumber(v)
/** `milliseconds`: z.number().nonnegative(); -0 is taken, as `>= 0` takes it. */
export const isMilliseconds = (v: unknown): boolean => isNumber(v) && v >= 0
/** z.number().int(): a safe integer. */
export const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0
export const isPositive = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) > 0
export const oneOf = (...values: string[]): ((v: unknown) => boolean) => {
  const allowed = new Set<unknown>(values)
  return (v) => allowed.has(v)
}
