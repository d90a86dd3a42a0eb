import { describe, expect, it } from 'vitest'
import { forJournal } from '../../src/artifacts/journal.js'
import { keepDistinct, outcomeOf, settledState } from '../../plugin/vitest/_repetition.js'

/** The pure parts of plugin/vitest/runner.ts, tested without Vitest. */
describe('the runner, repetition by repetition (plugin/vitest/_repetition.ts)', () => {
  describe('keepDistinct', () => {
    const e = (message: string) => ({ message })

    it('drops new errors already kept or repeated, keeps the first of each, and at most three', () => {
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
    ])('%s', (_, errors, keptBefore, expected) => {
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
    ] as const)('%s', (_, repetitions, strict, expected) => {
      expect(settledState(repetitions, strict)).toEqual(expected)
    })
  })

  describe('outcomeOf: `test.fails` inverts the outcome', () => {
    it.each([
      // [fresh errors, fails, Vitest 5 attempt state, expected]
      ['threw, plain test', [{ message: 'boom' }], false, undefined, { ok: false, error: 'boom', signature: 'boom' }],
      ['did not throw, plain test', [], false, undefined, { ok: true }],
      // The expected error: a passing repetition carries no error (it would read as a failure's token).
      ['threw, fails test', [{ message: 'boom' }], true, undefined, { ok: true }],
      // What Vitest itself reports when a `fails` test does not throw.
      ['did not throw, fails test', [], true, undefined, { ok: false, error: 'Expect test to fail', signature: 'Expect test to fail' }],
      // Vitest 5 flips per attempt and drops the expected error: its record decides.
      ['Vitest 5: fails test passed its attempt', [], true, 'pass', { ok: true }],
      ['Vitest 5: fails test failed its attempt', [], true, 'fail', { ok: false, error: 'Expect test to fail', signature: 'Expect test to fail' }],
      // An empty message is the error's name; colour codes are stripped.
      ['empty message', [{ message: '', name: 'TypeError' }], false, undefined, { ok: false, error: 'TypeError', signature: 'TypeError' }],
      ['coloured message', [{ message: '\u001b[31mred\u001b[39m' }], false, undefined, { ok: false, error: 'red', signature: 'red' }],
      // The signature keeps the name and the user frame of the stack the message alone lacks.
      ['with a stack', [{ name: 'Error', message: 'STALE on call 4', stack: 'Error: STALE on call 4\n    at load (/p/src/cache.ts:3:9)' }], false, undefined, { ok: false, error: 'STALE on call 4', stack: 'Error: STALE on call 4\n    at load (/p/src/cache.ts:3:9)', signature: 'Error: STALE on call <n> @ /p/src/cache.ts (load)' }],
      // The stack travels beside the message (for the HTML report), without colour codes; a blank one is left out.
      ['threw with a stack', [{ message: 'boom', stack: 'Error: boom\n    at \u001b[36m/p/a.test.ts:3:9\u001b[39m' }], false, undefined, { ok: false, error: 'boom', stack: 'Error: boom\n    at /p/a.test.ts:3:9', signature: 'boom @ /p/a.test.ts' }],
      ['threw with an empty stack', [{ message: 'boom', stack: ' ' }], false, undefined, { ok: false, error: 'boom', signature: 'boom' }],
    ] as const)('%s', (_, fresh, fails, attemptState, expected) => {
      expect(outcomeOf(fresh, fails, attemptState)).toEqual(expected)
    })

    it('caps a long message at 8 KiB and says how much was cut', () => {
      const { error } = outcomeOf([{ message: 'x'.repeat(10_000) }], false)
      // 10 000 − 8 192 = 1 808 characters cut.
      expect(error).toBe(`${'x'.repeat(8192)}… [flakeproof: 1808 characters cut]`)
    })
  })

  describe('forJournal', () => {
    it('copies a repetition without its output and stack and with its error capped, leaving the evidence whole', () => {
      const repetition = { ok: false, elapsedMs: 1, mode: 'fast' as const, gapMs: 0, error: 'e'.repeat(600), stack: 'Error: e\n    at a.test.ts:1:1', stdout: 'out', stderr: 'err' }
      const line = forJournal(repetition)
      expect(line).toEqual({ ok: false, elapsedMs: 1, mode: 'fast', gapMs: 0, error: `${'e'.repeat(500)}… [flakeproof: cut]` })
      expect(repetition.error).toHaveLength(600)
      expect(repetition.stdout).toBe('out')
    })
  })
})
