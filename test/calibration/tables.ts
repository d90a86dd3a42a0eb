import {
  BEHAVIOURS,
  type Behaviour,
  type CellCounts,
  CONFIDENCE,
  conditionsDesign,
  type Design,
  falseAlarms,
  judgeRun,
  RULES,
  repeatDesign,
  seeded,
  type SimulatedTest,
  simulateHistory,
  simulateMerge,
  simulateObserve,
  simulatePredicates,
  simulateRun,
} from './simulate.js'

/**
 * The calibration tables of docs/calibration.md, from the simulation in simulate.ts: how often each
 * rule calls an independent test something else (false alarms, per rate p and repetitions n), and
 * how often it finds an effect that is there (power). `quick` sizes run inside the suite in
 * seconds; `full` sizes make the docs tables (bench/calibration.mjs); `smoke` sizes only check that
 * bench/calibration.mjs still prints every table (test/e2e/bench-smoke.test.ts): the quick sizes'
 * assertions are test/unit/calibration.test.ts's, so the bench does not run that simulation again.
 */

export type Size = 'smoke' | 'quick' | 'full'

/** The figure for `size`. */
const sized = (size: Size, figures: Record<Size, number>): number => figures[size]

export const RATES = [0.01, 0.05, 0.2, 0.5, 0.9] as const
export const REPETITIONS = [10, 50, 200, 1000] as const
export const ALPHA = 1 - CONFIDENCE.value

/** Simulated tests per cell: about the same number of executions per cell, more at full size. */
export function testsPerCell(n: number, size: Size): number {
  const executions = sized(size, { full: 400_000, quick: 16_000, smoke: 1_600 })
  return Math.max(20, Math.round(executions / n))
}

export interface FalseAlarmRow {
  p: number
  n: number
  counts: CellCounts
}

const PER_RUN = 10

/** `--flaky-repeat n`: every rule on independent tests at rate p. */
export function repeatFalseAlarms(size: Size): FalseAlarmRow[] {
  return RATES.flatMap((p) =>
    REPETITIONS.map((n) => ({ p, n, counts: falseAlarms(p, repeatDesign(n), Math.ceil(testsPerCell(n, size) / PER_RUN), PER_RUN, seedOf('repeat', p, n)) })),
  )
}

export interface ConditionsRow {
  p: number
  rounds: number
  repeat: number
  counts: CellCounts
}

/** `--flaky-rounds k --flaky-divergence --flaky-load --flaky-shuffle`, k rounds of each condition, 10 tests in one file. */
export function conditionsFalseAlarms(size: Size): ConditionsRow[] {
  const runs = sized(size, { full: 1000, quick: 12, smoke: 2 })
  const designs = [
    [2, 5],
    [4, 10],
  ] as const
  return [0.05, 0.2, 0.5].flatMap((p) =>
    designs.map(([rounds, repeat]) => ({
      p,
      rounds,
      repeat,
      counts: falseAlarms(p, conditionsDesign(rounds, repeat), runs, PER_RUN, seedOf('conditions', p, rounds * 100 + repeat)),
    })),
  )
}

export interface GroupRow {
  kind: 'merge' | 'history'
  p: number
  /** merge: folders; history: runs. */
  groups: number
  /** merge: repetitions per folder; history: runs per commit. */
  each: number
  eligible: number
  /** Eligible tests given any verdict but flaky. */
  wrong: number
  /** Called `partial` because the outcome followed the folder or the commit. */
  split: number
  undetermined: number
  nonIdempotent: number
  /** history: tests (of all, eligible or not) with a rate change reported. */
  change: number
  tests: number
}

/** `flakeproof merge` and `flakeproof history` on independent tests. */
export function groupFalseAlarms(size: Size): GroupRow[] {
  const runs = sized(size, { full: 400, quick: 12, smoke: 2 })
  const rows: GroupRow[] = []
  for (const p of [0.05, 0.2, 0.5, 0.9]) {
    for (const [groups, each] of [
      [2, 5],
      [5, 2],
      [10, 1],
    ] as const) {
      const random = seeded(seedOf('merge', p, groups * 100 + each))
      const row: GroupRow = { kind: 'merge', p, groups, each, eligible: 0, wrong: 0, split: 0, undetermined: 0, nonIdempotent: 0, change: 0, tests: 0 }
      for (let run = 0; run < runs; run++) tallyGroup(row, simulateMerge(bernoulliTests(p), groups, each, random))
      rows.push(row)
    }
    for (const [groups, each] of [
      [10, 2],
      [20, 5],
      [60, 3],
    ] as const) {
      const random = seeded(seedOf('history', p, groups * 100 + each))
      const row: GroupRow = { kind: 'history', p, groups, each, eligible: 0, wrong: 0, split: 0, undetermined: 0, nonIdempotent: 0, change: 0, tests: 0 }
      for (let run = 0; run < runs; run++) {
        const verdicts = simulateHistory(bernoulliTests(p), groups, each, random)
        tallyGroup(row, verdicts)
        row.change += verdicts.filter((v) => v.change).length
      }
      rows.push(row)
    }
  }
  return rows
}

