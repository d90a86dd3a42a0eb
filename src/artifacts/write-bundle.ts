import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { ATTRIBUTION_FILE } from './attribution-schema.js'
import type { ReportBundle } from './bundle.js'
import { ConditionsFileSchema } from './conditions-schema.js'
import { ObserverFileSchema, OnlyWhenFailFileSchema, PolicyFileSchema, ProofFileSchema, type RateFile, RateFileSchema, RunsNeededFileSchema } from './schemas.js'
import { writeJsonAtomic } from './write.js'

/**
 * What a new measurement makes stale beside its rate.json and facts.jsonl: a part it does not write
 * (no flaky test, no observing, no conditions) must not be left from an earlier run to be read with it.
 */
export const DERIVED_FILES = ['runs_needed.json', 'only_when_fail.json', 'policy.json', 'observer.json', 'proof.json', 'proof_facts.jsonl', 'conditions.json', 'evidence_facts.jsonl', ATTRIBUTION_FILE] as const

/** A whole new result (`merge`, `history`): the measurement's own files and everything derived from them. */
export const RESULT_FILES = ['rate.json', 'facts.jsonl', ...DERIVED_FILES] as const

/** The report made from them (src/pipeline/report.ts `writeReportFor`). */
export const REPORT_FILES = ['summary.json', 'flaky_report.md', 'report.html'] as const

/** Every file a measurement may write in its folder: each must be a regular file or absent before it starts. */
export const MEASUREMENT_FILES = [...RESULT_FILES, ...REPORT_FILES] as const

/**
 * Writes the parts of a bundle that are present into `dir`, each validated against its schema and
 * written atomically; absent parts leave their files alone. The one writer of computed artifacts:
 * command mode, `investigate` and test mode build bundles with the same builders and hand them here.
 */
export function writeBundle(dir: string, bundle: Partial<ReportBundle>): void {
  const path = (name: string): string => join(dir, name)
  if (bundle.rate) writeRateFile(path('rate.json'), bundle.rate)
  if (bundle.runsNeeded) writeJsonAtomic(path('runs_needed.json'), RunsNeededFileSchema, bundle.runsNeeded)
  if (bundle.onlyWhenFail) writeJsonAtomic(path('only_when_fail.json'), OnlyWhenFailFileSchema, bundle.onlyWhenFail)
  if (bundle.observer) writeJsonAtomic(path('observer.json'), ObserverFileSchema, bundle.observer)
  if (bundle.policy) writeJsonAtomic(path('policy.json'), PolicyFileSchema, bundle.policy)
  if (bundle.proof) writeJsonAtomic(path('proof.json'), ProofFileSchema, bundle.proof)
  if (bundle.conditions) writeJsonAtomic(path('conditions.json'), ConditionsFileSchema, bundle.conditions)
}

/** The files `writeBundle` writes for `bundle`, in the order it writes them. */
export function bundleFileNames(bundle: Partial<ReportBundle>): string[] {
  const parts: [unknown, string][] = [
    [bundle.rate, 'rate.json'],
    [bundle.runsNeeded, 'runs_needed.json'],
    [bundle.onlyWhenFail, 'only_when_fail.json'],
    [bundle.observer, 'observer.json'],
    [bundle.policy, 'policy.json'],
    [bundle.proof, 'proof.json'],
    [bundle.conditions, 'conditions.json'],
  ]
  return parts.filter(([part]) => part !== undefined).map(([, name]) => name)
}

/**
 * rate.json, with the `run_id` of the run that wrote it: new for each measurement (or merge), kept by
 * any copy of the folder, so `merge` counts a copied folder once (docs/contracts.md §10).
 * @throws FlakeproofError `E_WRITE`
 */
export function writeRateFile(path: string, rate: RateFile): RateFile {
  return writeJsonAtomic(path, RateFileSchema, { ...rate, run_id: rate.run_id ?? randomUUID() })
}
