import { culpritsOf, type RoundCondition } from '../../src/artifacts/conditions-schema.js'
import { seeded } from '../seeded.js'
import type { HistoryRecord } from '../../src/artifacts/history.js'
import type { MergeSource } from '../../src/artifacts/merge-source.js'
import type { ObserverFile } from '../../src/artifacts/schemas.js'
import type { TestFact } from '../../src/artifacts/test-schemas.js'
import { MAX_ASSIGNMENT_SEED, measuringModeOf, pairOrder } from '../../src/core/repetition.js'
import { buildConditions, type PlannedRound } from '../../src/pipeline/conditions.js'
import { analyzeHistory } from '../../src/pipeline/history.js'
import { mergeRuns } from '../../src/pipeline/merge.js'
import { buildTestMeasurement, byConcern, outcomeOf, type TestOutcome } from '../../src/pipeline/test-bundle.js'
import type { Repetition, ReportedTest } from '../../src/pipeline/test-evidence.js'
import { toFactLines } from '../../src/pipeline/test-facts.js'
import { complement } from '../../src/core/fraction.js'
import { type FreshRounds, freshRoundsBudget, suspectsOf, withFreshEvidence } from '../../src/pipeline/fresh-evidence.js'
import { earlierTests, type RoundResult, tallyRounds } from '../../src/pipeline/test-rounds.js'
import { tallyTest } from '../../src/pipeline/test-tally.js'

/**
 * Simulated suites fed through the verdict pipeline a real run uses (tally, rounds, conditions,
 * verdicts), to count how often each rule calls a test something it is not (docs/calibration.md).
 * Every random draw comes from one seeded generator: a cell replays exactly.
 */

export const CONFIDENCE = { value: 0.95, exact: { num: 19n, den: 20n } }

export { seeded }

/** What one execution of a test knows of its circumstances. */
export interface Circumstances {
  /** Executions of this test so far in this process (round), this one included: 1 is the fresh-state one. */
  call: number
  condition: RoundCondition
  /** Tests that ran before it in this round's worker. */
  after: ReadonlySet<string>
}

/** Whether an execution fails. */
export type Behaviour = (at: Circumstances, random: () => number) => boolean

export const BEHAVIOURS = {
  /** The null hypothesis every pattern rule tests: independent failures at rate p. */
  bernoulli: (p: number): Behaviour => (_, random) => random() < p,
  /** Passes with fresh state, fails every later execution in the same process (PFFF…). */
  stateSwitch: (): Behaviour => ({ call }) => call > 1,
  /** Fails its first `w` executions in a process, passes later ones (FFPPP…: a cold cache). */
  warmUp: (w: number): Behaviour => ({ call }) => call <= w,
  /** Fails every d-th execution in a process (a counter). */
  period: (d: number): Behaviour => ({ call }) => call % d === 0,
  /** Fails at rate q in parallel (base) rounds only. */
  parallelOnly: (q: number): Behaviour => ({ condition }, random) => condition === 'base' && random() < q,
  /** Fails at rate q in load rounds only. */
  loadOnly: (q: number): Behaviour => ({ condition }, random) => condition === 'load' && random() < q,
  /** Fails at rate q when `culprit` ran before it in the round, never otherwise. */
  order: (culprit: string, q: number): Behaviour => ({ after }, random) => after.has(culprit) && random() < q,
  /** Fails at rate q when `culprit` did not run before it in the round (it needs state the culprit sets up), never otherwise. */
  needs: (culprit: string, q: number): Behaviour => ({ after }, random) => !after.has(culprit) && random() < q,
  /**
   * Fails at rate q in a round drawn bad (chance `bad`, at its first execution), never in the others,
   * whatever ran before it: failures in whole rounds for another reason than order (data drawn at
   * import, the round's machine).
   */
  wholeRounds: (bad: number, q: number): Behaviour => {
    let inBadRound = false
    return ({ call }, random) => {
      if (call === 1) inBadRound = random() < bad
      return inBadRound && random() < q
    }
  },
} as const

