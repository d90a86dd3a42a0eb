import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  FactSchema,
  ObserverFileSchema,
  OnlyWhenFailFileSchema,
  PolicyFileSchema,
  ProofFileSchema,
  RateFileSchema,
  RunsNeededFileSchema,
  SummaryFileSchema,
} from '../../src/artifacts/schemas.js'
import { type CliResult, labCommand, readArtifact, runCli, tempDir } from '../utils.js'

/**
 * The whole sequence with the documented defaults (200 fast trials, 20 slow at 2000 ms), once; every
 * expected number is worked out by hand (or cited) beside it, never computed with flakeproof's own code.
 */
describe('flakeproof investigate on the lab job', () => {
  const dir = tempDir()
  const out = join(dir, 'out')
  let result: CliResult
  const read = <T>(name: string, schema: { parse: (x: unknown) => T }): T => readArtifact(join(out, name), schema as never) as T

  beforeAll(async () => {
    result = await runCli(['investigate', '--cmd', labCommand(dir), '--fixed-cmd', labCommand(dir, '--fixed'), '--out-dir', out])
    // 254 starts of the lab job (200 + 40 + 14) and 40 s of gaps: 100 s in CI, over 200 s at load 35.
  }, 600_000)

  it('exits 0 with the summary on stdout and writes all nine files', () => {
    expect(result.code).toBe(0)
    const names = ['rate.json', 'runs_needed.json', 'facts.jsonl', 'only_when_fail.json', 'observer.json', 'policy.json', 'proof.json', 'summary.json', 'flaky_report.md']
    for (const name of names) expect(existsSync(join(out, name)), name).toBe(true)
    expect(JSON.parse(result.stdout)).toEqual(read('summary.json', SummaryFileSchema))
  })

  it('measures exactly 40 failures in 200 trials, with the Wilson interval of docs/contracts.md §2', () => {
    const rate = read('rate.json', RateFileSchema)
    expect(rate).toMatchObject({ trials: 200, failures: 40, rate: 0.2, gap_ms: 0, verdict: 'flaky' })
    // Hand arithmetic, z = 1.96, p = 0.2, n = 200 (40-digit decimals, Python 3 `decimal`):
    //   z² = 3.8416; 1 + z²/n = 1.019208; center = (0.2 + 3.8416/400) / 1.019208 = 0.209604 / 1.019208
    //   = 0.2056538017754963; half = (1.96 / 1.019208) · √(0.2·0.8/200 + 3.8416/160000)
    //   = 1.923061 · √0.00082401 = 0.0552025943362080
    //   → [0.1504512074392882, 0.2608563961117043].
    // Cross-check: scipy 1.17.1 binomtest(40, 200).proportion_ci('wilson'), with z = 1.959964,
    // gives [0.150452, 0.260855]: the same to 5 decimals.
    expect(rate.ci_low).toBeCloseTo(0.1504512074392882, 12)
    expect(rate.ci_high).toBeCloseTo(0.2608563961117043, 12)
  })

  it('finds every 5th trial failing (regular) and still calls it flaky, with the clue noted', () => {
    // 40 single failures: 80 runs where E = 1 + 2·40·160/200 = 65; exact p = 1.0533e-4 (Python 3, math.comb).
    const rate = read('rate.json', RateFileSchema)
    expect(rate.verdict).toBe('flaky')
    expect(rate.independence).toMatchObject({ runs: 80, expected_runs: 65, pattern: 'regular', period: 5, method: 'exact' })
    expect(rate.independence?.p_value).toBeCloseTo(1.0533434591e-4, 12)
    const report = readFileSync(join(out, 'flaky_report.md'), 'utf8')
    expect(report).toContain('exactly every 5 trials: a clue (a counter, a cycle); the interval assumes independent trials.')
    expect(read('runs_needed.json', RunsNeededFileSchema).note).toContain('the interval assumes independent trials')
  })

  it('keeps a fact line for each of the 200 trials', () => {
    const lines = readFileSync(join(out, 'facts.jsonl'), 'utf8').trim().split('\n').map((l) => FactSchema.parse(JSON.parse(l)))
    expect(lines).toHaveLength(200)
    expect(lines.filter((l) => l.outcome === 'failed').map((l) => l.trial)).toEqual(Array.from({ length: 40 }, (_, i) => 5 * (i + 1)))
  })

  it('plans 11 / 14 / 21 runs for 0.9 / 0.95 / 0.99 (smallest n with 0.8^n <= 1-c)', () => {
    // Hand powers of 0.8 (exact decimals): 0.8^10 = 0.1073741824 > 0.1 ≥ 0.8^11 = 0.08589934592;
    // 0.8^13 = 0.0549755813888 > 0.05 ≥ 0.8^14 = 0.04398046511104;
    // 0.8^20 = 0.011529215046068469760 > 0.01 ≥ 0.8^21 = 0.0092233720368547758080.
    const plan = read('runs_needed.json', RunsNeededFileSchema)
    expect(plan.table).toEqual([
      { confidence: 0.9, runs: 11 },
      { confidence: 0.95, runs: 14 },
      { confidence: 0.99, runs: 21 },
    ])
    expect(plan.chosen).toEqual({ confidence: 0.95, runs: 14 })
  })

  it('finds STALE in every failure and in no success', () => {
    expect(read('only_when_fail.json', OnlyWhenFailFileSchema)).toMatchObject({
      trials: 200, failures: 40, token: 'STALE', exit_codes_on_failure: [3], exit_codes_on_success: [0],
    })
  })

  it('interleaves the 20 gapped trials with 20 fast ones, a seeded coin ordering each pair, and decides `changed` from them', () => {
    const observer = read('observer.json', ObserverFileSchema)
    expect(observer.fast).toMatchObject({ trials: 200, failures: 40, gap_ms: 0 })
    // Calls 201…240: a gapped call is never quick (2000 ms > the lab's 1500 ms), so it never races;
    // a fast one right after another call does whenever it is a fifth call (205, 210, …, 240).
    expect(observer.slow).toMatchObject({ trials: 20, failures: 0, rate: 0, gap_ms: 2000 })
    expect(observer.slow.ci_high).toBeGreaterThan(0)
    expect(observer.paired?.trials).toBe(20)
    expect(observer.paired?.failures).toBeLessThanOrEqual(8)
    // Fisher two-sided on [[40,160],[0,20]]: 0.0287915 (exact sum in Python 3, math.comb), for the first block.
    expect(observer.p_value).toBeCloseTo(0.0287915313, 9)
    expect(observer.changed).toBe((observer.paired_p_value ?? 1) < 0.05)
    expect(observer.assignment_seed).toBeGreaterThanOrEqual(0)
    expect(observer.note).toContain('a seeded coin deciding the order in each pair')
  })

  it('sets policy by calculation: retry 2 (0.2³ <= 0.01), quarantine 1, 14 green runs', () => {
    expect(read('policy.json', PolicyFileSchema)).toMatchObject({ green_runs_required: 14, retry_budget: 2, quarantine_after: 1 })
  })

  it('proves the fix with the 14 runs policy.json requires, and says it came from there', () => {
    const proof = read('proof.json', ProofFileSchema)
    expect(proof).toMatchObject({ required: 14, trials: 14, failures: 0, passed: true, confidence: 0.95 })
    // It used to name runs_needed.json, though the count was policy.json's green_runs_required.
    expect(proof.required_from).toBe(join(out, 'policy.json'))
  })

  it('summarises the numbers and reports them in the four sections, in order', () => {
    expect(read('summary.json', SummaryFileSchema)).toMatchObject({
      trials: 200, failures: 40, rate: 0.2, token: 'STALE', green_runs_required: 14, proof_trials: 14,
    })
    expect(read('summary.json', SummaryFileSchema).observer_changed).toBe(read('observer.json', ObserverFileSchema).changed)
    const report = readFileSync(join(out, 'flaky_report.md'), 'utf8')
    expect(report.match(/^## .*/gm)).toEqual([
      '## How often', '## True only when it fails', '## What observation changed', '## What it takes to say it is fixed',
    ])
    expect(report).toContain('Failed **40 of 200** trials: rate 20.0%, 95% Wilson interval [15.0%, 26.1%]')
  })

  it('re-renders the report in Korean', async () => {
    const ko = await runCli(['report', '--dir', out, '--lang', 'ko'])
    expect(ko.code).toBe(0)
    const report = readFileSync(join(out, 'flaky_report.md'), 'utf8')
    expect(report.match(/^## .*/gm)).toEqual(['## 얼마나 자주인가', '## 실패할 때만 참인 것', '## 관측이 바꾼 것', '## 고쳤다고 말하려면'])
    expect(report).toContain('200번 중 40번')
    // report.html is re-rendered in the same language.
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('<html lang="ko">')
  })
})
