import { describe, expect, it } from 'vitest'
import { startFailure } from '../../src/session/start-failure.js'

// Vitest's createVitest and Jest's readConfigs, failing: test/e2e/wrapped-as-native.test.ts runs both through the CLI.
describe('startFailure: why a runner did not start, in one line', () => {
  it.each([
    [new Error('this config refuses to load'), 'this config refuses to load'],
    [new Error('first\nsecond'), 'first'],
    // Vite's bundling error announces itself, then says where and what (esbuild and rolldown alike).
    [new Error('Build failed with 1 error:\n\nvitest.config.ts:2:7: ERROR: Expected ";" but found "{"'), 'Build failed with 1 error: vitest.config.ts:2:7: ERROR: Expected ";" but found "{"'],
    // Rolldown's (Vite 8), colours and frame as it prints them.
    [
      new Error('Build failed with 1 error:\n\n\u001b[31m[PARSE_ERROR] \u001b[0mUnexpected token\n   \u001b[38;5;246m╭\u001b[0m\u001b[38;5;246m─\u001b[0m\u001b[38;5;246m[\u001b[0m vitest.config.ts:2:22 \u001b[38;5;246m]\u001b[0m\n   │\n 2 │   test: { include: [ }\n'),
      'Build failed with 1 error: [PARSE_ERROR] Unexpected token (vitest.config.ts:2:22)',
    ],
    ['a thrown string', 'a thrown string'],
  ])('%s → %s', (error, line) => {
    expect(startFailure(error)).toBe(line)
  })
})
