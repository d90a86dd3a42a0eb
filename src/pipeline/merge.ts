import type { ReportBundle } from '../artifacts/bundle.js'
import type { MergeSource } from '../artifacts/merge-source.js'
import type { Fact } from '../artifacts/schemas.js'
import type { RunError, TestFact } from '../artifacts/test-schemas.js'
import { complement, type Fraction, fractionFromCounts, fractionFromNumber } from '../core/fraction.js'
import { groupedIndependence } from '../core/grouped-independence.js'
import { type OutcomeGroup, splitByGroup } from '../core/uniform-groups.js'
import { computeVerdict, hasNoRate } from '../core/verdict.js'
import { FlakeproofError } from '../errors.js'
import { giveWay } from './context.js'
import { analyzeFacts } from './facts.js'
import { buildRateFile } from './measure.js'
import { buildRunsNeeded, choosePlanningBasis } from './plan.js'
import { decidePolicy } from './policy.js'
import { buildTestMeasurement, byConcern, type Confidence, outcomeOf } from './test-bundle.js'
import type { Repetition, ReportedTest } from './test-evidence.js'
import { type ExtraFacts, type TestTally, tallyTest } from './test-tally.js'

/** Where a merge hands its renumbered facts.jsonl lines: test mode a test at a time, command mode all at once. */
export type FactsSink = (lines: readonly TestFact[] | readonly Fact[]) => void

/**
 * Several output folders (shards, CI matrix jobs) as one run (docs/contracts.md §10), with the
 * builders a single run uses, so merging equals running once. Each test's executions are taken in
 * folder order, then in their order inside the folder: its k-th fast execution belongs to round k.
 * Shards of disjoint tests therefore share rounds, and jobs repeating the same tests add rounds.
 * Folders measured at different confidence levels are refused: their intervals do not add.
 */
export function mergeRuns(sources: readonly MergeSource[], facts: FactsSink): ReportBundle {
  const steps = mergeSteps(sources, facts)
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value
}

/**
 * `mergeRuns` that gives way to the event loop as it goes (every 20 ms), so SIGTERM or Ctrl-C, whose
 * handlers only run then, stops a long merge: undefined once `stop` is aborted, with whatever the
 * sink was handed so far to be thrown away by the caller.
 */
export async function mergeRunsUnlessStopped(sources: readonly MergeSource[], facts: FactsSink, stop: AbortSignal): Promise<ReportBundle | undefined> {
  const steps = mergeSteps(sources, facts)
  let turn = Date.now()
  for (let step = steps.next(); ; step = steps.next()) {
    if (!step.done && Date.now() - turn < 20) continue
    await giveWay()
    if (stop.aborted) return undefined
    if (step.done) return step.value
    turn = Date.now()
  }
}

/** Refuses, naming the folder, what does not add up: checked before anything is written. */
export function assertMergeable(sources: readonly MergeSource[]): void {
  const [first] = sources
  if (first === undefined) throw new FlakeproofError('no folder to merge; name at least one', 'E_USAGE')
  for (const source of sources) {
    // Whole-run rounds judge repetition dependence inside each round; a merge would join the rounds into one sequence.
    if (source.rate.tests?.some((t) => t.fresh !== undefined)) {
      throw new FlakeproofError(`${source.dir}: a run of whole-run rounds (--flaky-rounds), which merge cannot add up yet; merge runs of --flaky-repeat, or run the rounds in one job`, 'E_INPUT')
    }
    if (source.rate.confidence !== first.rate.confidence) {
      throw new FlakeproofError(
        `${source.dir}: measured at confidence ${source.rate.confidence}, but ${first.dir} at ${first.rate.confidence}; merge only folders measured at the same --confidence`,
        'E_INPUT',
      )
    }
    if (source.kind !== first.kind) {
      throw new FlakeproofError(`${source.dir}: holds a ${source.kind}-mode run, but ${first.dir} a ${first.kind}-mode run; merge test runs with test runs and commands with commands`, 'E_INPUT')
    }
  }
}

// --- internal ---

/** The merge, one step per test (test mode): each `yield` is a point where it may be stopped. */
function* mergeSteps(sources: readonly MergeSource[], facts: FactsSink): Generator<void, ReportBundle> {
  assertMergeable(sources)
  const first = sources[0] as MergeSource
  const confidence = { value: first.rate.confidence, exact: fractionFromNumber(first.rate.confidence) }
  if (first.kind === 'command') return mergeCommandRuns(sources as Extract<MergeSource, { kind: 'command' }>[], confidence, facts)
  return yield* mergeTestRuns(sources as Extract<MergeSource, { kind: 'test' }>[], confidence, facts)
}

