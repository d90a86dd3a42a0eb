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
    // @fast-check/vitest names a property test with the seed it drew, another each run: any seed matches.
    ['Vitest, a property test', vitest, { project: '', file: 'a.test.ts', name: 'groupBy > keeps order (with seed=-1705165106)' }, false, "npx vitest run a.test.ts -t '^groupBy keeps order \\(with seed=-?\\d+\\)$'"],
    ['Jest', { runner: 'jest', version: '29.7.0' }, { ...plain, file: 'test/a.test.js' }, false, "npx jest test/a.test.js -t '^cache refresh$'"],
    ['Jest, a project', { runner: 'jest' }, { ...plain, project: 'dom' }, false, "npx jest a.test.ts -t '^cache refresh$' --selectProjects dom"],
    ['Jest, its file whole', { runner: 'jest' }, plain, true, 'npx jest a.test.ts'],
    ['Jest, the config the run was given', { runner: 'jest', config: ' --config ./scripts/jest/jest.config.js' }, { ...plain, project: 'Web' }, false, "npx jest a.test.ts -t '^cache refresh$' --selectProjects Web --config ./scripts/jest/jest.config.js"],
    // Playwright's grep reads `project file suites name @tags` (spaces between); `/…/` keeps the case, the space and `$` the whole name.
    ['Playwright', { runner: 'playwright' }, { project: 'desktop', file: 'tests/cart.spec.ts', name: 'cart > shows the total' }, false, "npx playwright test tests/cart.spec.ts --grep '/ cart shows the total$/' --project desktop"],
    ['Playwright, escaped, no project', { runner: 'playwright' }, marked, false, `npx playwright test b.test.ts --grep '/ f\\(x\\) "ok"\\.$/' --project web`],
    ['Playwright, a slash in the name', { runner: 'playwright' }, { project: '', file: 'a.spec.ts', name: 'GET /cart' }, false, "npx playwright test a.spec.ts --grep '/ GET \\/cart$/'"],
    ['Playwright, its file whole', { runner: 'playwright' }, { project: 'mobile', file: 'a.spec.ts', name: 'x' }, true, 'npx playwright test a.spec.ts --project mobile'],
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

describe('runTest, read back by sh', () => {
  it('gives sh back, word for word, the runner command and then the anchored pattern', () => {
    // An oracle outside the function: sh itself splits the suggested line.
    const words = (line: string): string[] => execFileSync('sh', ['-c', `printf '%s\\n' ${line}`], { encoding: 'utf8' }).split('\n').slice(0, -1)
    expect(words(hintsFor(vitest).runTest(marked, false) as string)).toEqual(['npx', 'vitest', 'run', 'b.test.ts', '-t', '^f\\(x\\) "ok"\\.$', '--project', 'web'])
  })
})

describe('again: the next flakeproof run, in the form the run was started with', () => {
  it.each<[HintContext, string, string]>([
    [vitest, '--flaky-repeat 200', 'npx flakeproof vitest --flaky-repeat 200'],
    [vitestConfig, '--flaky-proof', 'npx vitest run -- --flaky-proof'],
    [{ runner: 'jest' }, '--flaky-proof', 'npx flakeproof jest --flaky-proof'],
    [{ runner: 'jest', config: ' --config ./scripts/jest/jest.config.js' }, '--flaky-proof', 'npx flakeproof jest --flaky-proof --config ./scripts/jest/jest.config.js'],
    [{ ...vitestConfig, config: ' --root packages/app' }, '--flaky-proof', 'npx vitest run --root packages/app -- --flaky-proof'],
    [{ ...vitest, config: " --config 'my config.ts'" }, '--flaky-repeat 200', "npx flakeproof vitest --flaky-repeat 200 --config 'my config.ts'"],
    [{ runner: 'playwright' }, '--flaky-repeat 20', 'npx flakeproof playwright --flaky-repeat 20'],
    [{ runner: 'reports', via: 'repeat' }, '--flaky-proof', 'npx flakeproof proof --cmd "<fixed test command>" --policy policy.json'],
    [{ runner: 'reports', via: 'ingest' }, '--flaky-repeat 200 --flaky-observe', 'npx flakeproof observe --cmd "<test command>" --slow-trials 20 --gap-ms 2000'],
    [{ runner: 'reports', via: 'ingest' }, '--flaky-repeat 200', 'npx flakeproof repeat --runs 200 --junit <report path> -- <test command>'],
  ])('%j %s', (context, flags, command) => {
    expect(hintsFor(context).again(flags)).toBe(command)
  })
})

