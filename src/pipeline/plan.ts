import { decideAdviceFor, INDEPENDENCE_TEXT } from '../artifacts/independence-text.js'
import type { RunsNeededFile } from '../artifacts/schemas.js'
import { type Fraction, fractionFromCounts, fractionFromNumber, lnFraction, quotient } from '../core/fraction.js'
import type { Independence } from '../core/independence.js'
import { dependenceOf, type Verdict } from '../core/verdict.js'
import { computeRunsNeeded, type TooMany, type Unplannable } from '../core/planning.js'
import { FlakeproofError } from '../errors.js'

/** The confidence levels every runs_needed.json lists (docs/contracts.md §3). */
export const PLAN_CONFIDENCES = [0.9, 0.95, 0.99] as const

/** What a plan is computed from: counts from a measurement (rate.json's fields). */
export interface MeasuredCounts {
  trials: number
  failures: number
  ci_low: number
  ci_high: number
  /** Command mode: what was measured, for the advice to measure it afresh. */
  command?: string
  /** The runs test on the trial order, when the measurement has one. */
  independence?: Independence | null | undefined
  /** The verdict, when the measurement gave one: it holds what fresh-state evidence decided. */
  verdict?: Verdict
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
 * Refused, with the reason, when no trial ran, the trials were not independent (one switch unlikely
 * by chance) or that is undetermined; `source` names the measurement in that message, e.g.
 * `--from out/rate.json`.
 */
export function choosePlanningBasis(measured: MeasuredCounts, source = 'rate.json'): PlanningBasis {
  const { trials, failures, independence } = measured
  if (trials === 0) {
    throw new FlakeproofError(`${source}: no trial ran (trials = 0), so there is nothing to plan from; measure with --trials 1 or more first`, 'E_UNDEFINED')
  }
  const text = INDEPENDENCE_TEXT.en
  const mixed = failures > 0 && failures < trials
  const dependence = !mixed ? null : measured.verdict === undefined ? dependenceOf(independence) : measured.verdict === 'non-idempotent' || measured.verdict === 'undetermined' ? measured.verdict : null
  if (dependence === 'non-idempotent' && independence) {
    const advice = text.freshEnvironment(measured.command ?? '<command>').replace(/\.$/, '')
    throw new FlakeproofError(`${source}: non-idempotent. ${text.cause(independence, 'trial')} ${text.noNumber('trial')} ${advice}`, 'E_UNDEFINED')
  }
  if (dependence === 'undetermined' && independence) {
    const decide = decideAdviceFor(text, { runner: 'command' }, { command: measured.command, switchAt: independence.switch_at, trials })
    throw new FlakeproofError(`${source}: undetermined. ${text.undetermined(independence, 'trial')} ${decide}`, 'E_UNDEFINED')
  }
  if (failures > 0 && failures < trials) {
    const note = independence ? text.clue(independence, 'trial') : null
    return { basis: 'observed', rate: fractionFromCounts(failures, trials), plannedRate: failures / trials, note }
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
  const planned = computeRunsNeeded({ rate, confidence })
  if (planned.kind === 'planned') return planned.value
  throw explainUnplannable(planned, rate)
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

/** The one-line error for planning from a bare rate of 0 or 1, or one so rare that no count of runs is feasible. */
export function explainUnplannable(planned: Unplannable | TooMany, exact: Fraction): FlakeproofError {
  const rate = describeExactRate(exact)
  if (planned.kind === 'no-failures') {
    return new FlakeproofError(
      `--rate ${rate}: with no failure seen, (1-p)^n never drops below 1-c, so no number of runs can be planned; plan from the interval's upper end instead, e.g. --rate <ci_high of rate.json>, or pass --from rate.json`,
      'E_UNDEFINED',
    )
  }
  if (planned.kind === 'always-fails') {
    return new FlakeproofError(
      `--rate ${rate}: a test that fails every time is a deterministic failure, not a flake; fix it first, then measure the fixed version`,
      'E_UNDEFINED',
    )
  }
  // 1000 runs a second for a year (365.25 days) is 3.15576e10 runs.
  const years = planned.log10 - Math.log10(1000 * 3.15576e7)
  return new FlakeproofError(
    `--rate ${rate}: a fix would need about ${scientific(planned.log10)} consecutive passes, more than 2^53 (the largest count a JSON number holds exactly) and ${scientific(years)} years at 1000 runs a second; repetition cannot prove a fix for a failure this rare, so argue from the code or a targeted test instead`,
    'E_UNDEFINED',
  )
}

// --- internal ---

/** The rate as a number, or its size when it is below the smallest double (1e-99990 → ~1.0e-99990). */
function describeExactRate(rate: Fraction): string {
  const value = quotient(rate.num, rate.den)
  return value === 0 && rate.num > 0n ? `~${scientific(lnFraction(rate) / Math.LN10)}` : String(value)
}

/** 10^log10 written as 3.0e20. */
function scientific(log10: number): string {
  const exponent = Math.floor(log10)
  return `${(10 ** (log10 - exponent)).toFixed(1)}e${exponent}`
}
