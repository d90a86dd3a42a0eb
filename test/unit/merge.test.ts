import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ReportBundle } from '../../src/artifacts/bundle.js'
import { assertOutsideInputs, type MergeSource, readMergeSource } from '../../src/artifacts/merge-source.js'
import type { Fact } from '../../src/artifacts/schemas.js'
import { indexTestFacts, type TestFactsIndex } from '../../src/artifacts/test-facts-index.js'
import type { TestFact } from '../../src/artifacts/test-schemas.js'
import { complement } from '../../src/core/fraction.js'
import { groupedIndependence } from '../../src/core/grouped-independence.js'
import { mergeRuns } from '../../src/pipeline/merge.js'
import { buildTestMeasurement, byConcern, outcomeOf } from '../../src/pipeline/test-bundle.js'
import type { ReportedTest } from '../../src/pipeline/test-evidence.js'
import { toFactLines } from '../../src/pipeline/test-facts.js'
import { type TestTally, tallyTest } from '../../src/pipeline/test-tally.js'
import { rateFile } from '../rate-file.js'
import { reportedTest } from '../reported-test.js'
import { seeded } from '../seeded.js'
import { tempDir } from '../utils.js'

const confidence = { value: 0.95, exact: { num: 19n, den: 20n } }

/** A test failing where `pattern` has an 'x', with varied times and an error on failures, so tokens and predicates are compared too. */
function reported(name: string, pattern: string): ReportedTest {
  const test = reportedTest(name, pattern)
  test.evidence.repetitions = test.evidence.repetitions.map((r, i) => ({ ...r, elapsedMs: i % 7, ...(r.ok ? {} : { error: 'expected TIMEOUT' }) }))
  return test
}

/**
 * What one Vitest run of these tests writes, as TestRunRecorder builds it: the oracle a merge must
 * equal. `jobs`: the repetitions where each job's block began, when jobs repeated the same tests:
 * each job is a process of its own, so the order of a test's outcomes is read inside the blocks
 * (groupedIndependence) and a block's first execution has no previous outcome.
 */
function runOnce(tests: readonly ReportedTest[], jobs?: readonly number[]): ReportBundle {
  const tallies = tests.map((t) => (jobs ? tallyInJobs(t, jobs) : tallyTest(t, confidence.exact)))
  const rounds = Math.max(0, ...tallies.map((t) => t.fast.trials))
  return buildTestMeasurement({
    command: 'vitest run',
    repeat: rounds,
    observe: false,
    confidence,
    startedAt: new Date(0),
    durationMs: 1,
    complete: true,
    runErrors: [],
    outcomes: tallies.map((t) => outcomeOf(t, rounds, confidence)).sort(byConcern),
    rounds,
  })
}

function tallyInJobs(test: ReportedTest, starts: readonly number[]): TestTally {
  const facts = test.evidence.repetitions.map((_, i) => (i > 0 && starts.includes(i) ? { previous_outcome: undefined } : {}))
  const failed = test.evidence.repetitions.map((r) => !r.ok)
  const blocks = starts.map((start, j) => failed.slice(start, starts[j + 1] ?? failed.length))
  return { ...tallyTest(test, confidence.exact, facts), independence: groupedIndependence(blocks, complement(confidence.exact)) }
}

/** The folder such a run leaves: its rate.json and facts.jsonl (indexed in memory, as indexTestFacts does on disk). */
function oneRun(tests: readonly ReportedTest[], dir: string): Extract<MergeSource, { kind: 'test' }> {
  const lines = tests.flatMap((t) => toFactLines(t))
  const index: TestFactsIndex = { ids: [...new Set(lines.map((l) => l.test_id))], linesOf: (id) => lines.filter((l) => l.test_id === id) }
  return { dir, kind: 'test', rate: runOnce(tests).rate, tests: index }
}

/** A merge, with the facts it writes. */
function merge(sources: readonly MergeSource[]): { bundle: ReportBundle; facts: (TestFact | Fact)[] } {
  const facts: (TestFact | Fact)[] = []
  const bundle = mergeRuns(sources, (lines) => facts.push(...lines))
  return { bundle, facts }
}

