import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { outcomeOfCase } from '../../src/artifacts/junit-read.js'
import { readLibtestCases } from '../../src/artifacts/libtest-read.js'
import { LibtestParser } from '../../src/core/libtest.js'
import { ROOT } from '../utils.js'

/** Recorded with cargo 1.95 on a two-crate workspace (alpha: unit, integration and doc tests; beta: unit and doc tests). */
const log = (n: number): string => join(ROOT, `test/fixtures/libtest/run-0${n}.log`)

describe('readLibtestFile over recorded `cargo test --workspace --no-fail-fast` logs', () => {
  it('keys every test by its binary, so `tests::adds` of alpha and of beta stay two tests', () => {
    expect(readLibtestCases(log(1)).map((c) => [c.classname, c.name, outcomeOfCase(c)])).toEqual([
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
    const failed = readLibtestCases(log(2)).find((c) => outcomeOfCase(c) === 'failed')
    expect(failed).toMatchObject({ classname: 'alpha', name: 'tests::every_second_run' })
    expect(failed?.attempts[0]?.error).toMatch(/^thread 'tests::every_second_run' \(\d+\) panicked at alpha\/src\/lib.rs:22:9:\nrun 2 hit the race/)
  })

  it('refuses a file with no libtest section, naming it', () => {
    const notLog = join(ROOT, 'test/fixtures/junit/pytest.xml')
    expect(() => readLibtestCases(notLog)).toThrow(`${notLog}:1: not a libtest log: no \`Running <binary>\` or \`Doc-tests <crate>\` line`)
  })

  it('reads only what ran: run 4 was `cargo test -p alpha`, so no beta test is in it', () => {
    expect(readLibtestCases(log(4)).map((c) => c.classname)).toEqual(['alpha', 'alpha', 'api', 'alpha (doc-tests)'])
  })
})

describe('readLibtestFile over the cargo-project recording (test/fixtures/recorded/cargo)', () => {
  it('reads `#[ignore = "not yet"]` as skipped, outside the counts, and the other crate’s `tests::same` as its own test', () => {
    const cases = readLibtestCases(join(ROOT, 'test/fixtures/recorded/cargo/run-3.log'))
    // Run 3: the counter test's 3rd run fails (n % 3 == 0); beta's `same` panics every run. libtest
    // prints results as its threads finish, so their order within a binary varies between runs.
    expect(cases.map((c) => `${c.classname} | ${c.name} | ${outcomeOfCase(c)}`).sort()).toEqual([
      'alpha (doc-tests) | alpha/src/lib.rs - add (line 3) | passed',
      'alpha | tests::every_third_run | failed',
      'alpha | tests::not_yet | skipped',
      'alpha | tests::same | passed',
      'beta | tests::same | failed',
    ])
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
