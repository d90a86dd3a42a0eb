import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readLibtestFile } from '../../src/artifacts/libtest-read.js'
import { LibtestParser } from '../../src/core/libtest.js'
import { ROOT } from '../utils.js'

/** Recorded with cargo 1.95 on a two-crate workspace (alpha: unit, integration and doc tests; beta: unit and doc tests). */
const log = (n: number): string => join(ROOT, `test/fixtures/libtest/run-0${n}.log`)

describe('readLibtestFile over recorded `cargo test --workspace --no-fail-fast` logs', () => {
  it('keys every test by its binary, so `tests::adds` of alpha and of beta stay two tests', () => {
    expect(readLibtestFile(log(1)).map((c) => [c.group, c.name, c.outcome])).toEqual([
      ['alpha', 'tests::adds', 'passed'],
      ['alpha', 'tests::every_second_run', 'passed'],
      ['api', 'api_adds', 'passed'],
      ['beta', 'tests::adds', 'passed'],
      // Doc-tests come after every binary's `Running` line: credited to their crate, not to beta's unit tests.
      ['alpha (doc-tests)', 'alpha/src/lib.rs - add (line 3)', 'passed'],
      ['beta (doc-tests)', 'beta/src/lib.rs - add (line 10)', 'passed'],
      ['beta (doc-tests)', 'beta/src/lib.rs - double (line 3)', 'passed'],
    ])
  })

  it('keeps a failure’s captured output as its evidence', () => {
    const failed = readLibtestFile(log(2)).find((c) => c.outcome === 'failed')
    expect(failed).toMatchObject({ group: 'alpha', name: 'tests::every_second_run' })
    expect(failed?.error).toMatch(/^thread 'tests::every_second_run' \(\d+\) panicked at alpha\/src\/lib.rs:22:9:\nrun 2 hit the race/)
  })

  it('refuses a file with no libtest section, naming it', () => {
    const notLog = join(ROOT, 'test/fixtures/junit/pytest.xml')
    expect(() => readLibtestFile(notLog)).toThrow(`${notLog}:1: not a libtest log: no \`Running <binary>\` or \`Doc-tests <crate>\` line`)
  })

  it('reads only what ran: run 4 was `cargo test -p alpha`, so no beta test is in it', () => {
    expect(readLibtestFile(log(4)).map((c) => c.group)).toEqual(['alpha', 'alpha', 'api', 'alpha (doc-tests)'])
  })
})

describe('LibtestParser line by line', () => {
  const parse = (lines: string[]) => {
    const parser = new LibtestParser(100)
    return lines.map((line) => parser.push(line)).filter((r) => r !== undefined)
  }

  it.each([
    // `ignored, <reason>` since Rust 1.71; Windows binaries end in .exe; CRLF logs.
    [['     Running unittests src/lib.rs (target\\debug\\deps\\gamma-0123456789abcdef.exe)', 'test slow ... ignored, needs network\r'], [{ binary: 'gamma', name: 'slow', outcome: 'ignored', line: 2 }]],
    [['     Running benches/b.rs (target/debug/deps/b-0123456789abcdef)', 'test sort ... bench:         120 ns/iter (+/- 3)'], []],
    [['   Doc-tests delta', 'test src/lib.rs - f (line 1) ... FAILED'], [{ binary: 'delta (doc-tests)', name: 'src/lib.rs - f (line 1)', outcome: 'failed', line: 2 }]],
  ])('%j', (lines, expected) => {
    expect(parse(lines)).toEqual(expected)
  })

  it.each([
    [['test orphan ... ok'], 'test result before any `Running` or `Doc-tests` line: its binary is unknown'],
    [['     Running tests/a.rs (target/debug/deps/a-0123456789abcdef)', 'test a ... timeout'], 'unknown test status "timeout" (expected ok, FAILED or ignored)'],
  ])('reports %j as a problem on its line', (lines, message) => {
    expect(parse(lines).at(-1)).toEqual({ line: lines.length, message })
  })
})