/** The bundle without what legitimately differs between a merge and one run: when, for how long, and the command. */
function counts(bundle: ReportBundle): unknown {
  const { started_at, duration_ms, command, ...rate } = bundle.rate
  return { ...bundle, rate }
}

/** Random tests: some never fail, some always, the rest at a rate of their own. */
function generate(random: () => number): { tests: ReportedTest[]; rounds: number } {
  const rounds = 2 + Math.floor(random() * 40)
  const count = 1 + Math.floor(random() * 8)
  const tests = Array.from({ length: count }, (_, i) => {
    const kind = random()
    const p = kind < 0.25 ? 0 : kind < 0.35 ? 1 : random() * 0.6
    return reported(`t${i}`, Array.from({ length: rounds }, () => (random() < p ? 'x' : '.')).join(''))
  })
  return { tests, rounds }
}

/** `--shard i/k`: each test in one shard, every shard running every round. */
function byTest(tests: readonly ReportedTest[], k: number, random: () => number): ReportedTest[][] {
  const shards: ReportedTest[][] = Array.from({ length: k }, () => [])
  for (const test of tests) shards[Math.floor(random() * k)]?.push(test)
  return shards.filter((s) => s.length > 0)
}

/** A CI matrix repeating the whole suite: each job runs every test over its own block of rounds. */
function byRounds(tests: readonly ReportedTest[], rounds: number, k: number, random: () => number): ReportedTest[][] {
  const cuts = [...new Set(Array.from({ length: k - 1 }, () => 1 + Math.floor(random() * (rounds - 1))))].sort((a, b) => a - b)
  const bounds = [0, ...cuts, rounds]
  return bounds.slice(1).map((end, j) => {
    const start = bounds[j] as number
    return tests.map((t) => ({ ...t, evidence: { ...t.evidence, repetitions: t.evidence.repetitions.slice(start, end) } }))
  })
}

