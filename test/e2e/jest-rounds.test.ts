import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConditionsFileSchema } from '../../src/artifacts/conditions-schema.js'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import { fixtureCopy } from '../projects.js'
import { BIN, factsIn, readArtifact, ROOT, runNodeIn, tempDir } from '../utils.js'

/**
 * Whole-run rounds on Jest (issue 18, item 5): `flakeproof jest --flaky-rounds K` runs Jest K times in
 * one process, each run loading every test file anew. test/fixtures/jest-ci's counters live in its
 * test file, so they start at 1 in every round: 10 copies of `flaky` fail calls 5 and 10 in each round.
 */
/** This file's own copy: test/e2e/jest-ci.test.ts runs in the fixture at the same time. */
const FIXTURE = fixtureCopy('jest-ci')
const FLAKY = 'tests/ci.test.js > flaky: fails every fifth call'
const flakeproofJest = (args: string[]) => runNodeIn(FIXTURE, [BIN, 'jest', ...args])

describe('--flaky-rounds 3 --flaky-divergence --flaky-shuffle --flaky-seed 5 --flaky-repeat 10', () => {
  it('runs 6 rounds (base and serial alternating, each reseeded), fresh module state in each', async () => {
    const out = tempDir()
    const result = await flakeproofJest(['--flaky-rounds', '3', '--flaky-divergence', '--flaky-shuffle', '--flaky-seed', '5', '--flaky-repeat', '10', '--flaky-out', out, '--flaky-out-anywhere'])
    expect(result.code).toBe(0)
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect(rate.complete).toBe(true)
    // 6 rounds × 10 copies; calls 5 and 10 of each round fail: 12/60. The first copy of each round
    // (what one plain run sees) never fails: fresh 0/6.
    expect(rate.tests?.find((t) => t.id === FLAKY)).toMatchObject({ trials: 60, failures: 12, verdict: 'flaky', fresh: { trials: 6, failures: 0 } })
    const conditions = readArtifact(join(out, 'conditions.json'), ConditionsFileSchema)
    expect(conditions.rounds).toEqual([
      { round: 1, condition: 'base', seed: 5 },
      { round: 2, condition: 'serial', seed: 6 },
      { round: 3, condition: 'base', seed: 7 },
      { round: 4, condition: 'serial', seed: 8 },
      { round: 5, condition: 'base', seed: 9 },
      { round: 6, condition: 'serial', seed: 10 },
    ])
    // The divergence comparison: 6/30 on each side (parallel rounds 1, 3, 5; serial 2, 4, 6).
    const divergence = conditions.tests?.[FLAKY]?.comparisons.find((c) => c.kind === 'divergence')
    expect([divergence?.a.failures, divergence?.a.trials, divergence?.b.failures, divergence?.b.trials]).toEqual([6, 30, 6, 30])
    // Each fact carries its round, condition and seed (Jest's own --randomize --seed for that round).
    const flaky = factsIn(out).filter((f) => f.test_id === FLAKY)
    expect(flaky.map((f) => [f.round, f.condition, f.seed]).filter((_, i) => i % 10 === 0)).toEqual([
      [1, 'base', 5],
      [2, 'serial', 6],
      [3, 'base', 7],
      [4, 'serial', 8],
      [5, 'base', 9],
      [6, 'serial', 10],
    ])
    expect(flaky.filter((f) => f.outcome === 'failed').map((f) => f.trial)).toEqual([5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60])
  }, 240_000)
})

describe('--flaky-load', () => {
  it('runs a loaded round beside each base round', async () => {
    const out = tempDir()
    const result = await flakeproofJest(['--flaky-load', '--flaky-load-procs', '1', '--flaky-repeat', '5', '--flaky-out', out, '--flaky-out-anywhere'])
    expect(result.code).toBe(0)
    // Two rounds (base, load) of 5 copies; call 5 of each fails: 2/10.
    expect(readArtifact(join(out, 'rate.json'), RateFileSchema).tests?.find((t) => t.id === FLAKY)).toMatchObject({ trials: 10, failures: 2 })
    expect(readArtifact(join(out, 'conditions.json'), ConditionsFileSchema).rounds.map((r) => r.condition)).toEqual(['base', 'load'])
  }, 240_000)
})

describe('--flaky-rounds 2 over a file that fails to load (test/fixtures/jest-flaky)', () => {
  it('runs every round, each round\'s load error named with its round, the run incomplete', async () => {
    const out = tempDir()
    const fixture = join(ROOT, 'test/fixtures/jest-flaky')
    // Under GitHub Actions with Jest's own `github-actions` reporter (after the paths: --reporters takes every word after it).
    const args = ['--flaky-rounds', '2', '--flaky-repeat', '3', '--flaky-out', out, '--flaky-out-anywhere', 'tests/counter.test.js', 'tests/throws.test.js', '--reporters=default', '--reporters=github-actions']
    const result = await runNodeIn(fixture, [BIN, 'jest', ...args], { GITHUB_ACTIONS: 'true' })
    expect(result.code).toBe(1)
    // GitHub shows 10 error annotations a step: Jest's own come from the first round only, and
    // once per test there (1, not one per failed copy of that round: 3), beside flakeproof's one.
    const output = `${result.stdout}\n${result.stderr}`
    expect(output.split('\n').filter((line) => line.startsWith('::error ') && line.includes('title=always fails::'))).toHaveLength(1)
    expect(output).toContain('title=flakeproof%3A broken test always fails::')
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect(rate.complete).toBe(false)
    expect(rate.run_errors).toEqual([
      { project: '', file: 'tests/throws.test.js', error: 'round 1: broken at load' },
      { project: '', file: 'tests/throws.test.js', error: 'round 2: broken at load' },
    ])
    // 2 rounds × 3 copies, each round's counter from 1: calls 1–3 of `fails on every fifth call` pass.
    expect(rate.tests?.find((t) => t.name === 'fails on every fifth call')).toMatchObject({ trials: 6, failures: 0 })
    expect(rate.tests?.find((t) => t.name === 'always fails')).toMatchObject({ trials: 6, failures: 6 })
  }, 240_000)
})
