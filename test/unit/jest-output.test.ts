import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { bufferOf, holdOutput, printsAtOnce, takeOutput } from '../../plugin/jest/_console.js'
import { cappedFailures } from '../../plugin/jest/_failure-blocks.js'
import { stripAnsi } from '../../src/core/ansi.js'

/** What Jest prints of copies (plugin/jest/_console.ts, _failure-blocks.ts), on Jest's own shapes without a run. */
const MESSAGE_UTIL = createRequire(import.meta.url).resolve('jest-message-util')

describe("a copy's console output", () => {
  it.each([
    // The first failing copy prints: its entries stay in the buffer.
    [true, 3],
    // Any other copy: its entries leave the buffer; the one before it stays.
    [false, 1],
  ])('print %s leaves %i entries, and the copy keeps its stdout and stderr either way', (print, left) => {
    const buffer = [
      { message: 'before the copy', type: 'log' },
      { message: 'said', type: 'log' },
      { message: 'warned', type: 'warn' },
    ]
    expect(bufferOf({ _buffer: buffer })).toBe(buffer)
    expect(takeOutput(buffer, 1, print)).toEqual({ stdout: 'said\n', stderr: 'warned\n' })
    expect(buffer).toHaveLength(left)
  })

  it('under a console that prints at once is held until the copy ends, then printed or dropped', () => {
    const written: unknown[] = []
    const stream = { write: (chunk: unknown) => written.push(chunk) }
    const console = { _formatBuffer: () => '', _stdout: stream, _stderr: stream }
    expect(printsAtOnce(console)).toBe(true)
    const dropped = holdOutput(console)
    console._stdout.write('copy 2')
    dropped?.release(false)
    const printed = holdOutput(console)
    console._stderr.write('copy 5')
    printed?.release(true)
    expect(written).toEqual(['copy 5'])
    expect(console._stdout).toBe(stream)
  })
})

describe('failure blocks of copies', () => {
  const failed = (fullName: string, message: string) => ({ ancestorTitles: [], title: fullName, fullName, status: 'failed', failureMessages: [message], failureDetails: [] })
  const config = { rootDir: '/project', testMatch: [] }

  it('keep the first failed copy of each test, and count the others on one line', () => {
    const results = [failed('a', 'Error: a at call 5'), { ...failed('b', ''), status: 'passed', failureMessages: [] }, failed('a', 'Error: a at call 10'), failed('a', 'Error: a at call 15'), failed('c', 'Error: c once')]
    const text = stripAnsi(cappedFailures(MESSAGE_UTIL, results, config, true, '/project/a.test.js') ?? '')
    expect(text.match(/● /g)).toHaveLength(3)
    expect(text).toContain('a at call 5')
    expect(text).not.toContain('a at call 10')
    expect(text).toContain('c once')
    // 3 failed copies of `a`: 2 more (calls 10 and 15).
    expect(text).toContain('● a: 2 more failed copies, not printed (every one is in facts.jsonl)')
  })

  it('leave a file whose tests each failed once as Jest wrote it', () => {
    expect(cappedFailures(MESSAGE_UTIL, [failed('a', 'Error: once')], config, true, '/project/a.test.js')).toBeUndefined()
  })
})
