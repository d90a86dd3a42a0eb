/**
 * Every error flakeproof expects to happen carries a code, so the CLI can tell a user mistake
 * (exit 2, one line) from a bug (stack trace).
 */
export type ErrorCode =
  /** A flag or option value is missing or out of range. */
  | 'E_USAGE'
  /** An input file is missing, unreadable or does not match its schema. */
  | 'E_INPUT'
  /** An output path cannot be written. */
  | 'E_OUTPUT'
  /** A quantity cannot be computed from these numbers (e.g. planning from a rate of 0). */
  | 'E_UNDEFINED'

export class FlakeproofError extends Error {
  readonly code: ErrorCode
  constructor(message: string, code: ErrorCode, options?: ErrorOptions) {
    super(message, options)
    this.name = 'FlakeproofError'
    this.code = code
  }
}
