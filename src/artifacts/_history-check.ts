import { type Field, handChecked, isCount, isMilliseconds, isString, isStringOrNull, oneOf } from './_hand-check.js'
import { type HistoryRecord, HistoryRecordSchema, MAX_RETRIES, MAX_TEST_MS } from './history-schemas.js'

/**
 * HistoryRecordSchema checked by hand (_hand-check.ts), for histories of a hundred thousand records:
 * the record as it is when the schema would give it back unchanged, else undefined for the schema to
 * decide.
 */
export function checkedHistoryRecord(data: unknown): HistoryRecord | undefined {
  return check(data)
}

/** The keys of HistoryRecordSchema, in its order: the test compares them with the schema's own. */
export function checkedHistoryRecordKeys(): string[] {
  return FIELDS.map(([key]) => key)
}

// --- internal ---

/**
 * `at` by the schema's own datetime check, its last answer kept: every record of a run has the same
 * `at`, so a history file costs one check of it, not one per line (the same string, the same answer).
 */
let lastAt: unknown
let lastAtValid = false
function isDatetime(v: unknown): boolean {
  if (typeof v !== 'string') return false
  if (v !== lastAt) {
    lastAt = v
    lastAtValid = HistoryRecordSchema.shape.at.safeParse(v).success
  }
  return lastAtValid
}

const FIELDS: readonly Field[] = [
  ['test_id', true, isString],
  ['project', true, isString],
  ['file', true, isString],
  ['name', true, isString],
  ['outcome', true, oneOf('passed', 'failed', 'flaky')],
  ['retries', true, (v) => isCount(v) && (v as number) <= MAX_RETRIES],
  ['duration_ms', true, (v) => isMilliseconds(v) && (v as number) <= MAX_TEST_MS],
  ['commit', true, isStringOrNull],
  ['branch', true, isStringOrNull],
  ['os', true, isString],
  ['at', true, isDatetime],
  ['run_id', false, isString],
  ['signature', false, isString],
  ['runner', false, isString],
]
const check = handChecked<HistoryRecord>(FIELDS)
