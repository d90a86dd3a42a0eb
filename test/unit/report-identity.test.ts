import { describe, expect, it } from 'vitest'
import { type CaseNames, detectDialect, identityOf, type ReportShape } from '../../src/core/junit-dialect.js'
import { IdentityTable, type SuiteCases } from '../../src/core/report-identity.js'
import { formatTestId } from '../../src/core/test-id.js'
import { hiddenRetriesNote } from '../../src/core/hidden-retries.js'
import { hintsFor } from '../../src/core/hints.js'

/** A suite of plain names (file `f`, path = [name]). */
const suite = (names: string[], repeatsAreAttempts = false): SuiteCases => ({
  identities: names.map((name) => ({ project: '', file: 'f', path: [name] })),
  names,
  repeatsAreAttempts,
})

/** Runs the table over runs of suites; returns each case's id, run by run, and the ambiguities. */
function decide(runs: SuiteCases[][]) {
  const table = new IdentityTable()
  const entries = runs.map((suites) => {
    table.startRun()
    const found = suites.map((s) => table.cases(s, 'jest-junit'))
    table.endRun()
    return found
  })
  const ambiguities = table.decide()
  return { ids: entries.map((run) => run.map((s) => s.map((e) => table.idOf(e)))), ambiguities }
}

describe('IdentityTable: which test each case is, across runs', () => {
  it('numbers a name written twice in one suite in order, the same in every run (declaration order)', () => {
    const { ids, ambiguities } = decide([[suite(['a', 'a', 'b'])], [suite(['a', 'a', 'b'])]])
    expect(ids).toEqual([[['f > a', 'f > a (#2)', 'f > b']], [['f > a', 'f > a (#2)', 'f > b']]])
    expect(ambiguities).toEqual([])
  })

  it('tells a name in two suites apart by their siblings, whatever order the runs list the suites in', () => {
    // Jest orders files by their last duration: run 2 lists b's suite first.
    const a = suite(['same', 'every third run'])
    const b = suite(['same', 'only in b'])
    const { ids, ambiguities } = decide([[a, b], [b, a]])
    expect(ids).toEqual([
      [
        ['f > same (beside "every third run")', 'f > every third run'],
        ['f > same (beside "only in b")', 'f > only in b'],
      ],
      [
        ['f > same (beside "only in b")', 'f > only in b'],
        ['f > same (beside "every third run")', 'f > every third run'],
      ],
    ])
    expect(ambiguities).toEqual([])
  })

  it('keeps the same id in a run where only one of the two suites ran (its siblings still say which)', () => {
    const a = suite(['same', 'x'])
    const b = suite(['same', 'y'])
    const { ids } = decide([[a, b], [b]])
    expect(ids[1]).toEqual([['f > same (beside "y")', 'f > y']])
  })

  it('leaves out a name in two suites that hold the same names, in every run, and says so once', () => {
    const twin = suite(['same'])
    const { ids, ambiguities } = decide([[twin, twin, suite(['other'])], [twin, suite(['other']), twin]])
    expect(ids).toEqual([
      [[null], [null], ['f > other']],
      [[null], ['f > other'], [null]],
    ])
    expect(ambiguities).toEqual([{ id: 'f > same', copies: 2, producer: 'jest-junit' }])
  })

  it('reads a name written again as another attempt where the producer repeats (Playwright --repeat-each): one test, no ambiguity', () => {
    const { ids, ambiguities } = decide([[suite(['a', 'b'], true), suite(['a', 'b'], true)]])
    expect(ids).toEqual([[['f > a', 'f > b'], ['f > a', 'f > b']]])
    expect(ambiguities).toEqual([])
  })
})

