import { execFileSync } from 'node:child_process'
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { surefireViolations } from '../junit-schema.js'
import { BIN, ROOT, runNodeIn, tempDir } from '../utils.js'
import { installedBin, installedFlakeproof } from '../projects.js'
import { type JobResult, type JobRuns, readWorkflow, runWorkflow, type StepRun, type Workflow, workflowCommands, workflowProblems } from '../workflow-harness.js'

/**
 * Every workflow in examples/ci, validated and its shell steps run locally against
 * test/fixtures/ci-project (one test file: a test failing every 4th call unless FIXTURE_FIXED=1, and a
 * stable one, broken with FIXTURE_PRICE_BROKEN=1).
 * A workflow without a row below runs once with its inputs' defaults and must come out green.
 * Every row runs at once with the others (each in a project of its own; the harness's runners bound
 * how many jobs run together), so the file takes about as long as its longest chain of runs.
 */
interface Case {
  name: string
  /** Values of `${{ … }}` expressions, by their text. */
  expressions?: Record<string, string>
  /** Added to the steps' environment. */
  env?: Record<string, string>
  /** `flakeproof` runs before the workflow, as earlier work (a committed measurement) would leave them. */
  before?: string[][]
  /** Leaves the project as the workflow's event would find it (a pull request's checkout). */
  prepare?: (project: string) => void
  /** The step that must fail (the run is red); without it the run must be green. */
  failsAt?: string
  /** Jobs that end before their first step (a lost runner, a timeout): see RunOptions.lost. */
  lost?: (job: string, matrix: Record<string, string>) => boolean
  check?: (runs: StepRun[], project: string, jobs: Record<string, JobResult>) => void
  /** actions/cache's store, for a run whose cache another test reads (RunOptions.cache). */
  cache?: string
  /** Matrix combinations shared with the other rows given the same map (RunOptions.reuse). */
  reuse?: JobRuns
  /**
   * 'npm': the steps' `npx` is npm's own, as on GitHub; otherwise the harness's stand-in (RunOptions.npx),
   * which runs the same installed bin without npm's start-up. One row keeps npm's for each bin the
   * examples call through it: `npx flakeproof` (pr-proof's red row), `npx vitest` (pr-attribution's).
   */
  npx?: 'npm'
}

const quick = { 'inputs.rounds || 5': '2', 'inputs.repeat || 40': '20', 'inputs.fail_on_flake || false': 'false', 'inputs.everyday_runs || 3': '1', 'github.run_id': '1' }
const pr = { 'github.base_ref': 'main' }
/** For a row whose assertions need no second round: each round is a whole Vitest run (its workers started again). */
const oneRound = { 'inputs.rounds || 5': '1' }

/**
 * The scheduled nightly run on the default branch, with 10 everyday runs: its own checks are a row of
 * the table, and its cache is the history the pull request of the attribution test below is judged by.
 */
const NIGHTLY_ON_MAIN: Case = {
  name: 'advisory: green with a flaky test, the summary and JUnit written, 10 everyday runs in the history',
  expressions: { ...quick, 'inputs.everyday_runs || 3': '10', 'github.run_id': '41' },
  // A scheduled run is on the default branch.
  env: { GITHUB_REF_NAME: 'main' },
  cache: tempDir('flakeproof-cache-'),
  check: (runs, project) => {
    const summary = readFileSync(runs[0]?.summary as string, 'utf8')
    // Each of 2 rounds starts the counter afresh; every 4th of its 20 calls fails: 10/40, Wilson 95%
    // [14.2%, 40.2%], 11 green runs (ln 0.05 / ln 0.75 = 10.4).
    expect(summary).toContain('| `tests/cart.test.ts > cart total survives a refresh` | 10 of 40 | 25.0% | 14.2% – 40.2% | flaky | 11 |')
    expect(runs.at(-1)?.stdout).toContain('flaky: "tests/cart.test.ts > cart total survives a refresh" (10/40)')
    expect(surefireViolations(readFileSync(join(project, '.flakeproof/flaky-junit.xml'), 'utf8'))).toEqual([])
    // Each everyday run joined the history the next pull request is judged by: one file each.
    expect(runs.find((r) => r.step === 'Everyday runs')?.stdout).toContain('history files: 10')
  },
}

/** The shard jobs both sharded rows run alike (all but the lost one): run once, merged by each. */
const SHARDS: JobRuns = new Map()

