import { parseCLI } from 'vitest/node'
import { describe, expect, it } from 'vitest'
import { packagesVitestNeeds, setVitestEnv, vitestRunArgs } from '../../plugin/vitest/_vitest-start.js'

// What `vitest run` does between parsing and createVitest (Vitest's normalizeCliOptions and
// prepareVitest, 3.2 to 5.x), on Vitest's own parser; test/e2e/wrapped-as-native.test.ts runs each
// through `flakeproof vitest`.
describe('vitestRunArgs: the arguments of `flakeproof vitest` as `vitest run` hands them to Vitest', () => {
  it.each([
    // [arguments, what the options hold, what they leave unset]
    [[], { watch: false, run: true }, ['exclude', 'cliExclude', 'includeTaskLocation', 'typecheck']],
    [['--exclude', 'a/**'], { cliExclude: ['a/**'] }, ['exclude']],
    [['--exclude', 'a/**', '--exclude', 'b/**'], { cliExclude: ['a/**', 'b/**'] }, ['exclude']],
    [['tests/a.test.ts:12'], { includeTaskLocation: true }, []],
    [['tests/a.test.ts'], {}, ['includeTaskLocation']],
    [['--typecheck.only'], { typecheck: { only: true, enabled: true } }, []],
    [['--typecheck.only', '--typecheck.enabled=false'], { typecheck: { only: true, enabled: false } }, []],
    [['--watch=false'], { watch: false, run: true }, []],
    // Vitest drops --standalone beside file filters (prepareVitest) and runs them.
    [['--standalone', 'tests/a.test.ts'], { run: true }, ['standalone']],
    // `vitest related --run <files>`: the tests that import them.
    [['related', 'src/a.ts'], { related: ['src/a.ts'], passWithNoTests: true, run: true }, []],
  ])('%j → %j', (args, expected, unset) => {
    const { options } = vitestRunArgs(parseCLI, args)
    expect(options).toMatchObject(expected)
    for (const key of unset) expect(options).not.toHaveProperty(key)
  })

  it('keeps the file filters as given', () => {
    expect(vitestRunArgs(parseCLI, ['tests/a.test.ts:12', 'b']).filter).toEqual(['tests/a.test.ts:12', 'b'])
    expect(vitestRunArgs(parseCLI, ['related', 'src/a.ts']).filter).toEqual([])
  })

  it.each([
    [['--watch'], '--watch: flakeproof vitest runs the tests once'],
    [['-w'], '--watch: flakeproof vitest runs the tests once'],
    [['--standalone'], '--standalone: flakeproof vitest runs the tests once'],
    [['--mergeReports'], '--mergeReports: merging Vitest blob reports runs no test'],
    [['--mergeReports', 'blobs'], '--mergeReports: merging Vitest blob reports runs no test'],
    [['--clearCache'], "--clearCache: clearing Vitest's cache runs no test"],
    [['--listTags'], '--listTags: listing tags runs no test'],
    [['--listTags=json'], '--listTags: listing tags runs no test'],
    // Vitest's other commands, which it reads before any file filter.
    [['watch'], '`vitest watch` is not one run of the tests'],
    [['bench', 'a.bench.ts'], '`vitest bench` is not one run of the tests'],
    [['list'], '`vitest list` is not one run of the tests'],
  ])('refuses %j: not one run of the tests', (args, message) => {
    expect(() => vitestRunArgs(parseCLI, args)).toThrow(expect.objectContaining({ code: 'E_USAGE', message: expect.stringContaining(message) }))
  })
})

describe('setVitestEnv', () => {
  it.each([
    [{}, { TEST: 'true', VITEST: 'true', NODE_ENV: 'test' }],
    // A NODE_ENV the user set is kept, as `vitest run` keeps it.
    [{ NODE_ENV: 'production' }, { TEST: 'true', VITEST: 'true', NODE_ENV: 'production' }],
  ])('%j → %j', (given, expected) => {
    const env: NodeJS.ProcessEnv = { ...given }
    setVitestEnv(env)
    expect(env).toEqual(expected)
  })
})

describe('packagesVitestNeeds: what `vitest run` checks is installed before any test runs', () => {
  const none = { coverage: undefined, environment: undefined }
  it.each([
    [{}, none],
    [{ coverage: { enabled: true, provider: 'v8' } }, { ...none, coverage: '@vitest/coverage-v8' }],
    [{ coverage: { enabled: true, provider: 'istanbul' }, environment: 'happy-dom' }, { coverage: '@vitest/coverage-istanbul', environment: 'happy-dom' }],
    [{ coverage: { enabled: false, provider: 'v8' }, environment: 'jsdom' }, { ...none, environment: 'jsdom' }],
    // A custom provider and a path are the user's modules; `node` needs nothing.
    [{ coverage: { enabled: true, provider: 'custom' }, environment: 'node' }, none],
    [{ environment: 'edge-runtime' }, { ...none, environment: '@edge-runtime/vm' }],
    [{ environment: './my-environment.ts' }, none],
  ])('%j → %j', (config, expected) => {
    expect(packagesVitestNeeds(config)).toEqual(expected)
  })
})