describe('mergeRuns equals one combined run', () => {
  // 100 seeded cases per way of splitting; any difference in any count, interval, plan or policy fails.
  it.each([
    ['shards of disjoint tests (vitest --shard i/k)', 'tests'],
    ['jobs repeating the suite over blocks of rounds (CI matrix)', 'rounds'],
  ] as const)('%s', (_, how) => {
    for (let seed = 1; seed <= 100; seed++) {
      const random = seeded(seed)
      const { tests, rounds } = generate(random)
      const k = 2 + Math.floor(random() * 9)
      const parts = how === 'tests' ? byTest(tests, k, random) : byRounds(tests, rounds, k, random)
      const merged = merge(parts.map((part, i) => oneRun(part, `shard-${i + 1}`)))
      const starts = how === 'tests' ? undefined : parts.map((_, j) => parts.slice(0, j).reduce((sum, part) => sum + (part[0]?.evidence.repetitions.length ?? 0), 0))
      expect(counts(merged.bundle), `seed ${seed}`).toEqual(counts(runOnce(tests, starts)))
      // The oracle of the oracle: per-test counts straight from the generated patterns.
      for (const t of tests) {
        const entry = merged.bundle.rate.tests?.find((e) => e.id === t.evidence.id)
        expect([entry?.trials, entry?.failures], `seed ${seed} ${t.name}`).toEqual([rounds, t.evidence.repetitions.filter((r) => !r.ok).length])
      }
      const failedRounds = Array.from({ length: rounds }, (_, r) => merged.bundle.rate.tests?.some((e) => e.verdict !== 'non-idempotent' && e.verdict !== 'undetermined' && !tests.find((t) => t.evidence.id === e.id)?.evidence.repetitions[r]?.ok))
      expect([merged.bundle.rate.trials, merged.bundle.rate.failures], `seed ${seed}`).toEqual([rounds, failedRounds.filter(Boolean).length])
    }
  })

  it('equals the builders run on the whole, on a hand-checked case', () => {
    // Shard 1 runs a (x.x.), shard 2 runs b (...x): rounds 1, 3 and 4 failed, so 3 of 4 rounds.
    const merged = merge([oneRun([reported('a', 'x.x.')], 's1'), oneRun([reported('b', '...x')], 's2')])
    expect([merged.bundle.rate.trials, merged.bundle.rate.failures]).toEqual([4, 3])
    expect(merged.bundle.rate.tests?.map((t) => [t.name, t.trials, t.failures])).toEqual([['a', 4, 2], ['b', 4, 1]])
    expect((merged.facts as TestFact[]).map((f) => [f.test_id, f.trial, f.origin])).toEqual([
      ['a.test.ts > a', 1, 's1'], ['a.test.ts > a', 2, 's1'], ['a.test.ts > a', 3, 's1'], ['a.test.ts > a', 4, 's1'],
      ['a.test.ts > b', 1, 's2'], ['a.test.ts > b', 2, 's2'], ['a.test.ts > b', 3, 's2'], ['a.test.ts > b', 4, 's2'],
    ])
  })

  it('adds the rounds of jobs that repeat the same test, and keeps a cut-short test partial', () => {
    // x.. then .x.: 6 repetitions, 2 failed, in 6 rounds.
    const merged = merge([oneRun([reported('a', 'x..')], 'j1'), oneRun([reported('a', '.x.')], 'j2')])
    expect(merged.bundle.rate.tests?.map((t) => [t.trials, t.failures, t.verdict])).toEqual([[6, 2, 'flaky']])
    expect([merged.bundle.rate.trials, merged.bundle.rate.failures]).toEqual([6, 2])
    const cut = oneRun([reported('a', '.x.')], 'j3')
    cut.rate = { ...cut.rate, tests: cut.rate.tests?.map((t) => ({ ...t, verdict: 'partial' as const })) }
    expect(merge([oneRun([reported('a', 'x..')], 'j1'), cut]).bundle.rate.tests?.[0]?.verdict).toBe('partial')
  })

  it('calls a test that fails every time in one job and never in the others partial, not flaky, and says why', () => {
    // Pooled rate 10/30: chance of three uniform folders = (⅓¹⁰ + ⅔¹⁰)³ ≈ 5.6e-6 < 0.05, a difference between the jobs.
    const windows = oneRun([reported('a', 'xxxxxxxxxx')], 'shards/windows')
    const linux = [oneRun([reported('a', '..........')], 'shards/linux-1'), oneRun([reported('a', '..........')], 'shards/linux-2')]
    const merged = merge([windows, ...linux]).bundle.rate
    expect(merged.tests?.map((t) => [t.trials, t.failures, t.verdict])).toEqual([[30, 10, 'partial']])
    expect(merged.complete).toBe(false)
    expect(merged.run_errors?.map((e) => e.error)).toEqual([
      'a: failed all 10 executions in shards/windows and passed all 20 in shards/linux-1, shards/linux-2 (p = 9.99e-8 by chance): the jobs differ (platform, environment), not chance, so the merged count is no flake rate; measure each job on its own',
    ])
    // One execution a job is no evidence of a difference: x then . is a rate of ½ (chance 1 of folders being uniform).
    expect(merge([oneRun([reported('a', 'x')], 'j1'), oneRun([reported('a', '.')], 'j2')]).bundle.rate.tests?.[0]?.verdict).toBe('flaky')
  })

  it.each([
    // PPPPFFFF joined is one switch, chance 2/C(8, 4) = 0.0286: once called non-idempotent. But it
    // switches at a job's edge, which no repetition's state crosses; the runs test (p = 0.0571) and
    // the split by folder (6/70 = 0.0857) find nothing: a flake rate.
    { case: 'passes in two jobs and fails in two: no switch across jobs, flaky', jobs: ['..', '..', 'xx', 'xx'], verdict: 'flaky', p: null },
    // .xx in each of four jobs: the same switch in every job, 2/3⁴ = 0.0247 < 0.05.
    { case: 'the same switch inside every job: non-idempotent', jobs: ['.xx', '.xx', '.xx', '.xx'], verdict: 'non-idempotent', p: 2 / 81 },
  ])('reads the order of a test\'s outcomes inside each job: $case', ({ jobs, verdict, p }) => {
    const merged = merge(jobs.map((pattern, i) => oneRun([reported('a', pattern)], `j${i + 1}`))).bundle.rate
    expect(merged.tests?.[0]?.verdict).toBe(verdict)
    const switchP = merged.tests?.[0]?.independence?.switch_p_value ?? null
    if (p === null) expect(switchP).toBeNull()
    else expect(switchP).toBeCloseTo(p, 12)
  })

  it('keeps each test\'s fast executions first, so gapped ones of an earlier folder never shift the rounds', () => {
    // Each folder: fast x.. or .x., then two gapped .x; merged fast sequence x...x. fails rounds 1 and 5 of 6.
    const observed = (dir: string, fast: string) => {
      const test = reported('a', fast)
      test.evidence.repetitions.push(...reportedTest('a', '.x', { mode: 'slow' }).evidence.repetitions)
      return oneRun([test], dir)
    }
    const merged = merge([observed('o1', 'x..'), observed('o2', '.x.')])
    expect([merged.bundle.rate.trials, merged.bundle.rate.failures]).toEqual([6, 2])
    expect(merged.bundle.onlyWhenFail?.failure_trials).toEqual([1, 5])
    expect(merged.bundle.observer?.tests?.['a.test.ts > a']).toMatchObject({ fast: { trials: 6, failures: 2 }, slow: { trials: 4, failures: 2 } })
    expect((merged.facts as TestFact[]).map((f) => `${f.mode}:${f.origin}`)).toEqual(['fast:o1', 'fast:o1', 'fast:o1', 'fast:o2', 'fast:o2', 'fast:o2', 'slow:o1', 'slow:o1', 'slow:o2', 'slow:o2'])
  })
})

