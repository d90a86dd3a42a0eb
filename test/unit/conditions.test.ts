import { describe, expect, it } from 'vitest'
import type { RoundCondition } from '../../src/artifacts/conditions-schema.js'
import { buildConditions, type PlannedRound } from '../../src/pipeline/conditions.js'
import { unreproducedConditions } from '../../src/pipeline/proof-conditions.js'
import type { ShuffleRule } from '../../src/core/shuffle-order.js'
import { outcomeOf } from '../../src/pipeline/test-bundle.js'
import { type RoundResult, earlierTests, tallyRounds } from '../../src/pipeline/test-rounds.js'

const confidence = { value: 0.95, exact: { num: 19n, den: 20n } }

/** One execution of `name` (file a.test.ts) in a round: its outcome, its place in the worker, the order's seed. */
function result(name: string, round: number, condition: RoundCondition, ok: boolean, order = 1, seed: number | null = null, suites: string[] = []): RoundResult {
  const id = ['a.test.ts', ...suites, name].join(' > ')
  return {
    round,
    condition,
    test: {
      project: '',
      file: 'a.test.ts',
      name: [...suites, name].join(' > '),
      evidence: { id, path: [...suites, name], order, previousTest: null, worker: '1', seed, repetitions: [{ ok, elapsedMs: 1, mode: 'fast', gapMs: 0, ...(ok ? {} : { error: 'BOOM' }) }] },
    },
  }
}

function build(perTest: Map<string, RoundResult[]>, rounds: PlannedRound[], shuffle = false, shuffleRule?: ShuffleRule) {
  const ranBefore = earlierTests(perTest)
  const outcomes = [...perTest.values()].map((r) => outcomeOf(tallyRounds(r, confidence.exact, ranBefore), r.length, confidence))
  return buildConditions({ command: 'vitest', confidence, rounds, loadProcs: 2, shuffle, shuffleRule, perTest, outcomes })
}

const alternating = (n: number, other: RoundCondition): PlannedRound[] =>
  Array.from({ length: 2 * n }, (_, i) => ({ round: i + 1, condition: i % 2 === 0 ? 'base' : other, seed: null }))

