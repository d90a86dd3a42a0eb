import { join } from 'node:path'
import type { ReportBundle } from './bundle.js'
import { ConditionsFileSchema } from './conditions-schema.js'
import { ObserverFileSchema, OnlyWhenFailFileSchema, PolicyFileSchema, ProofFileSchema, RateFileSchema, RunsNeededFileSchema } from './schemas.js'
import { writeJsonAtomic } from './write.js'

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
