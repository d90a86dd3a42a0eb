import { describe, expect, it } from 'vitest'
import { describeProgress } from '../../src/session/_progress.js'
import type { JournalTest } from '../../src/artifacts/journal.js'

const underWay = (done: boolean[], planned = 200): JournalTest => ({
  identity: { project: '', file: 'a.test.ts', path: ['t'] },
  planned,
  order: 1,
  worker: '1',
  pid: 1,
  ended: false,
  repetitions: done.map((ok) => ({ ok, elapsedMs: 1, mode: 'fast', gapMs: 0 })),
  running: undefined,
})

describe('describeProgress', () => {
  it('is one line: done and failed in all, done/total of the tests under way, and the time left once a rate has been seen', () => {
    const firstSeen = new Map<string, { at: number; done: number }>()
    const first = describeProgress({ repetitions: 10, failures: 2, tests: new Map([['a.test.ts > t', underWay(Array(10).fill(true))]]) }, firstSeen, 0)
    expect(first).toBe('[flakeproof] 10 repetition(s) done, 2 failed; under way: 10 of 200 repetitions of 1 test(s)')
    // 90 more repetitions in 9 s: 100 ms each, 100 left → 10 s.
    const later = describeProgress({ repetitions: 100, failures: 3, tests: new Map([['a.test.ts > t', underWay([...Array(99).fill(true), false])]]) }, firstSeen, 9_000)
    expect(later).toBe('[flakeproof] 100 repetition(s) done, 3 failed; under way: 100 of 200 repetitions of 1 test(s), about 10 s left')
  })

  it('sums the tests running side by side and gives the time left of the slowest', () => {
    const firstSeen = new Map([['a', { at: 0, done: 0 }], ['b', { at: 0, done: 0 }]])
    // a: 50 in 10 s (200 ms each), 150 left → 30 s; b: 20 of 40 in 10 s (500 ms each), 20 left → 10 s. Slowest: 30 s.
    const line = describeProgress({ repetitions: 70, failures: 0, tests: new Map([['a', underWay(Array(50).fill(true))], ['b', underWay(Array(20).fill(true), 40)]]) }, firstSeen, 10_000)
    expect(line).toBe('[flakeproof] 70 repetition(s) done, 0 failed; under way: 70 of 240 repetitions of 2 test(s), about 30 s left')
  })

  it('says only the totals when no test is under way', () => {
    expect(describeProgress({ repetitions: 5, failures: 1, tests: new Map([['a', { ...underWay([true]), ended: true }]]) }, new Map(), 0)).toBe('[flakeproof] 5 repetition(s) done, 1 failed')
  })
})