const CASES: Record<string, Case[]> = {
  'nightly-flake-detection.yml': [
    NIGHTLY_ON_MAIN,
    // One round is enough for a verdict: 5 of its 20 calls fail, some but not all, so flaky (src/core/verdict.ts).
    { name: 'fail_on_flake: red with a flaky test', expressions: { ...quick, ...oneRound, 'inputs.fail_on_flake || false': 'true' }, failsAt: 'Verdict' },
    {
      name: 'a test named to inject workflow commands: the Verdict step prints it as JSON text, and no command but its own',
      expressions: { ...quick, ...oneRound, 'inputs.fail_on_flake || false': 'true' },
      prepare: (project) => injectingTest(project, 'flaky'),
      failsAt: 'Verdict',
      check: (runs) => {
        const verdict = runs.find((r) => r.step === 'Verdict') as StepRun
        expect(workflowCommands(verdict.stdout + verdict.stderr).map((c) => [c.command, c.data])).toEqual([['error', '2 test(s) flaky or broken, and fail_on_flake is set']])
        // One round of 20 calls, every 4th failing: 5/20.
        expect(verdict.stdout).toContain(`flaky: ${JSON.stringify(INJECTING_ID).replace('##[', '#\\u0023[')} (5/20)`)
      },
    },
    // Fixed, no call fails: 0 of 20 in one round, stable.
    { name: 'fail_on_flake: green once it is fixed', expressions: { ...quick, ...oneRound, 'inputs.fail_on_flake || false': 'true' }, env: { FIXTURE_FIXED: '1' } },
  ],
  'torture.yml': [
    { name: 'red while the test is flaky', expressions: { 'inputs.test': 'tests/cart', 'inputs.count': '100' }, failsAt: 'Torture' },
    {
      name: 'green for the fixed test, 100 repetitions',
      expressions: { 'inputs.test': 'tests/cart', 'inputs.count': '100' },
      env: { FIXTURE_FIXED: '1' },
      check: (runs) => expect(runs.at(-1)?.stdout).toContain('failed repetitions: 0'),
    },
    {
      name: 'red at the deterministic check for a test that always fails',
      // The file of both tests: the broken one fails all 3 repetitions, the flaky one passes its first 3 calls.
      expressions: { 'inputs.test': 'tests/cart', 'inputs.count': '100' },
      env: { FIXTURE_PRICE_BROKEN: '1' },
      failsAt: 'Deterministic check',
      check: (runs) => expect(runs.at(-1)?.stdout).toContain('failed every repetition: fix it as a normal bug'),
    },
    {
      name: 'a test named to inject workflow commands fails every repetition: one escaped annotation names it',
      expressions: { 'inputs.test': 'tests/injecting', 'inputs.count': '100' },
      prepare: (project) => injectingTest(project, 'broken'),
      failsAt: 'Deterministic check',
      check: (runs) => {
        // Vitest's own reporter prints the name as it is (a test file can print anything); the
        // workflow's line is the annotation, whose text the runner unescapes back to the id.
        const ours = workflowCommands(runs.at(-1)?.stdout ?? '').filter((c) => c.properties === 'title=flakeproof')
        expect(ours.map((c) => c.data)).toEqual([`${INJECTING_ID} failed every repetition: fix it as a normal bug`])
      },
    },
  ],
  'pr-proof.yml': [
    { name: 'green with nothing committed to prove', expressions: pr, check: (runs) => expect(runs[0]?.stdout).toContain('nothing to prove') },
    {
      name: 'green when the PR fixes the quarantined test it touches',
      expressions: pr,
      prepare: (project) => pullRequest(project, 'tests/cart.test.ts'),
      env: { FIXTURE_FIXED: '1' },
      check: (runs, project) => {
        expect(runs[0]?.stdout).toContain(`${CART}  11 of 11 runs, 0 failed`)
        expect(readFileSync(runs[0]?.summary as string, 'utf8')).toContain('### Proof: **passed**')
        expect(surefireViolations(readFileSync(join(project, '.flakeproof/proof-junit.xml'), 'utf8'))).toEqual([])
      },
    },
    { name: 'red when the touched quarantined test still fails', expressions: pr, prepare: (project) => pullRequest(project, 'tests/cart.test.ts'), failsAt: 'Proof run', npx: 'npm' },
    {
      name: 'green when the PR does not touch the quarantined test',
      expressions: pr,
      // A test file of its own, added by the PR: it runs (Vitest's --changed), and holds no quarantined test.
      prepare: (project) => pullRequest(project, 'tests/checkout.test.ts'),
      check: (runs) => {
        expect(readFileSync(runs[0]?.summary as string, 'utf8')).toContain(`| \`${CART}\` | not-selected | 0 | passed |`)
        expect(runs[0]?.stdout).toContain('this pull request touches no quarantined test: nothing to prove')
      },
    },
  ],
  'sharded-measure.yml': [
    {
      name: '10 jobs of 20 repetitions merged into one measurement of 200',
      expressions: { 'inputs.repeat || 1000': '20' },
      reuse: SHARDS,
      check: (runs, project) => {
        // Each job restarts the fixture's counter: 5 of every 20 calls fail, so 10 jobs give 50/200,
        // Wilson 95% [19.5%, 31.4%] (the same figure as one run of 200, README "GitHub Actions and JUnit").
        const rate = JSON.parse(readFileSync(join(project, 'merged/rate.json'), 'utf8')) as { tests: { name: string; trials: number; failures: number }[] }
        expect(rate.tests.map((t) => [t.name, t.failures, t.trials])).toEqual([
          ['cart total survives a refresh', 50, 200],
          ['prices add up', 0, 200],
        ])
        expect(readFileSync(runs.at(-1)?.summary as string, 'utf8')).toContain('Merged 10 of 10 shards.')
        expect(readFileSync(runs.at(-1)?.summary as string, 'utf8')).toContain('50 of 200')
      },
    },
    {
      name: 'one job lost (a runner gone, a timeout): the merge still runs, over the 9 others, and says so',
      expressions: { 'inputs.repeat || 1000': '20' },
      reuse: SHARDS,
      lost: (job, matrix) => job === 'measure' && matrix.shard === '3',
      check: (runs, project, jobs) => {
        expect(jobs).toEqual({ measure: 'failure', merge: 'success' })
        // 9 jobs of 20 calls, 5 failing in each: 45/180.
        const rate = JSON.parse(readFileSync(join(project, 'merged/rate.json'), 'utf8')) as { tests: { name: string; trials: number; failures: number }[] }
        expect(rate.tests.map((t) => [t.name, t.failures, t.trials])).toEqual([
          ['cart total survives a refresh', 45, 180],
          ['prices add up', 0, 180],
        ])
        const merge = runs.find((r) => r.step === 'Merge') as StepRun
        expect(workflowCommands(merge.stdout).map((c) => [c.command, c.data])).toEqual([['warning', '9 of 10 shards finished; the merged counts are theirs alone']])
        expect(readFileSync(merge.summary, 'utf8')).toContain('Merged 9 of 10 shards.')
      },
    },
  ],
}

