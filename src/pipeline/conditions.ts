import type { ConditionsFile, RoundCondition } from '../artifacts/conditions-schema.js'
import { compareCounts, trialsToSeeDifference } from '../core/difference.js'
import { complement } from '../core/fraction.js'
import { countOf } from '../artifacts/counts-text.js'
import { culpritsText, tiedText } from '../artifacts/culprit-text.js'
import { describeRate } from '../core/rate.js'
import { hasNoRate } from '../core/verdict.js'
import type { Confidence, TestOutcome } from './test-bundle.js'
import { earlierTests, type RoundResult } from './test-rounds.js'
import { byCodeUnits } from '../core/text-order.js'
import { alwaysTogether, type ShuffleRule } from '../core/shuffle-order.js'

type Comparison = ConditionsFile['tests'][string]['comparisons'][number]
type OrderFinding = NonNullable<ConditionsFile['tests'][string]['order']>
type Tag = ConditionsFile['tests'][string]['tags'][number]

/** One round as the loop ran it. */
export interface PlannedRound {
  round: number
  condition: RoundCondition
  seed: number | null
}

export interface ConditionsRun {
  command: string
  confidence: Confidence
  rounds: readonly PlannedRound[]
  loadProcs: number | null
  /** The order of tests was reseeded every round: look for order dependence. */
  shuffle: boolean
  /** How the runner's shuffle orders a file (which tests it always keeps on one side of another); unknown: none assumed. */
  shuffleRule?: ShuffleRule | undefined
  /** Each test's results, round by round. */
  perTest: ReadonlyMap<string, readonly RoundResult[]>
  outcomes: readonly TestOutcome[]
}

/**
 * conditions.json (docs/contracts.md §13): for each test that failed at least once (a non-idempotent
 * one excepted: its failures follow its own repetitions; a broken one, failing everywhere; and a
 * type test, run once), the rounds of
 * one condition against the rounds of the other — never against one sample — by Fisher's exact
 * test. A tag is given only when the test says so at the chosen confidence and the
 * other side never failed; otherwise the note says no difference was found and how many rounds of
 * each would show one at the rates seen.
 */
export function buildConditions(run: ConditionsRun): ConditionsFile {
  const conditions = new Set(run.rounds.map((r) => r.condition))
  const tests: ConditionsFile['tests'] = {}
  // A test run once by design (a type test) has no rounds of a condition to compare, and one that
  // failed every execution (broken) no condition or order under which it passed.
  const considered = run.outcomes.filter(({ tally, verdict }) => tally.fast.failures + tally.slow.failures > 0 && !hasNoRate(verdict) && verdict !== 'broken' && !tally.once)
  const ranBefore = earlierTests(run.perTest)
  // Every (test, earlier test) pair the order search tries in this run is one hypothesis: the
  // family over which the chance of naming any innocent culprit is kept below 1 − confidence.
  const candidates = new Map(considered.map(({ tally }) => [tally.id, run.shuffle ? orderCandidates(run.perTest.get(tally.id) ?? [], ranBefore) : new Map()]))
  const hypotheses = Math.max(1, [...candidates.values()].reduce((sum, c) => sum + c.size, 0))
  const pathOf = (id: string): readonly string[] => run.perTest.get(id)?.[0]?.test.evidence.path ?? []
  for (const { tally } of considered) {
    const rounds = run.perTest.get(tally.id) ?? []
    // A condition holds for a whole round: the rounds are compared, their executions shown.
    const under = (condition: RoundCondition): [Counts, Counts] => {
      const of = rounds.filter((r) => r.condition === condition)
      return [countFast(of), countRounds(of)]
    }
    const comparisons: Comparison[] = []
    if (conditions.has('serial')) comparisons.push(compare(run, 'divergence', ['parallel (as configured)', ...under('base')], ['serial', ...under('serial')]))
    if (conditions.has('load')) comparisons.push(compare(run, 'load', ['under load', ...under('load')], ['idle', ...under('base')]))
    // Against the fast repetitions interleaved with the gapped ones when there are: time held alike.
    const fast: [string, Counts] = tally.paired.trials > 0 ? ['fast (interleaved)', tally.paired] : ['fast', tally.fast]
    if (tally.slow.trials > 0) comparisons.push(compare(run, 'gap', fast, [`gapped ${tally.slow.gapMs} ms`, tally.slow]))
    const order = run.shuffle ? findOrderDependence(run, rounds, candidates.get(tally.id) ?? new Map(), hypotheses, pathOf) : null
    const tags: Tag[] = [...comparisons.flatMap((c) => (c.tag ? [c.tag] : [])), ...(order?.tag ? [order.tag] : [])]
    tests[tally.id] = { comparisons, order, tags }
  }
  return {
    schema_version: 1,
    command: run.command,
    confidence: run.confidence.value,
    rounds: run.rounds.map((r) => ({ ...r })),
    load_procs: conditions.has('load') ? run.loadProcs : null,
    tests,
  }
}

