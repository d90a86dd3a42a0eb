import { describe, expect, it } from 'vitest'
import type { JournalTest } from '../../src/artifacts/journal.js'
import { recoverUnfinished } from '../../src/pipeline/test-recovery.js'

const open = (running: JournalTest['running']): Map<string, JournalTest> =>
  new Map([
    [
      'a.test.ts > t',
      {
        identity: { project: 'p', file: 'a.test.ts', path: ['S', 't'] },
        planned: 10,
        order: 3,
        worker: '2',
        pid: 2,
        ended: false,
        repetitions: [
          { ok: true, elapsedMs: 1, mode: 'fast', gapMs: 0 },
          { ok: false, elapsedMs: 1, error: 'BOOM', mode: 'fast', gapMs: 0 },
        ],
        running,
      },
    ],
  ])

describe('recoverUnfinished', () => {
  it('keeps what a crashed test finished and fails the repetition its worker died in', () => {
    const [test] = recoverUnfinished(open({ index: 2, at: 1_000 }), { kind: 'crashed', cause: 'Worker exited unexpectedly', at: 1_250, died: () => true }, () => 'fast')
    expect(test).toMatchObject({ project: 'p', file: 'a.test.ts', name: 'S > t', evidence: { id: 'a.test.ts > t', order: 3, worker: '2' } })
    expect(test?.evidence.repetitions.map((r) => r.ok)).toEqual([true, false, false])
    expect(test?.evidence.repetitions[2]).toMatchObject({ elapsedMs: 250, mode: 'fast' })
    expect(test?.evidence.repetitions[2]?.error).toMatch(/^the worker running this test ended during repetition 3 .*Worker exited unexpectedly$/)
  })

  it('counts nothing against a repetition the user stopped', () => {
    const [test] = recoverUnfinished(open({ index: 2, at: 1_000 }), { kind: 'interrupted' }, () => 'fast')
    expect(test?.evidence.repetitions).toHaveLength(2)
  })

  it('fails no repetition of a test whose worker lived on when Vitest stopped', () => {
    const [test] = recoverUnfinished(open({ index: 2, at: 1_000 }), { kind: 'crashed', cause: 'Vitest stopped', at: 1_250, died: () => false }, () => 'fast')
    expect(test?.evidence.repetitions).toHaveLength(2)
    expect(test?.evidence.cut).toBe(true)
  })
})
