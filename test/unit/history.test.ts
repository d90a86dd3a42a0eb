import { execFileSync, spawn } from 'node:child_process'
import { readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type HistoryRecord, HistoryRecordSchema, type HistoryRun, pruneHistory, readHistoryRuns, writeHistoryRun } from '../../src/artifacts/history.js'
import { analyzeHistory, type HistoryQuery } from '../../src/pipeline/history.js'
import { branchOf, revisionOf } from '../../src/pipeline/history-record.js'
import { settle, ROOT, tempDir } from '../utils.js'

const confidence = { value: 0.95, exact: { num: 19n, den: 20n } }
const query: HistoryQuery = { since: null, branch: null, confidence, command: 'flakeproof history' }
const DAY = 86_400_000

/** One test of one run, `day` days after 2026-01-01. */
function record(name: string, day: number, outcome: HistoryRecord['outcome'], extra: Partial<HistoryRecord> = {}): HistoryRecord {
  return {
    test_id: `a.test.ts > ${name}`, project: '', file: 'a.test.ts', name, outcome, retries: outcome === 'flaky' ? 1 : 0, duration_ms: 3,
    commit: 'c1', branch: 'main', os: 'linux', at: new Date(Date.UTC(2026, 0, 1) + day * DAY).toISOString(), ...extra,
  }
}

/** Runs on days 1..n; `pattern` says what each test did in each run (p passed, x failed, r passed on retry). */
function runs(patterns: Record<string, string>, extra: (run: number) => Partial<HistoryRecord> = () => ({})): HistoryRun[] {
  const n = Math.max(...Object.values(patterns).map((p) => p.length))
  return Array.from({ length: n }, (_, i) => ({
    file: `run-${String(i + 1).padStart(3, '0')}.jsonl`,
    records: Object.entries(patterns).flatMap(([name, p]) => {
      const c = p[i]
      return c === undefined || c === '-' ? [] : [record(name, i + 1, c === 'x' ? 'failed' : c === 'r' ? 'flaky' : 'passed', extra(i + 1))]
    }),
  }))
}

const testOf = (analysis: ReturnType<typeof analyzeHistory>, name: string) => analysis.history.tests.find((t) => t.id === `a.test.ts > ${name}`)

describe('analyzeHistory over five ordinary runs', () => {
  // Wilson 95%, z = 1.96 (docs/contracts.md §2), by hand: 2 of 5 → [0.1176, 0.7693]; 3 of 5 → [0.2307, 0.8824].
  it.each([
    ['pxpxp', 2, 0.1176, 0.7693],
    ['xpxpx', 3, 0.2307, 0.8824],
  ])('a test failing every second run (%s) is %i/5 with its interval, and flaky', (pattern, failures, low, high) => {
    const analysis = analyzeHistory(runs({ alternating: pattern, steady: 'ppppp' }), query)
    const t = testOf(analysis, 'alternating')
    expect([t?.runs, t?.trials, t?.failures, t?.verdict]).toEqual([5, 5, failures, 'flaky'])
    expect(t?.ci_low).toBeCloseTo(low, 4)
    expect(t?.ci_high).toBeCloseTo(high, 4)
    expect(analysis.history.tests[0]?.id).toBe('a.test.ts > alternating')
    // rate.json: one round per run, failed when a test failed in it.
    expect([analysis.bundle.rate.trials, analysis.bundle.rate.failures]).toEqual([5, failures])
    expect(analysis.bundle.policy?.tests?.['a.test.ts > alternating']?.verdict).toBe('flaky')
  })

  it('counts a pass only after a retry as a flake: one failed and one passed attempt, flaky and never broken', () => {
    // rrrrr: each run 1 failed + 1 passed attempt, so 5 of 10 attempts failed, in all 5 runs.
    const t = testOf(analyzeHistory(runs({ retried: 'rrrrr' }), query), 'retried')
    expect([t?.runs, t?.trials, t?.failures, t?.flakes, t?.verdict]).toEqual([5, 10, 5, 5, 'flaky'])
  })

  it('gives a test its own runs: one added in the last two runs is 0/2 and stable, not partial', () => {
    const t = testOf(analyzeHistory(runs({ old: 'ppppp', added: '---pp' }), query), 'added')
    expect([t?.runs, t?.trials, t?.failures, t?.verdict]).toEqual([2, 2, 0, 'stable'])
  })

  it('keeps only runs on --branch and since --since', () => {
    const all = runs({ t: 'xpxpx' }, (run) => ({ branch: run <= 2 ? 'feature' : 'main' }))
    expect(testOf(analyzeHistory(all, { ...query, branch: 'main' }), 't')?.trials).toBe(3)
    // Runs end on days 1..5; since day 4 keeps runs 4 and 5 (p, x).
    const since = new Date(Date.UTC(2026, 0, 1) + 4 * DAY)
    expect(testOf(analyzeHistory(all, { ...query, since }), 't')).toMatchObject({ trials: 2, failures: 1 })
    expect(() => analyzeHistory(all, { ...query, branch: 'nope' })).toThrow('no run left after the filters (5 file(s) matched --glob)')
  })
})