describe('decide: the run that would decide an undetermined switch, in the runner’s syntax', () => {
  // A switch after the first trial (PFFF… or FPPP…): `first` = switchAt − 1 = 1 trial in the first block.
  const passedOnce = { switchAt: 2, trials: 10 }
  it.each<[string, HintContext, Parameters<ReturnType<typeof hintsFor>['decide']>[0], string]>([
    // Vitest: whole-run rounds of the file, run whole (a test may need its siblings); each round is fresh module state.
    ['Vitest, the wrapper', vitest, { test: plain, ...passedOnce }, 'npx flakeproof vitest --flaky-rounds 3 --flaky-repeat 10 a.test.ts'],
    ['Vitest, a project and a file with spaces', vitest, { test: { project: 'web ui', file: 'a b.test.ts', name: 'x' }, ...passedOnce }, "npx flakeproof vitest --flaky-rounds 3 --flaky-repeat 10 --project 'web ui' 'a b.test.ts'"],
    ['Vitest, the plugin in the config', vitestConfig, { test: marked, ...passedOnce }, 'npx vitest run b.test.ts --project web -- --flaky-rounds 3 --flaky-repeat 10'],
    // The same single switch over n trials is 1 order in C(n, 1) = n: below 1/20 from n = 21; twice that, 42 (more than 2 × 10).
    // Playwright has whole-run rounds too (each round new workers): the file whole, in its project.
    ['Playwright, a project', { runner: 'playwright' }, { test: { project: 'desktop', file: 'tests/cart.spec.ts', name: 'x' }, ...passedOnce }, 'npx flakeproof playwright --flaky-rounds 3 --flaky-repeat 10 tests/cart.spec.ts --project desktop'],
    // Jest has whole-run rounds too (each round runs Jest again, every file loaded anew).
    ['Jest', { runner: 'jest' }, { test: { ...plain, file: 'test/a.test.js' }, ...passedOnce }, 'npx flakeproof jest --flaky-rounds 3 --flaky-repeat 10 test/a.test.js'],
    ['Jest, a project', { runner: 'jest', version: '29.7.0' }, { test: { ...plain, project: 'dom' }, ...passedOnce }, 'npx flakeproof jest --flaky-rounds 3 --flaky-repeat 10 a.test.ts --selectProjects dom'],
    ['command mode', { runner: 'command' }, { command: 'node job.js', ...passedOnce }, 'npx flakeproof measure --cmd "node job.js" --trials 42'],
    // Two failures first (FFPP…) and its mirror: 2 orders in C(n, 2), below 1/20 once C(n, 2) > 40: n = 10 (45); twice that, 20 (more than 2 × 5).
    ['command mode, a block of two', { runner: 'command' }, { command: 'node job.js', switchAt: 3, trials: 5 }, 'npx flakeproof measure --cmd "node job.js" --trials 20'],
    ['command mode, command not known', { runner: 'command' }, passedOnce, 'npx flakeproof measure --cmd "<command>" --trials 42'],
    // Every run a fresh process already: more runs.
    ['repeat', { runner: 'reports', via: 'repeat', producer: 'pytest' }, { test: plain, ...passedOnce }, 'npx flakeproof repeat --runs 42 --junit <report path> -- <test command>'],
  ])('%s', (_name, context, subject, command) => {
    expect(hintsFor(context).decide(subject)).toBe(command)
  })

  it('gives sh back the project and the file as written', () => {
    const line = hintsFor(vitest).decide({ test: { project: 'web ui', file: "it's a.test.ts", name: 'x' }, switchAt: 2, trials: 10 })
    const words = execFileSync('sh', ['-c', `printf '%s\\n' ${line}`], { encoding: 'utf8' }).split('\n').slice(0, -1)
    expect(words.slice(-3)).toEqual(['--project', 'web ui', "it's a.test.ts"])
  })
})

