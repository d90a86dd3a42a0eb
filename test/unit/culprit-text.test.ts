import { describe, expect, it } from 'vitest'
import { culpritsText } from '../../src/artifacts/culprit-text.js'

describe('culpritsText: the tests an order finding names, never one alone when the rounds cannot tell them apart', () => {
  const order = (...names: string[]) => ({ culprit: names[0] as string, ...(names.length > 1 ? { tied: names.slice(1) } : {}), significant: true })
  it.each<[string[], 'en' | 'ko', string]>([
    [['a'], 'en', 'a'],
    [['a', 'b'], 'en', 'a or b'],
    [['a', 'b', 'c'], 'en', 'a, b or c'],
    // Three names at most; the rest counted.
    [['a', 'b', 'c', 'd'], 'en', 'a, b, c or 1 other'],
    [['a', 'b', 'c', 'd', 'e'], 'en', 'a, b, c or 2 others'],
    [['a', 'b'], 'ko', 'a 또는 b'],
    [['a', 'b', 'c', 'd', 'e'], 'ko', 'a, b, c 또는 다른 2개'],
  ])('%j (%s): %s', (names, lang, text) => {
    expect(culpritsText(order(...names), lang)).toBe(text)
  })

  it('names only the closest candidate of a finding that is not significant, the others counted', () => {
    // At a few rounds many tests tie, and none of them is a finding.
    expect(culpritsText({ ...order('a', 'b', 'c'), significant: false }, 'en')).toBe('a or 2 others')
    expect(culpritsText({ ...order('a'), significant: false }, 'en')).toBe('a')
  })

  it('passes each name through the caller’s code format', () => {
    expect(culpritsText(order('a', 'b'), 'en', (name) => `\`${name}\``)).toBe('`a` or `b`')
  })
})