export interface SimulatedTest {
  name: string
  behaviour: Behaviour
}

export interface Design {
  /** Repetitions of each test in each round. */
  repeat: number
  /** The rounds, with their conditions; one round is a plain `--flaky-repeat` run. */
  rounds: readonly PlannedRound[]
  /** Tests in one file are reordered every round (`--flaky-shuffle`). */
  shuffle: boolean
}

/** `--flaky-repeat n`: one round. */
export const repeatDesign = (repeat: number): Design => ({ repeat, rounds: [{ round: 1, condition: 'base', seed: null }], shuffle: false })

/** `--flaky-rounds k --flaky-divergence --flaky-load --flaky-shuffle`: k rounds of each condition, alternating. */
export function conditionsDesign(rounds: number, repeat: number): Design {
  const conditions: RoundCondition[] = ['base', 'serial', 'load']
  const plan = Array.from({ length: rounds * conditions.length }, (_, i) => ({ round: i + 1, condition: conditions[i % 3] as RoundCondition, seed: 1000 + i }))
  return { repeat, rounds: plan, shuffle: true }
}

/** One simulated run: every test's executions, round by round, in one file and one worker. */
export function simulateRun(tests: readonly SimulatedTest[], design: Design, random: () => number): Map<string, RoundResult[]> {
  const perTest = new Map<string, RoundResult[]>(tests.map((t) => [idOf(t.name), []]))
  for (const planned of design.rounds) {
    const order = design.shuffle ? shuffled(tests, random) : [...tests]
    const ran = new Set<string>()
    let previous: string | null = null
    order.forEach((test, position) => {
      const repetitions: Repetition[] = []
      for (let call = 1; call <= design.repeat; call++) {
        const failed = test.behaviour({ call, condition: planned.condition, after: ran }, random)
        repetitions.push({ ok: !failed, elapsedMs: 1, mode: 'fast', gapMs: 0 })
      }
      const evidence = { id: idOf(test.name), path: [test.name], order: position + 1, previousTest: previous, worker: '1', seed: planned.seed, repetitions }
      const reported: ReportedTest = { project: '', file: 'a.test.ts', name: test.name, evidence }
      perTest.get(evidence.id)?.push({ round: planned.round, condition: planned.condition, test: reported })
      ran.add(test.name)
      previous = evidence.id
    })
  }
  return perTest
}

/** What the pipeline says of each test of a run: its outcome and the causes conditions.json gives it. */
export interface Judged {
  outcome: TestOutcome
  tags: readonly string[]
  /** The order culprits named (the culprit and those tied with it), when the test was tagged order-dependent; else none. */
  culprits: readonly string[]
  /** Its order finding's direction, when it has one. */
  direction: 'fails-after' | 'needs' | null
}

/**
 * Fresh-state rounds for the run's suspects, as a runner adapter runs them: the whole file again in
 * a new process per round (every test, in its order), each execution's call count restarting.
 */
export interface FreshRunner {
  tests: readonly SimulatedTest[]
  random: () => number
}

/**
 * The verdicts a run of this design gets, by the builders TestRunRecorder.finish uses: tally (per
 * round), outcome, fresh-state evidence for the suspects when `fresh` can run them (none: they stay
 * undetermined, as merge and history leave them), conditions.
 */