export interface ObserveRow {
  p: number
  repeat: number
  pairs: number
  observed: number
  changed: number
  drift: number
}

/** `--flaky-observe`: a test whose gap does nothing, observed after `repeat` fast repetitions with `pairs` gapped/fast pairs. */
export function observeFalseAlarms(size: Size): ObserveRow[] {
  const runs = sized(size, { full: 4000, quick: 300, smoke: 30 })
  return [0.05, 0.2, 0.5].flatMap((p) =>
    [
      [10, 10],
      [20, 40],
    ].map(([repeat, pairs]) => {
      const random = seeded(seedOf('observe', p, (repeat as number) * 100 + (pairs as number)))
      const row: ObserveRow = { p, repeat: repeat as number, pairs: pairs as number, observed: 0, changed: 0, drift: 0 }
      for (let i = 0; i < runs; i++) {
        const observed = simulateObserve(BEHAVIOURS.bernoulli(p), row.repeat, row.pairs, random)
        if (!observed) continue
        row.observed++
        if (observed.changed) row.changed++
        if ((observed.drift_p_value ?? 1) < ALPHA) row.drift++
      }
      return row
    }),
  )
}

export interface PredicateRow {
  p: number
  n: number
  /** Tests that failed some repetitions and passed others. */
  eligible: number
  /** Of those, tests given a predicate on a fact independent of failing (a duration, the console, the order). */
  wrong: number
  /** Of those, tests whose failure message's own words were listed (true of the failures by construction, not a false alarm). */
  message: number
}

/**
 * The predicates of only_when_fail.json on tests whose every fact is independent of failing: any
 * predicate listed but the failure message's own words ("output contains …", which hold in exactly
 * the failing repetitions by construction) is a false alarm.
 */
export function predicateFalseAlarms(size: Size): PredicateRow[] {
  const tests = sized(size, { full: 4000, quick: 300, smoke: 20 })
  return [0.05, 0.2, 0.5].flatMap((p) =>
    [5, 10, 50, 200].map((n) => {
      const random = seeded(seedOf('predicates', p, n))
      const row: PredicateRow = { p, n, eligible: 0, wrong: 0, message: 0 }
      for (let i = 0; i < tests; i++) {
        const outcome = simulatePredicates(p, n, random)
        if (outcome.failures === 0 || outcome.failures === outcome.trials) continue
        row.eligible++
        const names = outcome.predicates.flatMap((listed) => listed.predicate.replace(/ \(\+\d+ more\)$/, '').split(' ≡ '))
        if (names.some((name) => !name.startsWith('output contains '))) row.wrong++
        else if (names.length > 0) row.message++
      }
      return row
    }),
  )
}

export interface PowerRow {
  effect: string
  design: string
  /** Simulated tests with the effect. */
  tests: number
  /** Found as what it is. */
  found: number
}

/** Planted effects: how often the pipeline finds each one, by design size. */
export function power(size: Size): PowerRow[] {
  const runs = sized(size, { full: 400, quick: 30, smoke: 3 })
  const rows: PowerRow[] = []
  const verdictIs = (verdict: string) => (found: Found) => found.verdict === verdict
  const planted: { effect: string; behaviour: Behaviour; designs: [string, Design][]; found: (f: Found) => boolean }[] = [
    { effect: 'state switch (PFFF…)', behaviour: BEHAVIOURS.stateSwitch(), designs: REPEATS_FOR_SWITCH, found: verdictIs('non-idempotent') },
    { effect: 'warm-up (fails its first execution)', behaviour: BEHAVIOURS.warmUp(1), designs: REPEATS_FOR_SWITCH, found: verdictIs('non-idempotent') },
    { effect: 'period (fails every 4th call)', behaviour: BEHAVIOURS.period(4), designs: [10, 20, 50].map((n) => [`repeat ${n}`, repeatDesign(n)]), found: (f) => f.period === 4 },
    { effect: 'parallel-only (fails 50% in parallel rounds)', behaviour: BEHAVIOURS.parallelOnly(0.5), designs: CONDITION_DESIGNS, found: (f) => f.tags.includes('parallel-only') },
    { effect: 'load-only (fails 50% under load)', behaviour: BEHAVIOURS.loadOnly(0.5), designs: CONDITION_DESIGNS, found: (f) => f.tags.includes('load-only') },
    { effect: 'order (fails 50% after t1)', behaviour: BEHAVIOURS.order('t1', 0.5), designs: CONDITION_DESIGNS, found: (f) => f.tags.includes('order-dependent') && f.culprits.includes('a.test.ts > t1') },
  ]
  for (const { effect, behaviour, designs, found } of planted) {
    for (const [label, design] of designs) {
      const random = seeded(seedOf(effect, 0, label.length * 1000 + design.repeat))
      let hits = 0
      for (let run = 0; run < runs; run++) {
        // The effect on t2 among 4 tests of one file, the others independent at 10%.
        const tests: SimulatedTest[] = ['t1', 't2', 't3', 't4'].map((name) => ({ name, behaviour: name === 't2' ? behaviour : BEHAVIOURS.bernoulli(0.1) }))
        const judged = judgeRun(simulateRun(tests, design, random), design, { tests, random }).get('a.test.ts > t2')
        if (judged && found({ verdict: judged.outcome.verdict, period: judged.outcome.tally.independence.period, tags: judged.tags, culprits: judged.culprits })) hits++
      }
      rows.push({ effect, design: label, tests: runs, found: hits })
    }
  }
  return rows
}