// --- internal ---

interface Counts {
  trials: number
  failures: number
}

const TAGS = { divergence: 'parallel-only', load: 'load-only', gap: null } as const
const CAUSES = {
  divergence: 'tests coupled through process-wide or machine-wide state (a temp file, a port, an environment variable, a global)',
  load: 'a timing assumption (a timeout, a sleep, an order of events) that a busy machine breaks',
  gap: 'timing between calls (see observer.json)',
}

/** Rounds in which the test ran fast executions, and those of them in which some failed. */
function countRounds(rounds: readonly RoundResult[]): Counts {
  let trials = 0
  let failures = 0
  for (const { test } of rounds) {
    const fast = test.evidence.repetitions.filter((r) => r.mode === 'fast')
    if (fast.length === 0) continue
    trials++
    if (fast.some((r) => !r.ok)) failures++
  }
  return { trials, failures }
}

function countFast(rounds: readonly RoundResult[]): Counts {
  let trials = 0
  let failures = 0
  for (const { test } of rounds) {
    for (const r of test.evidence.repetitions) {
      if (r.mode !== 'fast') continue
      trials++
      if (!r.ok) failures++
    }
  }
  return { trials, failures }
}

const pct = (c: Counts): string => countOf(c.failures, c.trials)
const sameCounts = (a: Counts, b: Counts): boolean => a.trials === b.trials && a.failures === b.failures
const p = (value: number): string => `p = ${value.toPrecision(3)}`

/**
 * Side a against side b: executions, and with `aRounds` and `bRounds` (a condition of whole rounds)
 * the rounds in which the test failed, which the test then compares: every execution of a round
 * shares its condition, and counted per execution a test failing in whole rounds for any reason
 * was tagged by whichever condition its failing rounds happened to have (28% of simulated runs at
 * 2 rounds of each × 5, 13% at 4 × 10).
 */
function compare(run: ConditionsRun, kind: Comparison['kind'], [labelA, a, aRounds]: [string, Counts, Counts?], [labelB, b, bRounds]: [string, Counts, Counts?]): Comparison {
  const alpha = complement(run.confidence.exact)
  const byRounds = aRounds && bRounds ? { a: aRounds, b: bRounds } : undefined
  const { pValue, significant } = compareCounts(byRounds?.a ?? a, byRounds?.b ?? b, alpha)
  const tagged = significant && b.failures === 0 && a.failures > 0 ? TAGS[kind] : null
  const rate = (c: Counts) => (c.trials === 0 ? 0 : c.failures / c.trials)
  const needed = significant ? null : trialsToSeeDifference(rate(byRounds?.a ?? a), rate(byRounds?.b ?? b), alpha)
  const sides = byRounds
    ? `${labelA} failed in ${pct(byRounds.a)} rounds, ${labelB} in ${pct(byRounds.b)}, ${p(pValue)}`
    : `${labelA} ${pct(a)}, ${labelB} ${pct(b)}, ${p(pValue)}`
  let note: string
  if (tagged) note = `Fails ${labelA} and never ${labelB} (${sides}): ${CAUSES[kind]}.`
  else if (significant) note = `Differs (${sides}), but it fails ${labelB} too: the condition makes it worse; it is not the only cause.`
  else note = `No difference found with these counts (${sides}); ${seeing(needed, byRounds !== undefined)}.`
  const side = (label: string, c: Counts) => ({ label, ...describeRate(c.failures, c.trials, run.confidence.value) })
  return { kind, a: side(labelA, a), b: side(labelB, b), ...(byRounds ? { rounds: byRounds } : {}), p_value: pValue, significant, tag: tagged, trials_to_see: needed, note }
}

