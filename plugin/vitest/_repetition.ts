import { cap, messageOf, signatureOfError, stripAnsi } from '../../src/session/page.js'

/** Errors kept on a task: enough to read, few enough that Vitest's main process stays fast. */
const KEPT_ERRORS = 3

/**
 * One repetition's outcome from the errors it added (`fresh`): a plain test passes when it threw
 * nothing, a `fails` test when it threw. Vitest 5 flips `fails` per attempt and drops the expected
 * error, so there its record of the attempt (`attemptState`) decides. A failure carries its first
 * error's message and its signature (files relative to `root`); a passing repetition carries none.
 */
export function outcomeOf(
  fresh: readonly { message?: unknown; name?: unknown; stack?: unknown }[],
  fails: boolean,
  attemptState?: string,
  root?: string,
): { ok: boolean; error?: string; stack?: string; signature?: string } {
  const threw = fresh.length > 0
  const ok = attemptState ? attemptState === 'pass' : fails ? threw : !threw
  if (ok) return { ok }
  // What Vitest itself reports when a `fails` test does not throw.
  if (!threw) return { ok, error: 'Expect test to fail', signature: 'Expect test to fail' }
  const first = fresh[0] as { message?: unknown; name?: unknown; stack?: unknown }
  const stack = first.stack
  return {
    ok,
    error: cap(messageOf(first)),
    ...(typeof stack === 'string' && stack.trim() !== '' ? { stack: cap(stripAnsi(stack)) } : {}),
    signature: signatureOfError(first, root),
  }
}

/**
 * A test's final state from its repetitions, replacing Vitest's sticky 'fail': a measuring run is
 * advisory, so a test that passed some repetitions passes unless `strict` (a proof, or failOnFlaky);
 * one that failed every repetition fails. `message` is for a failed test left without an error.
 */
export function settledState(
  repetitions: readonly { ok: boolean; error?: string }[],
  strict: boolean,
): { state: 'pass' } | { state: 'fail'; message: string } | undefined {
  if (repetitions.length === 0) return undefined
  const failures = repetitions.filter((r) => !r.ok).length
  const failed = failures === repetitions.length || (failures > 0 && strict)
  return failed ? { state: 'fail', message: repetitions.find((r) => !r.ok)?.error ?? 'failed' } : { state: 'pass' }
}

/**
 * Keeps at most KEPT_ERRORS errors on the task, each message once: Vitest's main process re-reads
 * every kept error on every update, and the default reporter prints a FAIL line for each.
 */
export function keepDistinct(errors: unknown[], keptBefore: number): void {
  const seen = new Set(errors.slice(0, keptBefore).map((e) => (e as { message?: string }).message))
  for (let i = errors.length - 1; i >= keptBefore; i--) {
    const message = (errors[i] as { message?: string }).message
    const duplicate = errors.slice(keptBefore, i).some((e) => (e as { message?: string }).message === message)
    if (seen.has(message) || duplicate) errors.splice(i, 1)
  }
  if (errors.length > KEPT_ERRORS) errors.length = KEPT_ERRORS
}
