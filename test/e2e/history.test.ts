import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { HistoryFileSchema, HistoryRecordSchema } from '../../src/artifacts/history-schemas.js'
import { PolicyFileSchema, ProofFileSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { type CliResult, readArtifact, ROOT, runCli, runFlakeproofVitest, runVitest, tempDir } from '../utils.js'

const FIXTURE = join(ROOT, 'test/fixtures/vitest-history')
const ALTERNATING = 'tests/everyday.test.ts > fails every second run'
const RETRIED = 'tests/everyday.test.ts > passes only on retry'
const STABLE = 'tests/everyday.test.ts > always passes'

describe('history from five ordinary Vitest runs with flakeproof/reporter alone', () => {
  const root = tempDir()
  const env = { FIXTURE_OUT: join(root, 'out'), FIXTURE_STATE: join(root, 'state') }
  const analysed = join(root, 'analysed')
  const codes: (number | null)[] = []
  let result: CliResult

  beforeAll(async () => {
    for (let run = 1; run <= 5; run++) codes.push((await runVitest(['run'], env, FIXTURE)).code)
    result = await runCli(['history', '--glob', join(root, 'out/history/*.jsonl'), '--out', analysed])
  }, 240_000)

  it('leaves one history file per run, one line per test, with what the run knew', () => {
    // The alternating test fails runs 2 and 4 (its counter is even), so Vitest fails those runs.
    expect(codes).toEqual([0, 1, 0, 1, 0])
    const files = readdirSync(join(root, 'out/history'))
    expect(files).toHaveLength(5)
    const lines = readFileSync(join(root, 'out/history', files.sort()[1] as string), 'utf8').trim().split('\n').map((l) => HistoryRecordSchema.parse(JSON.parse(l)))
    expect(lines.map((l) => [l.test_id, l.outcome, l.retries])).toEqual([
      [ALTERNATING, 'failed', 0],
      [RETRIED, 'flaky', 1],
      [STABLE, 'passed', 0],
    ])
    expect(lines[0]?.os).toBe(process.platform)
  })

  it('gives the test failing every second run 2/5 with its interval, and counts the retried one as a flake', () => {
    expect(result.code, result.stderr).toBe(0)
    const history = readArtifact(join(analysed, 'history.json'), HistoryFileSchema)
    expect(history.runs).toBe(5)
    const byId = (id: string) => history.tests.find((t) => t.id === id)
    // Wilson 95% for 2 of 5, by hand (docs/contracts.md §2): [0.1176, 0.7693].
    expect(byId(ALTERNATING)).toMatchObject({ runs: 5, trials: 5, failures: 2, flakes: 0, verdict: 'flaky' })
    expect(byId(ALTERNATING)?.ci_low).toBeCloseTo(0.1176, 4)
    expect(byId(ALTERNATING)?.ci_high).toBeCloseTo(0.7693, 4)
    // Each run: one failed attempt, then a pass on the retry: 5 of 10 attempts, never broken.
    expect(byId(RETRIED)).toMatchObject({ runs: 5, trials: 10, failures: 5, flakes: 5, verdict: 'flaky' })
    expect(byId(STABLE)).toMatchObject({ trials: 5, failures: 0, verdict: 'stable' })
    expect(JSON.parse(result.stdout)).toEqual(history)
  })

  it('writes rate.json and policy.json in the shapes of a measuring run', () => {
    const rate = readArtifact(join(analysed, 'rate.json'), RateFileSchema)
    // Every run had a failed attempt (the retried test fails its first attempt each time).
    expect([rate.trials, rate.failures]).toEqual([5, 5])
    const policy = readArtifact(join(analysed, 'policy.json'), PolicyFileSchema)
    expect(Object.keys(policy.tests ?? {}).sort()).toEqual([ALTERNATING, RETRIED, STABLE].sort())
  })

  it('lets --flaky-proof prove the flaky tests it found, as from a measurement', async () => {
    const proof = await runFlakeproofVitest(['--flaky-proof', '--flaky-out', analysed, '--flaky-out-anywhere'], env, FIXTURE)
    const file = readArtifact(join(analysed, 'proof.json'), ProofFileSchema)
    const policy = readArtifact(join(analysed, 'policy.json'), PolicyFileSchema)
    expect(Object.keys(file.tests ?? {}).sort()).toEqual([ALTERNATING, RETRIED].sort())
    expect(file.tests?.[ALTERNATING]).toMatchObject({ status: 'ran', required: policy.tests?.[ALTERNATING]?.green_runs_required })
    // Neither is fixed: the proof fails, and says so with the run's exit code.
    expect(file.passed).toBe(false)
    expect(proof.code).toBe(1)
    // The fixture's own reporter ran beside the plugin: a proof run is no everyday run, so no sixth file.
    expect(readdirSync(join(root, 'out/history'))).toHaveLength(5)
  }, 120_000)
})
