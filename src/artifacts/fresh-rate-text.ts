/** A whole-run measurement's fresh-state rate (rate.json `tests[].fresh`), as the terminal and the report say it. */
export interface FreshRate {
  trials: number
  failures: number
  rate: number
  ci_low: number
  ci_high: number
  failure_rounds: readonly number[]
}

/** A non-idempotent test's true rate, beside its repetition pattern: the first execution of each round. */
export function freshRateText(fresh: FreshRate): string {
  const pct = (x: number): string => `${(x * 100).toFixed(1)}%`
  const rounds = fresh.failure_rounds.length > 0 ? ` (rounds ${fresh.failure_rounds.join(', ')})` : ''
  return `With fresh module state (its first execution in each of ${fresh.trials} rounds) it failed ${fresh.failures} of ${fresh.trials}${rounds}: rate ${pct(fresh.rate)}, interval [${pct(fresh.ci_low)}, ${pct(fresh.ci_high)}]; that is its rate in an ordinary run.`
}
