import type { CommittedPolicy, PolicyEntry } from '../artifacts/committed-policy-schema.js'
import type { RateFile } from '../artifacts/schemas.js'
import { fractionFromCounts, fractionFromNumber } from '../core/fraction.js'
import { FlakeproofError } from '../errors.js'
import { choosePlanningBasis } from './plan.js'
import { decidePolicy } from './policy.js'

/** What `policy --write` did to each test, for its one-line report. */
export interface PolicyUpdate {
  policy: CommittedPolicy
  added: string[]
  updated: string[]
  kept: string[]
}

/**
 * flakeproof.policy.json from a measurement (docs/contracts.md §9). A flaky test is listed with its
 * rate, interval and the budget that rate justifies; a listed test measured again gets the new
 * numbers and keeps its quarantine state, which only a proof clears; tests not measured, and those
 * whose numbers are no rate (partial, non-idempotent, undetermined), keep their entry as it was. A stable or broken
 * test that was never listed stays unlisted: no retry is due to it, and its failures fail the run.
 */
export function mergeMeasurement(existing: CommittedPolicy | null, rate: RateFile, source: string): PolicyUpdate {
  // One confidence for the whole file: its kept entries' green runs were planned at the old one.
  if (existing && existing.confidence !== rate.confidence) {
    throw new FlakeproofError(
      `${source} was measured at confidence ${rate.confidence}, the committed policy is at ${existing.confidence}; measure again with --flaky-confidence ${existing.confidence}, or delete the file to start over at ${rate.confidence}`,
      'E_INPUT',
    )
  }
  const tests: Record<string, PolicyEntry> = { ...existing?.tests }
  const added: string[] = []
  const updated: string[] = []
  const confidence = { value: rate.confidence, exact: fractionFromNumber(rate.confidence) }
  for (const t of rate.tests ?? []) {
    const before = tests[t.id]
    const usable = t.trials > 0 && (t.verdict === 'flaky' || ((t.verdict === 'stable' || t.verdict === 'broken') && before !== undefined))
    if (!usable) continue
    const decided = decidePolicy(choosePlanningBasis(t, `${source} (${t.id})`), fractionFromCounts(t.failures, t.trials), t, confidence)
    tests[t.id] = {
      project: t.project,
      file: t.file,
      name: t.name,
      trials: t.trials,
      failures: t.failures,
      rate: t.rate,
      ci_low: t.ci_low,
      ci_high: t.ci_high,
      verdict: t.verdict,
      retry_budget: decided.retry_budget,
      quarantine_after: decided.quarantine_after,
      green_runs_required: decided.green_runs_required,
      failed_runs: before?.failed_runs ?? 0,
      quarantine: before?.quarantine ?? null,
      // The conditions of the numbers just written: a proof under less is weaker (docs/contracts.md §13.5).
      ...(rate.measured_under ? { measured_under: rate.measured_under } : {}),
    }
    ;(before ? updated : added).push(t.id)
  }
  const touched = new Set([...added, ...updated])
  const kept = Object.keys(existing?.tests ?? {}).filter((id) => !touched.has(id))
  const strict = existing?.proof_strict === undefined ? {} : { proof_strict: existing.proof_strict }
  return { policy: { schema_version: 1, confidence: rate.confidence, tests: sortedById(tests), ...strict }, added, updated, kept }
}

/** The tests of a policy by id in code-unit order: the same file always serialises the same way. */
export function sortedById<T>(tests: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(tests).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}
