import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ObserverFileSchema, ProofFileSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { stripAnsi } from '../../src/core/ansi.js'
import { BIN, type CliResult, factsIn, readArtifact, ROOT, runNodeIn, tempDir } from '../utils.js'

const FIXTURE = join(ROOT, 'test/fixtures/jest-flaky')
const EXAMPLE = join(ROOT, 'examples/jest-basic')
const JEST = join(ROOT, 'node_modules/jest/bin/jest.js')
const SNAPSHOTS = join(FIXTURE, 'tests/__snapshots__')
const FLAKY = 'tests/counter.test.js > fails on every fifth call'

const flakeproofJest = (args: string[], env: Record<string, string> = {}, cwd = FIXTURE): Promise<CliResult> => runNodeIn(cwd, [BIN, 'jest', ...args], env)

// Each describe below runs in a project of its own, at once with the others (Vitest runs them concurrently).
describe.concurrent('Jest projects (test/fixtures/jest-projects: web and server, as react-hook-form has them, its config in scripts/jest/)', () => {
  const out = tempDir()
  let result: CliResult
  beforeAll(async () => {
    result = await flakeproofJest(['--flaky-repeat', '20', '--config', './scripts/jest/jest.config.js', '--flaky-out', out, '--flaky-out-anywhere'], {}, join(ROOT, 'test/fixtures/jest-projects'))
  }, 180_000)

  // Files are named from the package, as Jest prints them (`web tests/shared.test.js`), not from
  // Jest's rootDir, the config's folder (`../../tests/shared.test.js`).
  it('gives each project its own ids: a file run by both is two tests, each with its own counts', () => {
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect(rate.tests?.map((t) => [t.id, t.trials, t.failures]).sort()).toEqual([
      // Calls 5, 10, 15, 20 of 20 fail, in each project's run of the file.
      ['[server] tests/server.test.js > runs with both server setup files', 20, 0],
      ['[server] tests/shared.test.js > fails on every fifth call', 20, 4],
      ["[server] tests/shared.test.js > sees its project's setup file", 20, 0],
      // The docblock's environment is used, and its copies are made: calls 4, 8, …, 20 fail.
      ['[web] tests/docblock.test.js > runs in the environment its docblock names', 20, 5],
      ['[web] tests/shared.test.js > fails on every fifth call', 20, 4],
      ["[web] tests/shared.test.js > sees its project's setup file", 20, 0],
      ['[web] tests/web.test.js > runs with the web setup only', 20, 0],
    ])
    expect(rate.complete).toBe(true)
    expect(rate.run_errors ?? []).toEqual([])
  })

  it("keeps each project's own setup files, with no error about them", () => {
    expect(result.stderr).not.toContain('setupFilesAfterEnv')
    expect(result.stderr).toContain('[web] tests/shared.test.js > fails on every fifth call')
  })
})

/**
 * Runs in test/fixtures/jest-flaky share its .flakeproof (the marker of each run, one config's
 * output folder), so they run one after another, beside the other projects' runs.
 */
