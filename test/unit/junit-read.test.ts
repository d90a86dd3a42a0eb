import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type JUnitCase, readJUnitFile } from '../../src/artifacts/junit-read.js'
import { ROOT } from '../utils.js'

const sample = (name: string): string => join(ROOT, 'test/fixtures/junit', name)
const malformed = (name: string): string => join(ROOT, 'test/fixtures/junit-malformed', name)
const brief = (c: JUnitCase) => [c.group, c.name, c.outcome, c.retries]

describe('readJUnitFile: the dialects test runners write', () => {
  it.each([
    // Recorded: examples/pytest's 4th run (`pytest --junitxml`, pytest 9.0.3), where the pool hands out 0 workers.
    ['pytest.xml', [['test_batches', 'test_split_covers_all_items', 'failed', 0], ['test_batches', 'test_split_is_even', 'passed', 0]]],
    // Recorded: Vitest 4.1.12 `--reporter=junit` on a counter fixture's 2nd run; suite names joined with ` > `, a skipped test.
    [
      'vitest.xml',
      [
        ['cart.test.ts', 'cart > adds items', 'passed', 0],
        ['cart.test.ts', 'cart > totals > rounds every other run', 'failed', 0],
        ['cart.test.ts', 'cart > not yet', 'skipped', 0],
      ],
    ],
    // jest-junit's default templates: classname = name; a suite that failed to run is an `error`.
    [
      'jest-junit.xml',
      [
        ['cart adds items', 'cart adds items', 'passed', 0],
        ['cart totals rounds every other run', 'cart totals rounds every other run', 'failed', 0],
        ['cart not yet', 'cart not yet', 'skipped', 0],
        ['Test suite failed to run', 'checkout.test.js', 'failed', 0],
      ],
    ],
    // nextest: flakyFailure (passed on attempt 2) and failure + 2 rerunFailure (failed 3 of 3) both failed this run.
    ['nextest.xml', [['alpha', 'tests::adds', 'passed', 0], ['alpha', 'tests::every_second_run', 'failed', 1], ['beta', 'tests::adds', 'failed', 2]]],
    // Playwright: two projects give the same classname and name twice (the caller numbers them); flakyFailure with includeRetries.
    [
      'playwright.xml',
      [
        ['login.spec.ts', 'login › shows the form', 'passed', 0],
        ['login.spec.ts', 'login › remembers the user', 'failed', 0],
        ['login.spec.ts', 'login › shows the form', 'passed', 0],
        ['login.spec.ts', 'login › remembers the user', 'failed', 1],
      ],
    ],
  ])('%s', (file, expected) => {
    expect(readJUnitFile(sample(file)).map(brief)).toEqual(expected)
  })

  it('keeps the first failure as the evidence, says a pass came on retry, and keeps output but not a retry’s nested output', () => {
    const [, flaky, failedAll] = readJUnitFile(sample('nextest.xml'))
    expect(flaky?.error).toBe("failed, then passed on attempt 2: thread 'tests::every_second_run' panicked at alpha/src/lib.rs:22:9:\nrun 2 hit the race")
    expect(failedAll?.error).toMatch(/^failed all 3 attempts: thread 'tests::adds' panicked/)
    expect(flaky?.stdout).toBe('')
    const [, , , retried] = readJUnitFile(sample('playwright.xml'))
    expect(retried?.stdout.trim()).toBe('retry #1 passed')
  })

  it('reads message and text together, and the time in ms', () => {
    const [failed] = readJUnitFile(sample('pytest.xml'))
    expect(failed?.error).toMatch(/^ZeroDivisionError: integer division or modulo by zero\ndef test_split_covers_all_items/)
    // time="0.014" seconds.
    expect(failed?.elapsedMs).toBeCloseTo(14, 9)
  })
})

describe('readJUnitFile: malformed reports name their file and line', () => {
  it.each([
    // sax's own words, with its line made 1-based.
    ['unclosed.xml', 'unclosed.xml:5:14: Unexpected close tag'],
    ['truncated.xml', 'truncated.xml:4:28: Unclosed root tag'],
    ['entity.xml', 'entity.xml:2:38: Invalid character entity'],
    ['empty.xml', 'empty.xml:1: not a JUnit report: no <testsuites> or <testsuite> element'],
    ['not-junit.xml', 'not-junit.xml:1: not a JUnit report: no <testsuites> or <testsuite> element'],
  ])('%s', (file, message) => {
    expect(() => readJUnitFile(malformed(file))).toThrow(`${malformed(message.split(':')[0] as string)}${message.slice(message.indexOf(':'))}`)
  })

  it('says a missing file cannot be read', () => {
    expect(() => readJUnitFile(malformed('nope.xml'))).toThrow(`${malformed('nope.xml')}: cannot read`)
  })
})