/** Where each kind of execution goes in a test's merged sequence. */
// Paired fast executions ran interleaved with the gapped ones, so they keep their place among them.
const MODE_ORDER: Record<TestFact['mode'], number> = { fast: 0, single: 0, slow: 1, paired: 1, proof: 2 }

function* mergeTestRuns(sources: readonly Extract<MergeSource, { kind: 'test' }>[], confidence: Confidence, emit: FactsSink): Generator<void, ReportBundle> {
  // A test cut short in its own folder stays partial: its folder never saw all it asked of it.
  const cut = new Set(sources.flatMap((s) => (s.rate.tests ?? []).filter((t) => t.verdict === 'partial').map((t) => t.id)))
  const ids = new Set(sources.flatMap((s) => s.tests.ids))
  const tallies: TestTally[] = []
  /**
   * Per test, the runs it was seen in. A line with `attempt` (a JUnit report's retries, `repeat`/`ingest`)
   * is a trial but not a run of its own: its round is its folder's offset plus its run (`trial`).
   */
  const seen: number[] = []
  const offsets = new Map<string, number>()
  let offset = 0
  for (const source of sources) {
    offsets.set(source.dir, offset)
    offset += source.rate.trials
  }
  const byOrigin: RunError[] = []
  // One test at a time, from every folder: memory O(tests) plus one test's executions.
  for (const id of ids) {
    const { test, origins, split, attempts } = mergeTestLines(id, sources, { offsets, cut, byOrigin, confidence }, emit)
    yield
    if (test === undefined) continue
    const tally = joinedByFolder(test, origins, confidence.exact)
    const withSplit = split ? { ...tally, split: split.split } : tally
    if (attempts) {
      tallies.push({ ...withSplit, fast: { ...withSplit.fast, failureTrials: attempts.failed } })
      seen.push(attempts.rounds)
    } else {
      tallies.push(withSplit)
      seen.push(tally.fast.trials)
    }
  }
  const rounds = Math.max(0, ...seen)
  const requested = Math.max(...sources.map((s) => s.rate.requested_trials))
  const asked = rounds === 0 ? 0 : Math.max(requested, rounds)
  return buildTestMeasurement({
    command: commandOf(sources),
    repeat: asked,
    observe: tallies.some((t) => t.slow.trials > 0),
    confidence,
    ...spanOf(sources),
    complete: sources.every((s) => s.rate.complete) && byOrigin.length === 0,
    runErrors: [...sources.flatMap((s) => s.rate.run_errors ?? []), ...byOrigin],
    // Seen in fewer runs than the most any test was: partial, however many attempts it made.
    outcomes: tallies.map((tally, i) => outcomeOf(seen[i] === tally.fast.trials ? tally : { ...tally, cut: tally.cut || (seen[i] ?? 0) < asked }, seen[i] === tally.fast.trials ? asked : 0, confidence)).sort(byConcern),
    rounds,
  })
}

/** What a test's merge keeps once its lines are written: no line, so the tally's garbage collections do not copy them again. */
interface MergedTest {
  test: ReportedTest | undefined
  /** The folder of each of `test`'s repetitions. */
  origins: string[]
  split: ReturnType<typeof splitByOrigin>
  attempts: { failed: number[]; rounds: number } | undefined
}

/**
 * One test's lines from every folder, labelled, ordered, renumbered and handed to `emit`; its split
 * by origin said in `byOrigin` (and the test `cut`).
 */
