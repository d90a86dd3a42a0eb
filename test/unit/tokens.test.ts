import { describe, expect, it } from 'vitest'
import { discriminateTokens, isAllCaps, wordsInOrder } from '../../src/core/tokens.js'

const fail = (stderr: string) => ({ failed: true, stdout: '', stderr })
const pass = (stdout: string, stderr = '') => ({ failed: false, stdout, stderr })

describe('discriminateTokens', () => {
  it.each([
    {
      name: 'the lab: a capital word in every failure, absent from successes',
      trials: [pass('{"ok":true,"call":1}'), fail('error: STALE read on call 5'), fail('error: STALE read on call 10')],
      token: 'STALE',
      candidates: ['STALE', 'error', 'read', 'on'],
    },
    {
      name: 'a word also printed by a success is not a token',
      trials: [pass('', 'warning: STALE cache'), fail('STALE entry, ETIMEDOUT')],
      token: 'ETIMEDOUT',
      candidates: ['ETIMEDOUT', 'entry'],
    },
    {
      name: 'no word common to every failure',
      trials: [fail('ECONNRESET'), fail('ETIMEDOUT')],
      token: null,
      candidates: [],
    },
    { name: 'no failures', trials: [pass('ok')], token: null, candidates: [] },
    {
      name: 'lower-case only when no capital word qualifies',
      trials: [pass('fine'), fail('timeout waiting'), fail('timeout again')],
      token: 'timeout',
      candidates: ['timeout'],
    },
  ])('$name', ({ trials, token, candidates }) => {
    expect(discriminateTokens(trials)).toEqual({ token, candidates })
  })
})

describe('wordsInOrder', () => {
  it('skips numbers and single letters, keeps first-seen order', () => {
    expect(wordsInOrder('call 12: a STALE x1 read, read again')).toEqual(['call', 'STALE', 'x1', 'read', 'again'])
  })
})

describe('isAllCaps', () => {
  it.each([
    ['STALE', true],
    ['E2BIG', true],
    ['EADDR_IN_USE', true],
    ['Stale', false],
    ['A1', false],
  ])('%s → %s', (word, expected) => {
    expect(isAllCaps(word)).toBe(expected)
  })
})
