import { wilsonInterval } from './wilson.js'

/** A rate beside its counts, and its Wilson interval (docs/contracts.md §2). */
export interface RateDescription {
  trials: number
  failures: number
  /** failures / trials; 0 when nothing ran (the interval then spans [0, 1]). */
  rate: number
  ci_low: number
  ci_high: number
}

/** rate, ci_low, ci_high for `failures` of `trials`, with the interval at `confidence`. */
export function describeRate(failures: number, trials: number, confidence: number): RateDescription {
  const interval = wilsonInterval(failures, trials, { confidence })
  return { trials, failures, rate: trials === 0 ? 0 : failures / trials, ci_low: interval.low, ci_high: interval.high }
}
