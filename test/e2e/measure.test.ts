import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { FactSchema, OnlyWhenFailFileSchema, RateFileSchema, SummaryFileSchema } from '../../src/artifacts/schemas.js'
import { labCommand, liveMembers, readArtifact, runCli, tempDir, waitFor } from '../utils.js'

describe('flakeproof measure', () => {
  it('counts exactly one failure in five quick calls of the lab job, with its Wilson interval', async () => {
    const dir = tempDir()
    const out = join(dir, 'rate.json')
    const result = await runCli(['measure', '--cmd', labCommand(dir), '--trials', '50', '--out', out])
    expect(result.code).toBe(0)
    const rate = readArtifact(out, RateFileSchema)
    expect(JSON.parse(result.stdout)).toEqual(rate)
    // Calls 5, 10, …, 50 fail: 10 of 50. Wilson, docs/contracts.md §2, z = 1.96, by hand (Python 3
    // `decimal`, 40 digits): 1 + z²/n = 1.076832; center = (0.2 + 3.8416/100) / 1.076832 = 0.2214050102522956;
    // half = (1.96 / 1.076832) · √(0.16/50 + 3.8416/10000) = 0.1089687107925568 → [0.1124362994597388, 0.3303737210448524].
    expect(rate).toMatchObject({ trials: 50, failures: 10, rate: 0.2, gap_ms: 0 })
    expect(rate.ci_low).toBeCloseTo(0.1124362994597388, 12)
    expect(rate.ci_high).toBeCloseTo(0.3303737210448524, 12)
    expect(rate).toMatchObject({ verdict: 'flaky', complete: true, jobs: 1, z: 1.96, timed_out: 0 })
    // Every 5th call fails: 20 runs where E = 1 + 2·10·40/50 = 17; regular, period 5, still flaky.
    expect(rate.independence).toMatchObject({ runs: 20, expected_runs: 17, period: 5, switch_at: null })
  }, 180_000) // 50 starts of the lab job: 13 s on two busy cores, 38 s at load 35

  it('writes a stable command as stable with a non-zero upper bound', async () => {
    const dir = tempDir()
    const out = join(dir, 'rate.json')
    const result = await runCli(['measure', '--cmd', 'true', '--trials', '20', '--out', out])
    expect(result.code).toBe(0)
    // Wilson 0/20 upper end = 0.161130 (Python 3, docs/contracts.md §2 formula).
    expect(readArtifact(out, RateFileSchema)).toMatchObject({ failures: 0, rate: 0, ci_low: 0, verdict: 'stable' })
    expect(readArtifact(out, RateFileSchema).ci_high).toBeCloseTo(0.16113, 5)
  })

  it('rests before every trial, the first included', async () => {
    const dir = tempDir()
    const facts = join(dir, 'facts.jsonl')
    const result = await runCli(['collect', '--cmd', 'true', '--trials', '3', '--gap-ms', '300', '--out', facts])
    expect(result.code).toBe(0)
    const lines = readFileSync(facts, 'utf8').trim().split('\n').map((l) => FactSchema.parse(JSON.parse(l)))
    expect(lines[0]?.offset_ms).toBeGreaterThanOrEqual(300)
    expect(lines[2]?.offset_ms).toBeGreaterThanOrEqual(900)
    expect(lines.every((l) => l.gap_ms === 300)).toBe(true)
  })

  it('kills a timed-out trial with its whole process group and counts it as failed', async () => {
    const dir = tempDir()
    const out = join(dir, 'rate.json')
    const groups = join(dir, 'groups')
    // Each trial notes its process group (the shell leads it, so `$$`), then leaves a background
    // sleep holding its pipes. Were only the shell killed, the run would wait 120 s per trial for the
    // pipes to close and this test would hit its timeout (a hang guard, not a timed assertion), and
    // the sleeps would outlive waitFor's deadline.
    const cmd = `echo $$ >> ${groups}; sleep 120 & sleep 120`
    // 2 s, so that even a loaded machine's shell notes its group before the timeout.
    const result = await runCli(['measure', '--cmd', cmd, '--trials', '2', '--timeout-ms', '2000', '--out', out])
    expect(result.code).toBe(0)
    expect(readArtifact(out, RateFileSchema)).toMatchObject({ trials: 2, failures: 2, timed_out: 2, timeout_ms: 2000, verdict: 'broken' })
    // Both trials' groups, background sleep included, are gone.
    const ids = readFileSync(groups, 'utf8').trim().split('\n').map(Number)
    expect(ids).toHaveLength(2)
    if (process.platform === 'linux') for (const id of ids) await waitFor(`process group ${id} has ended`, () => liveMembers(id).length === 0)
  })

  it('runs trials in parallel with --jobs and says that timing changes', async () => {
    const dir = tempDir()
    const out = join(dir, 'rate.json')
    const result = await runCli(['measure', '--cmd', labCommand(dir), '--trials', '40', '--jobs', '3', '--out', out])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('changes their timing')
    expect(result.stderr).toContain('Independence not tested: with 3 trials at once, their order is no sequence.')
    // The lab's counter is locked, so every fifth call still fails: 8 of 40.
    expect(readArtifact(out, RateFileSchema)).toMatchObject({ trials: 40, failures: 8, jobs: 3, independence: null })
  }, 120_000) // 40 starts of the lab job: 9 s, four times that on a loaded machine
})

