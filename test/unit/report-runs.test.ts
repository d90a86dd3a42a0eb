import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MAX_CASE_TEXT } from '../../src/artifacts/junit-read.js'
import { OnlyWhenFailFileSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { type TestFact, TestFactSchema } from '../../src/artifacts/test-schemas.js'
import { JsonLinesWriter } from '../../src/artifacts/write.js'
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

  /** A report of `n` cases c1…cn, each with `output` as its system-out, and case `bad` (if any) with a time JSON cannot hold. */
  function manyCases(dir: string, name: string, n: number, output: string, bad?: number): string {
    const body = Array.from({ length: n }, (_, i) => `<testcase classname="m" name="c${i + 1}" time="${i + 1 === bad ? '1e308' : '0.001'}"><system-out>${output}</system-out></testcase>`).join('')
    const path = join(dir, name)
    writeFileSync(path, `<testsuite name="s">${body}</testsuite>`)
    return path
  }

  it.each([
    // 1 300 cases: lines handed to the writer 512 at a time (two full batches and a part).
    { what: 'more lines than one batch', n: 1300, output: 'ok', kept: 'ok' },
    // 600 cases of 5 000 characters of output, each kept to MAX_CASE_TEXT (4 096): a batch is written once it holds
    // 1 MiB (2^20 = 1 048 576 = 256 × 4 096) of text, so every 256 cases, before 512 lines.
    { what: 'more output than one batch', n: 600, output: 'x'.repeat(5000), kept: 'x'.repeat(MAX_CASE_TEXT) },
  ])('writes facts in batches exactly as one line at a time: $what', ({ n, output, kept }) => {
    const dir = tempDir()
    const out = join(dir, 'out')
    recordRuns(out, [{ files: [manyCases(dir, 'r1.xml', n, output)] }], { ...settings, requested: 1 })
    const text = readFileSync(join(out, 'facts.jsonl'), 'utf8')
    const lines = text.trimEnd().split('\n')
    // One line per case, in the report's order (order 1…n), each as JSON.stringify writes it, each valid.
    expect(lines).toHaveLength(n)
    const facts = lines.map((l) => TestFactSchema.parse(JSON.parse(l)))
    expect(facts.map((f) => [f.test_id, f.order])).toEqual(Array.from({ length: n }, (_, i) => [`m > c${i + 1}`, i + 1]))
    expect(facts.every((f) => f.stdout === kept)).toBe(true)
    const again = join(dir, 'one-at-a-time.jsonl')
    const writer = new JsonLinesWriter(again, TestFactSchema)
    for (const line of lines) writer.append(JSON.parse(line) as TestFact)
    writer.close()
    expect(readFileSync(again, 'utf8')).toBe(text)
  })

  it('stops reading a report at a case whose line the schema refuses, keeping the lines before it, as one line at a time did', () => {
    const dir = tempDir()
    const out = join(dir, 'out')
    // Case 700 lasts 1e308 s: 1e311 ms is Infinity, which elapsed_ms (a finite number) refuses; cases 1…699 were written, 512 of them in a full batch.
    const result = recordRuns(out, [{ files: [manyCases(dir, 'r1.xml', 1000, 'ok', 700)] }], { ...settings, requested: 1 })
    expect(result.runErrors).toHaveLength(1)
    expect(result.runErrors[0]?.error).toContain('elapsed_ms')
    const lines = readFileSync(join(out, 'facts.jsonl'), 'utf8').trimEnd().split('\n')
    expect(lines).toHaveLength(699)
    expect((JSON.parse(lines.at(-1) ?? '{}') as { test_id: string }).test_id).toBe('m > c699')
  })
})