describe('plainRate: a test plain runs of its file passed, measured in ordinary runs of its file', () => {
  // Whole-run rounds of one repetition each: every round an ordinary run, each test's rate its own
  // (a measurement of the file's exit code would count the other tests' failures as its own).
  it.each<[string, HintContext, { project: string; file: string; name: string }, string | null]>([
    ['Vitest, the wrapper', vitest, plain, 'npx flakeproof vitest --flaky-rounds 20 --flaky-repeat 1 a.test.ts'],
    ['Vitest, the plugin in the config', vitestConfig, marked, 'npx vitest run b.test.ts --project web -- --flaky-rounds 20 --flaky-repeat 1'],
    ['Jest, a project', { runner: 'jest', version: '30.2.0' }, { ...plain, project: 'mobx' }, 'npx flakeproof jest --flaky-rounds 20 --flaky-repeat 1 a.test.ts --selectProjects mobx'],
    ['Playwright, a project', { runner: 'playwright' }, { project: 'desktop', file: 'tests/cart.spec.ts', name: 'x' }, 'npx flakeproof playwright --flaky-rounds 20 --flaky-repeat 1 tests/cart.spec.ts --project desktop'],
    // No repetitions there to break a test: never asked.
    ['command mode', { runner: 'command' }, plain, null],
    ['repeat', { runner: 'reports', via: 'repeat', producer: 'pytest' }, plain, null],
  ])('%s', (_name, context, test, command) => {
    expect(hintsFor(context).plainRate(test)).toBe(command)
  })
})

describe('againFor: one test with flakeproof flags, selected in the runner’s own syntax', () => {
  it.each<[string, HintContext, { project: string; file: string; name: string }, string, string | null]>([
    ['Vitest through the wrapper', vitest, plain, '--flaky-repeat 200', "npx flakeproof vitest --flaky-repeat 200 a.test.ts -t '^cache refresh$'"],
    // The plugin in the config reads flakeproof's flags after `--`; the file, -t and --project are Vitest's.
    ['Vitest, the plugin in the config', vitestConfig, marked, '--flaky-proof', `npx vitest run b.test.ts -t '^f\\(x\\) "ok"\\.$' --project web -- --flaky-proof`],
    ['Jest', { runner: 'jest', version: '30.0.0' }, { ...plain, file: 'test/a.test.js' }, "--flaky-proof --flaky-out '.flakeproof'", "npx flakeproof jest --flaky-proof --flaky-out '.flakeproof' test/a.test.js -t '^cache refresh$'"],
    ['Jest, a project', { runner: 'jest' }, { ...plain, project: 'dom' }, '--flaky-repeat 200', "npx flakeproof jest --flaky-repeat 200 a.test.ts -t '^cache refresh$' --selectProjects dom"],
    // Playwright's grep matches project, file, suites and name joined by spaces: the leading space and `$` anchor the whole name.
    ['Playwright', { runner: 'playwright' }, { project: 'desktop', file: 'tests/cart.spec.ts', name: 'cart > shows the total' }, '--flaky-repeat 200', "npx flakeproof playwright --flaky-repeat 200 tests/cart.spec.ts --grep '/ cart shows the total$/' --project desktop"],
    // No command selects one test there: the caller falls back to `again`.
    ['command mode', { runner: 'command' }, plain, '--flaky-repeat 200', null],
    ['reports', { runner: 'reports', via: 'ingest', producer: 'pytest' }, plain, '--flaky-repeat 200', null],
  ])('%s', (_name, context, test, flags, command) => {
    expect(hintsFor(context).againFor(test, flags)).toBe(command)
  })

  it('gives sh back, word for word, the flags, the file and the anchored pattern', () => {
    const words = (line: string): string[] => execFileSync('sh', ['-c', `printf '%s\\n' ${line}`], { encoding: 'utf8' }).split('\n').slice(0, -1)
    expect(words(hintsFor({ runner: 'jest' }).againFor(marked, '--flaky-repeat 200') as string)).toEqual(['npx', 'flakeproof', 'jest', '--flaky-repeat', '200', 'b.test.ts', '-t', '^f\\(x\\) "ok"\\.$', '--selectProjects', 'web'])
  })
})

