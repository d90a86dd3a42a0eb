import * as z from '../_zod.js'
import { type Fraction, fractionFromDecimal } from '../core/fraction.js'

/**
 * zod schemas for command-line flag values (strings in, typed values out). Each message is a whole
 * sentence naming the flag, the value received and a fix, because it is all the user will see.
 */

const got = (input: unknown): string => (input === undefined ? '' : ` (got ${JSON.stringify(input)})`)

/** A required flag with a text value. */
export function text(flag: string, example: string) {
  return z
    .string({ error: () => `${flag} is required; e.g. ${flag} ${example}` })
    .refine((value) => value.trim() !== '', { error: () => `${flag} must not be empty; e.g. ${flag} ${example}` })
}

/**
 * The longest delay Node's timers keep: 2^31 - 1 ms, about 24.9 days. A longer one fires after 1 ms
 * (TimeoutOverflowWarning), so a `--timeout-ms` beyond it would time out every trial and a gap
 * beyond it would be recorded without having happened. Every option that becomes a timer is capped here.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1

/** Trials or repetitions asked for in one run: far above any useful measurement, far below one that never ends. */
export const MAX_TRIALS = 1_000_000

/** The largest value a flag takes, and why, for its message. */
export interface Limit {
  max: number
  why: string
}

/** Values that become timers. */
export const TIMER_LIMIT: Limit = { max: MAX_TIMER_MS, why: `ms (about ${(MAX_TIMER_MS / 86_400_000).toFixed(1)} days), the longest delay Node's timers keep` }

/** Counts of trials or repetitions. */
export const TRIALS_LIMIT: Limit = { max: MAX_TRIALS, why: 'trials in one run' }

/** A whole number >= `min`, and <= `limit.max` when given. */
export function integer(flag: string, min: number, example: string, limit?: Limit) {
  const message = (input: unknown): string => `${flag} must be a whole number >= ${min}${got(input)}; e.g. ${flag} ${example}`
  const max = limit?.max ?? Number.MAX_SAFE_INTEGER
  const tooLarge = (input: unknown): string => `${flag} must be at most ${max} ${limit?.why ?? ''}${got(input)}; e.g. ${flag} ${example}`
  return z
    .string({ error: (issue) => message(issue.input) })
    .refine((value) => /^\+?\d+$/.test(value.trim()) && Number(value) >= min && Number.isSafeInteger(Number(value)), {
      error: (issue) => message(issue.input),
      abort: true,
    })
    .refine((value) => Number(value) <= max, { error: (issue) => tooLarge(issue.input) })
    .transform((value) => Number(value))
}

/** A decimal in [0, 1] (`closed`) or in (0, 1) (`open`), kept exact as a fraction beside its number. */
export function probability(flag: string, interval: 'closed' | 'open', example: string) {
  const rule = interval === 'closed' ? 'a number from 0 to 1' : 'a number strictly between 0 and 1'
  const message = (input: unknown): string => `${flag} must be ${rule}${got(input)}; e.g. ${flag} ${example}`
  return z
    .string({ error: (issue) => message(issue.input) })
    .transform((value, ctx): { value: number; exact: Fraction } => {
      const exact = fractionFromDecimal(value)
      const inside =
        exact !== undefined &&
        (interval === 'closed' ? exact.num >= 0n && exact.num <= exact.den : exact.num > 0n && exact.num < exact.den)
      if (!exact || !inside) {
        ctx.issues.push({ code: 'custom', message: message(value), input: value })
        return z.NEVER
      }
      // Inside as a fraction, but 0 or 1 as the double every formula uses (0.999999999999999999999):
      // a plan at confidence 1 needs infinitely many runs, and the file would say "confidence": 1.
      const double = Number(value)
      if (interval === 'open' && (double <= 0 || double >= 1)) {
        ctx.issues.push({ code: 'custom', message: `${flag} must be ${rule} (got ${JSON.stringify(value)}, which is ${double} once rounded to a double); e.g. ${flag} ${example}`, input: value })
        return z.NEVER
      }
      return { value: double, exact }
    })
}

/** One of a fixed set of words. */
export function oneOf<const T extends readonly [string, ...string[]]>(flag: string, values: T) {
  return z.enum(values, { error: (issue) => `${flag} must be one of ${values.join(', ')}${got(issue.input)}` })
}
