import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ProofFileSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { type Consumer, CONSUMER_MATRIX, type ConsumerVersion, copyFixture, prepareConsumer } from '../consumers.js'
import { type CliResult, readArtifact, runNodeIn } from '../utils.js'

/**
 * The "Done when" of the Vitest adapter, as a user meets it: a fresh project that installs the
 * packed package next to Vitest, adds flakeproof() to its plugins (or runs `flakeproof vitest`),
 * measures and proves, with the same exact counts on every supported Vitest (CONSUMER_MATRIX).
 */

/** First install of all versions (browser mode's too), in parallel (a few minutes on a cold npm cache); later runs only reinstall flakeproof. */
const INSTALL_TIMEOUT = 600_000

/**
 * The unit of the tests' time limits (twice it for three Vitest runs, three times for six or for
 * Chromium): the seven rows below run at once, so each test shares the machine with six others.
 */
const SLOW = 160_000

/** Each version's project (browser mode's packages with it), installed once for its row and its browser row: every install starts in the first beforeAll. */
const installs = new Map<string, Promise<Consumer>>()
function ready(version: ConsumerVersion): Promise<Consumer> {
  let install = installs.get(version.vitest)
  if (!install) {
    install = prepareConsumer(version)
    install.catch(() => {}) // reported by the row's own beforeAll
    installs.set(version.vitest, install)
  }
  return install
}

beforeAll(async () => {
  await Promise.allSettled(CONSUMER_MATRIX.map((version) => ready(version)))
}, INSTALL_TIMEOUT)

/**
 * 20 repetitions of every test of the fixture: the counters make these exact (calls 5, 10, 15, 20
 * fail). The proofs that follow plan from the observed rate 4/20 = 0.2: 14 green runs each
 * (0.8^14 = 0.044 <= 0.05 < 0.8^13 = 0.055), 28 for the two flaky tests.
 */
const MEASURED = {
  'fails on every fifth call': [20, 4, 'flaky'],
  'races when called quickly': [20, 4, 'flaky'],
  'always fails': [20, 20, 'broken'],
  'always passes': [20, 0, 'stable'],
  'expected failure': [20, 0, 'stable'],
  snapshot: [20, 0, 'stable'],
}

function countsIn(path: string): Record<string, unknown> {
  const rate = readArtifact(path, RateFileSchema)
  return Object.fromEntries((rate.tests ?? []).map((t) => [t.name, [t.trials, t.failures, t.verdict]]))
}

/** Vitest says which version runs; and nothing we do may make it print a deprecation warning. */
function expectCleanRun(result: CliResult, vitestVersion: string): void {
  expect(result.stdout).toContain(` v${vitestVersion} `)
  expect(`${result.stdout}${result.stderr}`).not.toMatch(/deprecat/i)
}

const rows = CONSUMER_MATRIX.map((version) => ({ ...version, on: `Node ${version.node ?? process.versions.node}` }))