describe.concurrent('test/fixtures/jest-flaky, one run at a time', { timeout: 120_000 }, () => {
  describe.sequential('one file in two Jest projects without a displayName', () => {
    it('is a run error (the run incomplete), never one test counted twice in silence', async () => {
      const out = tempDir()
      await flakeproofJest(['--config', 'jest.projects.config.js', '--flaky-repeat', '5', '--flaky-out', out, '--flaky-out-anywhere'])
      const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
      expect(rate.complete).toBe(false)
      expect(rate.run_errors?.map((e) => `${e.file}: ${e.error}`)).toContain(
        'tests/counter.test.js: this file ran in two Jest projects both unnamed, whose tests flakeproof cannot tell apart: give each project its own displayName',
      )
    })
  })

  describe.sequential('flakeproof jest --flaky-repeat 200 (Jest 30, the fixture keeps its own reporter and setup file)', () => {
    const out = tempDir()
    const snapshotsBefore = Object.fromEntries(readdirSync(SNAPSHOTS).map((name) => [name, readFileSync(join(SNAPSHOTS, name), 'utf8')]))
    let result: CliResult
    const rateOf = (id: string) => readArtifact(join(out, 'rate.json'), RateFileSchema).tests?.find((t) => t.id === id)

    beforeAll(async () => {
      result = await flakeproofJest(['--flaky-repeat', '200', '--flaky-out', out, '--flaky-out-anywhere'])
    }, 180_000)

    it('counts exactly 40 failures in 200 copies of a test failing every fifth call, and 200/200 for one always failing', () => {
      // Calls 5, 10, …, 200 fail: 200 / 5 = 40. Wilson 95% for 40/200: [0.150451, 0.260856] (as the Vitest path).
      expect(rateOf(FLAKY)).toMatchObject({ trials: 200, failures: 40, rate: 0.2, verdict: 'flaky' })
      expect(rateOf(FLAKY)?.ci_low).toBeCloseTo(0.150451, 6)
      expect(rateOf('tests/counter.test.js > always fails')).toMatchObject({ trials: 200, failures: 200, verdict: 'broken' })
    })

    it.each([
      'tests/counter.test.js > always passes',
      'tests/behaviours.test.js > behaviours > matches its snapshot',
      'tests/behaviours.test.js > behaviours > waits on fake timers',
      'tests/behaviours.test.js > behaviours > imported from @jest/globals',
      'tests/counter.test.js > fails as declared',
    ])('counts 0/200 for %s', (id) => {
      expect(rateOf(id)).toMatchObject({ trials: 200, failures: 0, verdict: 'stable' })
    })

    it('turns jest.retryTimes off while measuring, as Vitest\'s retry is: a test failing every odd call fails 100/200', () => {
      // Calls 1, 3, …, 199 fail (retry.test.js); a retry would have turned each into a pass and hidden them.
      expect(rateOf('tests/retry.test.js > passes on retry')).toMatchObject({ trials: 200, failures: 100, verdict: 'flaky' })
    })

    it('gives test.each rows and tests of the same name ids of their own, and never copies skip or todo', () => {
      const ids = readArtifact(join(out, 'rate.json'), RateFileSchema).tests?.map((t) => t.id) ?? []
      expect(ids).toEqual(expect.arrayContaining(['tests/counter.test.js > adds 1', 'tests/counter.test.js > adds 3', 'tests/counter.test.js > same name', 'tests/counter.test.js > same name (#2)']))
      expect(ids).toHaveLength(13)
      expect(ids.some((id) => id.includes('skipped') || id.includes('to do'))).toBe(false)
    })

    it('writes one fact per copy, in the Vitest path\'s format', () => {
      const facts = factsIn(out)
      expect(facts).toHaveLength(13 * 200)
      const flaky = facts.filter((f) => f.test_id === FLAKY)
      expect(flaky.filter((f) => f.outcome === 'failed').map((f) => f.trial)).toEqual(Array.from({ length: 40 }, (_, i) => 5 * (i + 1)))
      expect(flaky[4]?.error).toContain('expect(received).not.toBe(expected)')
    })

    it('records a file that throws at load and an afterAll that throws against their files, and calls the run incomplete', () => {
      const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
      expect(rate.complete).toBe(false)
      const errors = [...(rate.run_errors ?? [])].sort((a, b) => String(a.file).localeCompare(String(b.file)))
      expect(errors).toEqual([
        { project: '', file: 'tests/after-all.test.js', error: expect.stringContaining('teardown failed') },
        { project: '', file: 'tests/throws.test.js', error: 'broken at load' },
      ])
      // The afterAll's file still counts its test's copies, which passed.
      expect(rateOf('tests/after-all.test.js > passes before a failing afterAll')).toMatchObject({ trials: 200, failures: 0 })
    })

    it('leaves the snapshot files byte-identical, and writes none', () => {
      expect(Object.fromEntries(readdirSync(SNAPSHOTS).map((name) => [name, readFileSync(join(SNAPSHOTS, name), 'utf8')]))).toEqual(snapshotsBefore)
    })

    it("keeps the user's reporter and setup file beside flakeproof's, and fails as Jest does on a broken test", () => {
      // 13 tests × 200 copies, plus Jest's own skip and todo entries.
      expect(result.stderr).toContain('user reporter: 2602 tests')
      expect(result.code).toBe(1)
    })
  })

  describe.sequential('the reporter and setup file in a Jest config, turned on by FLAKEPROOF_REPEAT', () => {
    it('counts 4/20 and writes the same files', async () => {
      const out = join(FIXTURE, '.flakeproof')
      rmSync(out, { recursive: true, force: true })
      const result = await runNodeIn(FIXTURE, [JEST, '--config', 'jest.reporter.config.js'], { FLAKEPROOF_REPEAT: '20' })
      expect(result.stderr).toContain('FLAKY')
      // The end of the run suggests Jest's commands only (src/core/hints.ts), never Vitest's.
      const end = result.stderr.slice(result.stderr.lastIndexOf('\n flakeproof '))
      expect(end).toContain('npx flakeproof jest --flaky-proof')
      expect(end).not.toContain('vitest')
      for (const name of ['rate.json', 'facts.jsonl', 'only_when_fail.json', 'runs_needed.json', 'policy.json', 'summary.json', 'flaky_report.md']) {
        expect(existsSync(join(out, name)), name).toBe(true)
      }
      // Calls 5, 10, 15 and 20 of 20 fail (the 200-copy counts are the describe's above).
      expect(readArtifact(join(out, 'rate.json'), RateFileSchema).tests?.find((t) => t.id === FLAKY)).toMatchObject({ trials: 20, failures: 4 })
      rmSync(out, { recursive: true, force: true })
    }, 180_000)

    it('a misspelt reporter option is one line saying what was meant, with no stack', async () => {
      const config = join(tempDir(), 'jest.config.js')
      const reporter = join(ROOT, 'dist/plugin/jest/reporter.js')
      writeFileSync(config, `module.exports = ${JSON.stringify({ rootDir: FIXTURE, testMatch: ['**/tests/counter.test.js'], reporters: ['default', [reporter, { confidense: 0.9 }]] })}\n`)
      const result = await runNodeIn(FIXTURE, [JEST, '--config', config], { FLAKEPROOF_REPEAT: '3' })
      expect(result.code).toBe(1)
      expect(stripAnsi(result.stderr).trim()).toBe('flakeproof: unknown option `confidense` in the flakeproof/jest/reporter options; did you mean `confidence`?')
    }, 120_000)
  })

  describe.sequential('Jest arguments pass through', () => {
    it("-t with an anchored pattern selects the test by its own name; --randomize --seed is recorded", async () => {
      const out = tempDir()
      const result = await flakeproofJest(['--flaky-repeat', '10', '--flaky-out', out, '--flaky-out-anywhere', 'tests/counter.test.js', '-t', 'fifth call$', '--randomize', '--seed', '7'])
      expect(result.code).toBe(0)
      const facts = factsIn(out)
      // Calls 5 and 10 of 10 fail.
      expect(facts.map((f) => f.test_id)).toEqual(Array(10).fill(FLAKY))
      expect(facts.filter((f) => f.outcome === 'failed')).toHaveLength(2)
      expect(new Set(facts.map((f) => f.seed))).toEqual(new Set([7]))
    }, 120_000)
  })

  // Last, and at once: a refusal starts no run (the one flag Jest refuses starts Jest, beside no run of flakeproof's).
  describe.concurrent('flakeproof jest refuses bad input before any test runs', () => {
    it.each([
      [['--flaky-bogus'], 2, 'unknown flag --flaky-bogus'],
      [['--flaky-repet', '5'], 2, 'unknown flag --flaky-repet; did you mean --flaky-repeat? See `flakeproof jest --help`.'],
      [['--flaky-repeat', '0'], 2, '--flaky-repeat must be a whole number from 1 to 1000000 (got 0)'],
      [['--flaky-repeat'], 2, '--flaky-repeat needs a value'],
      [['--flaky-repeat', '5', '--flaky-confidence', '2'], 2, '--flaky-confidence must be a number strictly between 0 and 1 (got 2)'],
      [['--flaky-repeat', '5', '--flaky-out', '../elsewhere'], 2, 'outside the project root'],
      [['--flaky-repeat', '5', '--flaky-junit', '../x.xml'], 2, 'junit (--flaky-junit) "../x.xml" resolves to'],
      [['--flaky-repeat', '5', '--bogus-jest-flag'], 1, 'Unrecognized option "bogus-jest-flag"'],
    ])('%j → exit %i', async (args, code, message) => {
      const result = await flakeproofJest(args)
      expect(result.code).toBe(code)
      expect(result.stderr).toContain(message)
      expect(result.stderr).not.toMatch(/^\s+at /m)
      // flakeproof's own refusals are its one line, not Jest's report of a reporter that failed to load.
      expect(result.stderr).not.toContain('An error occurred while adding the reporter')
    })

    it('says, after Jest refuses an argument in its words, that no test ran and nothing was written', async () => {
      const out = tempDir()
      const result = await flakeproofJest(['--flaky-repeat', '5', '--flaky-out', out, '--flaky-out-anywhere', '--testEnvironment=jest-environment-none-such'])
      expect(result.code).toBe(1)
      expect(result.stderr).toContain('Test environment jest-environment-none-such cannot be found')
      expect(result.stderr).toContain('[flakeproof] no test ran: Jest stopped before the first, and nothing was written')
      expect(readdirSync(out)).toEqual([])
    })

    it('says Jest is missing where it is', async () => {
      const result = await runNodeIn(tempDir(), [BIN, 'jest', '--flaky-repeat', '5'])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('Jest is not installed here')
    })
  })
})