describe('buildConditions', () => {
  // Fisher, two-sided: n/n vs 0/n has p = 2 / C(2n, n); 4 → 2/70 = 0.0286 < 0.05, 3 → 2/20 = 0.1.
  it.each([
    { case: 'fails in every parallel round, never serially (4 each)', n: 4, other: 'serial' as const, failsIn: 'base', tag: 'parallel-only', p: 2 / 70 },
    { case: 'the same with 3 rounds each: too few to tell', n: 3, other: 'serial' as const, failsIn: 'base', tag: null, p: 2 / 20 },
    { case: 'fails in every load round, never idle (4 each)', n: 4, other: 'load' as const, failsIn: 'load', tag: 'load-only', p: 2 / 70 },
  ])('$case', ({ n, other, failsIn, tag, p }) => {
    const plan = alternating(n, other)
    const perTest = new Map([['a.test.ts > t', plan.map((r) => result('t', r.round, r.condition, r.condition !== failsIn))]])
    const [comparison] = build(perTest, plan).tests['a.test.ts > t']?.comparisons ?? []
    expect(comparison?.tag).toBe(tag)
    expect(comparison?.p_value).toBeCloseTo(p, 12)
    // Not significant: how many rounds of each would be; 1 vs 0 needs 4 (see difference.test.ts).
    if (tag === null) expect(comparison?.note).toMatch(/^No difference found with these counts .*; about 4 rounds of each would show one at these rates\.$/)
  })

  it('compares the aggregate of every parallel round, not one serial sample against one parallel one', () => {
    // Parallel 3/6, serial 0/6: 6 vs 6 executions on the two sides.
    const plan = alternating(6, 'serial')
    const perTest = new Map([['a.test.ts > t', plan.map((r) => result('t', r.round, r.condition, !(r.condition === 'base' && r.round % 4 === 1)))]])
    const [comparison] = build(perTest, plan).tests['a.test.ts > t']?.comparisons ?? []
    expect([comparison?.a.trials, comparison?.a.failures, comparison?.b.trials, comparison?.b.failures]).toEqual([6, 3, 6, 0])
  })

  it('leaves out tests that never failed, one that failed every time, and a type test that failed its one run', () => {
    const plan = alternating(2, 'serial')
    const typeTest = result('types', 1, 'base', false)
    for (const r of typeTest.test.evidence.repetitions) r.mode = 'single'
    const perTest = new Map([
      ['a.test.ts > ok', plan.map((r) => result('ok', r.round, r.condition, true))],
      ['a.test.ts > broken', plan.map((r) => result('broken', r.round, r.condition, false))],
      ['a.test.ts > types', [typeTest]],
    ])
    // Before: both were compared, "parallel (as configured) 0 of 0, serial 0 of 0" and "2 of 2, 2 of 2, p = 1.00".
    expect(build(perTest, plan).tests).toEqual({})
  })

  it('names the test whose running first the failures follow, with a failing and a passing seed', () => {
    // 6 shuffled rounds: "leaks" runs first in rounds 1, 3, 4, 6 (seeds 11, 13, 14, 16) and "reads" fails exactly then.
    const first = new Set([1, 3, 4, 6])
    const plan = Array.from({ length: 6 }, (_, i): PlannedRound => ({ round: i + 1, condition: 'base', seed: 11 + i }))
    const leaks = plan.map((r) => result('leaks', r.round, 'base', true, first.has(r.round) ? 1 : 2, r.seed))
    const reads = plan.map((r) => result('reads', r.round, 'base', !first.has(r.round), first.has(r.round) ? 2 : 1, r.seed))
    const perTest = new Map([['a.test.ts > leaks', leaks], ['a.test.ts > reads', reads]])
    const { order, tags } = build(perTest, plan, true).tests['a.test.ts > reads'] ?? {}
    // 4/4 after it against 0/2 otherwise: one table of C(6,2) = 15 as extreme, p = 1/15 > 0.05.
    expect(order).toMatchObject({ culprit: 'a.test.ts > leaks', after_culprit: { trials: 4, failures: 4 }, otherwise: { trials: 2, failures: 0 }, tag: null })
    expect(order?.p_value).toBeCloseTo(1 / 15, 12)
    expect(order?.failing_order).toEqual({ round: 1, seed: 11 })
    expect(order?.passing_order).toEqual({ round: 2, seed: 12 })
    expect(tags).toEqual([])
  })

  it('divides the confidence among every culprit tried in the run, so a run names an innocent one at most 5% of the time', () => {
    // 8 rounds; "reads" fails exactly in the 4 where "leaks" ran before it: 4/4 against 0/4, p = 2/70.
    const first = new Set([1, 3, 5, 7])
    const plan = Array.from({ length: 8 }, (_, i): PlannedRound => ({ round: i + 1, condition: 'base', seed: 20 + i }))
    const leaks = plan.map((r) => result('leaks', r.round, 'base', true, first.has(r.round) ? 1 : 3, r.seed))
    const reads = plan.map((r) => result('reads', r.round, 'base', !first.has(r.round), 2, r.seed))
    // Alone, "leaks" is the one culprit tried: 0.0286 < 0.05.
    const alone = build(new Map([['a.test.ts > leaks', leaks], ['a.test.ts > reads', reads]]), plan, true).tests['a.test.ts > reads']?.order
    expect(alone).toMatchObject({ significant: true, tag: 'order-dependent', hypotheses: 1 })
    expect(alone?.p_value).toBeCloseTo(2 / 70, 12)
    // A third test, "other", runs last in the rounds "leaks" opens and first in the others, and fails
    // once (round 2). Tried now: "reads" against "leaks" and "other", "other" against "leaks" and
    // "reads": 4 hypotheses in the run. "reads" is still best explained by "leaks" ("other" gives
    // the mirror table, 0/4 against 4/4, at the same 2/70: a shuffle makes two tests' rounds exact
    // complements with chance (1/3)^rounds, so it is not named beside it), but 2/70 is not below 0.05 / 4.
    const other = plan.map((r) => result('other', r.round, 'base', r.round !== 2, first.has(r.round) ? 3 : 1, r.seed))
    const tests = build(new Map([['a.test.ts > leaks', leaks], ['a.test.ts > reads', reads], ['a.test.ts > other', other]]), plan, true).tests
    expect(tests['a.test.ts > reads']?.order).toMatchObject({ culprit: 'a.test.ts > leaks', significant: false, tag: null, hypotheses: 4 })
    expect(tests['a.test.ts > reads']?.order?.adjusted_p_value).toBeCloseTo(8 / 70, 12)
  })
})