export function judgeRun(perTest: ReadonlyMap<string, readonly RoundResult[]>, design: Design, fresh?: FreshRunner): Map<string, Judged> {
  const whole = design.rounds.length > 1
  const ranBefore = earlierTests(perTest)
  const tallies = [...perTest.values()].map((rounds) => (whole ? tallyRounds(rounds, CONFIDENCE.exact, ranBefore) : tallyTest((rounds[0] as RoundResult).test, CONFIDENCE.exact)))
  const asked = design.repeat * design.rounds.length
  const measured = tallies.map((tally) => outcomeOf(tally, asked, CONFIDENCE))
  const suspects = suspectsOf(measured)
  let evidence: FreshRounds | undefined
  if (fresh && suspects.length > 0) {
    const budget = freshRoundsBudget(design.repeat, complement(CONFIDENCE.exact))
    const byTest = new Map<string, Repetition[][]>()
    for (let round = 1; round <= budget; round++) {
      for (const [id, results] of simulateRun(fresh.tests, { ...design, rounds: [{ round, condition: 'base', seed: null }] }, fresh.random)) {
        if (suspects.some((s) => s.tally.id === id)) byTest.set(id, [...(byTest.get(id) ?? []), (results[0] as RoundResult).test.evidence.repetitions])
      }
    }
    evidence = { budget, byTest }
  }
  const outcomes = withFreshEvidence(measured, evidence, (tally) => outcomeOf(tally, asked, CONFIDENCE), CONFIDENCE.exact).sort(byConcern)
  const varied = new Set(design.rounds.map((r) => r.condition)).size > 1 || design.shuffle
  const conditions = varied
    ? buildConditions({ command: 'simulated', confidence: CONFIDENCE, rounds: design.rounds, loadProcs: 2, shuffle: design.shuffle, perTest, outcomes })
    : undefined
  return new Map(
    outcomes.map((outcome) => {
      const found = conditions?.tests[outcome.tally.id]
      return [outcome.tally.id, { outcome, tags: found?.tags ?? [], culprits: found?.order?.tag ? culpritsOf(found.order) : [], direction: found?.order?.direction ?? null }]
    }),
  )
}

/** Per rule, how many tests of a cell it fired on, among `eligible` tests (both outcomes seen). */
export interface CellCounts {
  runs: number
  /** Runs in which some test was given an order culprit: the family-wise rate of the culprit search. */
  runsWithCulprit: number
  eligible: number
  /** Anything but a plain `flaky` with no cause: the verdict or cause is wrong for an independent test. */
  wrong: number
  rules: Record<RuleName, number>
}

export const RULES = ['non-idempotent', 'undetermined', 'clustered', 'regular', 'period', 'parallel-only', 'load-only', 'order-dependent'] as const
export type RuleName = (typeof RULES)[number]

/** Which rules fired on one test. */
export function firedRules({ outcome, tags }: Judged): RuleName[] {
  const fired: RuleName[] = []
  const verdict: string = outcome.verdict
  if (verdict === 'non-idempotent') fired.push('non-idempotent')
  if (verdict === 'undetermined') fired.push('undetermined')
  const { pattern, period } = outcome.tally.independence
  if (pattern === 'clustered' || pattern === 'regular') fired.push(pattern)
  if (period !== null) fired.push('period')
  for (const tag of tags) if ((RULES as readonly string[]).includes(tag)) fired.push(tag as RuleName)
  return fired
}

/**
 * Independent tests at rate p, `runs` runs of `perRun` tests each, judged as one run judges them:
 * how often each rule fires on a test that failed some executions and passed others.
 */
export function falseAlarms(p: number, design: Design, runs: number, perRun: number, seed: number): CellCounts {
  const random = seeded(seed)
  const counts: CellCounts = { runs, runsWithCulprit: 0, eligible: 0, wrong: 0, rules: Object.fromEntries(RULES.map((r) => [r, 0])) as Record<RuleName, number> }
  const tests = Array.from({ length: perRun }, (_, i) => ({ name: `t${i + 1}`, behaviour: BEHAVIOURS.bernoulli(p) }))
  for (let run = 0; run < runs; run++) {
    const judgedRun = [...judgeRun(simulateRun(tests, design, random), design, { tests, random }).values()]
    if (judgedRun.some((j) => j.tags.includes('order-dependent'))) counts.runsWithCulprit++
    for (const judged of judgedRun) {
      const { failures, trials } = judged.outcome.tally.fast
      if (failures === 0 || failures === trials) continue
      counts.eligible++
      const fired = firedRules(judged)
      // Clues (clustered, regular, period) are written beside a flaky verdict, never instead of it.
      const wrong = judged.outcome.verdict !== 'flaky' || judged.tags.length > 0
      if (wrong) counts.wrong++
      for (const rule of fired) counts.rules[rule]++
    }
  }
  return counts
}

