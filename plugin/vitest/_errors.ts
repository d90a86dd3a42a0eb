import { FLAKEPROOF_ERROR, type FlakeproofError } from '../../src/session/adapter.js'

/**
 * An error Vitest prints as its one line: a user mistake reads better without a stack, since the
 * line already names the flag, the value and the fix. FLAKEPROOF_ERROR lets `flakeproof vitest`
 * still tell its own errors (exit 2) from Vitest's.
 */
export function stackless(message: string, ours?: FlakeproofError): Error {
  const plain = new Error(message)
  if (ours) Object.defineProperty(plain, FLAKEPROOF_ERROR, { value: ours })
  plain.stack = message
  return plain
}
