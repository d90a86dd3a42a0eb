import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { OnlyWhenFailFileSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { recordRuns } from '../../src/pipeline/report-runs.js'
import { readArtifact, tempDir } from '../utils.js'

const confidence = { value: 0.95, exact: { num: 19n, den: 20n } }

/** A report of the given cases: name → failed. */
function report(dir: string, name: string, cases: Record<string, boolean>): string {
  const body = Object.entries(cases)
    .map(([test, failed]) => `<testcase classname="m" name="${test}">${failed ? '<failure message="no"/>' : ''}</testcase>`)
    .join('')
  const path = join(dir, name)
  writeFileSync(path, `<testsuite name="s">${body}</testsuite>`)
  return path
}

const settings = {
  command: 'test',
  format: 'junit' as const,
  requested: 3,
  gapMs: 0,
  jobs: 1,
  timeoutMs: null,
  confidence,
  lang: 'en' as const,
  ranAll: true,
  startedAt: new Date(),
}

describe('recordRuns', () => {
  it('numbers failures by run, not by repetition: a test absent from run 2 that fails in run 3 failed in run 3', () => {
    const dir = tempDir()
    const runs = [
      report(dir, 'r1.xml', { x: false, y: false }),
      report(dir, 'r2.xml', { y: false }),
      report(dir, 'r3.xml', { x: true, y: false }),
    ].map((file) => ({ files: [file] }))
    const out = join(dir, 'out')
    const result = recordRuns(out, runs, settings)
    expect(result).toMatchObject({ runs: 3, complete: true, stopped: false })
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    // x ran in 2 of 3 runs: partial, whatever its count; the run that failed is the 3rd.
    expect(rate.tests?.map((t) => [t.id, t.trials, t.failures, t.verdict])).toEqual([
      ['m > x', 2, 1, 'partial'],
      ['m > y', 3, 0, 'stable'],
    ])
    expect(rate).toMatchObject({ trials: 3, failures: 1, reports: 'junit' })
    // Vitest's --flaky-proof does not apply to another runner; command mode's proof does.
    expect(readFileSync(join(out, 'flaky_report.md'), 'utf8')).toContain('Not measured yet (`npx flakeproof proof --cmd "<fixed test command>" --policy policy.json`)')
    const onlyWhenFail = readArtifact(join(out, 'only_when_fail.json'), OnlyWhenFailFileSchema)
    expect(onlyWhenFail.failure_trials).toEqual([3])
    expect(onlyWhenFail.tests?.['m > x']?.failure_trials).toEqual([3])
    const trials = readFileSync(join(out, 'facts.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { trial: number; test_id: string }))
    expect(trials.map((f) => [f.trial, f.test_id])).toEqual([[1, 'm > x'], [1, 'm > y'], [2, 'm > y'], [3, 'm > x'], [3, 'm > y']])
  })

  it('counts a run whose report holds no test: the test missing from it is partial', () => {
    const dir = tempDir()
    const runs = [report(dir, 'r1.xml', { x: false }), report(dir, 'r2.xml', {})].map((file) => ({ files: [file] }))
    const result = recordRuns(join(dir, 'out'), runs, { ...settings, requested: 2 })
    expect(result.runs).toBe(2)
    expect(result.outcomes.map((o) => [o.tally.id, o.tally.fast.trials, o.verdict])).toEqual([['m > x', 1, 'partial']])
  })

  it('writes nothing when no report holds a test', () => {
    const dir = tempDir()
    const out = join(dir, 'out')
    const result = recordRuns(out, [{ files: [report(dir, 'r1.xml', {})] }], { ...settings, requested: 1 })
    expect(result).toMatchObject({ runs: 1, outcomes: [], summary: undefined })
    expect(existsSync(join(out, 'rate.json'))).toBe(false)
  })
})
