import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ObserverFileSchema, PolicyFileSchema, ProofFileSchema, RunsNeededFileSchema } from '../../src/artifacts/schemas.js'
import { labCommand, readArtifact, runCli, tempDir } from '../utils.js'

/** A rate.json as `measure` writes it, for the commands that read one. */
function writeRate(dir: string, failures: number, trials: number, ci: [number, number]): string {
  const path = join(dir, 'rate.json')
  const rate = {
    schema_version: 1, command: 'job', trials, failures, rate: trials === 0 ? 0 : Math.min(1, failures / trials), ci_low: ci[0], ci_high: ci[1],
    gap_ms: 0, confidence: 0.95, z: 1.96, verdict: failures === 0 ? 'stable' : failures === trials ? 'broken' : 'flaky',
    timed_out: 0, timeout_ms: null, jobs: 1, complete: true, requested_trials: trials,
    started_at: '2026-11-30T00:00:00.000Z', duration_ms: 1000,
  }
  writeFileSync(path, JSON.stringify(rate))
  return path
}

describe('flakeproof plan', () => {
  it.each([
    // 0.8² = 0.64 exactly: 2, where the float formula says 3 (docs/contracts.md §2).
    ['0.2', '0.36', 2],
    ['0.2', '0.95', 14],
    ['0.1', '0.99', 44], // ceil(ln 0.01 / ln 0.9) = ceil(43.71)
  ])('--rate %s --confidence %s → %i runs', async (rate, confidence, runs) => {
    const result = await runCli(['plan', '--rate', rate, '--confidence', confidence])
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ rate: Number(rate), confidence: Number(confidence), runs })
  })

  it('--from a measurement writes the table for 0.9, 0.95 and 0.99', async () => {
    const dir = tempDir()
    const out = join(dir, 'runs_needed.json')
    const result = await runCli(['plan', '--from', writeRate(dir, 40, 200, [0.150451, 0.260856]), '--out', out])
    expect(result.code).toBe(0)
    expect(readArtifact(out, RunsNeededFileSchema)).toMatchObject({
      observed_rate: 0.2,
      basis: 'observed',
      table: [{ confidence: 0.9, runs: 11 }, { confidence: 0.95, runs: 14 }, { confidence: 0.99, runs: 21 }],
      chosen: { confidence: 0.95, runs: 14 },
    })
  })

  it('answers a rare rate at once: --rate 1e-12 → 2995732273553 (mpmath: ceil(2995732273552.49))', async () => {
    const result = await runCli(['plan', '--rate', '1e-12'])
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ rate: 1e-12, confidence: 0.95, runs: 2995732273553 })
  })

  it('says what an answer beyond 2^53 means instead of crashing (--rate 1e-300)', async () => {
    const result = await runCli(['plan', '--rate', '1e-300'])
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    // ln(0.05) / ln(1 - 1e-300) = 2.9957e300.
    expect(result.stderr).toContain('--rate 1e-300: a fix would need about 3.0e300 consecutive passes, more than 2^53')
  })

  it('--from a rate.json with no trials says so (it used to say "fails every time")', async () => {
    const dir = tempDir()
    const result = await runCli(['plan', '--from', writeRate(dir, 0, 0, [0, 1])])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('no trial ran (trials = 0), so there is nothing to plan from')
    expect(result.stderr).not.toContain('every time')
  })

  it('--from a rate.json with more failures than trials: exit 2, one line, no stack', async () => {
    const dir = tempDir()
    const result = await runCli(['policy', '--from', writeRate(dir, 5, 3, [0, 1]), '--out', join(dir, 'policy.json')])
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(result.stderr).toContain('rate.json: failures: 5 is more than trials (3). Pass a rate.json')
  })

  it('never ends a sentence with two periods', async () => {
    const dir = tempDir()
    const result = await runCli(['plan', '--from', join(dir, 'missing.json')])
    expect(result.code).toBe(2)
    // The hint used to end in `.` and the CLI added `. See …`: "`flakeproof measure`.. See".
    expect(result.stderr).toContain('Pass a rate.json written by `flakeproof measure`. See `flakeproof plan --help`.')
    expect(result.stderr).not.toMatch(/\.\. /)
  })

  it('plans from ci_high when nothing failed, and says so', async () => {
    const dir = tempDir()
    const out = join(dir, 'runs_needed.json')
    // 0/200: ci_high = 0.018846; ln 0.05 / ln(1 - 0.018846) = 157.46 → 158.
    await runCli(['plan', '--from', writeRate(dir, 0, 200, [0, 0.018846]), '--out', out])
    const plan = readArtifact(out, RunsNeededFileSchema)
    expect(plan).toMatchObject({ observed_rate: 0, basis: 'ci_high', planned_rate: 0.018846, chosen: { runs: 158 } })
    expect(plan.note).toContain('ci_high')
  })
})