describe('mergeRuns refuses what does not add up', () => {
  it.each([
    ['a different confidence level', { confidence: 0.99 }, 'j2: measured at confidence 0.99, but j1 at 0.95; merge only folders measured at the same --confidence'],
  ])('%s, naming the folder', (_, change, message) => {
    const second = oneRun([reported('a', '.x.')], 'j2')
    expect(() => merge([oneRun([reported('a', 'x..')], 'j1'), { ...second, rate: { ...second.rate, ...change } }])).toThrow(message)
  })

  it('a command-mode folder beside a test-mode one', () => {
    const command: MergeSource = { dir: 'c', kind: 'command', rate: rateFile({ trials: 1, failures: 0, rate: 0, ci_low: 0, ci_high: 0.79 }), facts: null }
    expect(() => merge([oneRun([reported('a', 'x..')], 't'), command])).toThrow('c: holds a command-mode run, but t a test-mode run')
  })

  it('a folder of another schema version, by name, before reading its fields', () => {
    const dir = join(tempDir(), 'old')
    mkdirSync(dir)
    writeFileSync(join(dir, 'rate.json'), JSON.stringify({ schema_version: 2, trials: 'many' }))
    expect(() => readMergeSource(dir)).toThrow(`${dir}: rate.json has schema_version 2, this flakeproof reads 1`)
  })
})