/** The binomial upper tail P(X ≥ x) for X ~ Binomial(n, p), summed in log space. */
export function binomialUpperTail(n: number, p: number, x: number): number {
  if (x <= 0) return 1
  let logPmf = n * Math.log(1 - p)
  let tail = 0
  for (let k = 0; k <= n; k++) {
    if (k > 0) logPmf += Math.log((n - k + 1) / k) + Math.log(p / (1 - p))
    if (k >= x) tail += Math.exp(logPmf)
  }
  return Math.min(1, tail)
}

/**
 * The tolerance of a simulated share: `wrong` of `eligible` is consistent with a true share of at
 * most ALPHA unless so many would happen with probability below 0.001 at exactly ALPHA.
 */
export function withinAlpha(wrong: number, eligible: number): boolean {
  return binomialUpperTail(eligible, ALPHA, wrong) >= 0.001
}

/** The largest count of `eligible` the tolerance accepts. */
export function largestAccepted(eligible: number): number {
  let x = 0
  while (x < eligible && withinAlpha(x + 1, eligible)) x++
  return x
}

export { RULES }

// --- internal ---

interface Found {
  verdict: string
  period: number | null
  tags: readonly string[]
  /** The culprits named: found when the planted one is among them (alone, or tied with tests the rounds cannot tell from it). */
  culprits: readonly string[]
}

const REPEATS_FOR_SWITCH: [string, Design][] = [3, 5, 10, 50].map((n) => [`repeat ${n}`, repeatDesign(n)])
const CONDITION_DESIGNS: [string, Design][] = [
  ['2 rounds of each × 5', conditionsDesign(2, 5)],
  ['4 rounds of each × 10', conditionsDesign(4, 10)],
]

const bernoulliTests = (p: number): SimulatedTest[] => Array.from({ length: PER_RUN }, (_, i) => ({ name: `t${i + 1}`, behaviour: BEHAVIOURS.bernoulli(p) }))

function tallyGroup(row: GroupRow, verdicts: readonly { verdict: string; split: boolean; failures: number; trials: number }[]): void {
  for (const v of verdicts) {
    row.tests++
    if (v.failures === 0 || v.failures === v.trials) continue
    row.eligible++
    if (v.verdict !== 'flaky') row.wrong++
    if (v.split) row.split++
    if (v.verdict === 'undetermined') row.undetermined++
    if (v.verdict === 'non-idempotent') row.nonIdempotent++
  }
}