const DIR = join(ROOT, 'examples/ci')
const files = readdirSync(DIR).filter((name) => name.endsWith('.yml') || name.endsWith('.yaml'))
/** Each workflow parsed once: some twenty runs read them (runWorkflow does not change what it is given). */
const parsed = new Map<string, Workflow>()
function workflowOf(file: string): Workflow {
  let workflow = parsed.get(file)
  if (workflow === undefined) {
    workflow = readWorkflow(join(DIR, file))
    parsed.set(file, workflow)
  }
  return workflow
}

describe('examples/ci workflows', () => {
  it('are all found', () => {
    expect(files).toEqual(expect.arrayContaining(Object.keys(CASES)))
  })

  it.each(files)('%s is valid YAML of a runnable, injection-safe workflow, ready to copy', (file) => {
    expect(workflowProblems(workflowOf(file))).toEqual([])
  })

  it('names what makes a workflow not ready to copy (the sharded example as it was before issue 21)', () => {
    const old: Workflow = {
      name: 'old',
      on: { workflow_dispatch: {} },
      jobs: {
        measure: {
          'runs-on': 'ubuntu-latest',
          strategy: { matrix: { shard: [1, 2] } },
          steps: [{ uses: 'actions/setup-node@v4', with: { 'node-version': 20 } }, { uses: 'actions/upload-artifact@v4', with: { name: 'a', path: 'a' } }],
        },
        merge: { needs: 'measure', 'runs-on': 'ubuntu-latest', 'timeout-minutes': 5, steps: [{ name: 'Merge', shell: 'bash', run: 'set -euo pipefail\necho ${{ matrix.shard }}' }] },
      },
    }
    expect(workflowProblems(old)).toEqual([
      'no `permissions` (the token would get the repository default, often write)',
      'no `concurrency` (two runs on one branch would race)',
      "job measure: no timeout-minutes (GitHub's default is 6 hours)",
      'job measure, step 1: actions/setup-node@v4, not its current major v7',
      'job measure, step 1: node-version 20 must be one of 22, 24',
      'job measure, step 2: actions/upload-artifact@v4, not its current major v7',
      'job measure, step 2: no retention-days (GitHub keeps artifacts 90 days by default)',
      'job merge: needs the matrix job measure without `if: ${{ !cancelled() }}`, so one failed combination loses them all',
      'job merge, step Merge: an expression is pasted into the script; pass it through env:',
    ])
  })
})

