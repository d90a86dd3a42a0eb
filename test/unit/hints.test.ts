import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { INDEPENDENCE_TEXT } from '../../src/artifacts/independence-text.js'
import { type HintContext, hintContextOf, hintsFor, needsItsFile } from '../../src/core/hints.js'
import { doubleQuoted } from '../../src/core/shell-words.js'

const plain = { project: '', file: 'a.test.ts', name: 'cache > refresh' }
// ( ) . " are in the name; -t reads a regular expression, and the outer --cmd is double-quoted.
const marked = { project: 'web', file: 'b.test.ts', name: 'f(x) > "ok".' }
const vitest: HintContext = { runner: 'vitest', form: 'wrapper' }
const vitestConfig: HintContext = { runner: 'vitest', form: 'config' }

describe('runTest: one test in a fresh process, in its runner’s own syntax', () => {
  it.each<[string, HintContext, { project: string; file: string; name: string }, boolean, string | null]>([
    ['Vitest, anchored and escaped', vitest, plain, false, "npx vitest run a.test.ts -t '^cache refresh$'"],
    ['Vitest, with its project', vitest, marked, false, `npx vitest run b.test.ts -t '^f\\(x\\) "ok"\\.$' --project web`],
    ['Vitest, its file whole', vitest, marked, true, 'npx vitest run b.test.ts --project web'],
    ['Jest', { runner: 'jest', version: '29.7.0' }, { ...plain, file: 'test/a.test.js' }, false, "npx jest test/a.test.js -t '^cache refresh$'"],
    ['Jest, a project', { runner: 'jest' }, { ...plain, project: 'dom' }, false, "npx jest a.test.ts -t '^cache refresh$' --selectProjects dom"],
    ['Jest, its file whole', { runner: 'jest' }, plain, true, 'npx jest a.test.ts'],
    ['command mode: every trial is a fresh process', { runner: 'command' }, plain, false, null],
    // After repeat every run was a fresh process already (no fresh-run measurement), but the producer's command still looks at the test alone.
    ['repeat: the producer looks at the test alone', { runner: 'reports', via: 'repeat', producer: 'pytest' }, { project: '', file: 'tests.test_cart.TestCart', name: 'test_total[2]' }, false, 'python3 -m pytest -k test_total'],
    ['ingest, producer unknown', { runner: 'reports', via: 'ingest' }, plain, false, null],
    // pytest's JUnit names no file (classname is the dotted module and class): -k selects by the function's name.
    ['pytest', { runner: 'reports', via: 'ingest', producer: 'pytest' }, { project: '', file: 'tests.test_cart.TestCart', name: 'test_total' }, false, 'python3 -m pytest -k test_total'],
    ['cargo', { runner: 'reports', via: 'ingest', producer: 'libtest' }, { project: '', file: '', name: 'cache::tests::evicts' }, false, 'cargo test -- --exact cache::tests::evicts'],
    ['mocha', { runner: 'reports', via: 'ingest', producer: 'mocha' }, { project: '', file: 'test/cart.js', name: 'cart > adds' }, false, "npx mocha test/cart.js --grep '^cart adds$'"],
    ['node:test', { runner: 'reports', via: 'ingest', producer: 'node-test' }, { project: '', file: 'test/cart.test.mjs', name: 'cart > adds' }, false, "node --test --test-name-pattern='^adds$' test/cart.test.mjs"],
    ['Vitest junit', { runner: 'reports', via: 'ingest', producer: 'vitest' }, { project: '', file: 'a.test.ts', name: 'cache > refresh' }, false, "npx vitest run a.test.ts -t '^cache refresh$'"],
    ['Playwright, its project', { runner: 'reports', via: 'ingest', producer: 'playwright' }, { project: 'desktop', file: 'tests/cart.spec.ts', name: 'cart > adds' }, false, "npx playwright test tests/cart.spec.ts -g '^cart adds$' --project desktop"],
    // jest-junit's defaults name no file: no command rather than a wrong one.
    ['jest-junit without a file', { runner: 'reports', via: 'ingest', producer: 'jest-junit' }, { project: '', file: 'Alpha', name: 'Alpha same' }, false, null],
    ['a generic report', { runner: 'reports', via: 'ingest', producer: 'generic' }, plain, false, null],
    ['Surefire', { runner: 'reports', via: 'ingest', producer: 'surefire' }, { project: '', file: 'com.shop.CartTest', name: 'addsItem' }, false, 'mvn -Dtest=com.shop.CartTest#addsItem test'],
    ['Surefire, the class whole', { runner: 'reports', via: 'ingest', producer: 'surefire' }, { project: '', file: 'com.shop.CartTest', name: 'addsItem' }, true, 'mvn -Dtest=com.shop.CartTest test'],
  ])('%s', (_name, context, test, whole, command) => {
    expect(hintsFor(context).runTest(test, whole)).toBe(command)
  })
})