/** A distinct, stable seed per cell, so cells do not share draws and each replays alone. */
function seedOf(kind: string, p: number, n: number): number {
  let h = 2166136261
  for (const c of `${kind}:${p}:${n}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619)
  return h >>> 0
}

/** The docs tables in markdown, from one run of every simulation at `size`. */
export function renderTables(size: Size): string {
  const share = (k: number, n: number): string => (n === 0 ? '–' : `${((100 * k) / n).toFixed(2)}% (${k} of ${n})`)
  const mark = (k: number, n: number): string => (withinAlpha(k, n) ? '' : ' **over**')
  const lines: string[] = []
  const repeat = repeatFalseAlarms(size)
  lines.push(
    '### False alarms: `--flaky-repeat n` (one round, fresh-state evidence gathered for suspects)',
    '',
    'Independent tests failing at rate p; among those that failed some repetitions and passed others, the share given any verdict but `flaky`, or a cause:',
    '',
    `| p \\ n | ${REPETITIONS.join(' | ')} |`,
    `| --- |${' --- |'.repeat(REPETITIONS.length)}`,
    ...RATES.map((p) => `| ${p} | ${REPETITIONS.map((n) => { const c = (repeat.find((r) => r.p === p && r.n === n) as FalseAlarmRow).counts; return share(c.wrong, c.eligible) + mark(c.wrong, c.eligible) }).join(' | ')} |`),
    '',
    'Per rule (the same tests; a clue is written beside `flaky` and is not counted as wrong above):',
    '',
    `| p | n | ${RULES.slice(0, 5).join(' | ')} |`,
    `| --- | --- |${' --- |'.repeat(5)}`,
    ...repeat.map((r) => `| ${r.p} | ${r.n} | ${RULES.slice(0, 5).map((rule) => share(r.counts.rules[rule], r.counts.eligible)).join(' | ')} |`),
    '',
  )
  const conditions = conditionsFalseAlarms(size)
  lines.push(
    '### False alarms: rounds with `--flaky-divergence --flaky-load --flaky-shuffle` (10 tests in one file)',
    '',
    '| p | rounds × repetitions | wrong per test | parallel-only | load-only | order-dependent | runs naming any culprit |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...conditions.map(
      (r) =>
        `| ${r.p} | ${r.rounds} × 3 conditions × ${r.repeat} | ${share(r.counts.wrong, r.counts.eligible)}${mark(r.counts.wrong, r.counts.eligible)} | ${share(r.counts.rules['parallel-only'], r.counts.eligible)} | ${share(r.counts.rules['load-only'], r.counts.eligible)} | ${share(r.counts.rules['order-dependent'], r.counts.eligible)} | ${share(r.counts.runsWithCulprit, r.counts.runs)}${mark(r.counts.runsWithCulprit, r.counts.runs)} |`,
    ),
    '',
  )
  const groups = groupFalseAlarms(size)
  lines.push(
    '### False alarms: `flakeproof merge` and `flakeproof history` (no fresh-state execution possible)',
    '',
    'A suggestive single switch stays `undetermined` here: no rate and no cause, the command that decides it beside it. The confident wrong verdicts are the rest.',
    '',
    '| kind | p | groups × each | confident wrong | undetermined | split by group | rate change at a commit (of all tests) |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...groups.map(
      (r) =>
        `| ${r.kind} | ${r.p} | ${r.groups} ${r.kind === 'merge' ? 'folders' : 'runs'} × ${r.each}${r.kind === 'merge' ? ' repetitions' : ' per commit'} | ${share(r.wrong - r.undetermined, r.eligible)}${mark(r.wrong - r.undetermined, r.eligible)} | ${share(r.undetermined, r.eligible)} | ${share(r.split, r.eligible)} | ${r.kind === 'history' ? share(r.change, r.tests) + mark(r.change, r.tests) : '–'} |`,
    ),
    '',
  )
  const observe = observeFalseAlarms(size)
  lines.push(
    '### False alarms: `--flaky-observe` (the gap does nothing)',
    '',
    '| p | fast block + pairs | `changed` | drift |',
    '| --- | --- | --- | --- |',
    ...observe.map((r) => `| ${r.p} | ${r.repeat} + ${r.pairs} | ${share(r.changed, r.observed)}${mark(r.changed, r.observed)} | ${share(r.drift, r.observed)}${mark(r.drift, r.observed)} |`),
    '',
  )
  const predicates = predicateFalseAlarms(size)
  lines.push(
    '### False alarms: the predicates of only_when_fail.json (every fact independent of failing)',
    '',
    'Among tests that failed some repetitions and passed others, the share given a predicate on a duration, the console or the order; beside it, the share whose failure message\'s own words were listed (they hold in exactly the failures: not a false alarm).',
    '',
    '| p | n | a predicate on an independent fact | the message\'s words |',
    '| --- | --- | --- | --- |',
    ...predicates.map((r) => `| ${r.p} | ${r.n} | ${share(r.wrong, r.eligible)}${mark(r.wrong, r.eligible)} | ${share(r.message, r.eligible)} |`),
    '',
  )
  const found = power(size)
  const effects = [...new Set(found.map((r) => r.effect))]
  lines.push(
    '### Power: planted effects (the effect on one test among four; the others independent at 10%)',
    '',
    '| effect | design | found as what it is | fewest repetitions in this table for 80% |',
    '| --- | --- | --- | --- |',
    ...effects.flatMap((effect) => {
      const rows = found.filter((r) => r.effect === effect)
      const enough = rows.find((r) => r.found / r.tests >= 0.8)
      return rows.map((r, i) => `| ${i === 0 ? effect : ''} | ${r.design} | ${share(r.found, r.tests)} | ${i === 0 ? (enough?.design ?? 'more than the largest here') : ''} |`)
    }),
    '',
  )
  return lines.join('\n')
}
