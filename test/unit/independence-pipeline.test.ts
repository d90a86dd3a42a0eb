import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { renderReport } from '../../src/artifacts/markdown.js'
import { prepareRunDir, runDirOf } from '../../src/artifacts/run-dir.js'
import { PolicyFileSchema, type RateFile, RateFileSchema, RunsNeededFileSchema } from '../../src/artifacts/schemas.js'
import { testIndependence } from '../../src/core/independence.js'
import { discriminateTokens, wordsInOrder } from '../../src/core/tokens.js'
import { compareObservations } from '../../src/pipeline/observe.js'
import { choosePlanningBasis } from '../../src/pipeline/plan.js'
import type { ReportedTest } from '../../src/pipeline/test-evidence.js'
import { TestRunRecorder } from '../../src/pipeline/test-run.js'
import { tempDir } from '../utils.js'

const ALPHA = { num: 1n, den: 20n }
const confidence = { value: 0.95, exact: { num: 19n, den: 20n } }

/** rate.json of a command that passed trial 1 and failed trials 2–10. */
const nonIdempotent: RateFile = {
  schema_version: 1, command: 'node job.js', trials: 10, failures: 9, rate: 0.9, ci_low: 0.596, ci_high: 0.982,
  gap_ms: 0, confidence: 0.95, z: 1.96, verdict: 'non-idempotent', timed_out: 0, timeout_ms: null, jobs: 1, complete: true,
  requested_trials: 10, started_at: '2026-11-30T00:00:00.000Z', duration_ms: 100,
  independence: testIndependence(10, [2, 3, 4, 5, 6, 7, 8, 9, 10], ALPHA),
}

describe('planning refuses what has no rate to plan from', () => {
  it('a 0-trial rate.json: says no trial ran (it used to say "fails every time")', () => {
    const empty = { trials: 0, failures: 0, ci_low: 0, ci_high: 1 }
    expect(() => choosePlanningBasis(empty, '--from r.json')).toThrow('--from r.json: no trial ran (trials = 0), so there is nothing to plan from')
  })

  it('a non-idempotent one: gives the cause, no number, and how to measure it afresh', () => {
    expect(() => choosePlanningBasis(nonIdempotent)).toThrow(
      /non-idempotent\. Passed trial 1, then failed every trial from 2 on: state left by one trial breaks the next.*No runs needed.*fresh runs/,
    )
  })

  it('a clustered one: plans, with the clue as its note', () => {
    // FFFFF PPPPPPPPPPPPPPP FFFFF: 3 runs where E = 1 + 2·10·15/25 = 13; exactly far in the lower tail.
    const failures = [1, 2, 3, 4, 5, 21, 22, 23, 24, 25]
    const measured = { trials: 25, failures: 10, ci_low: 0.2, ci_high: 0.6, independence: testIndependence(25, failures, ALPHA) }
    expect(measured.independence.pattern).toBe('clustered')
    expect(choosePlanningBasis(measured).note).toMatch(/^Failures came in bursts \(3 runs of equal outcomes where 13\.0 are expected.*the interval assumes independent trials\.$/)
  })
})

describe('rate.json validation', () => {
  it('rejects failures > trials with one line naming both', () => {
    const result = RateFileSchema.safeParse({ ...nonIdempotent, trials: 3, failures: 5 })
    expect(result.success).toBe(false)
    expect(result.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['failures', '5 is more than trials (3)']])
  })
})

describe('observer note with nothing observed', () => {
  it('says so plainly instead of "fast 0.0% (0/0)"', () => {
    const none = { trials: 0, failures: 0, rate: 0, ci_low: 0, ci_high: 1, gap_ms: 0 }
    const observer = compareObservations('vitest run (0 observed tests)', none, { ...none, gap_ms: 2000 }, confidence)
    expect(observer.note).toBe('Nothing was observed: no trial ran on either side, so there is nothing to compare.')
  })
})