/**
 * Whether the tests inside the suite `scope` (its names, from the outside in) ran one after another
 * in each of these rounds, in this test's file and worker. Paths hold names only: two describe
 * blocks given one name would read as one, and a test run between them in some round shows they are
 * two, which a shuffle can part. [] is the whole file.
 */
function ranWhole(perTest: ConditionsRun['perTest'], rounds: readonly RoundResult[], scope: readonly string[]): boolean {
  if (scope.length === 0) return true
  const key = ({ round, test }: RoundResult): string => JSON.stringify([round, test.project, test.file, test.evidence.worker])
  const groups = new Map(rounds.map((r) => [key(r), [] as { order: number; inside: boolean }[]]))
  for (const results of perTest.values()) {
    for (const result of results) {
      const { path, order } = result.test.evidence
      groups.get(key(result))?.push({ order, inside: path.length > scope.length && scope.every((name, i) => path[i] === name) })
    }
  }
  return [...groups.values()].every((group) => {
    const inside = group.sort((a, b) => a.order - b.order).flatMap((t, i) => (t.inside ? [i] : []))
    return inside.length === 0 || (inside.at(-1) as number) - (inside[0] as number) + 1 === inside.length
  })
}

/** How many rounds (or, for the gap, executions) of each side would show a difference at the rates seen. */
function seeing(needed: number | null, inRounds: boolean): string {
  if (needed === null) return 'at these rates no practical number of rounds would show one'
  return `about ${needed} ${inRounds ? 'rounds' : 'executions'} of each would show one at these rates`
}

/**
 * The tests that ran before this one in the same file, worker and round, each with the rounds it
 * did: only those that ran before it in some rounds and not in others, since a test before it
 * always (or never) gives nothing to compare, whatever the outcomes.
 */
function orderCandidates(rounds: readonly RoundResult[], ranBefore: (result: RoundResult) => readonly string[]): Map<string, Set<number>> {
  const before = new Map<string, Set<number>>()
  for (const mine of rounds) {
    for (const other of ranBefore(mine)) before.set(other, (before.get(other) ?? new Set<number>()).add(mine.round))
  }
  const measured = new Set(rounds.filter((r) => r.test.evidence.repetitions.some((x) => x.mode === 'fast')).map((r) => r.round))
  return new Map([...before].filter(([, first]) => [...measured].some((r) => first.has(r)) && [...measured].some((r) => !first.has(r))))
}

/**
 * The test whose running earlier in the same file, worker and round the failures follow most
 * closely. Null hypothesis: this test fails alike whether or not the candidate ran before it. The
 * order is drawn once per round, so rounds are the unit: for each candidate, the rounds where it ran
 * first against the others, each round failed when any execution in it failed, by Fisher's exact
 * test, the smallest p-value naming the culprit. (Counting executions instead called a test whose
 * failures come in whole rounds for any reason, a round's random data, its machine, order-dependent
 * on whichever test happened to run first in its failing rounds: 47–97% of simulated runs.)
 * Significant only below 1 − confidence divided by the hypotheses of the whole run (Bonferroni: every
 * failing test times its candidates), so a run names an innocent culprit with chance below
 * 1 − confidence however many tests it has.
 * Null when no test ran before it in some rounds and not others.
 */
