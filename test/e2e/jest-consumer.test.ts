import { createHash } from 'node:crypto'
import { existsSync, cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { CommittedPolicySchema } from '../../src/artifacts/committed-policy-schema.js'
import { ConditionsFileSchema } from '../../src/artifacts/conditions-schema.js'
import { ProofFileSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { JEST_CONSUMER_MATRIX, type ModuleKind, prepareJestConsumer, prepareJestTransformsConsumer } from '../jest-consumers.js'
import { SNAPSHOT_MODES, snapshotCounts, snapshotHashes, snapshotSummary } from '../jest-snapshot-files.js'
import { type CliResult, readArtifact, ROOT, runNodeIn } from '../utils.js'

/**
 * The "Done when" of the Jest adapter, as a user meets it: a fresh project installs the packed
 * package beside Jest 29 or 30, names the reporter and setup file in its config (or runs
 * `flakeproof jest` on a config without them), and gets the same exact counts, CommonJS or ESM.
 */
const INSTALL_TIMEOUT = 600_000

/**
 * 20 copies of every test of test/fixtures/jest-flaky: the counters make these exact (calls 5, 10,
 * 15, 20 of the first fail; the odd calls of `passes on retry`).
 */
const MEASURED = {
  'fails on every fifth call': [20, 4, 'flaky'],
  'always fails': [20, 20, 'broken'],
  'always passes': [20, 0, 'stable'],
  'behaviours > matches its snapshot': [20, 0, 'stable'],
  'behaviours > waits on fake timers': [20, 0, 'stable'],
  'behaviours > imported from @jest/globals': [20, 0, 'stable'],
  'fails as declared': [20, 0, 'stable'],
  // retryTimes is off while measuring: odd calls fail.
  'passes on retry': [20, 10, 'flaky'],
  'adds 1': [20, 0, 'stable'],
  'adds 3': [20, 0, 'stable'],
  'passes before a failing afterAll': [20, 0, 'stable'],
}

function countsIn(path: string): Record<string, unknown> {
  const rate = readArtifact(path, RateFileSchema)
  return Object.fromEntries((rate.tests ?? []).map((t) => [t.name, [t.trials, t.failures, t.verdict]]))
}

const rows = JEST_CONSUMER_MATRIX.flatMap((jest) => (['cjs', 'esm'] as ModuleKind[]).map((kind) => ({ jest, kind })))

/** Each project prepared once (prepareJestConsumer empties its output folders), for every suite that uses it. */
const prepared = new Map<string, Promise<string>>()
function ready(jest: string, kind: ModuleKind): Promise<string> {
  let project = prepared.get(`${jest} ${kind}`)
  if (!project) {
    project = prepareJestConsumer(jest, kind)
    project.catch(() => {}) // reported by each suite's own beforeAll
    prepared.set(`${jest} ${kind}`, project)
  }
  return project
}

// The rows run at once, each in a project folder of its own; one row's tests run in order, as they share its folder.
describe.concurrent.each(rows)('a fresh $kind project with the packed flakeproof and jest $jest', ({ jest, kind }) => {
  let dir: string
  beforeAll(async () => {
    dir = await ready(jest, kind)
  }, INSTALL_TIMEOUT)
  // Native ESM in Jest needs Node's vm modules, as Jest's documentation says.
  const env: Record<string, string> = kind === 'esm' ? { NODE_OPTIONS: '--experimental-vm-modules --no-warnings' } : {}
  const jestBin = (args: string[], extra: Record<string, string> = {}) => runNodeIn(dir, [join(dir, 'node_modules/jest/bin/jest.js'), ...args], { ...env, ...extra })
  const wrapper = (args: string[], extra: Record<string, string> = {}) =>
    runNodeIn(dir, [join(dir, 'node_modules/flakeproof/dist/src/cli/bin.js'), 'jest', ...args], { ...env, ...extra })
  const snapshots = () => Object.fromEntries(readdirSync(join(dir, 'tests/__snapshots__')).map((n) => [n, readFileSync(join(dir, 'tests/__snapshots__', n), 'utf8')]))

  it.sequential('the reporter and runner in the config: exact counts with FLAKEPROOF_REPEAT=20, the load error recorded, snapshots untouched', async () => {
    const before = snapshots()
    const measured = await jestBin(['--config', 'jest.config.cjs', '--ci'], { FLAKEPROOF_REPEAT: '20' })
    expect(measured.stdout + measured.stderr).toContain('FLAKY')
    expect(measured.code).toBe(1)
    expect(countsIn(join(dir, '.flakeproof/rate.json'))).toMatchObject(MEASURED)
    const rate = readArtifact(join(dir, '.flakeproof/rate.json'), RateFileSchema)
    expect(rate.complete).toBe(false)
    expect(rate.run_errors?.map((e) => e.file).sort()).toEqual(['tests/after-all.test.js', 'tests/throws.test.js'])
    expect(rate.tests?.filter((t) => t.name === 'same name').map((t) => t.id)).toEqual(['tests/counter.test.js > same name', 'tests/counter.test.js > same name (#2)'])
    expect(snapshots()).toEqual(before)
  }, 240_000)

  it.sequential('`flakeproof jest` on a config without flakeproof: the same counts, the user reporter kept, and the proof', async () => {
    const common = ['--flaky-out', 'wrapped', '--config', 'jest.plain.config.cjs', 'tests/counter.test.js']
    const measured = await wrapper(['--flaky-repeat', '20', ...common])
    // counter.test.js: 8 tests × 20 copies, and its skipped and todo tests once each (Jest reports them, uncopied).
    expect(measured.stderr).toContain('user reporter: 162 tests')
    expect(measured.code).toBe(1) // the broken test
    expect(countsIn(join(dir, 'wrapped/rate.json'))).toMatchObject({ 'fails on every fifth call': [20, 4, 'flaky'], 'always passes': [20, 0, 'stable'] })
    // Its file ran again: a control with the 20 copies, then 3 plain runs, each of its 8 tests once, in
    // this Jest (8 × 20 + 3 × 8 lines): the broken test failed there too.
    const broken = readArtifact(join(dir, 'wrapped/rate.json'), RateFileSchema).tests?.find((t) => t.name === 'always fails')
    expect(broken?.plain_evidence).toMatchObject({ rounds: 3, budget: 3, plain: { trials: 3, failures: 3 }, control: { trials: 20, failures: 20 }, decided: 'broken' })
    expect(readFileSync(join(dir, 'wrapped/evidence_facts.jsonl'), 'utf8').trim().split('\n')).toHaveLength(184)

    const proof = await wrapper(['--flaky-proof', ...common])
    expect(proof.code).toBe(1)
    // The counter starts again at 1 in a new run: the 14 copies required (from 4/20 = 0.2: 0.8^14 = 0.044 <= 0.05) fail at calls 5 and 10.
    expect(readArtifact(join(dir, 'wrapped/proof.json'), ProofFileSchema)).toMatchObject({ passed: false, failures: 2 })
  }, 240_000)

  it.sequential('`flakeproof jest` on a config that already lists the reporter and runner adds neither twice', async () => {
    const measured = await wrapper(['--flaky-repeat', '10', '--flaky-out', 'wrapped', '--config', 'jest.config.cjs', 'tests/counter.test.js'])
    expect(measured.stderr.match(/ flakeproof \d+ test\(s\)/g)).toHaveLength(1)
    // 8 tests run in counter.test.js, 10 copies each: one fact per copy, none doubled.
    expect(readFileSync(join(dir, 'wrapped/facts.jsonl'), 'utf8').trim().split('\n')).toHaveLength(80)
    expect(countsIn(join(dir, 'wrapped/rate.json'))).toMatchObject({ 'fails on every fifth call': [10, 2, 'flaky'] })
  }, 120_000)

  // 100 copies of the CI fixture, measured once for the two tests below (each writes its own policy from measured/rate.json),
  // under GitHub Actions for the second's annotations and step summary: GitHub's variables change what a run prints, not what it measures.
  let measured: Promise<CliResult> | undefined
  const measuredCi = () => {
    const ci = join(dir, 'ci')
    if (!measured) rmSync(join(ci, 'summary.md'), { force: true })
    measured ??= runNodeIn(ci, [join(dir, 'node_modules/flakeproof/dist/src/cli/bin.js'), 'jest', '--flaky-repeat', '100', '--flaky-out', 'measured'], {
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: join(ci, 'summary.md'),
      GITHUB_WORKSPACE: ci,
    })
    return measured
  }

  it.runIf(kind === 'cjs').sequential('the CI features: rounds with divergence and shuffle, JUnit, budget, the committed policy enforced', async () => {
    const ci = join(dir, 'ci')
    const flakeproof = (args: string[], extra: Record<string, string> = {}) => runNodeIn(ci, [join(dir, 'node_modules/flakeproof/dist/src/cli/bin.js'), 'jest', ...args], extra)
    const FLAKY = 'tests/ci.test.js > flaky: fails every fifth call'
    const FRAGILE = 'tests/ci.test.js > fragile: fails every fourth call'

    // 2 rounds × (base, serial) × 10 copies, each round's counters from 1: calls 5 and 10 fail, 8/40; fresh 0/4.
    const rounds = await flakeproof(['--flaky-rounds', '2', '--flaky-divergence', '--flaky-shuffle', '--flaky-seed', '5', '--flaky-repeat', '10', '--flaky-junit', 'rounds.xml', '--flaky-out', 'rounds'])
    expect(rounds.code).toBe(0)
    expect(readArtifact(join(ci, 'rounds/rate.json'), RateFileSchema).tests?.find((t) => t.id === FLAKY)).toMatchObject({ trials: 40, failures: 8, fresh: { trials: 4, failures: 0 } })
    expect(readArtifact(join(ci, 'rounds/conditions.json'), ConditionsFileSchema).rounds.map((r) => [r.condition, r.seed])).toEqual([
      ['base', 5],
      ['serial', 6],
      ['base', 7],
      ['serial', 8],
    ])
    expect(readFileSync(join(ci, 'rounds.xml'), 'utf8')).toContain('<testsuite name="flakeproof" tests="3" failures="0"')

    const budget = await flakeproof(['--flaky-budget', '2s', '--flaky-out', 'budget'])
    const planned = /repeating (\d+) times/.exec(budget.stderr)
    expect(readArtifact(join(ci, 'budget/rate.json'), RateFileSchema).trials).toBe(Number(planned?.[1]))

    expect((await measuredCi()).code).toBe(0)
    const policy = await runNodeIn(ci, [join(dir, 'node_modules/flakeproof/dist/src/cli/bin.js'), 'policy', '--from', 'measured/rate.json', '--write', 'flakeproof.policy.json'])
    expect(policy.code).toBe(0)
    const broke = await flakeproof(['--flaky-enforce', '--flaky-update-policy', '--flaky-out', 'enforced'], { FIXTURE_FLAKY_START: '4', FIXTURE_BREAK: '1' })
    expect(broke.code).toBe(1)
    expect(broke.stdout).toContain(`↻ ${FLAKY}  passed after 1 of its 2 retries`)
    expect(broke.stdout).toContain(`! ${FRAGILE}  quarantined in flakeproof.policy.json`)
    const quarantined = await flakeproof(['--flaky-enforce', '--flaky-out', 'enforced'], { FIXTURE_BREAK: '1' })
    expect(quarantined.code).toBe(0)
    expect(quarantined.stdout).toContain(`◌ ${FRAGILE}  failed: FRAGILE_BROKEN: the cache never warmed`)
  }, 600_000)

  it.runIf(kind === 'cjs').sequential('the other CI features: load, GitHub, the committed policy proven and released, history of everyday runs, previous_test', async () => {
    const ci = join(dir, 'ci')
    const bin = join(dir, 'node_modules/flakeproof/dist/src/cli/bin.js')
    const flakeproof = (args: string[], extra: Record<string, string> = {}) => runNodeIn(ci, [bin, 'jest', ...args], extra)
    const FLAKY = 'tests/ci.test.js > flaky: fails every fifth call'
    const FRAGILE = 'tests/ci.test.js > fragile: fails every fourth call'

    // Two rounds (base, load) of 5 copies; call 5 of each round fails: 2/10.
    const load = await flakeproof(['--flaky-load', '--flaky-load-procs', '1', '--flaky-repeat', '5', '--flaky-out', 'load'])
    expect(load.code).toBe(0)
    expect(readArtifact(join(ci, 'load/rate.json'), RateFileSchema).tests?.find((t) => t.id === FLAKY)).toMatchObject({ trials: 10, failures: 2 })
    expect(readArtifact(join(ci, 'load/conditions.json'), ConditionsFileSchema).rounds.map((r) => r.condition)).toEqual(['base', 'load'])

    // The 100 copies under GitHub Actions (measuredCi): 20/100 and 25/100 flaky, a warning at each one's line, the step summary.
    const github = await measuredCi()
    expect(github.code).toBe(0)
    expect(github.stdout + github.stderr).toContain('::warning file=tests/ci.test.js,line=8,title=flakeproof%3A flaky test flaky%3A fails every fifth call::')
    expect(github.stdout + github.stderr).toContain('::warning file=tests/ci.test.js,line=13,title=flakeproof%3A flaky test fragile%3A fails every fourth call::')
    expect(readFileSync(join(ci, 'summary.md'), 'utf8')).toContain('**2 flaky, 0 broken** of 3 tests, 100 rounds')
    // Each test's first copy follows the last copy of the test before it in the file (one worker, in order).
    const facts = readFileSync(join(ci, 'measured/facts.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { test_id: string; previous_test: string | null; previous_file?: string | null })
    expect(facts.find((f) => f.test_id === FRAGILE)).toMatchObject({ previous_test: FLAKY, previous_file: 'tests/ci.test.js' })

    // The committed policy, from those 100 copies (20/100 and 25/100), `fragile` quarantined as an enforced run would:
    // a fresh checkout's proof of it runs 11 copies (0.75¹¹ = 0.042 ≤ 0.05), calls 4 and 8 fail, the quarantine stays.
    const policyPath = join(ci, 'committed.policy.json')
    expect((await runNodeIn(ci, [bin, 'policy', '--from', 'measured/rate.json', '--write', policyPath])).code).toBe(0)
    const policy = readArtifact(policyPath, CommittedPolicySchema)
    expect(policy.tests[FLAKY]).toMatchObject({ trials: 100, failures: 20, green_runs_required: 14 })
    // Without the measurement's conditions (an entry written before they were recorded): what this test proves is the
    // release itself; the machine's load, which the suite's other files change from minute to minute, is
    // test/e2e/proof-strength.test.ts's to hold still and compare.
    policy.tests[FRAGILE] = { ...(policy.tests[FRAGILE] as NonNullable<(typeof policy.tests)[string]>), measured_under: undefined, quarantine: { since: '2026-01-01', reason: 'failed beyond its retry budget', evidence: ['FRAGILE_BROKEN'] } }
    writeFileSync(policyPath, `${JSON.stringify(policy, null, 2)}\n`)
    const fresh = ['--flaky-proof', '--flaky-update-policy', '--flaky-out', 'fresh', '--flaky-policy', policyPath]
    expect((await flakeproof(fresh)).code).toBe(1)
    expect(readArtifact(join(ci, 'fresh/proof.json'), ProofFileSchema)).toMatchObject({ passed: false, failures: 2, required: 11 })
    const fixed = await flakeproof(fresh, { FIXTURE_FIXED: '1' })
    expect(fixed.code, fixed.stderr).toBe(0)
    expect(readArtifact(policyPath, CommittedPolicySchema).tests[FRAGILE]?.quarantine, fixed.stderr).toBeNull()

    // Two plain runs with the reporter in the config: two history records of three passed tests (call 1 of each counter passes).
    rmSync(join(ci, '.flakeproof'), { recursive: true, force: true })
    for (let run = 0; run < 2; run++) expect((await runNodeIn(ci, [join(dir, 'node_modules/jest/bin/jest.js'), '--config', 'jest.reporter.config.js'])).code).toBe(0)
    const records = readdirSync(join(ci, '.flakeproof/history'))
    expect(records).toHaveLength(2)
    const last = readFileSync(join(ci, '.flakeproof/history', records.sort().at(-1) as string), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { test_id: string; outcome: string })
    expect(last.map((t) => [t.test_id, t.outcome]).sort()).toEqual([
      [FLAKY, 'passed'],
      [FRAGILE, 'passed'],
      ['tests/ci.test.js > steady', 'passed'],
    ])
    // An everyday run writes history only: no facts.jsonl, so a measurement in the folder would stay as it was.
    expect(existsSync(join(ci, '.flakeproof/facts.jsonl'))).toBe(false)
  }, 600_000)
})

// The CommonJS project's own folders (projects/, snapshots-*/, truth/, crash/), beside its row above.
describe.concurrent.each(JEST_CONSUMER_MATRIX)('the fresh cjs project with jest %s: projects, snapshots, runs that end short', (jest) => {
  let dir: string
  beforeAll(async () => {
    dir = await ready(jest, 'cjs')
  }, INSTALL_TIMEOUT)

  it.sequential('projects: each its own ids, setup files and counts; a docblock environment wrapped too', async () => {
    const measured = await runNodeIn(join(dir, 'projects'), [join(dir, 'node_modules/flakeproof/dist/src/cli/bin.js'), 'jest', '--flaky-repeat', '20'])
    expect(measured.code).toBe(0)
    const rate = readArtifact(join(dir, 'projects/.flakeproof/rate.json'), RateFileSchema)
    expect(rate.complete).toBe(true)
    expect(Object.fromEntries((rate.tests ?? []).map((t) => [t.id, [t.trials, t.failures]]))).toEqual({
      '[server] tests/server.test.js > runs with both server setup files': [20, 0],
      '[server] tests/shared.test.js > fails on every fifth call': [20, 4],
      "[server] tests/shared.test.js > sees its project's setup file": [20, 0],
      '[web] tests/docblock.test.js > runs in the environment its docblock names': [20, 5],
      '[web] tests/shared.test.js > fails on every fifth call': [20, 4],
      "[web] tests/shared.test.js > sees its project's setup file": [20, 0],
      '[web] tests/web.test.js > runs with the web setup only': [20, 0],
    })
  }, 240_000)

  it.sequential('snapshots under --ci, the default and -u: five copies change what one plain run of this Jest changes, and nothing else', async () => {
    for (const [name, mode, changes] of SNAPSHOT_MODES) {
      const [plain, repeated] = ['plain', 'repeated'].map((side) => {
        const copy = join(dir, `snapshots-${side}`)
        rmSync(copy, { recursive: true, force: true })
        cpSync(join(ROOT, 'test/fixtures/jest-snapshots'), copy, { recursive: true })
        return copy
      }) as [string, string]
      const before = snapshotHashes(plain)
      const native = await runNodeIn(plain, [join(dir, 'node_modules/jest/bin/jest.js'), ...mode])
      const measured = await runNodeIn(repeated, [join(dir, 'node_modules/flakeproof/dist/src/cli/bin.js'), 'jest', '--flaky-repeat', '5', '--flaky-fail-on-flaky', ...mode])
      expect([name, snapshotHashes(repeated)]).toEqual([name, snapshotHashes(plain)])
      expect([name, snapshotSummary(measured.stderr), measured.code]).toEqual([name, snapshotSummary(native.stderr), native.code])
      // Jest 29 saves a snapshot file holding obsolete entries even under --ci, and with its own header
      // (the fixture's are 30's): plain Jest 29 changes obsolete.test.js.snap in every mode, seen by hand.
      const expected = jest.startsWith('29.') ? [...new Set([...changes, 'tests/__snapshots__/obsolete.test.js.snap'])].sort() : changes
      expect([name, Object.keys(before).filter((f) => before[f] !== snapshotHashes(plain)[f]).sort()]).toEqual([name, expected])
      const rate = readArtifact(join(repeated, '.flakeproof/rate.json'), RateFileSchema)
      expect(rate.tests?.map((t) => [t.name, t.trials, t.failures])).toEqual(expect.arrayContaining(snapshotCounts(mode)))
    }
  }, 600_000)

  it.sequential('no silent endings: a copy calling process.exit(0), a promise rejecting after its test, a worker killed mid-test', async () => {
    const bin = join(dir, 'node_modules/flakeproof/dist/src/cli/bin.js')
    const exited = await runNodeIn(join(dir, 'truth'), [bin, 'jest', '--flaky-repeat', '5', '--flaky-out', 'out', 'tests/exits.test.js'])
    expect(exited.code).toBe(1)
    const cut = readArtifact(join(dir, 'truth/out/rate.json'), RateFileSchema)
    expect(cut.complete).toBe(false)
    expect(cut.run_errors).toEqual([{ project: null, file: null, error: 'Jest stopped before the run ended (exit code 0, raised to 1)' }])
    // Copies 1 and 2 passed; copy 3 ended the process.
    expect(cut.tests?.map((t) => [t.id, t.trials, t.failures, t.verdict])).toEqual([['tests/exits.test.js > exits the process on its third call', 3, 1, 'partial']])

    // A promise left behind rejects after its test ended: Jest 30 fails the test that made it when the block ends (each copy),
    // Jest 29 the test running when it rejects (the first copy of the next test, all five rejections in it). Each as Jest counts.
    const late = await runNodeIn(join(dir, 'truth'), [bin, 'jest', '--flaky-repeat', '5', '--flaky-out', 'late', 'tests/late-rejection.test.js'])
    expect(late.stderr).toContain(jest.startsWith('29.') ? 'Tests:       1 failed, 9 passed, 10 total' : 'Tests:       5 failed, 5 passed, 10 total')
    const lateRate = readArtifact(join(dir, 'truth/late/rate.json'), RateFileSchema)
    expect(lateRate.complete).toBe(true)
    expect(lateRate.tests?.map((t) => [t.name, t.trials, t.failures])).toEqual(
      expect.arrayContaining([
        ['a promise left behind > rejects after its test ended', 5, jest.startsWith('29.') ? 0 : 5],
        ['a promise left behind > waits while it rejects', 5, jest.startsWith('29.') ? 1 : 0],
      ]),
    )
    // Jest 29's next test is non-idempotent (its first copy fails in every fresh process): its next step
    // keeps the test before it, where a fresh process of it alone (`-t`) read 0 of 10 (docs/benchmarks.md).
    const said = (late.stdout + late.stderr).replace(/ \\\n\s*/g, ' ').replace(/\s+/g, ' ')
    if (jest.startsWith('29.')) expect(said).toContain('each test of its file once a run: npx flakeproof jest --flaky-rounds 20 --flaky-repeat 1 tests/late-rejection.test.js')

    const killed = await runNodeIn(join(dir, 'crash'), [bin, 'jest', '--flaky-repeat', '10', '--maxWorkers=2', '--flaky-out', 'out'])
    expect(killed.code).toBe(1)
    const crash = readArtifact(join(dir, 'crash/out/rate.json'), RateFileSchema)
    expect(crash.complete).toBe(false)
    // Copies 1–3 passed, copy 4 killed its worker.
    expect(crash.tests?.map((t) => [t.id, t.trials, t.failures, t.verdict])).toEqual([
      ['tests/crash.test.js > ends its worker on the fourth call', 4, 1, 'partial'],
      ['tests/fine.test.js > fine', 10, 0, 'stable'],
    ])
    expect(crash.run_errors?.[0]).toMatchObject({ file: 'tests/crash.test.js', error: expect.stringContaining('SIGKILL') })
  }, 240_000)
})

/**
 * Issue 18 item 8: the transforms and the environment of the suites flakeproof was tried on — ts-jest
 * (class-validator), babel-jest (luxon), @swc/jest under jsdom (react-hook-form) — as three projects
 * of test/fixtures/jest-transforms, on Jest 29 and 30, installed as a user installs them. Plain Jest
 * is the oracle for which tests exist; the snapshot and test files must be untouched under `--ci`.
 * 20 copies each: the fifth-call counters fail at calls 5, 10, 15 and 20 (4 of 20); the rest never fail.
 */
const TRANSFORMS_MEASURED = {
  '[ts] ts/validator.test.ts > validate > accepts a long enough name': [20, 0],
  '[ts] ts/validator.test.ts > validate > names the field of a short name': [20, 0],
  '[ts] ts/validator.test.ts > validate > fails on every fifth call': [20, 4],
  '[babel] babel/dates.test.js > toISODate > formats 0 as 1970-01-01': [20, 0],
  // Date.UTC(2024, 1, 29) = 19782 days × 86 400 000 ms.
  '[babel] babel/dates.test.js > toISODate > formats 1709164800000 as 2024-02-29': [20, 0],
  '[babel] babel/dates.test.js > toISODate > fails on every fifth call': [20, 4],
  '[swc] swc/form.test.js > form > shows the error after its debounce': [20, 0],
  '[swc] swc/form.test.js > form > renders the empty form': [20, 0],
  '[swc] swc/form.test.js > form > fails on every fifth call': [20, 4],
}

/** sha256 of the test files (inline snapshots) and snapshot files, by path. */
function transformsHashes(dir: string): Record<string, string> {
  const files = ['ts/validator.test.ts', 'babel/dates.test.js', 'swc/form.test.js', ...['ts', 'swc'].flatMap((p) => readdirSync(join(dir, p, '__snapshots__')).map((n) => `${p}/__snapshots__/${n}`))]
  return Object.fromEntries(files.map((f) => [f, createHash('sha256').update(readFileSync(join(dir, f))).digest('hex')]))
}

// Each Jest version's transforms project runs at once with the other's (folders of their own), beside the rows above.
describe.each(JEST_CONSUMER_MATRIX)('ts-jest, babel-jest and @swc/jest under jsdom, on jest %s', { concurrent: true }, (jest) => {
  let dir: string
  beforeAll(async () => {
    dir = await prepareJestTransformsConsumer(jest)
  }, INSTALL_TIMEOUT)

  it('every project\'s tests by id, exact counts, Jest\'s own totals and the snapshot files untouched', async () => {
    const before = transformsHashes(dir)
    const plain = await runNodeIn(dir, [join(dir, 'node_modules/jest/bin/jest.js'), '--ci'])
    expect(plain.stderr).toContain('Tests:       9 passed, 9 total')
    expect(plain.stderr).toContain('Snapshots:   3 passed, 3 total')
    const measured = await runNodeIn(dir, [join(dir, 'node_modules/flakeproof/dist/src/cli/bin.js'), 'jest', '--flaky-repeat', '20', '--ci'])
    // 9 tests × 20 copies; 3 fifth-call tests × 4 failed copies.
    expect(measured.stderr).toContain('Tests:       12 failed, 168 passed, 180 total')
    expect(measured.code).toBe(0) // flaky, none broken: advisory
    const rate = readArtifact(join(dir, '.flakeproof/rate.json'), RateFileSchema)
    expect(rate.complete).toBe(true)
    expect(rate.run_errors ?? []).toEqual([])
    expect(Object.fromEntries((rate.tests ?? []).map((t) => [t.id, [t.trials, t.failures]]))).toEqual(TRANSFORMS_MEASURED)
    expect(transformsHashes(dir)).toEqual(before)
  }, 480_000)
})
