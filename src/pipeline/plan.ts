import type { RunsNeededFile } from '../artifacts/schemas.js'
import { type Fraction, fractionFromCounts, fractionFromNumber } from '../core/fraction.js'
import { computeRunsNeeded } from '../core/planning.js'
import { FlakeproofError } from '../errors.js'

/** The confidence levels every runs_needed.json lists (CONTRACTS §3). */
export const PLAN_CONFIDENCES = [0.9, 0.95, 0.99] as const

/** What a plan is computed from: counts from a measurement (rate.json's fields). */
export interface MeasuredCounts {
  trials: number
  failures: number
  ci_low: number
  ci_high: number
}

/** The rate a plan or policy rests on, and why that one. */
export interface PlanningBasis {
  basis: RunsNeededFile['basis']
  rate: Fraction
  plannedRate: number
  note: string | null
}

/**
 * The rate to plan from. Normally the observed f/N, exactly. With no failure the observed rate says
 * nothing, so plan from ci_high (a flake that common would have been caught); with every trial
 * failing it is no flake, so plan from ci_low (one pass already refutes a rate that high).
 */
export function choosePlanningBasis(measured: MeasuredCounts): PlanningBasis {
  const { trials, failures } = measured
  if (failures > 0 && failures < trials) {
    return { basis: 'observed', rate: fractionFromCounts(failures, trials), plannedRate: failures / trials, note: null }
  }
  if (failures === 0) {
    return {
      basis: 'ci_high',
      rate: fractionFromNumber(measured.ci_high),
      plannedRate: measured.ci_high,
      note: `No failure in ${trials} trials, so the observed rate 0 cannot be planned from; planned from the interval's upper end ci_high = ${measured.ci_high} instead.`,
    }
  }
  return {
    basis: 'ci_low',
    rate: fractionFromNumber(measured.ci_low),
    plannedRate: measured.ci_low,
    note: `Failed all ${trials} trials: a deterministic failure, not a flake. Planned from the interval's lower end ci_low = ${measured.ci_low}; fix the failure first.`,
  }
}

/** Runs needed at `confidence`, for a rate strictly between 0 and 1. */
export function runsAt(rate: Fraction, confidence: Fraction): number {
  const planned = computeRunsNeeded(rate, confidence)
  if (planned.kind === 'planned') return planned.value
  throw explainUnplannable(planned.kind, Number(rate.num) / Number(rate.den))
}

/** runs_needed.json for a measurement (`counts`) or for a bare rate (`counts` null). */
export function buildRunsNeeded(
  basis: PlanningBasis,
  counts: { trials: number; failures: number } | null,
  chosen: { value: number; exact: Fraction },
): RunsNeededFile {
  const levels = [...new Set<number>([...PLAN_CONFIDENCES, chosen.value])].sort((a, b) => a - b)
  const table = levels.map((confidence) => ({
    confidence,
    runs: runsAt(basis.rate, confidence === chosen.value ? chosen.exact : fractionFromNumber(confidence)),
  }))
  return {
    schema_version: 1,
    observed_rate: counts === null ? basis.plannedRate : counts.trials === 0 ? 0 : counts.failures / counts.trials,
    trials: counts?.trials ?? null,
    failures: counts?.failures ?? null,
    basis: basis.basis,
    planned_rate: basis.plannedRate,
    table,
    chosen: table.find((row) => row.confidence === chosen.value) as { confidence: number; runs: number },
    note: basis.note,
  }
}

/** The one-line error for planning from a bare rate of 0 or 1. */
export function explainUnplannable(kind: 'no-failures' | 'always-fails', rate: number): FlakeproofError {
  return kind === 'no-failures'
    ? new FlakeproofError(
        `--rate ${rate}: with no failure seen, (1-p)^n never drops below 1-c, so no number of runs can be planned; plan from the interval's upper end instead, e.g. --rate <ci_high of rate.json>, or pass --from rate.json`,
        'E_UNDEFINED',
      )
    : new FlakeproofError(
        `--rate ${rate}: a test that fails every time is a deterministic failure, not a flake; fix it first, then measure the fixed version`,
        'E_UNDEFINED',
      )
}
