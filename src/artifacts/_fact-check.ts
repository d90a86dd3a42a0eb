import { type Field, handAccepted, handChecked, isCount, isMilliseconds, isNumberOrNull, isPositive, isString, isStringOrNull, oneOf } from './_hand-check.js'
import type { TestFact } from './test-schemas.js'

/**
 * TestFactSchema checked by hand (_hand-check.ts), for the lines of facts files of a million
 * executions (merge): the line as it is when the schema would give it back unchanged, else undefined
 * for the schema to decide.
 */
export function checkedTestFact(data: unknown): TestFact | undefined {
  return check(data)
}

/**
 * Whether TestFactSchema accepts a line flakeproof built and writes as it is (JsonLinesWriter), in
 * any key order (_hand-check.ts handAccepted): exact one way, false sends it to the schema.
 */
export function isAcceptedTestFact(data: unknown): boolean {
  return accepted(data)
}

/** The keys of TestFactSchema, in its order: the test compares them with the schema's own. */
export function checkedTestFactKeys(): string[] {
  return FIELDS.map(([key]) => key)
}

// --- internal ---

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
const check = handChecked<TestFact>(FIELDS)
const accepted = handAccepted(FIELDS)
