import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../utils.js'

/**
 * The pure parts of plugin/vitest/runner.ts, tested without Vitest. They are private to the runner
 * today; this file runs once they live in `plugin/vitest/_repetition.ts` with the signatures below
 * (moved unchanged from runner.ts: `keepDistinct`; the decision inside `_settle`; the outcome
 * inside `_close`, with `messageOf` and `cap`). Until then it is skipped, never failing.
 */
interface RepetitionHelpers {
  /** runner.ts `keepDistinct`, unchanged: drops new errors whose message was seen, keeps at most 3. */
  keepDistinct(errors: unknown[], keptBefore: number): void
  /**
   * The decision of runner.ts `_settle`: undefined without repetitions; `fail` when every repetition
   * failed, or any did and `strict` (a proof, or failOnFlaky); `message` is the first failed
   * repetition's error, or 'failed', for a failed test that has no error of its own.
   */
  settledState(repetitions: readonly { ok: boolean; error?: string }[], strict: boolean): { state: 'pass' | 'fail'; message: string | undefined } | undefined
  /**
   * The outcome of runner.ts `_close`: `fresh` are the errors this repetition added, `fails` is
   * `test.fails`, `attemptState` Vitest 5's record of this attempt (`fails` already applied there).
   */
  outcomeOf(fresh: readonly { message?: unknown; name?: unknown }[], fails: boolean, attemptState?: string): { ok: boolean; error?: string }
}

const MODULE = join(ROOT, 'plugin/vitest/_repetition.ts')
const load = async (): Promise<RepetitionHelpers> => (await import(/* @vite-ignore */ MODULE)) as RepetitionHelpers

describe.skipIf(!existsSync(MODULE))('the runner, repetition by repetition (plugin/vitest/_repetition.ts)', () => {
  describe('keepDistinct', () => {
    const e = (message: string) => ({ message })

    it('drops new errors already kept or repeated, keeps the first of each, and at most three', async () => {
      const { keepDistinct } = await load()
      const [a0, a1, b1, b2, c, d] = [e('a'), e('a'), e('b'), e('b'), e('c'), e('d')]
      const errors: unknown[] = [a0, a1, b1, b2, c, d]
      keepDistinct(errors, 1)
      // By hand: a1 repeats the kept a0, b2 repeats b1 → [a0, b1, c, d]; four > 3 → [a0, b1, c].
      expect(errors).toEqual([a0, b1, c])
      expect(errors[1]).toBe(b1)
    })

    it.each([
      ['no new error', [e('a')], 1, [e('a')]],
      ['distinct new errors under the limit', [e('a'), e('b'), e('c')], 1, [e('a'), e('b'), e('c')]],
      // Errors kept before this repetition are left as they are, duplicates included.
      ['duplicates from before', [e('x'), e('x')], 2, [e('x'), e('x')]],
      ['only new errors, all the same', [e('z'), e('z'), e('z'), e('z')], 0, [e('z')]],
      ['only new errors, all distinct', [e('1'), e('2'), e('3'), e('4'), e('5')], 0, [e('1'), e('2'), e('3')]],
    ])('%s', async (_, errors, keptBefore, expected) => {
      const { keepDistinct } = await load()
      keepDistinct(errors, keptBefore)
      expect(errors).toEqual(expected)
    })
  })

  describe('settledState: a measuring run is advisory, a proof is not', () => {
    const passed = { ok: true }
    const failed = (error?: string) => (error === undefined ? { ok: false } : { ok: false, error })

    it.each([
      ['no repetition', [], false, undefined],
      ['every repetition passed', [passed, passed], false, { state: 'pass', message: undefined }],
      ['every repetition passed, strict', [passed, passed], true, { state: 'pass', message: undefined }],
      ['1 of 3 failed: passes a measuring run', [passed, failed('E1'), passed], false, { state: 'pass', message: undefined }],
      ['1 of 3 failed: fails a proof or failOnFlaky', [passed, failed('E1'), passed], true, { state: 'fail', message: 'E1' }],
      ['every repetition failed: the first error', [failed('E1'), failed('E2')], false, { state: 'fail', message: 'E1' }],
      ['every repetition failed, none with an error', [failed(), failed()], false, { state: 'fail', message: 'failed' }],
    ] as const)('%s', async (_, repetitions, strict, expected) => {
      const { settledState } = await load()
      expect(settledState(repetitions, strict)).toEqual(expected)
    })
  })

  describe('outcomeOf: `test.fails` inverts the outcome', () => {
    it.each([
      // [fresh errors, fails, Vitest 5 attempt state, expected]
      ['threw, plain test', [{ message: 'boom' }], false, undefined, { ok: false, error: 'boom' }],
      ['did not throw, plain test', [], false, undefined, { ok: true }],
      // The expected error is kept on the passing repetition (as runner.ts does today).
      ['threw, fails test', [{ message: 'boom' }], true, undefined, { ok: true, error: 'boom' }],
      // What Vitest itself reports when a `fails` test does not throw.
      ['did not throw, fails test', [], true, undefined, { ok: false, error: 'Expect test to fail' }],
      // Vitest 5 flips per attempt and drops the expected error: its record decides.
      ['Vitest 5: fails test passed its attempt', [], true, 'pass', { ok: true }],
      ['Vitest 5: fails test failed its attempt', [], true, 'fail', { ok: false, error: 'Expect test to fail' }],
      // An empty message is the error's name; colour codes are stripped.
      ['empty message', [{ message: '', name: 'TypeError' }], false, undefined, { ok: false, error: 'TypeError' }],
      ['coloured message', [{ message: '\u001b[31mred\u001b[39m' }], false, undefined, { ok: false, error: 'red' }],
    ] as const)('%s', async (_, fresh, fails, attemptState, expected) => {
      const { outcomeOf } = await load()
      expect(outcomeOf(fresh, fails, attemptState)).toEqual(expected)
    })

    it('caps a long message at 8 KiB and says how much was cut', async () => {
      const { outcomeOf } = await load()
      const { error } = outcomeOf([{ message: 'x'.repeat(10_000) }], false)
      // 10 000 − 8 192 = 1 808 characters cut.
      expect(error).toBe(`${'x'.repeat(8192)}… [flakeproof: 1808 characters cut]`)
    })
  })
})