describe('mergeRuns in command mode', () => {
  const fact = (trial: number, outcome: 'passed' | 'failed'): Fact => ({
    trial, exit_code: outcome === 'passed' ? 0 : 1, outcome, elapsed_ms: 5, stderr: outcome === 'failed' ? 'BOOM' : '', stdout: '', signal: null, timed_out: false,
    started_at: new Date(0).toISOString(), offset_ms: (trial - 1) * 10, gap_ms: 0, worker: 1, concurrent: 0, stdout_bytes: 0, stderr_bytes: outcome === 'failed' ? 4 : 0,
  })
  const source = (dir: string, outcomes: ('passed' | 'failed')[], withFacts = true): MergeSource => {
    const failures = outcomes.filter((o) => o === 'failed').length
    return { dir, kind: 'command', rate: rateFile({ trials: outcomes.length, failures, rate: failures / outcomes.length, ci_low: 0, ci_high: 1 }, { requested_trials: outcomes.length }), facts: withFacts ? outcomes.map((o, i) => fact(i + 1, o)) : null }
  }

  it('numbers trials on across folders, with their origin, and recomputes from the sums', () => {
    const merged = merge([source('m1', ['failed', 'passed']), source('m2', ['passed', 'passed', 'failed'])])
    expect(merged.facts.map((f) => [f.trial, f.outcome, f.origin])).toEqual([[1, 'failed', 'm1'], [2, 'passed', 'm1'], [3, 'passed', 'm2'], [4, 'passed', 'm2'], [5, 'failed', 'm2']])
    // 2 of 5, Wilson 95% (z = 1.96): [0.1176, 0.7693] (docs/contracts.md §2, by hand).
    const { trials, failures, ci_low, ci_high, requested_trials } = merged.bundle.rate
    expect([trials, failures, requested_trials]).toEqual([5, 2, 5])
    expect(ci_low).toBeCloseTo(0.1176, 4)
    expect(ci_high).toBeCloseTo(0.7693, 4)
    expect(merged.bundle.onlyWhenFail?.failure_trials).toEqual([1, 5])
    expect(merged.bundle.onlyWhenFail?.token).toBe('BOOM')
    expect(merged.bundle.policy?.trials).toBe(5)
  })

  it('reads the order of the trials inside each folder: a switch at a folder\'s edge is the folders\' difference', () => {
    // passed ×4 then failed ×4 in four folders of two: one switch joined (2/70), none inside a folder.
    const [p, f] = ['passed', 'failed'] as const
    const merged = merge([source('m1', [p, p]), source('m2', [p, p]), source('m3', [f, f]), source('m4', [f, f])]).bundle.rate
    expect([merged.independence?.pattern, merged.verdict]).toEqual(['independent', 'flaky'])
    expect(merge([source('m1', [p, p, p, p, f, f, f, f])]).bundle.rate.verdict).toBe('non-idempotent')
  })

  it('adds the counts of folders without facts.jsonl, and claims no trial order', () => {
    const merged = merge([source('m1', ['passed', 'failed']), source('m2', ['passed', 'passed', 'failed'], false)])
    expect([merged.bundle.rate.trials, merged.bundle.rate.failures, merged.bundle.rate.independence, merged.bundle.onlyWhenFail]).toEqual([5, 2, null, undefined])
  })
})

describe('indexTestFacts', () => {
  const HINT = 'hint'

  it('finds each test\'s lines across chunk boundaries, in file order, holding only their places', () => {
    // 300 lines of ~8 KiB (2.4 MB) cross the 1 MiB chunks; two tests interleave in blocks, and one line has multi-byte text.
    const a = reportedTest('a', '.'.repeat(150))
    const b = reportedTest('b', 'x'.repeat(150))
    for (const t of [a, b]) t.evidence.repetitions = t.evidence.repetitions.map((r, i) => ({ ...r, stdout: `${'é'.repeat(i)}${'y'.repeat(8000)}` }))
    const lines = [...toFactLines(a).slice(0, 70), ...toFactLines(b), ...toFactLines(a).slice(70)]
    const path = join(tempDir(), 'facts.jsonl')
    writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`)
    const index = indexTestFacts(path, 'input', HINT)
    expect(index.ids).toEqual(['a.test.ts > a', 'a.test.ts > b'])
    expect(index.linesOf('a.test.ts > a')).toEqual(toFactLines(a))
    expect(index.linesOf('a.test.ts > b')).toEqual(toFactLines(b))
    expect(index.linesOf('not there')).toEqual([])
  })

  it('names the file and line of a line that is not a fact', () => {
    const path = join(tempDir(), 'facts.jsonl')
    writeFileSync(path, `${JSON.stringify(toFactLines(reportedTest('a', '.'))[0])}\n{"trial": 0}\n`)
    expect(() => indexTestFacts(path, 'input', HINT)).toThrow(`input ${path}: line 2: `)
  })
})

describe('assertOutsideInputs', () => {
  it('refuses --out when it is one of the folders to merge, by another spelling too', () => {
    const dir = tempDir()
    expect(() => assertOutsideInputs(`${dir}/.`, [join(dir, '..', 'x'), dir])).toThrow(`--out ${dir}/. is also a folder to merge (${dir})`)
    expect(() => assertOutsideInputs(join(dir, 'merged'), [dir])).not.toThrow()
  })
})