describe('analyzeHistory notices a changed rate at a commit', () => {
  it('finds the commit that broke a test, with Fisher and one commit tried', () => {
    // 10 passing runs at c1, then 10 failing at c2: two-sided Fisher on [[0, 10], [10, 0]] = 2 / C(20, 10) = 2 / 184756.
    const history = runs({ t: 'pppppppppp' + 'xxxxxxxxxx' }, (run) => ({ commit: run <= 10 ? 'c1' : 'c2' }))
    const { history: analyzed, bundle } = analyzeHistory(history, query)
    const { changes } = analyzed
    expect(changes).toHaveLength(1)
    expect(changes[0]).toMatchObject({ test_id: 'a.test.ts > t', commit: 'c2', before: { runs: 10, failures: 0 }, after: { runs: 10, failures: 10 } })
    expect(changes[0]?.p_value).toBeCloseTo(2 / 184756, 12)
    // The change-point posterior (bisect's model, Jeffreys priors, "no change" at prior ½): the evidence
    // for a change at c2 is B(½, 10½)²/B(½, ½)² = (C(20,10)/4¹⁰)², for no change B(10½, 10½)/B(½, ½) =
    // C(20,10)/4²⁰, so P(c2) = C(20,10)/(C(20,10) + 1) = 184756/184757.
    expect(changes[0]?.change_point?.commit).toBe('c2')
    expect(changes[0]?.change_point?.probability).toBeCloseTo(184756 / 184757, 12)
    expect(changes[0]?.change_point?.no_change).toBeCloseTo(1 / 184757, 12)
    // Not a flake: every run at c2 failed and none at c1; given 10 failures of 20, 2 of the C(20, 10)
    // choices of the failing runs leave each commit uniform: 2 / 184756 = 1.08e-5. Partial, with the reason.
    expect(bundle.rate.tests?.map((t) => [t.failures, t.trials, t.verdict])).toEqual([[10, 20, 'partial']])
    expect(bundle.rate.run_errors?.map((e) => e.error)).toEqual([
      't: failed every attempt at c2 and passed every attempt at c1 (p = 0.0000108 by chance): a change in the code, not chance, so its history is no flake rate; measure it at one commit',
    ])
  })

  it('reports no change for a steady flake across many commits (each commit tried costs significance)', () => {
    const history = runs({ t: 'pxpxpxpxpxpxpxpxpxpx' }, (run) => ({ commit: `c${run}` }))
    expect(analyzeHistory(history, query).history.changes).toEqual([])
  })
})