type ObservedTest = NonNullable<ObserverFile['tests']>[string]

/** A test's merged verdict, and whether its folders were called different (it is then partial). */
export interface MergedVerdict {
  verdict: string
  split: boolean
  failures: number
  trials: number
}

/**
 * `flakeproof merge` of `jobs` folders, each a run of `repeat` repetitions of the same tests: the
 * folders built by the builders a run uses, merged in memory by mergeRuns.
 */
export function simulateMerge(tests: readonly SimulatedTest[], jobs: number, repeat: number, random: () => number): MergedVerdict[] {
  const sources: Extract<MergeSource, { kind: 'test' }>[] = []
  for (let job = 1; job <= jobs; job++) {
    const design = repeatDesign(repeat)
    const perTest = simulateRun(tests, design, random)
    const reported = [...perTest.values()].map((rounds) => (rounds[0] as RoundResult).test)
    const lines = reported.flatMap((t) => toFactLines(t))
    const outcomes = [...judgeRun(perTest, design).values()].map((j) => j.outcome)
    const bundle = buildTestMeasurement({
      command: 'vitest run',
      repeat,
      observe: false,
      confidence: CONFIDENCE,
      startedAt: new Date(0),
      durationMs: 1,
      complete: true,
      runErrors: [],
      outcomes,
      rounds: repeat,
    })
    const byId = new Map<string, TestFact[]>()
    for (const line of lines) byId.set(line.test_id, [...(byId.get(line.test_id) ?? []), line])
    sources.push({ dir: `job${job}`, kind: 'test', rate: bundle.rate, tests: { ids: [...byId.keys()], linesOf: (id) => byId.get(id) ?? [] } })
  }
  const merged = mergeRuns(sources, () => undefined)
  const errors = merged.rate.run_errors ?? []
  return (merged.rate.tests ?? []).map((t) => ({ verdict: t.verdict, split: errors.some((e) => e.error.startsWith(`${t.name}: `)), failures: t.failures, trials: t.trials }))
}

/** A test's history verdict, whether its runs were said to follow the commit, and whether a rate change was reported. */
export interface HistoryVerdict extends MergedVerdict {
  change: boolean
}

/**
 * `flakeproof history` over `runs` everyday runs (one attempt each, no retries), the commit changing
 * every `perCommit` runs: what analyzeHistory makes of it.
 */
export function simulateHistory(tests: readonly SimulatedTest[], runs: number, perCommit: number, random: () => number): HistoryVerdict[] {
  const files = Array.from({ length: runs }, (_, r) => {
    const at = new Date(Date.UTC(2026, 0, 1) + r * 60_000).toISOString()
    const commit = `c${Math.floor(r / perCommit)}`.padEnd(12, '0')
    const records: HistoryRecord[] = tests.map((t) => ({
      test_id: idOf(t.name),
      project: '',
      file: 'a.test.ts',
      name: t.name,
      outcome: t.behaviour({ call: 1, condition: 'base', after: new Set() }, random) ? 'failed' : 'passed',
      retries: 0,
      duration_ms: 1,
      commit,
      branch: 'main',
      os: 'linux',
      at,
    }))
    return { file: `run${r}.jsonl`, records }
  })
  const { history, bundle } = analyzeHistory(files, { since: null, branch: null, confidence: CONFIDENCE, command: 'history' })
  const errors = bundle.rate.run_errors ?? []
  const changed = new Set(history.changes.map((c) => c.test_id))
  return history.tests.map((t) => ({ verdict: t.verdict, split: errors.some((e) => e.error.startsWith(`${t.id.replace('a.test.ts > ', '')}: `)), failures: t.failures, trials: t.trials, change: changed.has(t.id) }))
}

