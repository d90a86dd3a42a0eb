import { ATTRIBUTION_FILE } from './attribution-schema.js'
import { join } from 'node:path'
import type { ReportBundle } from './bundle.js'
import { ConditionsFileSchema } from './conditions-schema.js'
import { ObserverFileSchema, OnlyWhenFailFileSchema, PolicyFileSchema, ProofFileSchema, RateFileSchema, RunsNeededFileSchema } from './schemas.js'
import { writeJsonAtomic } from './write.js'

/**
 * What a new measurement makes stale beside its rate.json and facts.jsonl: a part it does not write
 * (no flaky test, no observing, no conditions) must not be left from an earlier run to be read with it.
 */
export const DERIVED_FILES = ['runs_needed.json', 'only_when_fail.json', 'policy.json', 'observer.json', 'proof.json', 'proof_facts.jsonl', 'conditions.json', ATTRIBUTION_FILE] as const

/** A whole new result (`merge`, `history`): the measurement's own files and everything derived from them. */
export const RESULT_FILES = ['rate.json', 'facts.jsonl', ...DERIVED_FILES] as const

/**
 * Writes the parts of a bundle that are present into `dir`, each validated against its schema and
 * written atomically; absent parts leave their files alone. The one writer of computed artifacts:
 * command mode, `investigate` and test mode build bundles with the same builders and hand them here.
 */
export function writeBundle(dir: string, bundle: Partial<ReportBundle>): void {
  const path = (name: string): string => join(dir, name)
  if (bundle.rate) writeJsonAtomic(path('rate.json'), RateFileSchema, bundle.rate)
  if (bundle.runsNeeded) writeJsonAtomic(path('runs_needed.json'), RunsNeededFileSchema, bundle.runsNeeded)
  if (bundle.onlyWhenFail) writeJsonAtomic(path('only_when_fail.json'), OnlyWhenFailFileSchema, bundle.onlyWhenFail)
  if (bundle.observer) writeJsonAtomic(path('observer.json'), ObserverFileSchema, bundle.observer)
  if (bundle.policy) writeJsonAtomic(path('policy.json'), PolicyFileSchema, bundle.policy)
  if (bundle.proof) writeJsonAtomic(path('proof.json'), ProofFileSchema, bundle.proof)
  if (bundle.conditions) writeJsonAtomic(path('conditions.json'), ConditionsFileSchema, bundle.conditions)
}