describe('identityOf: each producer’s attributes as it means them', () => {
  const base: CaseNames = { classname: '', name: '', file: '', suites: [], hostname: '' }
  it.each([
    // Recorded spellings (test/fixtures/recorded/*/run-1.xml).
    ['vitest', { classname: 'a.test.js', name: 'Alpha > same' }, 'a.test.js > Alpha > same'],
    ['playwright', { classname: 'a.spec.cjs', name: 'Alpha \u203a same', hostname: 'one' }, '[one] a.spec.cjs > Alpha > same'],
    // includeProjectInTestName writes the project before the name too: not twice in the id.
    ['playwright', { classname: 'a.spec.cjs', name: '[one] Alpha \u203a same', hostname: 'one' }, '[one] a.spec.cjs > Alpha > same'],
    ['jest-junit', { classname: 'a.test.js', name: 'Alpha \u203a same', file: 'a.test.js' }, 'a.test.js > Alpha > same'],
    // The recipe's title template with no describe: ` › same`.
    ['jest-junit', { classname: 'a.test.js', name: ' \u203a same', file: 'a.test.js' }, 'a.test.js > same'],
    ['jest-junit', { classname: 'Alpha same', name: 'Alpha same', suites: ['Alpha'] }, 'Alpha > Alpha same'],
    ['mocha', { classname: 'same', name: 'Alpha same', file: 'test/a.test.cjs', suites: ['Alpha'] }, 'test/a.test.cjs > Alpha > same'],
    ['node-test', { classname: 'test', name: 'child', suites: ['Alpha', 'parent'] }, 'Alpha > parent > child'],
    ['node-test', { classname: 'test', name: 'top level' }, 'top level'],
    ['pytest', { classname: 'tests.test_a.TestAlpha', name: 'test_same' }, 'tests.test_a.TestAlpha > test_same'],
    ['surefire', { classname: 'example.AlphaTest$Inner', name: 'same' }, 'example.AlphaTest$Inner > same'],
    ['generic', { name: 'x', file: 'f.rb', suites: ['S'] }, 'f.rb > x'],
    ['generic', { name: 'x', suites: ['S'] }, 'S > x'],
    // As every report read before producers were told apart: a name split at ` > `.
    ['generic', { classname: 'cart.test.ts', name: 'cart > adds' }, 'cart.test.ts > cart > adds'],
  ] as const)('%s %j → %s', (dialect, names, id) => {
    expect(formatTestId(identityOf({ ...base, ...names }, dialect))).toBe(id)
  })
})

describe('runner hints', () => {
  it.each([
    ['vitest', { project: '', file: 'a.test.js', name: 'Alpha > same' }, "npx vitest run a.test.js -t '^Alpha same$'"],
    ['jest-junit', { project: '', file: 'a.test.js', name: 'Alpha > same' }, "npx jest a.test.js -t '^Alpha same$'"],
    // jest-junit's defaults name no file: no command rather than a wrong one.
    ['jest-junit', { project: '', file: 'Alpha', name: 'Alpha same' }, undefined],
    ['playwright', { project: 'one', file: 'a.spec.cjs', name: 'Alpha > same' }, "npx playwright test a.spec.cjs -g '^Alpha same$' --project one"],
    ['pytest', { project: '', file: 'tests.test_a.TestAlpha', name: 'test_names[x]' }, 'python3 -m pytest -k test_names'],
    ['surefire', { project: '', file: 'example.AlphaTest', name: 'same' }, 'mvn -Dtest=example.AlphaTest#same test'],
    ['libtest', { project: '', file: 'alpha', name: 'tests::adds' }, 'cargo test -- --exact tests::adds'],
    ['generic', { project: '', file: 'x', name: 'y' }, undefined],
  ] as const)('%s %j → %s', (producer, test, command) => {
    expect(hintsFor({ runner: 'reports', via: 'ingest', producer }).runTest(test, false)).toBe(command ?? null)
  })

  it.each([
    ['python3 -m pytest --reruns 2 --junitxml=r.xml', {}, 'pytest-rerunfailures'],
    ['python3 -m pytest --reruns=0', {}, undefined],
    ['npx playwright test --retries 1', {}, "Playwright's junit reporter"],
    ['npx playwright test --retries 1', { PLAYWRIGHT_JUNIT_INCLUDE_RETRIES: '1' }, undefined],
    ['env PLAYWRIGHT_JUNIT_INCLUDE_RETRIES=1 npx playwright test --retries=2', {}, undefined],
    ['npx jest --ci', {}, undefined],
  ] as const)('%s hides retries: %s', (command, env, start) => {
    const note = hiddenRetriesNote(command, env)
    if (start === undefined) expect(note).toBeUndefined()
    else expect(note?.startsWith(start)).toBe(true)
  })
})

describe('detectDialect beyond the recordings: marks a producer writes whatever it is configured to', () => {
  const shape = (over: Partial<ReportShape>): ReportShape => ({ root: 'testsuites', rootAttributes: {}, suiteAttributes: {}, cases: 2, classnameIsTest: 0, classnameIsName: 0, withFile: 0, ...over })
  it.each([
    // jest-junit with `suiteName: "unit"`: its default templates still write classname = name.
    [shape({ rootAttributes: { name: 'unit' }, classnameIsName: 2 }), 'jest-junit'],
    // Playwright with PLAYWRIGHT_JUNIT_SUITE_ID/NAME set: the root keeps its id attribute.
    [shape({ rootAttributes: { id: 'nightly', name: 'e2e' }, suiteAttributes: { name: 'a.spec.ts', hostname: 'chromium' } }), 'playwright'],
    // A root <testsuite> of pytest (xunit1 family too).
    [shape({ root: 'testsuite', rootAttributes: { name: 'pytest' }, suiteAttributes: { name: 'pytest' } }), 'pytest'],
    // Anything else: generic, read as every report was before.
    [shape({ rootAttributes: { name: 'go test' } }), 'generic'],
    [shape({ cases: 0 }), 'generic'],
  ] as const)('%j → %s', (given, dialect) => {
    expect(detectDialect(given)).toBe(dialect)
  })
})