function mergeTestLines(
  id: string,
  sources: readonly Extract<MergeSource, { kind: 'test' }>[],
  run: { offsets: ReadonlyMap<string, number>; cut: Set<string>; byOrigin: RunError[]; confidence: Confidence },
  emit: FactsSink,
): MergedTest {
  const { offsets, cut, byOrigin, confidence } = run
  // The lines are fresh from linesOf and this merge's own: labelled and numbered in place, not copied
  // (a copy per line and step was most of a merge's garbage).
  const own = sources.flatMap(({ dir, tests }) => tests.linesOf(id).map((line) => withOrigin(line, dir)))
  const split = splitByOrigin(own, confidence)
  if (split) {
    const { project, file, name } = own[0] as TestFact
    byOrigin.push({ project: project ?? '', file, error: `${name}: ${split.message}` })
    cut.add(id)
  }
  // Fast executions first, as one run orders them: their positions are the rounds (stable sort keeps
  // folder order). Skipped ones (a JUnit <skipped/>, an ignored or todo test) last: kept in facts,
  // never counted, so the counted ones' trials are their rounds.
  // Rounds of the attempts (a JUnit rerun is an attempt of its run's round), read before the lines are renumbered in place.
  const fast = own.filter((l) => l.outcome !== 'skipped' && (l.mode === 'fast' || l.mode === 'single'))
  const roundOf = (l: TestFact) => (offsets.get(l.origin ?? '') ?? 0) + l.trial
  const attempts = fast.some((l) => l.attempt !== undefined)
    ? { failed: [...new Set(fast.filter((l) => l.outcome === 'failed').map(roundOf))].sort((a, b) => a - b), rounds: new Set(fast.map(roundOf)).size }
    : undefined
  const ordered = inMergedOrder(own).map(renumber)
  const counted = ordered.filter((line) => line.outcome !== 'skipped')
  emit(ordered)
  const first = counted[0]
  if (first === undefined) return { test: undefined, origins: [], split, attempts }
  const test: ReportedTest = {
    project: first.project ?? '',
    file: first.file,
    name: first.name,
    evidence: {
      id,
      path: [],
      order: first.order,
      previousTest: first.previous_test,
      worker: first.worker,
      seed: first.seed,
      repetitions: counted.map(toRepetition),
      ...(cut.has(id) ? { cut: true as const } : {}),
    },
  }
  return { test, origins: counted.map((line) => line.origin ?? ''), split, attempts }
}

const FOLDER_START: ExtraFacts = { previous_outcome: undefined }
const WITHIN_FOLDER: ExtraFacts = {}

/**
 * A merged test's tally, its folders read as the processes they were: the order of its outcomes is
 * judged inside each folder and a single switch never across them (groupedIndependence), and the
 * first execution of a folder has no previous outcome. `origins[i]` is the folder of the i-th
 * repetition.
 */
function joinedByFolder(test: ReportedTest, origins: readonly string[], confidence: Fraction): TestTally {
  const repetitions = test.evidence.repetitions
  const facts = origins.map((origin, i) => (i > 0 && origin !== origins[i - 1] ? FOLDER_START : WITHIN_FOLDER))
  const tally = tallyTest(test, confidence, facts)
  const groups = new Map<string, boolean[]>()
  repetitions.forEach((r, i) => {
    if (r.mode !== 'fast' && r.mode !== 'single') return
    const origin = origins[i] ?? ''
    const group = groups.get(origin) ?? []
    group.push(!r.ok)
    groups.set(origin, group)
  })
  return groups.size < 2 ? tally : { ...tally, independence: groupedIndependence([...groups.values()], complement(confidence)) }
}

/**
 * Command mode: trials are numbered on across folders. When a folder has no facts.jsonl (`measure
 * --out` writes none), only its counts are added: the trial order is then unknown, so no runs test
 * is made and no only_when_fail.json is written.
 */
function mergeCommandRuns(sources: readonly Extract<MergeSource, { kind: 'command' }>[], confidence: Confidence, emit: FactsSink): ReportBundle {
  const facts: Fact[] = []
  let shiftMs = 0
  for (const { dir, facts: lines } of sources) {
    // Offsets continue from the previous folder's last trial, so "the trial before" stays within a folder's order.
    const ordered = [...(lines ?? [])].sort((a, b) => a.trial - b.trial)
    let end = shiftMs
    for (const line of ordered) {
      const fact = { ...line, trial: facts.length + 1, offset_ms: line.offset_ms + shiftMs, origin: line.origin ?? dir }
      facts.push(fact)
      end = Math.max(end, fact.offset_ms + fact.elapsed_ms)
    }
    shiftMs = end
  }
  const ordered = sources.every((s) => s.facts !== null)
  const rates = sources.map((s) => s.rate)
  const sum = (pick: (r: (typeof rates)[number]) => number): number => rates.reduce((acc, r) => acc + pick(r), 0)
  const counted = facts.filter((f) => f.outcome !== 'skipped')
  const failureTrials = counted.filter((f) => f.outcome === 'failed').map((f) => f.trial)
  const settings = {
    command: commandOf(sources),
    trials: sum((r) => r.requested_trials),
    gapMs: Math.max(...rates.map((r) => r.gap_ms)),
    timeoutMs: rates[0]?.timeout_ms ?? null,
    jobs: Math.max(...rates.map((r) => r.jobs)),
  }
  const counts = ordered
    ? { trials: counted.length, failures: failureTrials.length, timedOut: counted.filter((f) => f.timed_out).length, failureTrials }
    : { trials: sum((r) => r.trials), failures: sum((r) => r.failures), timedOut: sum((r) => r.timed_out), failureTrials: [] }
  const folders = new Map<string, boolean[]>()
  for (const fact of counted) {
    const folder = folders.get(fact.origin ?? '') ?? []
    folder.push(fact.outcome === 'failed')
    folders.set(fact.origin ?? '', folder)
  }
  const measured = buildRateFile(settings, confidence.value, { ...counts, complete: rates.every((r) => r.complete), ...spanOf(sources) }, [...folders.values()])
  const rate = ordered ? measured : { ...measured, independence: null, verdict: computeVerdict(counts.failures, counts.trials) }
  emit(facts)
  const bundle: ReportBundle = { rate }
  if (rate.trials === 0) return bundle
  if (ordered) bundle.onlyWhenFail = analyzeFacts(facts)
  if (hasNoRate(rate.verdict)) return bundle
  const basis = choosePlanningBasis(rate)
  bundle.runsNeeded = buildRunsNeeded(basis, rate, confidence)
  bundle.policy = decidePolicy(basis, fractionFromCounts(rate.failures, rate.trials), rate, confidence)
  return bundle
}