// Rows run at once: a timeout covers a row's wait for the harness's runners as well as its own runs.
describe.each(files)('%s: its shell steps, run locally', { timeout: 600_000, concurrent: true }, (file) => {
  it.each(CASES[file] ?? [{ name: 'with its defaults', npx: 'npm' }])('$name', async (c) => {
    const { runs, project, jobs } = await runCase(file, c)
    const failed = runs.filter((r) => r.code !== 0)
    const shown = runs.map((r) => `${r.job} / ${r.step}: exit ${r.code}\n${r.stdout}${r.stderr}`).join('\n')
    expect(runs.length, shown).toBeGreaterThan(0)
    expect(failed.map((r) => r.step), shown).toEqual(c.failsAt === undefined ? [] : [c.failsAt])
    c.check?.(runs, project, jobs)
  })
})

describe('the nightly history reaches a pull request\'s attribution (actions cache)', { timeout: 600_000, concurrent: true }, () => {
  it('a PR that breaks a test that passed 10 nightly everyday runs: new-failure in the step summary, the job red', async () => {
    // The nightly row's run (the same one, whichever test asks first), and its cache.
    const { runs: nightly } = await runCase('nightly-flake-detection.yml', NIGHTLY_ON_MAIN)
    expect(nightly.filter((r) => r.code !== 0).map((r) => `${r.step}: ${r.stdout}${r.stderr}`)).toEqual([])
    // The pull request's checkout starts without .flakeproof: only the cache brings the history.
    const pr = projectCopy()
    const { steps: runs } = await runWorkflow(workflowOf('pr-attribution.yml'), {
      cwd: pr,
      cache: NIGHTLY_ON_MAIN.cache as string,
      env: { npm_config_offline: 'true', FIXTURE_PRICE_BROKEN: '1', GITHUB_BASE_REF: 'main', GITHUB_HEAD_REF: 'fix-prices' },
      expressions: {},
      npx: 'installed',
    })
    expect(runs.filter((r) => r.code !== 0).map((r) => r.step)).toEqual(['Tests'])
    const tests = runs.find((r) => r.step === 'Tests')
    // 0 of 10 runs failed on main: Jeffreys 0.5/11 = 4.5% < 5%. Wilson 95% upper end 3.8416/13.8416 = 27.8%.
    expect(tests?.stdout).toContain('new-failure   tests/cart.test.ts > prices add up: new failure: 0/10 on main [0.0%, 27.8%]; a failure had a 4.5% chance')
    expect(readFileSync(tests?.summary as string, 'utf8')).toContain('| `tests/cart.test.ts > prices add up` | new-failure: 0/10 on main, 4.5% |')
    expect(existsSync(join(pr, '.flakeproof/attribution.json'))).toBe(true)
  })
})

// --- helpers ---

interface Outcome {
  runs: StepRun[]
  project: string
  jobs: Record<string, JobResult>
}

const outcomes = new Map<Case, Promise<Outcome>>()

/** A row's workflow run in a project of its own, started once however many tests read it. */
function runCase(file: string, c: Case): Promise<Outcome> {
  let outcome = outcomes.get(c)
  if (outcome === undefined) {
    outcome = (async () => {
      const project = projectCopy()
      for (const args of c.before ?? []) expect((await runNodeIn(project, [BIN, ...args])).code, args.join(' ')).not.toBe(2)
      c.prepare?.(project)
      const { steps: runs, jobs } = await runWorkflow(workflowOf(file), {
        cwd: project,
        env: { npm_config_offline: 'true', ...c.env },
        expressions: c.expressions ?? {},
        npx: c.npx ?? 'installed',
        ...(c.lost ? { lost: c.lost } : {}),
        ...(c.cache ? { cache: c.cache } : {}),
        ...(c.reuse ? { reuse: c.reuse } : {}),
      })
      return { runs, project, jobs }
    })()
    outcomes.set(c, outcome)
  }
  return outcome
}

