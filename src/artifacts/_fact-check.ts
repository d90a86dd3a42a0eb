import type { TestFact } from './test-schemas.js'

/**
 * TestFactSchema checked by hand, for the lines of facts files of a million executions (merge):
 * a line JSON.parse gave is returned as it is when TestFactSchema would accept it and give back an
 * equal object (the same keys in the same order: its fields' order, none unknown, each value of its
 * type); undefined otherwise, and the caller parses it with the schema, which gives the result or
 * the issues. Exact both ways: whatever this accepts, the schema accepts with the same output, and
 * what it refuses only costs the schema's parse (test/unit/fast-fact-reading.test.ts feeds both the same
 * lines, valid and not). A field added to the schema and not here sends its lines to the schema.
 */
export function checkedTestFact(data: unknown): TestFact | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined
  const fact = data as Record<string, unknown>
  let next = 0
  let required = 0
  for (const key in fact) {
    // Keys in the schema's order: a key before `next` is out of order, one not found is unknown.
    while (next < FIELDS.length && (FIELDS[next] as Field)[0] !== key) next++
    const field = FIELDS[next]
    if (field === undefined || !field[2](fact[key])) return undefined
    if (field[1]) required++
    next++
  }
  return required === REQUIRED ? (data as TestFact) : undefined
}

/**
 * Whether TestFactSchema accepts `data`, checked by hand for a line flakeproof built and writes as
 * it is (JsonLinesWriter: the schema's output is not what is written, so the keys' order does not
 * matter here): true only when every key is the schema's, each value one the schema takes and every
 * required key there; false otherwise, and the caller parses it with the schema, which throws or
 * takes it. Exact one way, which is all a check needs: whatever this takes, the schema takes.
 */
export function isAcceptedTestFact(data: unknown): boolean {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return false
  const fact = data as Record<string, unknown>
  let required = 0
  for (const key in fact) {
    const field = BY_KEY.get(key)
    if (field === undefined || !field[2](fact[key])) return false
    if (field[1]) required++
  }
  return required === REQUIRED
}

/** The keys of TestFactSchema, in its order: the test compares them with the schema's own. */
export function checkedTestFactKeys(): string[] {
  return FIELDS.map(([key]) => key)
}

// --- internal ---

/** A key, whether the schema requires it, and what its value must be for the schema to take it unchanged. */
type Field = readonly [key: string, required: boolean, valid: (value: unknown) => boolean]

const isString = (v: unknown): boolean => typeof v === 'string'
const isStringOrNull = (v: unknown): boolean => v === null || typeof v === 'string'
/** z.number(): finite (JSON.parse gives Infinity for 1e400). */
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
const isNumberOrNull = (v: unknown): boolean => v === null || isNumber(v)
/** `milliseconds`: z.number().nonnegative(); -0 is taken, as `>= 0` takes it. */
const isMilliseconds = (v: unknown): boolean => isNumber(v) && v >= 0
/** z.number().int(): a safe integer. */
const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0
const isPositive = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) > 0
const oneOf = (...values: string[]): ((v: unknown) => boolean) => {
  const allowed = new Set<unknown>(values)
  return (v) => allowed.has(v)
}
/** `{name, path}` objects, exactly those keys in that order (the schema drops others and reorders). */
function isAttachments(v: unknown): boolean {
  if (!Array.isArray(v)) return false
  for (const item of v) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return false
    const keys = Object.keys(item)
    if (keys.length !== 2 || keys[0] !== 'name' || keys[1] !== 'path') return false
    const { name, path } = item as Record<string, unknown>
    if (typeof name !== 'string' || typeof path !== 'string') return false
  }
  return true
}

const FIELDS: readonly Field[] = [
  ['trial', true, isPositive],
  ['test_id', true, isString],
  ['project', false, isString],
  ['file', true, isString],
  ['name', true, isString],
  ['outcome', true, oneOf('passed', 'failed', 'skipped')],
  ['elapsed_ms', true, isMilliseconds],
  ['error', true, isStringOrNull],
  ['stack', false, isString],
  ['attachments', false, isAttachments],
  ['stdout', true, isString],
  ['stderr', true, isString],
  ['repeat', true, isCount],
  ['order', true, isPositive],
  ['previous_test', true, isStringOrNull],
  ['worker', true, isString],
  ['seed', true, isNumberOrNull],
  ['gap_ms', true, isMilliseconds],
  ['mode', true, oneOf('fast', 'slow', 'proof', 'single', 'paired')],
  ['origin', false, isString],
  ['round', false, isPositive],
  ['previous_file', false, isStringOrNull],
  ['condition', false, oneOf('base', 'serial', 'load')],
  ['attempt', false, isPositive],
  ['excluded', false, (v) => v === true],
  ['signature', false, isString],
]
const REQUIRED = FIELDS.filter(([, required]) => required).length
const BY_KEY = new Map(FIELDS.map((field) => [field[0], field]))