describe('flakeproof policy', () => {
  it('calculates the retry budget, quarantine and green runs from a measurement', async () => {
    const dir = tempDir()
    const out = join(dir, 'policy.json')
    const result = await runCli(['policy', '--from', writeRate(dir, 40, 200, [0.150451, 0.260856]), '--out', out])
    expect(result.code).toBe(0)
    // 0.2³ = 0.008 <= 0.01 < 0.04 → r = 2; 0.008 <= 0.05 → quarantine after 1; 0.8^14 <= 0.05 → 14.
    expect(readArtifact(out, PolicyFileSchema)).toMatchObject({
      observed_rate: 0.2, confidence: 0.95, green_runs_required: 14, retry_budget: 2, quarantine_after: 1,
    })
  })

  it('decides the retry budget at p = 0.1 exactly (0.1² = 0.01: 1, where floats say 2)', async () => {
    const dir = tempDir()
    const result = await runCli(['policy', '--rate', '0.1', '--out', join(dir, 'policy.json')])
    expect(JSON.parse(result.stdout)).toMatchObject({ retry_budget: 1, green_runs_required: 29 })
  })

  it('gives no retry budget to a rate within 1e-16 of 1, where the budget passes 2^53', async () => {
    const dir = tempDir()
    const result = await runCli(['policy', '--rate', '0.9999999999999999', '--out', join(dir, 'policy.json')])
    expect(result.code).toBe(0)
    const policy = readArtifact(join(dir, 'policy.json'), PolicyFileSchema)
    // ln(0.01) / ln(1 - 1e-16) ≈ 4.6e16 retries > 2^53; one pass already proves a rate below it.
    expect(policy).toMatchObject({ retry_budget: null, quarantine_after: null, green_runs_required: 1 })
    expect(policy.notes.join(' ')).toContain('more than 2^53 retries')
  })

  it('reports a test failing every trial as deterministic: no retry budget helps', async () => {
    const dir = tempDir()
    const out = join(dir, 'policy.json')
    await runCli(['policy', '--from', writeRate(dir, 20, 20, [0.83887, 1]), '--out', out])
    const policy = readArtifact(out, PolicyFileSchema)
    expect(policy).toMatchObject({ retry_budget: null, quarantine_after: null, basis: 'ci_low', green_runs_required: 2 })
    expect(policy.notes.join(' ')).toContain('deterministic')
  })
})

describe('flakeproof observe', () => {
  it('compares a fast measurement with a gapped one by Fisher exact test', async () => {
    const dir = tempDir()
    const out = join(dir, 'observer.json')
    const fast = writeRate(dir, 40, 200, [0.150451, 0.260856])
    const args = ['observe', '--cmd', labCommand(dir), '--fast', fast, '--slow-trials', '5', '--gap-ms', '1600', '--seed', '11', '--out', out]
    const result = await runCli(args)
    expect(result.code).toBe(0)
    const observer = readArtifact(out, ObserverFileSchema)
    // Calls 1…10 in 5 gapped/fast pairs: a gapped call comes 1.6 s after the one before, so the lab's
    // refresh race never fires there (0 of 5); calls 5 and 10 fail only if their pair's coin made them fast.
    expect(observer.fast).toMatchObject({ trials: 200, failures: 40, gap_ms: 0 })
    expect(observer.slow).toMatchObject({ trials: 5, failures: 0, gap_ms: 1600 })
    expect(observer.paired?.trials).toBe(5)
    expect(observer.paired?.failures).toBeLessThanOrEqual(2)
    expect(observer.assignment_seed).toBe(11)
    // Fisher two-sided on [[40,160],[0,5]]: only x = 39 (one slow failure) is more likely than the
    // observed x = 40, so p = 1 − C(200,39)·C(5,1)/C(205,40) = 13670717/23352917 (Python 3, fractions)
    // = 0.5853965481057463 (scipy 1.17.1: scipy.stats.fisher_exact([[40, 160], [0, 5]])[1]).
    expect(observer.p_value).toBeCloseTo(0.5853965481057463, 12)
    // At most 2 of 5 fast against 0 of 5 gapped: Fisher p = 2·C(5,2)/C(10,2) = 20/45 = 0.444 (1 of 5: p = 1), no change.
    expect(observer.changed).toBe(false)
    expect(observer.note).toContain('a seeded coin deciding the order in each pair')
  }, 60_000) // five trials after 1.6 s gaps (8 s of rests), five without, and the lab's node start-ups
})