/** Passes its first call, then fails every later one: it leaves a file that breaks the next call. */
function leavesState(dir: string): string {
  const mark = join(dir, 'ran')
  return `test -e ${mark} && { echo 'already ran: LEFTOVER state' >&2; exit 1; }; touch ${mark}`
}

describe('a command that breaks its own next trial', () => {
  it('at 10 trials is undetermined: the shape chance makes 1 time in 10, no number, and the command that decides it', async () => {
    const dir = tempDir()
    const out = join(dir, 'rate.json')
    const result = await runCli(['measure', '--cmd', leavesState(dir), '--trials', '10', '--out', out])
    expect(result.code).toBe(0)
    // P F F F F F F F F F: one switch, at trial 2; runs test p = 0.4 (2 of 10 places for the pass give 2
    // runs); the shape itself is 1 of the C(10, 9) = 10 equally likely orders: 0.1 ≥ 0.05.
    expect(readArtifact(out, RateFileSchema)).toMatchObject({
      trials: 10, failures: 9, verdict: 'undetermined',
      independence: { runs: 2, pattern: 'one-switch', switch_at: 2, switched_to: 'failed', p_value: 0.4, switch_p_value: 0.1, switch_significant: false },
    })
    expect(result.stderr).toContain('undetermined: Passed trial 1, then failed every trial from 2 on, but chance makes that shape too often')
    // The same switch over 21 trials would be 1 order in 21 (< 0.05): twice that, 42.
    expect(result.stderr).toContain(`Decide it with fresh-state runs: \`npx flakeproof measure --cmd "${leavesState(dir)}" --trials 42\``)
  })

  it('at 30 trials is non-idempotent, with the cause and how to measure it afresh', async () => {
    const dir = tempDir()
    const out = join(dir, 'rate.json')
    const result = await runCli(['measure', '--cmd', leavesState(dir), '--trials', '30', '--out', out])
    expect(result.code).toBe(0)
    // One pass then 29 failures: 1 of C(30, 29) = 30 orders, 0.033 < 0.05.
    expect(readArtifact(out, RateFileSchema)).toMatchObject({ trials: 30, failures: 29, verdict: 'non-idempotent', independence: { switch_significant: true } })
    expect(result.stderr).toContain('non-idempotent: Passed trial 1, then failed every trial from 2 on: state left by one trial breaks the next')
    expect(result.stderr).toContain('Measure it with fresh runs instead: run it in a fresh environment each time')
  })

  it.each([
    ['10', 'undetermined. Passed trial 1, then failed every trial from 2 on, but chance makes that shape too often', 'no runs needed, retry budget or quarantine is given'],
    ['30', 'non-idempotent. Passed trial 1, then failed every trial from 2 on', 'No runs needed, retry budget or quarantine threshold is given'],
  ])('at %s trials gets no runs needed and no retry budget, each refusal one line that says why', async (trials, why, none) => {
    const dir = tempDir()
    const rate = join(dir, 'rate.json')
    await runCli(['measure', '--cmd', leavesState(dir), '--trials', trials, '--out', rate])
    for (const step of [['plan', '--from', rate], ['policy', '--from', rate, '--out', join(dir, 'policy.json')]]) {
      const result = await runCli(step)
      expect(result.code).toBe(2)
      expect(result.stderr.trim().split('\n')).toHaveLength(1)
      expect(result.stderr).toContain(`--from ${rate}: ${why}`)
      expect(result.stderr).toContain(none)
    }
    expect(existsSync(join(dir, 'policy.json'))).toBe(false)
  })

  it('investigate stops after the facts, exits 1 and says why in the report', async () => {
    const dir = tempDir()
    const out = join(dir, 'out')
    const result = await runCli(['investigate', '--cmd', leavesState(dir), '--fixed-cmd', 'true', '--trials', '30', '--out-dir', out])
    expect(result.code).toBe(1)
    expect(readArtifact(join(out, 'summary.json'), SummaryFileSchema)).toMatchObject({
      verdict: 'non-idempotent', token: 'LEFTOVER', green_runs_required: null, retry_budget: null, proof_trials: null,
    })
    for (const name of ['runs_needed.json', 'policy.json', 'observer.json', 'proof.json']) expect(existsSync(join(out, name)), name).toBe(false)
    const report = readFileSync(join(out, 'flaky_report.md'), 'utf8')
    expect(report.match(/^## .*/gm)).toHaveLength(4)
    expect(report).toContain('Non-idempotent: its trials are not independent.')
    expect(report).toContain('No runs needed, retry budget or quarantine threshold is given')
  })
})

describe('flakeproof collect and facts', () => {
  it('keeps one line per trial and finds what is true only when it fails', async () => {
    const dir = tempDir()
    const facts = join(dir, 'facts.jsonl')
    const collected = await runCli(['collect', '--cmd', labCommand(dir), '--trials', '20', '--out', facts])
    expect(collected.code).toBe(0)
    expect(JSON.parse(collected.stdout)).toMatchObject({ trials: 20, failures: 4, complete: true, out: facts })
    const lines = readFileSync(facts, 'utf8').trim().split('\n').map((l) => FactSchema.parse(JSON.parse(l)))
    expect(lines.map((l) => l.trial)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
    expect(lines.filter((l) => l.outcome === 'failed').map((l) => l.exit_code)).toEqual([3, 3, 3, 3])
    expect(lines[4]?.stderr).toMatch(/^cache: STALE entry read during refresh on call 5/)
    expect(lines[0]?.stdout).toBe('{"ok":true,"call":1,"value":"v0"}\n')

    const out = join(dir, 'only_when_fail.json')
    const analysed = await runCli(['facts', '--in', facts, '--out', out])
    expect(analysed.code).toBe(0)
    const only = readArtifact(out, OnlyWhenFailFileSchema)
    expect(only).toMatchObject({
      trials: 20,
      failures: 4,
      exit_codes_on_failure: [3],
      exit_codes_on_success: [0],
      token: 'STALE',
      failure_trials: [5, 10, 15, 20],
    })
    expect(only.predicates[0]?.predicate).toMatch(/^exit_code = 3 ≡ .*output contains STALE/)
  }, 120_000) // 20 starts of the lab job and an analysis: 9 s, 18 s at load 35

  it('caps what a trial prints at 64 KiB per stream, keeping head and tail', async () => {
    const dir = tempDir()
    const facts = join(dir, 'facts.jsonl')
    const cmd = `node -e "process.stdout.write('H'.repeat(1000) + 'x'.repeat(998000) + 'T'.repeat(1000))"`
    const result = await runCli(['collect', '--cmd', cmd, '--trials', '1', '--out', facts])
    expect(result.code).toBe(0)
    const [fact] = readFileSync(facts, 'utf8').trim().split('\n').map((l) => FactSchema.parse(JSON.parse(l)))
    expect(fact?.stdout_bytes).toBe(1_000_000)
    expect(fact?.stdout.length).toBeLessThan(66 * 1024)
    expect(fact?.stdout.startsWith('H'.repeat(1000))).toBe(true)
    expect(fact?.stdout.endsWith('T'.repeat(1000))).toBe(true)
    expect(fact?.stdout).toContain(`[flakeproof: ${1_000_000 - 64 * 1024} bytes cut]`)
  })
})
