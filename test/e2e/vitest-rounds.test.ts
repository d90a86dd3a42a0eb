import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import { TestFactSchema } from '../../src/artifacts/test-schemas.js'
import { type CliResult, readArtifact, ROOT, runFlakeproofVitest, runVitest, tempDir, VITEST_FIXTURE } from '../utils.js'

const FIXTURE = join(ROOT, 'test/fixtures/vitest-rounds')
const SELF = 'tests/self-polluting.test.ts > registers a plugin once'
const BY_ROUND = 'tests/by-round.test.ts > reads a fresh cache'
const CRASH = 'tests/crash.test.ts > ends its worker in round 2'
const AFTER_CRASH = 'tests/crash.test.ts > runs after the crashing test'
const STABLE = 'tests/stable.test.ts > always passes'

describe('flakeproof vitest --flaky-rounds 6 --flaky-repeat 3', () => {
  const out = tempDir()
  let result: CliResult
  const rateOf = (id: string) => readArtifact(join(out, 'rate.json'), RateFileSchema).tests?.find((t) => t.id === id)

  beforeAll(async () => {
    const args = ['--flaky-rounds', '6', '--flaky-repeat', '3', '--flaky-out', out, '--flaky-out-anywhere']
    result = await runFlakeproofVitest(args, { FIXTURE_STATE: tempDir() }, FIXTURE)
  }, 120_000)

  it('gives a self-polluting test its true rate from rounds, beside its repetition pattern', () => {
    // PFF in each of 6 rounds: 12 of 18 repetitions fail, the first of every round passes.
    expect(rateOf(SELF)).toMatchObject({ trials: 18, failures: 12, verdict: 'non-idempotent', fresh: { trials: 6, failures: 0, failure_rounds: [] } })
    expect(rateOf(SELF)?.independence).toMatchObject({ pattern: 'one-switch', switch_at: 2, switched_to: 'failed' })
    // Wrapped to the terminal's 80 columns: read with its lines joined.
    expect(result.stdout.replace(/\n +/g, ' ')).toContain('With fresh module state (its first execution in each of 6 rounds) it failed 0 of 6')
  })

  it('counts a failure that follows the round: every third load of its file, all repetitions', () => {
    // Loads 3 and 6 of 6 fail all 3 repetitions: 6 of 18, fresh 2 of 6 in rounds 3 and 6.
    expect(rateOf(BY_ROUND)).toMatchObject({ trials: 18, failures: 6, verdict: 'flaky', fresh: { trials: 6, failures: 2, failure_rounds: [3, 6] } })
    expect(rateOf(STABLE)).toMatchObject({ trials: 18, failures: 0, verdict: 'stable', fresh: { trials: 6, failures: 0 } })
  })

  it('calls the tests of a file whose worker died in one round partial, never stable or broken', () => {
    // Round 2 killed the worker in the first repetition: 5 rounds × 3 + that one; the next test lost round 2.
    expect(rateOf(CRASH)).toMatchObject({ trials: 16, failures: 1, verdict: 'partial', fresh: { failure_rounds: [2] } })
    expect(rateOf(AFTER_CRASH)).toMatchObject({ trials: 15, failures: 0, verdict: 'partial' })
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect(rate.complete).toBe(false)
    expect(rate.requested_trials).toBe(18)
    expect(rate.run_errors?.some((e) => e.error.startsWith('round 2: '))).toBe(true)
  })

  it('writes round and repeat on every fact, rounds × repetitions', () => {
    const facts = readFileSync(join(out, 'facts.jsonl'), 'utf8').trim().split('\n').map((l) => TestFactSchema.parse(JSON.parse(l)))
    const self = facts.filter((f) => f.test_id === SELF)
    expect(self.map((f) => [f.round, f.repeat, f.outcome[0]])).toEqual(
      [1, 2, 3, 4, 5, 6].flatMap((r) => [[r, 0, 'p'], [r, 1, 'f'], [r, 2, 'f']]),
    )
    expect(self.map((f) => f.trial)).toEqual(Array.from({ length: 18 }, (_, i) => i + 1))
    expect(facts).toHaveLength(18 * 3 + 16 + 15)
  })

  it('prints each round as it ends and one table at the end', () => {
    for (const k of [1, 2, 3, 4, 5]) expect(result.stdout).toContain(`[flakeproof] round ${k} of 6 done`)
    expect(result.stdout.match(/ flakeproof \d+ test\(s\)/g)).toHaveLength(1)
  })
})

describe('--flaky-rounds 2 under GitHub Actions (test/fixtures/vitest-flaky)', () => {
  it("annotates a broken test with Vitest's own github-actions reporter once, from the first round, beside flakeproof's", async () => {
    // GitHub shows 10 error annotations a step: one per round would crowd out the rest.
    const args = ['--flaky-rounds', '2', '--flaky-repeat', '2', '--flaky-out', tempDir(), '--flaky-out-anywhere', '--config', 'vitest.plain.config.ts', 'tests/counter.test.ts']
    const result = await runFlakeproofVitest(args, { GITHUB_ACTIONS: 'true' }, VITEST_FIXTURE)
    const errors = result.stdout.split('\n').filter((line) => line.startsWith('::error '))
    expect(errors.filter((line) => line.includes('title=tests/counter.test.ts > always fails,'))).toHaveLength(1)
    expect(errors.filter((line) => line.includes('title=flakeproof%3A broken test always fails::'))).toHaveLength(1)
    expect(result.stdout.match(/Test Files /g)).toHaveLength(2)
  }, 120_000)
})

describe('rounds start each with fresh module state', { timeout: 60_000 }, () => {
  it.each([
    ['isolated (default)', []],
    ['--no-isolate', ['--no-isolate']],
  ])('%s: a PF pattern in every round is non-idempotent, never flaky', async (_name, extra) => {
    const out = tempDir()
    const args = ['--flaky-rounds', '3', '--flaky-repeat', '2', ...extra, '--flaky-out', out, '--flaky-out-anywhere', 'tests/self-polluting.test.ts', 'tests/stable.test.ts']
    await runFlakeproofVitest(args, { FIXTURE_STATE: tempDir() }, FIXTURE)
    const self = readArtifact(join(out, 'rate.json'), RateFileSchema).tests?.find((t) => t.id === SELF)
    // P F in each of 3 rounds: the first execution of every round passes, so module state was fresh.
    expect(self).toMatchObject({ trials: 6, failures: 3, verdict: 'non-idempotent', fresh: { trials: 3, failures: 0 } })
  })

  it('the plugin option in vitest run: `-- --flaky-rounds 2`', async () => {
    const out = tempDir()
    await runVitest(['run', 'tests/stable.test.ts', '--', '--flaky-rounds', '2', '--flaky-out', out, '--flaky-out-anywhere'], { FIXTURE_STATE: tempDir() }, FIXTURE)
    expect(readArtifact(join(out, 'rate.json'), RateFileSchema).tests?.find((t) => t.id === STABLE)).toMatchObject({ trials: 2, failures: 0, fresh: { trials: 2 } })
  })
})