describe('colour codes do not make words', () => {
  it('reads \\u001b[31mSTALE\\u001b[39m as STALE (it used to be mSTALE)', () => {
    expect(wordsInOrder('\u001b[31mSTALE\u001b[39m entry')).toEqual(['STALE', 'entry'])
    const trials = [{ failed: true, stdout: '', stderr: '\u001b[1m\u001b[31mSTALE\u001b[39m\u001b[22m' }, { failed: false, stdout: 'ok', stderr: '' }]
    expect(discriminateTokens(trials).token).toBe('STALE')
  })
})

describe('the report of a non-idempotent command', () => {
  it.each([
    ['en', 'Non-idempotent: its trials are not independent.', 'Passed trial 1, then failed every trial from 2 on: state left by one trial breaks the next', 'No runs needed, retry budget or quarantine threshold is given'],
    ['ko', '반복 실행에 의존합니다', '처음 1번은 통과했고 2번째 시도부터는 매번 실패했습니다', '필요한 횟수, 재시도 예산, 격리 기준을 계산하지 않습니다'],
  ] as const)('%s: the verdict, the cause, and no number in the last section', (lang, verdict, cause, noNumber) => {
    const report = renderReport({ rate: nonIdempotent }, lang)
    expect(report).toContain(verdict)
    expect(report).toContain(cause)
    expect(report.match(/^## .*/gm)).toHaveLength(4)
    const fixed = report.slice(report.lastIndexOf('## '))
    expect(fixed).toContain(noNumber)
    expect(fixed).toContain('flakeproof measure --cmd "<reset> && node job.js"'.replace('<reset>', lang === 'en' ? '<reset>' : '<초기화>'))
  })

  it('says the order was not tested when trials overlapped', () => {
    const parallel = { ...nonIdempotent, verdict: 'flaky' as const, jobs: 4, independence: null }
    expect(renderReport({ rate: parallel }, 'en')).toContain('Independence not tested: with 4 trials at once, their order is no sequence.')
  })
})

describe('test mode: a test that breaks its own next repetition', () => {
  /** `.xxxxxxxxx`: passes repetition 1, fails every later one. */
  function test(name: string, pattern: string): ReportedTest {
    const repetitions = [...pattern].map((c) => ({ ok: c === '.', elapsedMs: 1, mode: 'fast' as const, gapMs: 0 }))
    return { project: '', file: 'a.test.ts', name, evidence: { id: `a.test.ts > ${name}`, path: [name], order: 1, previousTest: null, worker: '1', seed: null, repetitions } }
  }

  it('is non-idempotent, gets no runs needed or policy, and says how to measure it afresh', () => {
    const dir = tempDir('flakeproof-unit-')
    const run = runDirOf(dir)
    prepareRunDir(run)
    const recorder = new TestRunRecorder(dir, run, { mode: 'measure', command: 'vitest run', repeat: 21, observe: false, confidence, proofRuns: {}, lang: 'en' })
    // One pass, then 20 failures: 1 order in C(21, 20) = 21 by chance (0.048 < 0.05), so the shape decides.
    recorder.record(test('leaks state', `.${'x'.repeat(20)}`))
    recorder.record(test('every fifth', `${'....x'.repeat(4)}.`))
    const result = recorder.finish(true, { modules: new Set(['a.test.ts']), tests: new Set() })
    // Every fifth: 4 of 21; (17/21)^n <= 0.05 from n = ln 0.05 / ln(17/21) = 14.18, so 15.
    expect(result.tests.map((t) => [t.tally.id, t.verdict, t.greenRuns])).toEqual([
      ['a.test.ts > every fifth', 'flaky', 15],
      ['a.test.ts > leaks state', 'non-idempotent', null],
    ])
    const read = <T>(name: string, schema: { parse: (x: unknown) => T }): T => schema.parse(JSON.parse(readFileSync(join(dir, name), 'utf8')))
    const rate = read('rate.json', RateFileSchema)
    expect(rate.tests?.find((t) => t.name === 'leaks state')?.independence).toMatchObject({ pattern: 'one-switch', switch_at: 2, switched_to: 'failed', switch_significant: true })
    expect(Object.keys(read('runs_needed.json', RunsNeededFileSchema).tests ?? {})).toEqual(['a.test.ts > every fifth'])
    expect(Object.keys(read('policy.json', PolicyFileSchema).tests ?? {})).toEqual(['a.test.ts > every fifth'])
    const report = readFileSync(join(dir, 'flaky_report.md'), 'utf8')
    expect(report).toContain('`a.test.ts > leaks state`: **non-idempotent**. Passed repetition 1, then failed every repetition from 2 on')
    // Its rate in ordinary runs of its file: whole-run rounds, each test once, the tests before it included (src/core/hints.ts plainRate).
    expect(report).toContain('Measure its rate in ordinary runs instead, each test of its file once a run: `npx vitest run a.test.ts -- --flaky-rounds 20 --flaky-repeat 1`.')
    expect(report).toContain('`a.test.ts > leaks state`: No runs needed, retry budget or quarantine threshold is given')
  })

  it('at 10 repetitions, with no fresh-state evidence gathered, is undetermined: no number, and the command that decides it', () => {
    const dir = tempDir('flakeproof-unit-')
    const run = runDirOf(dir)
    prepareRunDir(run)
    const recorder = new TestRunRecorder(dir, run, { mode: 'measure', command: 'vitest run', repeat: 10, observe: false, confidence, proofRuns: {}, lang: 'en' })
    recorder.record(test('leaks state', '.xxxxxxxxx'))
    const result = recorder.finish(true, { modules: new Set(['a.test.ts']), tests: new Set() })
    expect(result.tests.map((t) => [t.verdict, t.greenRuns])).toEqual([['undetermined', null]])
    const read = <T>(name: string, schema: { parse: (x: unknown) => T }): T => schema.parse(JSON.parse(readFileSync(join(dir, name), 'utf8')))
    expect(read('policy.json', PolicyFileSchema).tests).toEqual({})
    const report = readFileSync(join(dir, 'flaky_report.md'), 'utf8')
    expect(report).toContain('`a.test.ts > leaks state`: **undetermined**. Passed repetition 1, then failed every repetition from 2 on, but chance makes that shape too often')
    expect(report).toContain('1 order in 10 with these counts (p = 0.100)')
    // Started as `vitest run` (the plugin in the config): the deciding run in that form (src/core/hints.ts).
    expect(report).toContain('`npx vitest run a.test.ts -- --flaky-rounds 3 --flaky-repeat 10`')
  })

  it('with fresh-state rounds that repeat the switch, is non-idempotent; with a fresh start that does not, flaky', () => {
    const decide = (fresh: string[]) => {
      const dir = tempDir('flakeproof-unit-')
      const run = runDirOf(dir)
      prepareRunDir(run)
      const recorder = new TestRunRecorder(dir, run, { mode: 'measure', command: 'vitest run', repeat: 10, observe: false, confidence, proofRuns: {}, lang: 'en' })
      recorder.record(test('switch', '.xxxxxxxxx'))
      // 10 repetitions: 2 fresh rounds would decide a real switch (1/C(20, 2) = 1/190 < 0.05).
      expect(recorder.freshEvidenceRequest()).toEqual({ rounds: 2, tests: [{ id: 'a.test.ts > switch', project: '', file: 'a.test.ts' }], plain: 0, plainTests: [] })
      fresh.forEach((pattern, i) => recorder.recordFreshEvidence(test('switch', pattern), i + 1))
      const [outcome] = recorder.finish(true, { modules: new Set(['a.test.ts']), tests: new Set() }).tests
      return [outcome?.verdict, outcome?.tally.freshEvidence?.decided, outcome?.greenRuns]
    }
    expect(decide(['.xxxxxxxxx', '.xxxxxxxxx'])).toEqual(['non-idempotent', 'non-idempotent', null])
    // A fresh start failed as the later repetitions did: the first pass was chance.
    expect(decide(['xxxxxxxxxx', '.xxxxxxxxx'])?.slice(0, 2)).toEqual(['flaky', 'flaky'])
    // No fresh round ran (a filter, a crash): still undetermined.
    expect(decide([])).toEqual(['undetermined', 'undetermined', null])
  })

  it('asks for a control and plain runs of a test that failed every repetition after the fresh-state rounds, and decides it from them', () => {
    const decide = (plain: string[], control = 'xxxxxxxxxx') => {
      const dir = tempDir('flakeproof-unit-')
      const run = runDirOf(dir)
      prepareRunDir(run)
      const recorder = new TestRunRecorder(dir, run, { mode: 'measure', command: 'vitest run', repeat: 10, observe: false, confidence, proofRuns: {}, lang: 'en' })
      recorder.record(test('switch', '.xxxxxxxxx'))
      recorder.record(test('numbered', 'xxxxxxxxxx'))
      // 10 failed copies: 3 plain runs (the floor; all passing, 1/C(13, 3) = 1/286), after the switch's 2 fresh rounds.
      expect(recorder.freshEvidenceRequest()).toMatchObject({ rounds: 2, plain: 3, plainTests: [{ id: 'a.test.ts > numbered', project: '', file: 'a.test.ts' }] })
      for (const round of [1, 2]) recorder.recordFreshEvidence(test('switch', '.xxxxxxxxx'), round)
      // Round 3, the control: the file again with its 10 repetitions; then the plain runs, 4 to 6.
      recorder.recordFreshEvidence(test('numbered', control), 3)
      plain.forEach((pattern, i) => recorder.recordFreshEvidence(test('numbered', pattern), 4 + i))
      const { tests } = recorder.finish(true, { modules: new Set(['a.test.ts']), tests: new Set() })
      const outcome = tests.find((t) => t.tally.name === 'numbered')
      return { verdict: outcome?.verdict, evidence: outcome?.tally.plainEvidence, greenRuns: outcome?.greenRuns, dir }
    }
    const passing = decide(['.', '.', '.'])
    expect(passing).toMatchObject({
      verdict: 'non-idempotent',
      evidence: { plain: { trials: 3, failures: 0 }, control: { trials: 10, failures: 10 }, measured: { trials: 10, failures: 10 }, decided: 'non-idempotent' },
      greenRuns: null,
    })
    expect(readFileSync(join(passing.dir, 'flaky_report.md'), 'utf8')).toContain(
      '`a.test.ts > numbered`: **non-idempotent**. It failed every repetition, yet passes when its file runs as usual (3 of 3 plain runs of its file passed it, against 0 of 10 measured copies; p = 0.00350',
    )
    // Every evidence round in one file apart from the measurement, each test's trials numbered on across them.
    const lines = readFileSync(join(passing.dir, 'evidence_facts.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { round: number; trial: number; test_id: string })
    expect(lines.map((l) => l.round)).toEqual([...Array(10).fill(1), ...Array(10).fill(2), ...Array(10).fill(3), 4, 5, 6])
    expect(lines.filter((l) => l.test_id === 'a.test.ts > numbered').map((l) => l.trial)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1))
    expect(decide(['x', 'x', 'x'])).toMatchObject({ verdict: 'broken', evidence: { decided: 'broken' } })
    expect(decide(['.', 'x', '.'])).toMatchObject({ verdict: 'undetermined', evidence: { decided: 'undetermined' }, greenRuns: null })
    // The control's copies passed: not the repetitions.
    expect(decide(['.', '.', '.'], '..........')).toMatchObject({ verdict: 'undetermined', evidence: { control: { trials: 10, failures: 0 } } })
  })
})