describe('history files', () => {
  const rec = record('t', 1, 'passed')

  it('are pruned by age, then oldest first down to the size cap, never the file just written', () => {
    const dir = tempDir()
    const now = new Date(Date.UTC(2026, 5, 1))
    for (const [name, ageDays] of [['old.jsonl', 100], ['mid.jsonl', 10], ['new.jsonl', 1]] as const) {
      writeFileSync(join(dir, name), `${'x'.repeat(1000)}\n`)
      const t = (now.getTime() - ageDays * DAY) / 1000
      utimesSync(join(dir, name), t, t)
    }
    // 90 days of age: old.jsonl goes; the rest (2002 bytes) fits 3000 bytes.
    expect(pruneHistory(dir, now, { maxAgeDays: 90, maxBytes: 3000 })).toEqual(['old.jsonl'])
    // A cap of 1500 bytes with new.jsonl kept: mid.jsonl goes too.
    expect(pruneHistory(dir, now, { maxAgeDays: 90, maxBytes: 1500 }, 'new.jsonl')).toEqual(['mid.jsonl'])
    expect(readdirSync(dir)).toEqual(['new.jsonl'])
  })

  it('get a name of their own per run: runs ending in the same millisecond never share a file', () => {
    const dir = tempDir()
    const now = new Date(Date.UTC(2026, 0, 1))
    const paths = Array.from({ length: 20 }, () => writeHistoryRun(dir, [rec], now))
    expect(new Set(paths).size).toBe(20)
    // Alike to the millisecond, yet 20 runs: each file carries its own run id, so none is taken for a copy of another.
    const { runs, duplicates } = readHistoryRuns([join(dir, '*.jsonl')])
    expect([runs.length, duplicates]).toEqual([20, []])
    expect(new Set(runs.map((r) => r.records[0]?.run_id)).size).toBe(20)
    expect(runs.map((r) => r.records.map(({ run_id: _id, ...rest }) => rest))).toEqual(Array.from({ length: 20 }, () => [rec]))
  })

  it('are written by parallel processes side by side, each whole', async () => {
    const dir = tempDir()
    const script = `import(${JSON.stringify(join(ROOT, 'dist/src/artifacts/history.js'))}).then((m) => { for (let i = 0; i < 50; i++) m.writeHistoryRun(process.argv[1], [JSON.parse(process.argv[2])], new Date(0)) })`
    const children = Array.from({ length: 6 }, () => settle(spawn(process.execPath, ['-e', script, dir, JSON.stringify(rec)], { stdio: ['ignore', 'pipe', 'pipe'] })))
    const results = await Promise.all(children)
    expect(results.map((r) => [r.code, r.stderr])).toEqual(Array.from({ length: 6 }, () => [0, '']))
    const files = readdirSync(dir)
    expect(files).toHaveLength(300)
    for (const file of files) expect(HistoryRecordSchema.parse(JSON.parse(readFileSync(join(dir, file), 'utf8')))).toEqual({ ...rec, run_id: expect.any(String) })
    // Six Node processes at once: seconds on a loaded 2-core machine, past the unit default.
  }, 60_000)

  it('name the file and line of a record that is not one', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'bad.jsonl'), `${JSON.stringify(rec)}\n{"test_id": 1}\n`)
    expect(() => readHistoryRuns([join(dir, '*.jsonl')])).toThrow(`--glob ${join(dir, 'bad.jsonl')}: line 2: `)
  })
})

describe('revisionOf', () => {
  it.each([
    [{ GITHUB_SHA: 'abc', GITHUB_REF_NAME: 'main' }, { commit: 'abc', branch: 'main' }],
    // A pull request: GITHUB_REF_NAME is `7/merge`, the branch is GITHUB_HEAD_REF.
    [{ GITHUB_SHA: 'abc', GITHUB_REF_NAME: '7/merge', GITHUB_HEAD_REF: 'fix-cache' }, { commit: 'abc', branch: 'fix-cache' }],
    [{ CI_COMMIT_SHA: 'def', CI_COMMIT_REF_NAME: 'dev' }, { commit: 'def', branch: 'dev' }],
  ])('reads the CI variables first: %j', (env, expected) => {
    expect(revisionOf(env, tempDir())).toEqual(expected)
  })

  it('says null, not a guess, outside a repository with no CI variables', () => {
    expect(revisionOf({}, tempDir())).toEqual({ commit: null, branch: null })
    expect(branchOf({}, tempDir())).toBeNull()
  })

  it('asks git, in one call, for what the CI variables do not say: the commit, the branch (none when detached), or both', () => {
    const repo = tempDir()
    const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, encoding: 'utf8' }).trim()
    git('init', '-q', '-b', 'topic')
    expect(revisionOf({}, repo)).toEqual({ commit: null, branch: null }) // no commit yet: git knows neither
    git('commit', '-q', '--allow-empty', '-m', 'one')
    const sha = git('rev-parse', 'HEAD')
    expect(revisionOf({}, repo)).toEqual({ commit: sha, branch: 'topic' })
    expect(revisionOf({ GITHUB_SHA: 'abc' }, repo)).toEqual({ commit: 'abc', branch: 'topic' })
    expect(revisionOf({ CI_COMMIT_REF_NAME: 'dev' }, repo)).toEqual({ commit: sha, branch: 'dev' })
    expect(branchOf({}, repo)).toBe('topic')
    git('checkout', '-q', '--detach')
    expect(revisionOf({}, repo)).toEqual({ commit: sha, branch: null })
    expect(branchOf({}, repo)).toBeNull()
  })
})
