import { basename } from 'node:path'
import type { MeasuredUnder } from '../artifacts/conditions-schema.js'
import { readJsonFile } from '../artifacts/read.js'
import { PolicyFileSchema } from '../artifacts/schemas.js'

/** The conditions the policy's measurement ran under; undefined for runs_needed.json or an older policy.json. */
export function readMeasuredUnder(proofFrom: string): MeasuredUnder | undefined {
  if (basename(proofFrom) !== 'policy.json') return undefined
  return readJsonFile(proofFrom, PolicyFileSchema, '--flaky-proof', 'Measure first: `vitest run -- --flaky-repeat 200`.').measured_under
}