describe('freshRun: the fresh-run measurement of runTest, as it runs from the project root', () => {
  it.each<[HintContext, { project: string; file: string; name: string }, boolean, string | null]>([
    [vitest, plain, false, `npx flakeproof measure --cmd "npx vitest run a.test.ts -t '^cache refresh$'" --trials 20 --out .flakeproof/fresh-rate.json`],
    // Inside the double quotes only `"` needs a backslash: `\(` and a `$` before `'` read as written.
    [vitest, marked, false, `npx flakeproof measure --cmd "npx vitest run b.test.ts -t '^f\\(x\\) \\"ok\\"\\.$' --project web" --trials 20 --out .flakeproof/fresh-rate.json`],
    [{ runner: 'jest' }, plain, true, 'npx flakeproof measure --cmd "npx jest a.test.ts" --trials 20 --out .flakeproof/fresh-rate.json'],
    [{ runner: 'command' }, plain, false, null],
  ])('%j %j whole=%s', (context, test, whole, command) => {
    expect(hintsFor(context).freshRun(test, whole)).toBe(command)
  })

  it('gives sh back, word for word, the runner command and then the anchored pattern', () => {
    // An oracle outside the function: sh itself splits the suggested line, then the --cmd it carries.
    const words = (line: string): string[] => execFileSync('sh', ['-c', `printf '%s\\n' ${line}`], { encoding: 'utf8' }).split('\n').slice(0, -1)
    const line = hintsFor(vitest).freshRun(marked, false) as string
    const cmd = words(line.replace(/^npx flakeproof measure /, ''))[1] as string
    expect(cmd).toBe(hintsFor(vitest).runTest(marked, false))
    expect(words(cmd.replace(/^npx vitest run /, ''))).toEqual(['b.test.ts', '-t', '^f\\(x\\) "ok"\\.$', '--project', 'web'])
  })
})

describe('again: the next flakeproof run, in the form the run was started with', () => {
  it.each<[HintContext, string, string]>([
    [vitest, '--flaky-repeat 200', 'npx flakeproof vitest --flaky-repeat 200'],
    [vitestConfig, '--flaky-proof', 'npx vitest run -- --flaky-proof'],
    [{ runner: 'jest' }, '--flaky-proof', 'npx flakeproof jest --flaky-proof'],
    [{ runner: 'reports', via: 'repeat' }, '--flaky-proof', 'npx flakeproof proof --cmd "<fixed test command>" --policy policy.json'],
    [{ runner: 'reports', via: 'ingest' }, '--flaky-repeat 200 --flaky-observe', 'npx flakeproof observe --cmd "<test command>" --slow-trials 20 --gap-ms 2000'],
    [{ runner: 'reports', via: 'ingest' }, '--flaky-repeat 200', 'npx flakeproof repeat --runs 200 --junit <report path> -- <test command>'],
  ])('%j %s', (context, flags, command) => {
    expect(hintsFor(context).again(flags)).toBe(command)
  })
})

describe('seededOrder: the runner’s own seeded order, where its version has one', () => {
  it.each<[HintContext, string | null]>([
    [vitest, '--flaky-seed 7'],
    [{ runner: 'jest', version: '29.4.3' }, null],
    [{ runner: 'jest', version: '29.5.0' }, '--randomize --seed 7'],
    [{ runner: 'jest', version: '30.0.5' }, '--randomize --seed 7'],
    [{ runner: 'jest' }, '--randomize --seed 7'],
    [{ runner: 'command' }, null],
  ])('%j', (context, option) => {
    expect(hintsFor(context).seededOrder('7')).toBe(option)
  })
})

