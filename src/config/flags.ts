import { z } from 'zod'
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

/** A whole number >= `min`. */
export function integer(flag: string, min: number, example: string) {
  const rule = min === 1 ? 'a whole number >= 1' : `a whole number >= ${min}`
  const message = (input: unknown): string => `${flag} must be ${rule}${got(input)}; e.g. ${flag} ${example}`
  return z
    .string({ error: (issue) => message(issue.input) })
    .refine((value) => /^\+?\d+$/.test(value.trim()) && Number(value) >= min && Number.isSafeInteger(Number(value)), {
      error: (issue) => message(issue.input),
    })
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
      return { value: Number(value), exact }
    })
}

/** One of a fixed set of words. */
export function oneOf<const T extends readonly [string, ...string[]]>(flag: string, values: T) {
  return z.enum(values, { error: (issue) => `${flag} must be one of ${values.join(', ')}${got(issue.input)}` })
}
