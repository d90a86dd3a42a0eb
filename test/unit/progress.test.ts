import { describe, expect, it } from 'vitest'
import { describeProgress } from '../../src/session/_progress.js'
import type { JournalTest } from '../../src/artifacts/journal.js'

const underWay = (done: boolean[]): JournalTest => ({
  identity: { project: '', file: 'a.test.ts', path: ['t'] },
  planned: 200,
  order: 1,
  worker: '1',
  pid: 1,
  ended: false,
  repetitions: done.map((ok) => ({ ok, elapsedMs: 1, mode: 'fast', gapMs: 0 })),
  running: undefined,
})

describe('describeProgress', () => {
  it('gives done/total and failures per test, and the time left once a rate has been seen', () => {
    const firstSeen = new Map<string, { at: number; done: number }>()
    const first = describeProgress({ repetitions: 10, failures: 2, tests: new Map([['a.test.ts > t', underWay(Array(10).fill(true))]]), collected: new Set() }, firstSeen, 0)
    expect(first).toEqual(['[flakeproof] 10 repetition(s) done, 2 failed', '[flakeproof]   a.test.ts > t: 10/200, 0 failed'])
    // 90 more repetitions in 9 s: 100 ms each, 100 left → 10 s.
    const later = describeProgress({ repetitions: 100, failures: 3, tests: new Map([['a.test.ts > t', underWay([...Array(99).fill(true), false])]]), collected: new Set() }, firstSeen, 9_000)
    expect(later[1]).toBe('[flakeproof]   a.test.ts > t: 100/200, 1 failed, about 10 s left')
  })
})