/**
 * `--flaky-repeat n --flaky-observe`: `repeat` fast repetitions, then, for a test that failed one,
 * `slow` gapped repetitions interleaved with as many fast ones, as the runner assigns them
 * (`measuringModeOf`, the coin of each pair seeded as a run seeds it); the gap itself does nothing
 * unless `gapped` says so. observer.json's entry.
 */
export function simulateObserve(behaviour: Behaviour, repeat: number, slow: number, random: () => number, gapped?: Behaviour): ObservedTest | undefined {
  const repetitions: Repetition[] = []
  const pairs = pairOrder(Math.floor(random() * MAX_ASSIGNMENT_SEED), idOf('t'))
  for (let index = 0; index < repeat + 2 * slow; index++) {
    const mode = measuringModeOf(index, repeat, pairs)
    if (mode !== 'fast' && !repetitions.some((r) => !r.ok)) break
    const at = { call: index + 1, condition: 'base' as const, after: new Set<string>() }
    const failed = mode === 'slow' && gapped ? gapped(at, random) : behaviour(at, random)
    repetitions.push({ ok: !failed, elapsedMs: 1, mode, gapMs: mode === 'slow' ? 100 : 0 })
  }
  const test: ReportedTest = { project: '', file: 'a.test.ts', name: 't', evidence: { id: idOf('t'), path: ['t'], order: 1, previousTest: null, worker: '1', seed: null, repetitions } }
  const outcome = outcomeOf(tallyTest(test, CONFIDENCE.exact), repeat, CONFIDENCE)
  const bundle = buildTestMeasurement({
    command: 'vitest run',
    repeat,
    observe: true,
    confidence: CONFIDENCE,
    startedAt: new Date(0),
    durationMs: 1,
    complete: true,
    runErrors: [],
    outcomes: [outcome],
    rounds: repeat,
  })
  return bundle.observer?.tests?.[idOf('t')]
}

// --- internal ---

const idOf = (name: string): string => `a.test.ts > ${name}`

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items]
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[copy[i], copy[j]] = [copy[j] as T, copy[i] as T]
  }
  return copy
}

/** What only_when_fail.json lists for one simulated test: its predicates, and how many of its repetitions failed. */
export interface PredicateOutcome {
  failures: number
  trials: number
  predicates: readonly { predicate: string }[]
}

/**
 * One test of `n` repetitions failing independently at rate p, whose every other fact is independent
 * of failing too: its duration (5–35 ms), its console (one of three lines, or none), the repetition
 * before it. A failing repetition carries the same error message every time, as a real one does.
 * Its predicates come from tallyTest, as a run's do.
 */
export function simulatePredicates(p: number, n: number, random: () => number): PredicateOutcome {
  const lines = ['', 'cache warm\n', 'retrying the request once\n', 'connected to localhost:5432\n']
  const repetitions: Repetition[] = Array.from({ length: n }, () => {
    const failed = random() < p
    const stdout = lines[Math.floor(random() * lines.length)] as string
    const elapsedMs = Math.round((5 + 30 * random()) * 100) / 100
    return { ok: !failed, elapsedMs, mode: 'fast', gapMs: 0, stdout, ...(failed ? { error: 'Error: read ECONNRESET while fetching the profile' } : {}) }
  })
  const evidence = { id: idOf('t1'), path: ['t1'], order: 1, previousTest: null, worker: '1', seed: null, repetitions }
  const tally = tallyTest({ project: '', file: 'a.test.ts', name: 't1', evidence }, CONFIDENCE.exact)
  return { failures: tally.fast.failures, trials: tally.fast.trials, predicates: tally.predicates }
}