/** A test whose name would start workflow commands if printed raw: a newline, then `::error::`, and `##[add-mask]`. */
const INJECTING_NAME = 'counts\n::error::INJECTED ##[add-mask]MASKED'
const INJECTING_ID = `tests/injecting.test.ts > ${INJECTING_NAME}`

/** Adds tests/injecting.test.ts: flaky (fails every 4th call, as the cart test) or broken (fails every call). */
function injectingTest(project: string, kind: 'flaky' | 'broken'): void {
  const fails = kind === 'flaky' ? 'calls % 4 === 0' : 'true'
  writeFileSync(
    join(project, 'tests/injecting.test.ts'),
    [
      "import { test } from 'vitest'",
      '',
      '// Deterministic: a counter, never Math.random.',
      'let calls = 0',
      `test(${JSON.stringify(INJECTING_NAME)}, () => {`,
      '  calls++',
      `  if (${fails}) throw new Error(\`failed on call \${calls}\`)`,
      '})',
      '',
    ].join('\n'),
  )
}

const CART = 'tests/cart.test.ts > cart total survives a refresh'

/**
 * A pull request's checkout: `main` (pushed to `origin`) commits a policy in which the cart test is
 * quarantined (11 green runs required: 5/20 measured, 0.75¹¹ = 0.042 ≤ 0.05), and the PR's one commit
 * edits `touched`, or adds it as a test file of one stable test.
 */
function pullRequest(project: string, touched: string): void {
  const policy = {
    schema_version: 1,
    confidence: 0.95,
    tests: {
      [CART]: {
        project: '', file: 'tests/cart.test.ts', name: 'cart total survives a refresh',
        trials: 20, failures: 5, rate: 0.25, ci_low: 0.1119, ci_high: 0.4687, verdict: 'flaky',
        retry_budget: 3, quarantine_after: 3, green_runs_required: 11, failed_runs: 3,
        quarantine: { since: '2026-11-02', reason: 'failed beyond its retry budget of 3 in 3 consecutive enforced run(s)', evidence: ['STALE cart on call 4'] },
      },
    },
  }
  writeFileSync(join(project, 'flakeproof.policy.json'), `${JSON.stringify(policy, null, 2)}\n`)
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=ci', '-c', 'user.email=ci@example.invalid', ...args], { cwd: project, stdio: 'pipe' })
  writeFileSync(join(project, '.gitignore'), 'node_modules/\n.flakeproof/\n')
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('commit', '-qm', 'base')
  git('remote', 'add', 'origin', project)
  git('fetch', '-q', 'origin')
  git('checkout', '-qb', 'pr')
  const before = existsSync(join(project, touched)) ? readFileSync(join(project, touched), 'utf8') : "import { expect, test } from 'vitest'\n\ntest('checkout opens', () => {\n  expect(['cart', 'pay']).toContain('pay')\n})\n"
  writeFileSync(join(project, touched), `${before}// touched by the pull request\n`)
  git('add', '-A')
  git('commit', '-qm', 'the fix')
}

/** A fresh copy of the fixture project, with flakeproof and Vitest installed as `npm ci` would leave them (offline). */
function projectCopy(): string {
  const project = tempDir('flakeproof-ci-')
  cpSync(join(ROOT, 'test/fixtures/ci-project'), project, { recursive: true })
  const modules = join(project, 'node_modules')
  mkdirSync(join(modules, '.bin'), { recursive: true })
  symlinkSync(join(ROOT, 'node_modules/vitest'), join(modules, 'vitest'))
  // As npm links a package's bin: relative, into the package.
  symlinkSync('../vitest/vitest.mjs', join(modules, '.bin/vitest'))
  symlinkSync(installedFlakeproof(), join(modules, 'flakeproof'))
  const bin = join(modules, '.bin/flakeproof')
  writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" "${installedBin()}" "$@"\n`)
  chmodSync(bin, 0o755)
  if (!existsSync(join(project, 'tests'))) throw new Error('the fixture project has no tests')
  return project
}
