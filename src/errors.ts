/**
 * Every error flakeproof expects to happen carries a code, so the CLI can tell a user mistake
 * (exit 2, one line) from results it could not write (exit 3) and from a bug (stack trace).
 */
export type ErrorCode =
  /** A flag or option value is missing or out of range. */
  | 'E_USAGE'
  /** An input file is missing, unreadable or does not match its schema. */
  | 'E_INPUT'
  /** An output path cannot be used (checked before any work): not writable, not a regular file, or locked by another run. */
  | 'E_OUTPUT'
  /** The work was done but its results could not be written (disk full, a path replaced meanwhile). */
  | 'E_WRITE'
  /** A quantity cannot be computed from these numbers (e.g. planning from a rate of 0). */
  | 'E_UNDEFINED'

/**
 * The one error flakeproof throws for a user's mistake or an impossible request: its message says
 * what, where and how to fix it, `code` says which kind (the CLI exits 2 for usage and input).
 */
export class FlakeproofError extends Error {
  readonly code: ErrorCode
  constructor(message: string, code: ErrorCode, options?: ErrorOptions) {
    super(message, options)
    this.name = 'FlakeproofError'
    this.code = code
  }
}

/**
 * Whether `error` is a FlakeproofError, from this copy of the module or another: Vite bundles into a
 * user's config what it imports by a path (the plugin from a checkout's dist/, say), so errors from
 * there are another class of the same name.
 */
export function isFlakeproofError(error: unknown): error is FlakeproofError {
  return error instanceof FlakeproofError || (error instanceof Error && error.name === 'FlakeproofError' && typeof (error as { code?: unknown }).code === 'string')
}

/**
 * Where the Vitest plugin keeps its FlakeproofError on the stackless error it hands Vitest: not as
 * `cause`, which Vitest prints whole (a stack under the one line), but under a symbol that
 * printing skips, so `flakeproof vitest` can still tell its own errors (exit 2) from Vitest's.
 */
export const FLAKEPROOF_ERROR = Symbol.for('flakeproof.error')

/** The FlakeproofError `error` is, or carries for the plugin (FLAKEPROOF_ERROR). */
export function flakeproofErrorIn(error: unknown): FlakeproofError | undefined {
  if (isFlakeproofError(error)) return error
  const carried = typeof error === 'object' && error !== null ? (error as Record<symbol, unknown>)[FLAKEPROOF_ERROR] : undefined
  return isFlakeproofError(carried) ? carried : undefined
}

/**
 * An error a test runner prints as one line: Vitest prints a startup error with `console.error`
 * (an Error shows as `[message]`, or its stack and `{ [cause] }`), Jest prints `error.stack`; this
 * one's stack is its message and `util.inspect.custom` shows the message alone. `ours` rides along
 * under FLAKEPROOF_ERROR, so `flakeproof <runner>` still tells its own errors (exit 2) from the runner's.
 */
export function oneLineError(message: string, ours?: FlakeproofError): Error {
  const plain = new Error(message)
  if (ours) Object.defineProperty(plain, FLAKEPROOF_ERROR, { value: ours })
  Object.defineProperty(plain, Symbol.for('nodejs.util.inspect.custom'), { value: () => message })
  plain.stack = message
  return plain
}

/**
 * Runs `run`; a FlakeproofError it throws comes out as one line, `flakeproof: <message>`
 * (oneLineError). Vitest prints a plugin's startup error with its stack, Jest a reporter's under "An
 * error occurred while adding the reporter", Playwright `console.error`s it whole; a user's mistake
 * reads better as its one line, which already names the option, the value and the fix.
 */
export function inOneLine<T>(run: () => T): T {
  try {
    return run()
  } catch (error) {
    if (!isFlakeproofError(error)) throw error
    throw oneLineError(`flakeproof: ${error.message}`, error)
  }
}
