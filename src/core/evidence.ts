import { stripAnsi } from './ansi.js'
import { type ErrorLike, signatureOfError } from './signature.js'

/** Characters kept of an error message, and per repetition and stream of captured output. */
export const CAPTURE_LIMIT = 8 * 1024

/**
 * A thrown value's message, without colour codes; an empty message is the error's name (`throw new
 * Error()` reads `Error`), never a made-up text. Errors as runners serialise them: plain objects.
 */
export function messageOf(error: unknown): string {
  const { message, name } = (error ?? {}) as { message?: unknown; name?: unknown }
  if (typeof message === 'string' && message.trim() !== '') return stripAnsi(message)
  return typeof name === 'string' && name !== '' ? name : 'Error'
}

/** A text kept to CAPTURE_LIMIT characters, saying how many were cut. */
export function cap(text: string): string {
  return text.length <= CAPTURE_LIMIT ? text : `${text.slice(0, CAPTURE_LIMIT)}… [flakeproof: ${text.length - CAPTURE_LIMIT} characters cut]`
}

/** A thrown value as a failed repetition keeps it: its capped message and its signature (files relative to `root`). */
export function failureOf(thrown: unknown, root: string): { error: string; signature: string } {
  const error: ErrorLike = typeof thrown === 'object' && thrown !== null ? thrown : { message: String(thrown) }
  return { error: cap(messageOf(error)), signature: signatureOfError(error, root) }
}