describe('hintContextOf: the context from rate.json', () => {
  it.each<[string, Parameters<typeof hintContextOf>[0], HintContext]>([
    ['the wrapper', { command: 'flakeproof vitest --flaky-repeat 20', tests: [] }, vitest],
    ['the plugin in the config', { command: 'vitest run -- --flaky-repeat 20', tests: [] }, vitestConfig],
    ['Jest recorded with its version', { command: 'jest --ci', tests: [], runner: { name: 'jest', version: '29.4.3' } }, { runner: 'jest', version: '29.4.3' }],
    ['Jest before `runner` was recorded', { command: 'flakeproof jest --flaky-repeat 20', tests: [] }, { runner: 'jest', version: undefined }],
    ['command mode', { command: 'node job.js' }, { runner: 'command' }],
    ['repeat', { command: 'python3 -m pytest', tests: [], reports: 'junit' }, { runner: 'reports', via: 'repeat', producer: undefined }],
    ['ingest of cargo logs', { command: 'flakeproof ingest --libtest "logs/*.log"', tests: [], reports: 'libtest' }, { runner: 'reports', via: 'ingest', producer: 'libtest' }],
    ['ingest, one producer detected', { command: 'flakeproof ingest --junit "r/*.xml"', tests: [], reports: 'junit', producers: ['mocha' as const] }, { runner: 'reports', via: 'ingest', producer: 'mocha' }],
    ['ingest, two producers: no one syntax', { command: 'flakeproof ingest --junit "r/*.xml"', tests: [], reports: 'junit', producers: ['mocha' as const, 'pytest' as const] }, { runner: 'reports', via: 'ingest', producer: undefined }],
    ['ingest, producer recorded', { command: 'flakeproof ingest --junit "r/*.xml"', tests: [], reports: 'junit', runner: { name: 'pytest' } }, { runner: 'reports', via: 'ingest', producer: 'pytest' }],
  ])('%s', (_name, rate, context) => {
    expect(hintContextOf(rate)).toEqual(context)
  })
})

describe('needsItsFile', () => {
  it.each([
    [{ independence: { switched_to: 'failed' as const } }, true],
    [{ independence: { switched_to: 'passed' as const } }, false],
    [{ independence: null, tags: ['order-dependent'] }, true],
    [{ independence: null, tags: ['load-only'] }, false],
  ])('%j → %s', (test, whole) => {
    expect(needsItsFile(test)).toBe(whole)
  })
})

describe('doubleQuoted', () => {
  it.each([
    ["a -t '^x$'", `"a -t '^x$'"`],
    ['say "hi" `now` $HOME ${X} $(id)', '"say \\"hi\\" \\`now\\` \\$HOME \\${X} \\$(id)"'],
    ['back\\slash \\( end\\', '"back\\slash \\( end\\\\"'],
  ])('%s', (text, quoted) => {
    expect(doubleQuoted(text)).toBe(quoted)
    // sh reads it back as the text it quoted.
    expect(execFileSync('sh', ['-c', `printf '%s' ${quoted}`], { encoding: 'utf8' })).toBe(text)
  })
})

describe('the sentences that carry the commands', () => {
  it('set the command off as markdown code, or as the caller’s code (HTML), and say when the file runs whole', () => {
    const command = 'npx flakeproof measure --cmd "npx jest a.test.ts" --trials 20 --out .flakeproof/fresh-rate.json'
    expect(INDEPENDENCE_TEXT.en.freshRun(command, true)).toBe(`Measure it with fresh runs instead, its file run whole (it may need the tests before it): \`${command}\`.`)
    expect(INDEPENDENCE_TEXT.en.freshRun(command, false, (c) => `<code>${c}</code>`)).toBe(`Measure it with fresh runs instead: <code>${command}</code>.`)
    expect(INDEPENDENCE_TEXT.en.freshRun(null, false)).toBe('')
  })
})