describe.concurrent('a worker killed in the middle of a test', () => {
  it('keeps the copies it finished and counts the fatal one as failed: partial, and the run incomplete', async () => {
    const out = tempDir()
    const result = await flakeproofJest(['--flaky-repeat', '10', '--maxWorkers=2', '--flaky-out', out, '--flaky-out-anywhere'], {}, join(ROOT, 'test/fixtures/jest-crash'))
    expect(result.code).toBe(1)
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect(rate.complete).toBe(false)
    // Copies 1–3 passed, copy 4 killed the worker (as the Vitest path records it: trials 4, failures 1).
    expect(rate.tests?.map((t) => [t.id, t.trials, t.failures, t.verdict])).toEqual([
      ['tests/crash.test.js > ends its worker on the fourth call', 4, 1, 'partial'],
      ['tests/fine.test.js > fine', 10, 0, 'stable'],
    ])
    expect(rate.run_errors?.[0]).toMatchObject({ file: 'tests/crash.test.js', error: expect.stringContaining('SIGKILL') })
  }, 120_000)
})

describe('observe, then proof, on examples/jest-basic', { concurrent: true }, () => {
  const out = tempDir()
  const LIMITER = 'test/rate-limiter.test.js > rate limiter > admits a request under the limit'

  it.sequential('observes the failing test with gaps, and an advisory measurement exits 0', async () => {
    const result = await flakeproofJest(['--flaky-repeat', '200', '--flaky-observe', '--flaky-gap-ms', '10', '--flaky-out', out, '--flaky-out-anywhere'], {}, EXAMPLE)
    expect(result.code).toBe(0)
    const observer = readArtifact(join(out, 'observer.json'), ObserverFileSchema)
    // 40 more calls, 201…240, in 20 gapped/fast pairs ordered by a coin: 205, 210, …, 240 fail, on
    // whichever side each pair's coin put them.
    const observed = observer.tests?.[LIMITER]
    expect(observed).toMatchObject({ slow: { trials: 20, gap_ms: 10 }, paired: { trials: 20 } })
    expect((observed?.slow.failures ?? 0) + (observed?.paired?.failures ?? 0)).toBe(8)
    expect(observer.assignment_seed).toBeGreaterThanOrEqual(0)
  }, 180_000)

  it.sequential('fails the proof of the unfixed code (exit 1) and passes the fixed one (exit 0)', async () => {
    const failed = await flakeproofJest(['--flaky-proof', '--flaky-out', out, '--flaky-out-anywhere'], {}, EXAMPLE)
    expect(failed.code).toBe(1)
    expect(readArtifact(join(out, 'proof.json'), ProofFileSchema).passed).toBe(false)
    const passed = await flakeproofJest(['--flaky-proof', '--flaky-out', out, '--flaky-out-anywhere'], { EXAMPLE_FIXED: '1' }, EXAMPLE)
    expect(passed.code).toBe(0)
    expect(readArtifact(join(out, 'proof.json'), ProofFileSchema)).toMatchObject({ passed: true })
  }, 180_000)

  it.sequential('--flaky-fail-on-flaky makes the same measurement exit 1', async () => {
    const result = await flakeproofJest(['--flaky-repeat', '5', '--flaky-fail-on-flaky', '--flaky-out', tempDir(), '--flaky-out-anywhere'], {}, EXAMPLE)
    expect(result.code).toBe(1)
  }, 120_000)
})