// The versions run at once, each in a project folder of its own (and so do the browser rows below);
// one version's tests run in order, as they share its folder.
describe.concurrent.each(rows)('a fresh project with the packed flakeproof and vitest $vitest on $on', (version) => {
  let consumer: Consumer
  beforeAll(async () => {
    consumer = await ready(version)
  }, INSTALL_TIMEOUT)
  const vitest = (args: string[], env: Record<string, string> = {}) =>
    runNodeIn(consumer.dir, [join(consumer.dir, 'node_modules/vitest/vitest.mjs'), ...args], env, consumer.node)
  const wrapper = (args: string[], env: Record<string, string> = {}) =>
    runNodeIn(consumer.dir, [join(consumer.dir, 'node_modules/flakeproof/dist/src/cli/bin.js'), 'vitest', ...args], env, consumer.node)

  it.sequential('measures exact per-test counts, and the proof passes for the fixed test and fails for the flaky one', async () => {
    const measured = await vitest(['run', '--', '--flaky-repeat', '20'])
    expectCleanRun(measured, version.vitest)
    expect(measured.code).toBe(1) // the broken test
    expect(countsIn(join(consumer.dir, '.flakeproof/rate.json'))).toMatchObject(MEASURED)
    // Its file ran again: a control with the 20 repetitions, then 3 plain runs, each of its three tests
    // once, whatever this Vitest hands its workers (3 × 20 + 3 × 3 lines): it failed there too.
    const broken = readArtifact(join(consumer.dir, '.flakeproof/rate.json'), RateFileSchema).tests?.find((t) => t.name === 'always fails')
    expect(broken?.plain_evidence).toMatchObject({ rounds: 3, budget: 3, plain: { trials: 3, failures: 3 }, control: { trials: 20, failures: 20 }, decided: 'broken' })
    expect(readFileSync(join(consumer.dir, '.flakeproof/evidence_facts.jsonl'), 'utf8').trim().split('\n')).toHaveLength(69)

    const flaky = await vitest(['run', '--', '--flaky-proof'])
    expectCleanRun(flaky, version.vitest)
    expect(flaky.code).toBe(1)
    expect(readArtifact(join(consumer.dir, '.flakeproof/proof.json'), ProofFileSchema).passed).toBe(false)

    const fixed = await vitest(['run', '--', '--flaky-proof'], { FIXTURE_FIXED: '1' })
    expectCleanRun(fixed, version.vitest)
    expect(fixed.code).toBe(0)
    expect(readArtifact(join(consumer.dir, '.flakeproof/proof.json'), ProofFileSchema)).toMatchObject({ passed: true, trials: 28, failures: 0 })
  }, 2 * SLOW)

  it.sequential('`flakeproof vitest` gives the same counts and proofs on a config without the plugin', async () => {
    const common = ['--flaky-out', 'wrapped', '--config', 'vitest.plain.config.ts']
    const measured = await wrapper(['--flaky-repeat', '20', ...common])
    expectCleanRun(measured, version.vitest)
    expect(measured.code).toBe(1)
    expect(countsIn(join(consumer.dir, 'wrapped/rate.json'))).toMatchObject(MEASURED)

    const flaky = await wrapper(['--flaky-proof', ...common])
    expectCleanRun(flaky, version.vitest)
    expect(flaky.code).toBe(1)
    expect(readArtifact(join(consumer.dir, 'wrapped/proof.json'), ProofFileSchema).passed).toBe(false)

    const fixed = await wrapper(['--flaky-proof', ...common], { FIXTURE_FIXED: '1' })
    expectCleanRun(fixed, version.vitest)
    expect(fixed.code).toBe(0)
    expect(readArtifact(join(consumer.dir, 'wrapped/proof.json'), ProofFileSchema)).toMatchObject({ passed: true, trials: 28, failures: 0 })
  }, 2 * SLOW)

  it.sequential("resolves the reporter alone by its package name, 'flakeproof/reporter'", async () => {
    const result = await vitest(['run', '--config', 'vitest.reporter.config.ts'])
    expectCleanRun(result, version.vitest)
    expect(result.code).toBe(1)
    // An everyday run: history only (docs/contracts.md §11), one line per test that ran.
    expect(readdirSync(join(consumer.dir, 'alone'))).toEqual(['history'])
    const [file] = readdirSync(join(consumer.dir, 'alone/history'))
    const lines = readFileSync(join(consumer.dir, 'alone/history', file as string), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { name: string; outcome: string })
    expect(lines.find((l) => l.name === 'always fails')?.outcome).toBe('failed')
  }, SLOW)

  it.sequential('keeps a crashed test, records failures outside tests, writes no snapshot, and covers every project or refuses', async () => {
    const runIn = (dir: string, args: string[], env: Record<string, string> = {}) =>
      runNodeIn(dir, [join(consumer.dir, 'node_modules/vitest/vitest.mjs'), ...args], env, consumer.node)

    const trust = copyFixture(consumer, 'vitest-trust')
    const crashed = await runIn(trust, ['run', '--', '--flaky-repeat', '10'], { FIXTURE_CRASH: '1' })
    expectCleanRun(crashed, version.vitest)
    expect(existsSync(join(trust, '.flakeproof/rate.json')), crashed.stdout + crashed.stderr).toBe(true)
    const rate = readArtifact(join(trust, '.flakeproof/rate.json'), RateFileSchema)
    expect(rate.complete).toBe(false)
    expect(rate.tests?.find((t) => t.name === 'ends its worker on the fourth call')).toMatchObject({ trials: 4, failures: 1, verdict: 'partial' })
    expect(rate.tests?.filter((t) => t.name === 'same name').map((t) => t.id).sort()).toEqual(['tests/names.test.ts > same name', 'tests/names.test.ts > same name (#2)'])

    const fileLevel = copyFixture(consumer, 'vitest-file-level')
    const before = readFileSync(join(fileLevel, 'tests/snapshot.test.ts'), 'utf8')
    const failing = await runIn(fileLevel, ['run', '--', '--flaky-repeat', '3'], { FIXTURE_IMPORT_ERROR: '1', CI: '' })
    expectCleanRun(failing, version.vitest)
    const errors = readArtifact(join(fileLevel, '.flakeproof/rate.json'), RateFileSchema).run_errors?.map((e) => e.file)
    expect(errors).toEqual(expect.arrayContaining(['tests/import-error.test.ts', 'tests/before-all.test.ts']))
    expect(readFileSync(join(fileLevel, 'tests/snapshot.test.ts'), 'utf8')).toBe(before)
    expect(existsSync(join(fileLevel, 'tests/__snapshots__'))).toBe(false)

    const monorepo = copyFixture(consumer, 'vitest-monorepo')
    const refused = await runIn(monorepo, ['run', '--', '--flaky-repeat', '8'])
    expect(refused.code).toBe(1)
    expect(refused.stdout + refused.stderr).toContain('have config files of their own')
    const wrapped = await runNodeIn(monorepo, [join(consumer.dir, 'node_modules/flakeproof/dist/src/cli/bin.js'), 'vitest', '--flaky-repeat', '8'], {}, consumer.node)
    expectCleanRun(wrapped, version.vitest)
    const projects = readArtifact(join(monorepo, '.flakeproof/rate.json'), RateFileSchema).tests?.map((t) => [t.id, t.trials, t.failures])
    expect(projects).toEqual([
      ['[a] test/same.test.ts > fails every fourth call', 8, 2],
      ['[b] test/same.test.ts > fails every fourth call', 8, 2],
    ])
    const bin = join(consumer.dir, 'node_modules/flakeproof/dist/src/cli/bin.js')
    const narrowed = await runNodeIn(monorepo, [bin, 'vitest', '--flaky-proof', '--project', 'a'], { FIXTURE_FIXED: '1' }, consumer.node)
    expect(narrowed.code, narrowed.stdout + narrowed.stderr).toBe(0)
    const proof = readArtifact(join(monorepo, '.flakeproof/proof.json'), ProofFileSchema).tests
    expect(proof?.['[a] test/same.test.ts > fails every fourth call']).toMatchObject({ status: 'ran', passed: true })
    expect(proof?.['[b] test/same.test.ts > fails every fourth call']).toMatchObject({ status: 'not-selected' })
    const inPackage = join(monorepo, 'packages/a')
    await runNodeIn(inPackage, [bin, 'vitest', '--flaky-repeat', '4'], {}, consumer.node)
    expect(readArtifact(join(inPackage, '.flakeproof/rate.json'), RateFileSchema).tests?.map((t) => t.id)).toEqual(['[a] test/same.test.ts > fails every fourth call'])
  }, 3 * SLOW)
})

