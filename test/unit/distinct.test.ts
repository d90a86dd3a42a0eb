import { describe, expect, it } from 'vitest'
import { countDistinct } from '../../src/core/distinct.js'

describe('countDistinct', () => {
  it.each([
    ['none', [], []],
    ['one', ['a'], [['a', 1]]],
    ['repeats counted, first-seen order kept', ['b', 'a', 'b', 'b', 'a', 'c'], [['b', 3], ['a', 2], ['c', 1]]],
  ] as const)('%s', (_, items, expected) => {
    expect(countDistinct(items, (item) => item).map(({ item, times }) => [item, times])).toEqual(expected)
  })

  it('keeps the first item of each key', () => {
    const items = [{ k: 'x', n: 1 }, { k: 'x', n: 2 }]
    expect(countDistinct(items, (item) => item.k)).toEqual([{ item: { k: 'x', n: 1 }, times: 2 }])
  })
})