// Up to 14 starts of the lab job a test, or four CLIs: 12 s at load 35.
describe('flakeproof proof', { timeout: 60_000 }, () => {
  it('passes when the fixed command passes every required run', async () => {
    const dir = tempDir()
    const out = join(dir, 'proof.json')
    const result = await runCli(['proof', '--cmd', labCommand(dir, '--fixed'), '--runs', '14', '--out', out])
    expect(result.code).toBe(0)
    expect(readArtifact(out, ProofFileSchema)).toMatchObject({ required: 14, trials: 14, failures: 0, passed: true, required_from: '--runs' })
  })

  it('fails loudly (exit 1) when any run fails', async () => {
    const dir = tempDir()
    const out = join(dir, 'proof.json')
    const result = await runCli(['proof', '--cmd', labCommand(dir), '--runs', '10', '--out', out])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('proof FAILED: 2 of 10 runs failed (trials 5, 10)')
    expect(readArtifact(out, ProofFileSchema)).toMatchObject({ trials: 10, failures: 2, passed: false, failure_trials: [5, 10] })
  })

  it('takes the required count from runs_needed.json or policy.json', async () => {
    const dir = tempDir()
    const rate = writeRate(dir, 40, 200, [0.150451, 0.260856])
    await runCli(['plan', '--from', rate, '--out', join(dir, 'runs_needed.json')])
    await runCli(['policy', '--from', rate, '--confidence', '0.9', '--out', join(dir, 'policy.json')])
    const fromPlan = await runCli(['proof', '--cmd', 'true', '--plan', join(dir, 'runs_needed.json'), '--out', join(dir, 'a.json')])
    const fromPolicy = await runCli(['proof', '--cmd', 'true', '--policy', join(dir, 'policy.json'), '--out', join(dir, 'b.json')])
    expect(JSON.parse(fromPlan.stdout)).toMatchObject({ required: 14, trials: 14, passed: true, confidence: 0.95 })
    // The policy was decided at 0.9, so the proof's interval is at 0.9 too (it used to be 0.95 always).
    // Wilson 0/11 at 90%: z = 1.6448536269514722 (normal quantile 0.95), high = z²/(n + z²) for k = 0
    // = 2.705543/13.705543 = 0.19740504731951783 (scipy 1.17.1: binomtest(0, 11).proportion_ci(0.9, 'wilson')).
    expect(JSON.parse(fromPolicy.stdout)).toMatchObject({ required: 11, trials: 11, passed: true, confidence: 0.9 })
    // To 8 decimals: src/core/wilson.ts takes z from Acklam's approximation (relative error up to 1.15e-9).
    expect(JSON.parse(fromPolicy.stdout).ci_high).toBeCloseTo(0.19740504731951783, 8)
  })

  it('takes --confidence for its interval', async () => {
    const dir = tempDir()
    const result = await runCli(['proof', '--cmd', 'true', '--runs', '5', '--confidence', '0.99', '--out', join(dir, 'proof.json')])
    expect(result.code).toBe(0)
    // Wilson 0/5 at 99%: z = 2.5758293035489004, high = z²/(n + z²) = 6.634897/11.634897 = 0.5702583210270091
    // (scipy 1.17.1: binomtest(0, 5).proportion_ci(0.99, 'wilson')).
    const proof = readArtifact(join(dir, 'proof.json'), ProofFileSchema)
    expect(proof.confidence).toBe(0.99)
    expect(proof.ci_high).toBeCloseTo(0.5702583210270091, 8) // z from Acklam's approximation, as above
  })
})
