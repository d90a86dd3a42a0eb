import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type JUnitCase, outcomeOfCase, readJUnitCases, readJUnitFile } from '../../src/artifacts/junit-read.js'
import { detectDialect } from '../../src/core/junit-dialect.js'
import { ROOT, tempDir } from '../utils.js'

const sample = (name: string): string => join(ROOT, 'test/fixtures/junit', name)
const recorded = (path: string): string => join(ROOT, 'test/fixtures/recorded', path)
const malformed = (name: string): string => join(ROOT, 'test/fixtures/junit-malformed', name)
/** classname, name, outcome, attempts as [failed, total]. */
const brief = (c: JUnitCase) => [c.classname, c.name, outcomeOfCase(c), [c.attempts.filter((a) => !a.ok).length, c.attempts.length]]
const producerOf = (path: string) => detectDialect(readJUnitFile(path, () => {}))

describe('readJUnitFile: the producer each recorded report is recognised as', () => {
  it.each([
    // Each folder's README names the tool, its version and the command (scripts/record-junit-fixtures.mjs).
    ['pytest/run-1.xml', 'pytest'],
    ['pytest-rerunfailures/run-1.xml', 'pytest'],
    ['jest-junit/run-1.xml', 'jest-junit'],
    ['jest-junit-recipe/run-1.xml', 'jest-junit'],
    ['vitest/run-1.xml', 'vitest'],
    ['mocha/run-1.xml', 'mocha'],
    ['node-test/run-1.xml', 'node-test'],
    ['playwright/run-1.xml', 'playwright'],
    ['surefire/run-1/TEST-example.BetaTest.xml', 'surefire'],
  ])('%s → %s', (path, producer) => {
    expect(producerOf(recorded(path))).toBe(producer)
  })

  it('reads nextest’s documented form (nextest cannot be installed here: this one file is written from its documentation, unrecorded)', () => {
    expect(producerOf(sample('nextest.xml'))).toBe('nextest')
  })
})

describe('readJUnitFile: what each case says', () => {
  it.each([
    // Run 3 of 6: the counter test fails when its counter is a multiple of 3; test_b's test_same fails every run.
    [
      'pytest/run-3.xml',
      [
        ['tests.test_a.TestAlpha', 'test_same', 'passed', [0, 1]],
        ['tests.test_a.TestAlpha', 'test_every_third_run', 'failed', [1, 1]],
        ['tests.test_a', 'test_names[\\xfcn\\xefc\\xf8d\\xe9 <tag> & co]', 'passed', [0, 1]],
        // pytest.skip and pytest.xfail are both <skipped>: outside the counts.
        ['tests.test_a', 'test_skipped', 'skipped', [0, 1]],
        ['tests.test_a', 'test_expected_to_fail', 'skipped', [0, 1]],
        ['tests.test_b.TestAlpha', 'test_same', 'failed', [1, 1]],
      ],
    ],
    // node:test writes a todo that throws as <skipped type="todo"> plus <failure>: skipped wins, it is not counted.
    ['node-test/run-1.xml', 'later', 'skipped'],
    // Surefire's rerun: failed once, then passed (flakyFailure), in the @Nested class's file.
    ['surefire/run-2/TEST-example.AlphaTest$Inner.xml', 'everySecondRun', 'failed', [1, 2]],
    // …and failed every attempt: failure then two rerunFailure.
    ['surefire/run-2/TEST-example.BetaTest.xml', 'same', 'failed', [3, 3]],
    // Playwright with PLAYWRIGHT_JUNIT_INCLUDE_RETRIES=1 and --retries 1: run 3's first attempt failed, its retry passed.
    ['playwright/run-3.xml', 'Alpha › every third run', 'failed', [1, 2]],
  ] as const)('%s', (path, ...expected) => {
    const cases = readJUnitCases(recorded(path))
    if (Array.isArray(expected[0])) expect(cases.map(brief)).toEqual(expected[0])
    else {
      const [name, outcome, attempts] = expected as unknown as readonly [string, string, readonly number[] | undefined]
      const found = cases.find((c) => c.name === name) as JUnitCase
      expect(outcomeOfCase(found)).toBe(outcome)
      if (attempts) expect(brief(found)[3]).toEqual(attempts)
    }
  })

  it('keeps each attempt’s failure, says a pass came on retry, and keeps a retry’s nested output out of its error', () => {
    const [, flaky, failedAll] = readJUnitCases(sample('nextest.xml'))
    expect(flaky?.attempts.map((a) => a.ok)).toEqual([false, true])
    expect(flaky?.attempts[0]?.error).toBe("failed, then passed on attempt 2: thread 'tests::every_second_run' panicked at alpha/src/lib.rs:22:9:\nrun 2 hit the race")
    expect(failedAll?.attempts[0]?.error).toMatch(/^failed all 3 attempts: thread 'tests::adds' panicked/)
    expect(failedAll?.attempts[2]?.error).toMatch(/^thread 'tests::adds' panicked/)
    expect(flaky?.stdout).toBe('')
  })

  it('reads Surefire’s rerun text from its stackTrace child', () => {
    const beta = readJUnitCases(recorded('surefire/run-1/TEST-example.BetaTest.xml'))[0] as JUnitCase
    expect(beta.attempts[1]?.error).toMatch(/^b is broken\norg.opentest4j.AssertionFailedError: b is broken\n\tat /)
  })

  it('gives the suites around a case, the file and the project each producer writes', () => {
    const node = readJUnitCases(recorded('node-test/run-1.xml')).find((c) => c.name === 'child')
    expect(node?.suites).toEqual(['Alpha', 'parent'])
    const mocha = readJUnitCases(recorded('mocha/run-1.xml'))[0]
    expect(mocha?.file).toMatch(/\/test\/a\.test\.cjs$/)
    const playwright = readJUnitCases(recorded('playwright/run-1.xml'))
    expect([...new Set(playwright.map((c) => c.hostname))]).toEqual(['one', 'two'])
  })

  it('reads the message and text together, and the time in ms', () => {
    const failed = readJUnitCases(sample('pytest.xml'))[0] as JUnitCase
    expect(failed.attempts[0]?.error).toMatch(/^ZeroDivisionError: integer division or modulo by zero\ndef test_split_covers_all_items/)
    // time="0.014" seconds.
    expect(failed.elapsedMs).toBeCloseTo(14, 9)
  })

  it('reads a name attribute of 200 000 characters whole', () => {
    const path = join(tempDir(), 'long.xml')
    const name = 'p'.repeat(200_000)
    writeFileSync(path, `<testsuite name="s"><testcase classname="m" name="${name}"/></testsuite>`)
    expect(readJUnitCases(path).map((c) => c.name.length)).toEqual([200_000])
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
    expect(() => readJUnitCases(malformed(file))).toThrow(`${malformed(message.split(':')[0] as string)}${message.slice(message.indexOf(':'))}`)
  })

  it('says a missing file cannot be read', () => {
    expect(() => readJUnitCases(malformed('nope.xml'))).toThrow(`${malformed('nope.xml')}: cannot read`)
  })
})