function findOrderDependence(run: ConditionsRun, rounds: readonly RoundResult[], before: ReadonlyMap<string, Set<number>>, hypotheses: number, pathOf: (id: string) => readonly string[]): OrderFinding | null {
  const overall = complement(run.confidence.exact)
  const alpha = { num: overall.num, den: overall.den * BigInt(hypotheses) }
  let best: { culprit: string; after: Counts; otherwise: Counts; pValue: number; significant: boolean; first: Set<number> } | undefined
  // Candidates with the best one's very counts: the rounds support each alike (two tests that ran
  // before it in the same rounds, say), so the finding names them all, never one of them by its name's
  // sort order (with a real culprit among 64 tests at 16 rounds, test/unit/calibration.test.ts, a tie
  // came in 21 of 197 and 13 of 195 runs that found the dependence: by name, an innocent alone in each).
  let tied: string[] = []
  for (const [culprit, first] of [...before].sort(([a], [b]) => byCodeUnits(a, b))) {
    const after = countRounds(rounds.filter((r) => first.has(r.round)))
    const otherwise = countRounds(rounds.filter((r) => !first.has(r.round)))
    const { pValue, significant } = compareCounts(after, otherwise, alpha)
    if (!best || pValue < best.pValue) {
      best = { culprit, after, otherwise, pValue, significant, first }
      tied = []
    } else if (sameCounts(after, best.after) && sameCounts(otherwise, best.otherwise)) tied.push(culprit)
  }
  if (!best) return null
  const { culprit, after, otherwise, pValue, significant, first } = best
  // The test is compared both ways: failing more after the culprit (state it leaves breaks this one),
  // or more without it before (this one needs state it leaves).
  const needs = after.failures * otherwise.trials < otherwise.failures * after.trials
  // A round that replays the failure, and one that replays a pass: after the culprit or without it, as the direction says.
  const failedIn = rounds.find((r) => first.has(r.round) !== needs && r.test.evidence.repetitions.some((x) => x.mode === 'fast' && !x.ok))
  const passedIn = rounds.find((r) => first.has(r.round) === needs && r.test.evidence.repetitions.every((x) => x.mode !== 'fast' || x.ok))
  const orderOf = (r: RoundResult | undefined) => (r ? { round: r.round, seed: r.test.evidence.seed } : null)
  const failing = orderOf(failedIn)
  const passing = orderOf(passedIn)
  // Tests the runner's shuffle never parts (one describe block) tie in every run, however many rounds: said so, not "more rounds".
  const [self] = rounds
  const structure = tied.length > 0 && run.shuffleRule !== undefined && self ? alwaysTogether(run.shuffleRule, self.test.evidence.path, [culprit, ...tied].map(pathOf)) : null
  const together = structure && ranWhole(run.perTest, rounds, structure.scope) ? structure : null
  const finding = { culprit, ...(tied.length > 0 ? { tied } : {}), ...(together ? { together } : {}), direction: needs ? ('needs' as const) : ('fails-after' as const) }
  const names = culpritsText({ ...finding, significant }, 'en')
  const tiedClause = tiedText({ ...finding, significant }, 'en')
  const either = tiedClause === '' ? '' : `; ${tiedClause}`
  const sides = `failed in ${pct(after)} rounds after it, ${pct(otherwise)} otherwise, ${p(pValue)}; ${hypotheses} culprit(s) tried in the run, so significant below ${(Number(overall.num) / Number(overall.den) / hypotheses).toPrecision(3)}${either}`
  const replay = (o: { seed: number | null } | null, what: string) => (o === null || o.seed === null ? '' : ` ${what}: --flaky-seed ${o.seed}.`)
  const needed = significant ? null : trialsToSeeDifference(after.trials && after.failures / after.trials, otherwise.trials && otherwise.failures / otherwise.trials, alpha)
  const cause = needs
    ? `Fails unless ${names} runs before it (${sides}): it needs state the test before it leaves (module, global, mock, timer); set that state up in this test or its hooks.`
    : `Fails when ${names} runs before it (${sides}): state ${tied.length > 0 ? 'one of them' : 'it'} leaves (module, global, mock, timer) breaks this test.`
  const note = significant
    ? `${cause}${replay(failing, 'Replay a failing order')}${replay(passing, 'A passing order')}`
    : `No order dependence found with these counts (closest: ${names}, ${sides}); ${needed === null ? 'at these rates no practical number of rounds would show one' : `about ${needed} rounds on each side would show one`}.`
  const adjusted = Math.min(1, pValue * hypotheses)
  const executions = { after_culprit: countFast(rounds.filter((r) => first.has(r.round))), otherwise: countFast(rounds.filter((r) => !first.has(r.round))) }
  return {
    ...finding,
    ...executions,
    after_culprit_rounds: after,
    otherwise_rounds: otherwise,
    p_value: pValue,
    significant,
    hypotheses,
    adjusted_p_value: adjusted,
    tag: significant ? 'order-dependent' : null,
    failing_order: failing,
    passing_order: passing,
    note,
  }
}