describe('seededOrder: the runner’s own seeded order, where its version has one', () => {
  it.each<[HintContext, string | null]>([
    [vitest, '--flaky-seed 7'],
    [{ runner: 'jest', version: '29.4.3' }, null],
    [{ runner: 'jest', version: '29.5.0' }, '--randomize --seed 7'],
    [{ runner: 'jest', version: '30.0.5' }, '--randomize --seed 7'],
    [{ runner: 'jest' }, '--randomize --seed 7'],
    [{ runner: 'playwright' }, '--shuffle 7'],
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
    // react-hook-form's: without its --config, `npx jest` finds no config and transforms no TypeScript.
    ['Jest with its config in a subfolder', { command: 'flakeproof jest --flaky-repeat 5 --config ./scripts/jest/jest.config.js', tests: [] }, { runner: 'jest', version: undefined, config: ' --config ./scripts/jest/jest.config.js' }],
    ['Jest, -c and --rootDir=', { command: 'flakeproof jest -c jest.ci.js --rootDir=/src/app --flaky-repeat 5', tests: [] }, { runner: 'jest', version: undefined, config: ' -c jest.ci.js --rootDir /src/app' }],
    ["Vitest's config and root, before the plugin's --", { command: 'vitest run --config=vitest.e2e.ts -r packages/app -- --flaky-repeat 20 --config x', tests: [] }, { ...vitestConfig, config: ' --config vitest.e2e.ts -r packages/app' }],
    ['Playwright', { command: 'flakeproof playwright --flaky-repeat 20', tests: [], runner: { name: 'playwright', version: '1.65.1' } }, { runner: 'playwright' }],
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
  it('set the command off as markdown code, or as the caller’s code (HTML), and say nothing without one', () => {
    const command = 'npx flakeproof jest --flaky-rounds 20 --flaky-repeat 1 a.test.ts'
    expect(INDEPENDENCE_TEXT.en.plainRate(command)).toBe(`Measure its rate in ordinary runs instead, each test of its file once a run: \`${command}\`.`)
    expect(INDEPENDENCE_TEXT.en.plainRate(command, (c) => `<code>${c}</code>`)).toBe(`Measure its rate in ordinary runs instead, each test of its file once a run: <code>${command}</code>.`)
    expect(INDEPENDENCE_TEXT.en.plainRate(null)).toBe('')
  })

  it('set the deciding command off the same way', () => {
    expect(INDEPENDENCE_TEXT.en.decide('npx flakeproof measure --cmd "node job.js" --trials 42')).toBe('Decide it with fresh-state runs: `npx flakeproof measure --cmd "node job.js" --trials 42`.')
    expect(INDEPENDENCE_TEXT.en.decide('npx vitest run a.test.ts -- --flaky-rounds 3', (c) => `<code>${c}</code>`)).toBe('Decide it with fresh-state runs: <code>npx vitest run a.test.ts -- --flaky-rounds 3</code>.')
  })
})
