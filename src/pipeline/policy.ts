import type { PolicyFile } from '../artifacts/schemas.js'
import { type Fraction, quotient } from '../core/fraction.js'
import { computeQuarantineAfter, computeRetryBudget } from '../core/planning.js'
import { type PlanningBasis, runsAt } from './plan.js'

/**
 * policy.json: green runs a fix must pass, the retry budget (smallest r with p^(r+1) <= 0.01) and
 * the quarantine threshold, all from the measured rate; the retry budget and quarantine use the
 * observed rate itself, so a rate of 0 needs no retry and a rate of 1 (or one so close to 1 that
 * the budget passes 2^53) gets none.
 */
export function decidePolicy(
  basis: PlanningBasis,
  observed: Fraction,
  counts: { trials: number; failures: number } | null,
  confidence: { value: number; exact: Fraction },
): PolicyFile {
  const budget = computeRetryBudget({ rate: observed })
  const retryBudget = budget.kind === 'planned' ? budget.value : null
  const quarantineAfter = retryBudget === null ? null : computeQuarantineAfter({ rate: observed, retryBudget, confidence: confidence.exact })
  const observedRate = quotient(observed.num, observed.den)
  const notes = [
    ...(basis.note === null ? [] : [basis.note]),
    budget.kind === 'always-fails'
      ? 'Fails every time: no retry budget can help. Fix it; do not retry or quarantine it.'
      : budget.kind === 'too-many'
        ? `Fails almost every time (p = ${observedRate}): p^(r+1) <= 0.01 would take more than 2^53 retries, so no retry budget can help. Fix it; do not retry or quarantine it.`
        : `Retry up to ${budget.value} time(s): ${observedRate}^${budget.value + 1} <= 0.01, so at most 1% of runs still fail after retries.`,
    ...(quarantineAfter === null
      ? []
      : [
          `Quarantine after ${quarantineAfter} consecutive run(s) that fail even with retries: at the measured rate that happens with probability <= ${Number((1 - confidence.value).toPrecision(6))}.`,
        ]),
  ]
  return {
    schema_version: 1,
    observed_rate: observedRate,
    trials: counts?.trials ?? null,
    failures: counts?.failures ?? null,
    basis: basis.basis,
    confidence: confidence.value,
    green_runs_required: runsAt(basis.rate, confidence.exact),
    retry_budget: retryBudget,
    quarantine_after: quarantineAfter,
    notes,
  }
}