describe('buildConditions: which test to name', () => {
  // 10 shuffled rounds; "reads" fails exactly in the 5 where the named test(s) ran before it (or, for
  // `needs`, where they did not): 5/5 against 0/5, two-sided p = 2/252 = 0.0079 < 0.05 / 2.
  const firstIn = new Set([1, 3, 5, 7, 9])
  const plan = Array.from({ length: 10 }, (_, i): PlannedRound => ({ round: i + 1, condition: 'base', seed: 30 + i }))
  const before = (name: string, rounds: ReadonlySet<number>) => plan.map((r) => result(name, r.round, 'base', true, rounds.has(r.round) ? 1 : 3, r.seed))

  it('names every test that ran before it in the very same rounds, never one of them by its name', () => {
    // "leaks" and "twin" both ran before "reads" in rounds 1, 3, 5, 7, 9: these rounds cannot tell them apart.
    const reads = plan.map((r) => result('reads', r.round, 'base', !firstIn.has(r.round), 2, r.seed))
    const perTest = new Map([['a.test.ts > leaks', before('leaks', firstIn)], ['a.test.ts > twin', before('twin', firstIn)], ['a.test.ts > reads', reads]])
    const order = build(perTest, plan, true).tests['a.test.ts > reads']?.order
    expect(order).toMatchObject({ culprit: 'a.test.ts > leaks', tied: ['a.test.ts > twin'], direction: 'fails-after', significant: true, hypotheses: 2 })
    expect(order?.p_value).toBeCloseTo(2 / 252, 12)
    expect(order?.note).toMatch(/^Fails when a\.test\.ts > leaks or a\.test\.ts > twin runs before it \(.*; these rounds support each of these 2 tests alike; more shuffled rounds may tell them apart\): state one of them leaves/)
  })

  it.each<[ShuffleRule | undefined, object | undefined, RegExp]>([
    // Jest and Vitest keep a describe block whole: its tests tie in every run, and more rounds would not help.
    ['blocks', { kind: 'block', scope: ['cache'] }, /; these 2 tests run on the same side of it in every shuffled order \(describe cache, which a shuffle keeps whole\), so no number of rounds tells them apart: the state is in them or their hooks\): /],
    ['blocks-apart-from-tests', { kind: 'block', scope: ['cache'] }, /\(describe cache, which a shuffle keeps whole\)/],
    // A runner whose shuffle is unknown: nothing assumed.
    [undefined, undefined, /; these rounds support each of these 2 tests alike; more shuffled rounds may tell them apart\): /],
  ])('says when the tied tests share a describe block that no shuffle parts (%s)', (rule, together, note) => {
    const inBlock = (name: string) => plan.map((r) => result(name, r.round, 'base', true, firstIn.has(r.round) ? 1 : 3, r.seed, ['cache']))
    const reads = plan.map((r) => result('reads', r.round, 'base', !firstIn.has(r.round), 2, r.seed))
    const perTest = new Map([['a.test.ts > cache > fills', inBlock('fills')], ['a.test.ts > cache > reads back', inBlock('reads back')], ['a.test.ts > reads', reads]])
    const order = build(perTest, plan, true, rule).tests['a.test.ts > reads']?.order
    expect(order).toMatchObject({ culprit: 'a.test.ts > cache > fills', tied: ['a.test.ts > cache > reads back'], significant: true })
    expect(order?.together).toEqual(together)
    expect(order?.note).toMatch(note)
  })

  it('does not call two describe blocks of one name inseparable: a test ran between their tests in a round', () => {
    // Paths hold names only, so `describe('cache')` twice reads as one block; in round 1 "other" ran
    // between its tests (orders 1, 2, 3), so they are two, and a shuffle can part them.
    const orders = (round: number): Record<string, number> => {
      if (round === 1) return { fills: 1, other: 2, 'reads back': 3, reads: 4 }
      if (round === 2) return { other: 1, reads: 2, fills: 3, 'reads back': 4 }
      return firstIn.has(round) ? { fills: 1, 'reads back': 2, reads: 3, other: 4 } : { reads: 1, fills: 2, 'reads back': 3, other: 4 }
    }
    const of = (name: string, suites: string[], ok: (round: number) => boolean) => plan.map((r) => result(name, r.round, 'base', ok(r.round), orders(r.round)[name], r.seed, suites))
    const perTest = new Map([
      ['a.test.ts > cache > fills', of('fills', ['cache'], () => true)],
      ['a.test.ts > cache > reads back', of('reads back', ['cache'], () => true)],
      ['a.test.ts > other', of('other', [], () => true)],
      ['a.test.ts > reads', of('reads', [], (round) => !firstIn.has(round))],
    ])
    const order = build(perTest, plan, true, 'blocks').tests['a.test.ts > reads']?.order
    expect(order).toMatchObject({ culprit: 'a.test.ts > cache > fills', tied: ['a.test.ts > cache > reads back'], significant: true })
    expect(order?.together).toBeUndefined()
    expect(order?.note).toContain('more shuffled rounds may tell them apart')
  })

  it('names only the closest candidate of a finding that is not significant, the ones tied with it counted', () => {
    // The first 6 rounds: 3/3 against 0/3, p = 2/20 = 0.1, not below 0.05 / 2.
    const six = plan.slice(0, 6)
    const reads = six.map((r) => result('reads', r.round, 'base', !firstIn.has(r.round), 2, r.seed))
    const before6 = (name: string) => six.map((r) => result(name, r.round, 'base', true, firstIn.has(r.round) ? 1 : 3, r.seed))
    const perTest = new Map([['a.test.ts > leaks', before6('leaks')], ['a.test.ts > twin', before6('twin')], ['a.test.ts > reads', reads]])
    const order = build(perTest, six, true).tests['a.test.ts > reads']?.order
    expect(order).toMatchObject({ culprit: 'a.test.ts > leaks', tied: ['a.test.ts > twin'], significant: false })
    expect(order?.note).toMatch(/^No order dependence found with these counts \(closest: a\.test\.ts > leaks or 1 other, failed in 3 of 3 rounds after it, 0 of 3 otherwise, p = 0\.100; 2 culprit\(s\) tried in the run, so significant below 0\.0250\); about \d+ rounds on each side would show one\.$/)
  })

  it('says a test fails unless another runs before it when that is what the rounds show, replaying each side', () => {
    // "reads" needs "setup": it fails in the 5 rounds where "setup" did not run before it.
    const reads = plan.map((r) => result('reads', r.round, 'base', firstIn.has(r.round), 2, r.seed))
    const perTest = new Map([['a.test.ts > setup', before('setup', firstIn)], ['a.test.ts > reads', reads]])
    const order = build(perTest, plan, true).tests['a.test.ts > reads']?.order
    expect(order).toMatchObject({ culprit: 'a.test.ts > setup', direction: 'needs', significant: true, tag: 'order-dependent', after_culprit: { trials: 5, failures: 0 }, otherwise: { trials: 5, failures: 5 } })
    expect(order?.tied).toBeUndefined()
    // The failing order is a round without "setup" first (round 2), the passing one a round with it (round 1).
    expect(order?.failing_order).toEqual({ round: 2, seed: 31 })
    expect(order?.passing_order).toEqual({ round: 1, seed: 30 })
    expect(order?.note).toMatch(/^Fails unless a\.test\.ts > setup runs before it \(failed in 0 of 5 rounds after it, 5 of 5 otherwise, p = 0\.00794; .*\): it needs state the test before it leaves/)
  })
})

describe('unreproducedConditions', () => {
  const measured = { rounds: 4, repeat: 1, conditions: ['base', 'load'] as RoundCondition[], load_procs: 2, shuffle: false, seeds: [], gap_ms: 2000 }
  const proof = { rounds: 1, divergence: false, load: false, shuffle: false }
  it.each([
    ['an idle, single-round proof', proof, ['4 whole-run rounds with fresh module state (--flaky-rounds 4)', 'a busy machine, 2 spinning process(es) (--flaky-load)']],
    ['the recorded conditions', { ...proof, rounds: 4, load: true }, []],
  ])('%s', (_name, given, missing) => {
    expect(unreproducedConditions(measured, given)).toEqual(missing)
  })

  it('asks for the one seed a measurement ran with, and nothing of an older policy without conditions', () => {
    expect(unreproducedConditions({ ...measured, rounds: 1, conditions: ['base'], seeds: [7] }, proof)).toEqual(['the order of seed 7 (--flaky-seed 7)'])
    expect(unreproducedConditions(undefined, proof)).toEqual([])
  })
})
