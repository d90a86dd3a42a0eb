import { appendFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { JournalReader, JournalWriter } from '../../src/artifacts/journal.js'
import { tempDir } from '../utils.js'

const identity = { project: '', file: 'a.test.ts', path: ['t'] }

describe('the journal', () => {
  it('reads what workers append, incrementally, keeping only tests still under way', () => {
    const dir = tempDir('flakeproof-journal-')
    const writer = new JournalWriter(dir)
    const reader = new JournalReader(dir)
    writer.write({ id: 'a.test.ts > t', identity, planned: 3, order: 1, worker: '1', begin: 0, at: 1000 })
    writer.write({ id: 'a.test.ts > t', done: { ok: true, elapsedMs: 1, mode: 'fast', gapMs: 0 }, begin: 1, at: 1001 })
    let progress = reader.read()
    expect(progress).toMatchObject({ repetitions: 1, failures: 0 })
    expect(progress.tests.get('a.test.ts > t')).toMatchObject({ planned: 3, running: { index: 1, at: 1001 }, repetitions: [{ ok: true }] })

    writer.write({ id: 'a.test.ts > t', done: { ok: false, elapsedMs: 2, error: 'BOOM', mode: 'fast', gapMs: 0 }, begin: 2, at: 1002 })
    writer.write({ id: 'a.test.ts > t', done: { ok: true, elapsedMs: 1, mode: 'fast', gapMs: 0 }, end: true })
    progress = reader.read()
    expect(progress).toMatchObject({ repetitions: 3, failures: 1 })
    // Ended, yet kept until the reporter has its results: a worker dying now could lose them.
    expect(progress.tests.get('a.test.ts > t')).toMatchObject({ ended: true, repetitions: [{ ok: true }, { ok: false }, { ok: true }] })
    reader.forget('a.test.ts > t')
    writer.write({ id: 'a.test.ts > t', end: true })
    expect(reader.read().tests.size).toBe(0)
    expect(readdirSync(dir)).toEqual([`worker-${process.pid}.jsonl`])
  })

  it('fails a repetition written as passed when a later line says it failed after it ended, and only that one', () => {
    const dir = tempDir('flakeproof-journal-')
    const writer = new JournalWriter(dir)
    const reader = new JournalReader(dir)
    const passed = { ok: true, elapsedMs: 1, mode: 'fast' as const, gapMs: 0 }
    writer.write({ id: 'a.test.ts > t', identity, planned: 3, order: 1, worker: '1', done: passed })
    writer.write({ id: 'a.test.ts > t', done: { ...passed, ok: false, error: 'BOOM', signature: 'Error: BOOM' } })
    writer.write({ id: 'a.test.ts > t', done: passed, end: true })
    // After the test's end (Jest 30: when its describe block ends): the third repetition, then the second, which had failed already.
    writer.write({ id: 'a.test.ts > t', late: { index: 2, error: 'rejected later', signature: 'Error: rejected later' } })
    writer.write({ id: 'a.test.ts > t', late: { index: 1, error: 'rejected later', signature: 'Error: rejected later' } })
    const progress = reader.read()
    expect(progress).toMatchObject({ repetitions: 3, failures: 2 })
    expect(progress.tests.get('a.test.ts > t')?.repetitions).toEqual([passed, { ...passed, ok: false, error: 'BOOM', signature: 'Error: BOOM' }, { ...passed, ok: false, error: 'rejected later', signature: 'Error: rejected later' }])
  })

  it('waits for the rest of a line a worker has not finished writing', () => {
    const dir = tempDir('flakeproof-journal-')
    const reader = new JournalReader(dir)
    const line = JSON.stringify({ id: 'x', identity, planned: 2, begin: 0, at: 5 })
    appendFileSync(join(dir, 'worker-1.jsonl'), line.slice(0, 10))
    expect(reader.read().tests.size).toBe(0)
    appendFileSync(join(dir, 'worker-1.jsonl'), `${line.slice(10)}\n`)
    expect(reader.read().tests.get('x')?.running).toEqual({ index: 0, at: 5 })
  })

  it('reads nothing, and does not fail, before any worker wrote', () => {
    expect(new JournalReader(join(tmpdir(), 'flakeproof-no-such-journal')).read()).toMatchObject({ repetitions: 0, failures: 0 })
  })
})

describe('the journal with text beyond ASCII', () => {
  it('joins a character cut between two reads instead of replacing it', () => {
    const dir = tempDir('flakeproof-journal-')
    // A first line whose id straddles byte 65 536, the size of one read: 글 is three bytes in UTF-8.
    const id = `${'x'.repeat(65_530)}글 테스트`
    appendFileSync(join(dir, 'worker-1.jsonl'), `${JSON.stringify({ id, identity, planned: 1, begin: 0, at: 1 })}\n`)
    expect([...new JournalReader(dir).read().tests.keys()]).toEqual([id])
  })
})