/**
 * Browser mode (test/fixtures/vitest-browser, the machine's Chromium) in the fresh project of each
 * Vitest whose browser packages install here (CONSUMER_MATRIX `browser`), in a folder of its own
 * beside that version's row: 3.2 spells the provider `'playwright'`; 4 and 5 take `playwright()`
 * from `@vitest/browser-playwright`.
 */
const BROWSER_ROWS = CONSUMER_MATRIX.filter((version) => version.browser !== undefined).map((version) => ({
  version,
  vitest: version.vitest,
  packages: version.browser,
  ...(version.vitest.startsWith('3.') ? { plugin: 'vitest.v3.config.ts', plain: 'vitest.v3.config.ts' } : { plugin: 'vitest.config.ts', plain: 'vitest.plain.config.ts' }),
}))

/** 12 repetitions of each test of the browser fixture: calls 3, 6, 9, 12 of the click handler fail. */
const BROWSER_MEASURED = {
  '[chromium] tests/counter-button.test.ts > counts a click': [12, 4, 'flaky'],
  '[chromium] tests/counter-button.test.ts > renders a heading': [12, 0, 'stable'],
  '[chromium] tests/counter-button.test.ts > matches its snapshot': [12, 0, 'stable'],
}

describe.concurrent.each(BROWSER_ROWS)('browser mode in a fresh project with vitest $vitest and $packages', ({ version, plugin, plain }) => {
  let consumer: Consumer
  beforeAll(async () => {
    consumer = await ready(version)
  }, INSTALL_TIMEOUT)

  it.sequential('measures exact counts in Chromium through the plugin and through `flakeproof vitest`', async () => {
    const dir = copyFixture(consumer, 'vitest-browser')
    const byId = (path: string) => Object.fromEntries((readArtifact(path, RateFileSchema).tests ?? []).map((t) => [t.id, [t.trials, t.failures, t.verdict]]))
    const measured = await runNodeIn(dir, [join(consumer.dir, 'node_modules/vitest/vitest.mjs'), 'run', '--config', plugin, '--', '--flaky-repeat', '12'], {}, consumer.node)
    expectCleanRun(measured, version.vitest)
    expect(measured.code, measured.stdout + measured.stderr).toBe(0)
    expect(byId(join(dir, '.flakeproof/rate.json'))).toEqual(BROWSER_MEASURED)

    const bin = join(consumer.dir, 'node_modules/flakeproof/dist/src/cli/bin.js')
    const wrapped = await runNodeIn(dir, [bin, 'vitest', '--flaky-repeat', '12', '--flaky-out', 'wrapped', '--config', plain], {}, consumer.node)
    expectCleanRun(wrapped, version.vitest)
    expect(wrapped.code, wrapped.stdout + wrapped.stderr).toBe(0)
    expect(byId(join(dir, 'wrapped/rate.json'))).toEqual(BROWSER_MEASURED)
  }, 3 * SLOW)
})
