import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { FactSchema, PolicyFileSchema, RateFileSchema, RunsNeededFileSchema } from '../../src/artifacts/schemas.js'
import { TestFactSchema } from '../../src/artifacts/test-schemas.js'
import { type CliResult, labCommand, readArtifact, runCli, runVitest, tempDir } from '../utils.js'

/** What must be equal between a merge and one run: every count and what is computed from them. */
function countsIn(dir: string) {
  const rate = readArtifact(join(dir, 'rate.json'), RateFileSchema)
  const policy = readArtifact(join(dir, 'policy.json'), PolicyFileSchema)
  const plan = readArtifact(join(dir, 'runs_needed.json'), RunsNeededFileSchema)
  return {
    rounds: [rate.trials, rate.failures, rate.ci_low, rate.ci_high, rate.verdict],
    tests: (rate.tests ?? []).map((t) => [t.id, t.trials, t.failures, t.ci_low, t.ci_high, t.verdict]).sort(),
    policy: policy.tests,
    plan: plan.tests,
  }
}

describe('flakeproof merge of vitest --shard 1/2 and --shard 2/2', () => {
  const root = tempDir()
  const whole = join(root, 'whole')
  const merged = join(root, 'merged')
  let result: CliResult

  beforeAll(async () => {
    const flags = (out: string) => ['--', '--flaky-repeat', '20', '--flaky-out', out, '--flaky-out-anywhere']
    await runVitest(['run', '--shard', '1/2', ...flags(join(root, 'shard-1'))])
    await runVitest(['run', '--shard', '2/2', ...flags(join(root, 'shard-2'))])
    await runVitest(['run', ...flags(whole)])
    result = await runCli(['merge', join(root, 'shard-*'), '--out', merged])
  }, 240_000)

  it('gives exactly the counts, intervals, plans and policy of one run over both shards', () => {
    expect(result.code, result.stderr).toBe(0)
    const shards = [1, 2].map((i) => readArtifact(join(root, `shard-${i}`, 'rate.json'), RateFileSchema).tests?.length ?? 0)
    expect(shards.every((n) => n > 0)).toBe(true)
    expect(countsIn(merged)).toEqual(countsIn(whole))
    expect(JSON.parse(result.stdout)).toMatchObject({ trials: 20 })
  })

  it('concatenates facts.jsonl, each line naming the shard folder it came from', () => {
    const lines = readFileSync(join(merged, 'facts.jsonl'), 'utf8').trim().split('\n').map((l) => TestFactSchema.parse(JSON.parse(l)))
    const origins = new Set(lines.map((l) => l.origin))
    expect(origins).toEqual(new Set([join(root, 'shard-1'), join(root, 'shard-2')]))
    expect(lines.length).toBe(readFileSync(join(whole, 'facts.jsonl'), 'utf8').trim().split('\n').length)
  })

  it('refuses a folder measured at another confidence, naming it, and writes nothing', async () => {
    const other = join(root, 'other')
    await runVitest(['run', '--shard', '1/2', '--', '--flaky-repeat', '2', '--flaky-confidence', '0.99', '--flaky-out', other, '--flaky-out-anywhere'])
    const refused = await runCli(['merge', join(root, 'shard-1'), other, '--out', join(root, 'refused')])
    expect(refused.code).toBe(2)
    expect(existsSync(join(root, 'refused', 'rate.json'))).toBe(false)
    expect(refused.stderr.trim().split('\n')).toEqual([
      `flakeproof merge: ${other}: measured at confidence 0.99, but ${join(root, 'shard-1')} at 0.95; merge only folders measured at the same --confidence. See \`flakeproof merge --help\`.`,
    ])
  }, 120_000)
})

describe('flakeproof merge of command-mode folders', () => {
  it('adds two collections of the lab job (each failing every fifth call) into one of 40 trials', async () => {
    const root = tempDir()
    // collect and measure of the same trials: `investigate` writes both from one measurement.
    for (const name of ['m1', 'm2']) {
      const state = join(root, `state-${name}`)
      const ran = await runCli(['investigate', '--cmd', labCommand(state), '--fixed-cmd', labCommand(state, '--fixed'), '--trials', '20', '--slow-trials', '1', '--gap-ms', '0', '--out-dir', join(root, name)])
      expect(ran.code, ran.stderr).toBe(0)
    }
    const result = await runCli(['merge', join(root, 'm1'), join(root, 'm2'), '--out', join(root, 'merged')])
    expect(result.code, result.stderr).toBe(0)
    const rate = readArtifact(join(root, 'merged', 'rate.json'), RateFileSchema)
    // Each folder: calls 5, 10, 15, 20 fail (4 of 20); merged 8 of 40, trials 5, 10, 15, 20, 25, 30, 35, 40.
    expect([rate.trials, rate.failures, rate.requested_trials, rate.verdict]).toEqual([40, 8, 40, 'flaky'])
    const only = JSON.parse(readFileSync(join(root, 'merged', 'only_when_fail.json'), 'utf8')) as { failure_trials: number[] }
    expect(only.failure_trials).toEqual([5, 10, 15, 20, 25, 30, 35, 40])
    const facts = readFileSync(join(root, 'merged', 'facts.jsonl'), 'utf8').trim().split('\n').map((l) => FactSchema.parse(JSON.parse(l)))
    expect(facts.map((f) => f.origin)).toEqual([...Array(20).fill(join(root, 'm1')), ...Array(20).fill(join(root, 'm2'))])
  }, 300_000) // 2 × 21 starts of the lab job and three CLIs, 60 s at load 35
})