/**
 * A test whose outcome follows the folder it ran in: every folder all passes or all failures, both
 * kinds present, and chance explains that badly (given its counts, every folder uniform has
 * probability below 1 − confidence: splitByGroup). A platform or environment difference between the
 * jobs, not a flake: the sum is no rate, so the test is `partial` and the run says why, with the
 * p-value in rate.json (`split`). Undefined otherwise.
 */
function splitByOrigin(lines: readonly TestFact[], confidence: Confidence): { message: string; split: NonNullable<TestTally['split']> } | undefined {
  const counts = new Map<string, OutcomeGroup>()
  for (const line of lines) {
    if ((line.mode !== 'fast' && line.mode !== 'single') || line.outcome === 'skipped') continue
    const key = line.origin ?? ''
    const group = counts.get(key) ?? { key, trials: 0, failures: 0 }
    group.trials++
    if (line.outcome === 'failed') group.failures++
    counts.set(key, group)
  }
  const split = splitByGroup([...counts.values()], complement(confidence.exact))
  if (!split) return undefined
  const executions = (groups: readonly OutcomeGroup[]) => groups.reduce((sum, g) => sum + g.trials, 0)
  const names = (groups: readonly OutcomeGroup[]) => groups.map((g) => g.key).join(', ')
  const message =
    `failed all ${executions(split.failing)} executions in ${names(split.failing)} and passed all ${executions(split.passing)} in ${names(split.passing)} ` +
    `(p = ${split.pValue.toPrecision(3)} by chance): the jobs differ (platform, environment), not chance, so the merged count is no flake rate; measure each job on its own`
  return { message, split: { by: 'origin', failing: split.failing.map((g) => g.key), passing: split.passing.map((g) => g.key), p_value: split.pValue } }
}

function withOrigin(line: TestFact, dir: string): TestFact {
  line.origin ??= dir
  return line
}

/** The i-th of a test's merged executions: trial i + 1, repetition i. */
function renumber(line: TestFact, i: number): TestFact {
  line.trial = i + 1
  line.repeat = i
  return line
}

function orderOf(line: TestFact): number {
  return line.outcome === 'skipped' ? SKIPPED_LAST : MODE_ORDER[line.mode]
}
const SKIPPED_LAST = 3

/** `lines` sorted by orderOf, stably; lines already in that order (usually all of them fast ones) are not sorted again. */
function inMergedOrder(lines: TestFact[]): TestFact[] {
  for (let i = 1; i < lines.length; i++) {
    if (orderOf(lines[i - 1] as TestFact) > orderOf(lines[i] as TestFact)) return lines.sort((a, b) => orderOf(a) - orderOf(b))
  }
  return lines
}

function toRepetition(line: TestFact): Repetition {
  // Built field by field, not spread: this runs once per execution merged.
  const repetition: Repetition = { ok: line.outcome === 'passed', elapsedMs: line.elapsed_ms, stdout: line.stdout, stderr: line.stderr, mode: line.mode, gapMs: line.gap_ms }
  if (line.error !== null) repetition.error = line.error
  return repetition
}

/** The one command when every folder ran the same, else each once, in folder order. */
function commandOf(sources: readonly MergeSource[]): string {
  return [...new Set(sources.map((s) => s.rate.command))].join(' + ')
}

/** From the first start to the last end: the wall-clock span of jobs that ran side by side. */
function spanOf(sources: readonly MergeSource[]): { startedAt: Date; durationMs: number } {
  const starts = sources.map((s) => Date.parse(s.rate.started_at))
  const ends = sources.map((s) => Date.parse(s.rate.started_at) + s.rate.duration_ms)
  const start = Math.min(...starts)
  return { startedAt: new Date(start), durationMs: Math.max(...ends) - start }
}
