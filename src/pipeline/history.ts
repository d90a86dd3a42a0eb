import type { ReportBundle } from '../artifacts/bundle.js'
import type { HistoryFile, HistoryRecord, HistoryRun } from '../artifacts/history.js'
import type { RunError } from '../artifacts/test-schemas.js'
import { MAX_TRIALS } from '../config/flags.js'
import { changePointPosterior, UNINFORMED } from '../core/change-point.js'
import { complement } from '../core/fraction.js'
import { testIndependence } from '../core/independence.js'
import { lastTimeParser } from '../core/iso-time.js'
import { type FisherTables, newFisherTables, rateChangeAt } from '../core/rate-change.js'
import { type OutcomeGroup, splitByGroup } from '../core/uniform-groups.js'
import { FlakeproofError } from '../errors.js'
import { buildTestMeasurement, byConcern, type Confidence, outcomeOf } from './test-bundle.js'
import type { TestTally } from './test-tally.js'
import { byCodeUnits } from '../core/text-order.js'

export interface HistoryQuery {
  /** Runs that ended before this are left out; null: all. */
  since: Date | null
  /** Only runs on this branch; null: every branch. */
  branch: string | null
  confidence: Confidence
  /** How the history was asked for, for rate.json's `command`. */
  command: string
}

export interface HistoryAnalysis {
  history: HistoryFile
  /** rate.json, runs_needed.json, only_when_fail.json and policy.json, in the shapes of a measuring run. */
  bundle: ReportBundle
}

/**
 * Rates from everyday runs (docs/contracts.md §11). Each run is a round, and each attempt of a test
 * in it a trial: a pass is one passed trial, a pass only on the r-th retry r failed trials then a
 * passed one, a failure after r retries r + 1 failed trials. Attempts are the unit a retry budget
 * is computed for (p^(r+1) <= 0.01), and a test that always needs its retry is flaky, not broken.
 * A round failed when any test failed an attempt in it. Plans and policy
 * come from the builders a measuring run uses, so `--flaky-proof` and the report read them alike.
 * A test's trials are the runs it was in (a test added last week is not `partial` for the runs
 * before it existed).
 */
export function analyzeHistory(files: readonly HistoryRun[], query: HistoryQuery): HistoryAnalysis {
  const runs = selectRuns(files, query)
  if (runs.length === 0) {
    throw new FlakeproofError(`no run left after the filters (${files.length} file(s) matched --glob); widen --since or --branch`, 'E_INPUT')
  }
  const seen = new Map<string, { last: HistoryRecord; observations: Observation[]; attempts: number }>()
  runs.forEach((run, index) => {
    for (const record of run.records) {
      const entry = seen.get(record.test_id) ?? { last: record, observations: [], attempts: 0 }
      entry.last = record
      const attempts = record.outcome === 'passed' ? 1 : record.retries + 1
      // Each attempt is a trial held in memory: bounded, as a measuring run's trials are.
      entry.attempts += attempts
      if (entry.attempts > MAX_ATTEMPTS) {
        throw new FlakeproofError(`${record.test_id}: more than ${MAX_ATTEMPTS} attempts in the runs read (${run.file} and before); narrow --since or --glob`, 'E_INPUT')
      }
      const failed = record.outcome === 'failed' ? attempts : attempts - 1
      entry.observations.push({ run: index + 1, attempts, failed, flaky: record.outcome === 'flaky', commit: record.commit })
      seen.set(record.test_id, entry)
    }
  })
  const { confidence } = query
  const runErrors: RunError[] = []
  const tallies = [...seen.values()].map(({ last, observations }) => {
    const split = splitByCommit(observations, confidence)
    if (split) runErrors.push({ project: last.project, file: last.file, error: `${last.name}: ${split.message}` })
    const tally = tallyOf(last, observations, confidence)
    return split ? { ...tally, cut: true, split: split.split } : tally
  })
  const outcomes = tallies.map((tally) => outcomeOf(tally, tally.fast.trials, confidence)).sort(byConcern)
  const first = runs[0]?.at as Date
  const last = runs.at(-1)?.at as Date
  // Suggested commands are in the syntax of the runner these everyday runs are of (records written
  // before they named one are Vitest's, the only runner that kept history then); several: none named.
  const runners = new Set(runs.flatMap((run) => run.records.map((r) => r.runner ?? 'vitest')))
  const [runner] = runners
  const bundle = buildTestMeasurement({
    command: query.command,
    ...(runners.size === 1 && runner !== undefined ? { runner: { name: runner } } : {}),
    repeat: runs.length,
    observe: false,
    confidence,
    startedAt: first,
    durationMs: last.getTime() - first.getTime(),
    complete: runErrors.length === 0,
    runErrors,
    outcomes,
    rounds: runs.length,
  })
  const flakes = new Map([...seen].map(([id, { observations }]) => [id, observations.filter((o) => o.flaky).length]))
  const ranked = [...(bundle.rate.tests ?? [])].sort((a, b) => b.ci_low - a.ci_low || b.rate - a.rate || byCodeUnits(a.id, b.id))
  const fisherTables = newFisherTables()
  const found = new Map([...seen].map(([id, { observations }]) => [id, findChange(observations, fisherTables)]))
  const alpha = 1 - confidence.value
  return {
    bundle,
    history: {
      schema_version: 1,
      runs: runs.length,
      first_at: first.toISOString(),
      last_at: last.toISOString(),
      branch: query.branch,
      since: query.since?.toISOString() ?? null,
      confidence: confidence.value,
      tests: ranked.map(({ id, trials, failures, rate, ci_low, ci_high, verdict, split }) => ({
        id,
        runs: seen.get(id)?.observations.length ?? 0,
        trials,
        failures,
        rate,
        ci_low,
        ci_high,
        flakes: flakes.get(id) ?? 0,
        verdict,
        change_p_value: found.get(id)?.p_value ?? null,
        ...(split ? { split: { failing: split.failing, passing: split.passing, p_value: split.p_value } } : {}),
      })),
      // The comparison is of floats from an exact count of orders; ties at alpha are as unlikely as a p of exactly 0.05.
      changes: [...found].flatMap(([id, change]) => (change && change.p_value < alpha ? [{ test_id: id, ...change }] : [])),
    },
  }
}

// --- internal ---

/** Attempts of one test the analysis holds: as many as the trials of the longest measuring run. */
const MAX_ATTEMPTS = MAX_TRIALS

interface Observation {
  /** The run's number among those selected, from 1: the round it belongs to. */
  run: number
  /** Attempts in this run: 1 + the retries used. */
  attempts: number
  /** Failed attempts: all of them when the test failed, all but the last when it passed on a retry. */
  failed: number
  flaky: boolean
  commit: string | null
}

/** The runs the query keeps, oldest first; a file left empty by the filters is no run. */
function selectRuns(files: readonly HistoryRun[], query: HistoryQuery): { file: string; at: Date; records: HistoryRecord[] }[] {
  const since = query.since?.getTime() ?? Number.NEGATIVE_INFINITY
  const timeOf = lastTimeParser()
  return files
    .map(({ file, records }) => ({
      file,
      records: records.filter((r) => timeOf(r.at) >= since && (query.branch === null || r.branch === query.branch)),
    }))
    .filter((run) => run.records.length > 0)
    .map((run) => ({ ...run, at: new Date(run.records.reduce((latest, r) => Math.max(latest, timeOf(r.at)), Number.NEGATIVE_INFINITY)) }))
    .sort((a, b) => a.at.getTime() - b.at.getTime() || byCodeUnits(a.file, b.file))
}

/**
 * A test whose runs follow the commit: every attempt failed at some commits and none at the others,
 * and chance explains that badly (given its counts, every commit uniform has probability below
 * 1 − confidence: splitByGroup). A change in the code, not a flake: its history is no rate, so the
 * test is `partial` and the run says why, with the p-value in history.json and rate.json (`split`).
 * Runs of unknown commit are left out of the check.
 */
function splitByCommit(observations: readonly Observation[], confidence: Confidence): { message: string; split: NonNullable<TestTally['split']> } | undefined {
  const byCommit = new Map<string, OutcomeGroup>()
  for (const o of observations) {
    if (o.commit === null) continue
    const group = byCommit.get(o.commit) ?? { key: o.commit.slice(0, 12), trials: 0, failures: 0 }
    group.trials += o.attempts
    group.failures += o.failed
    byCommit.set(o.commit, group)
  }
  const split = splitByGroup([...byCommit.values()], complement(confidence.exact))
  if (!split) return undefined
  const names = (groups: readonly OutcomeGroup[]) => groups.map((g) => g.key).join(', ')
  const message =
    `failed every attempt at ${names(split.failing)} and passed every attempt at ${names(split.passing)} (p = ${split.pValue.toPrecision(3)} by chance): ` +
    'a change in the code, not chance, so its history is no flake rate; measure it at one commit'
  return { message, split: { by: 'commit', failing: split.failing.map((g) => g.key), passing: split.passing.map((g) => g.key), p_value: split.pValue } }
}

function tallyOf(last: HistoryRecord, observations: readonly Observation[], confidence: Confidence): TestTally {
  // Attempts in order, failed ones first within a run (a retry follows a failure): the runs test reads this sequence.
  const failedAt: number[] = []
  let trials = 0
  for (const o of observations) {
    for (let i = 0; i < o.failed; i++) failedAt.push(trials + i + 1)
    trials += o.attempts
  }
  const empty = { trials: 0, failures: 0, failureTrials: [] }
  return {
    id: last.test_id,
    project: last.project,
    file: last.file,
    name: last.name,
    // failureTrials are run numbers: a run (round) failed if any of its tests failed an attempt.
    fast: { trials, failures: failedAt.length, failureTrials: observations.filter((o) => o.failed > 0).map((o) => o.run) },
    slow: { ...empty, gapMs: 0 },
    paired: empty,
    proof: empty,
    token: null,
    tokenCandidates: [],
    predicates: [],
    errors: [],
    once: false,
    cut: false,
    independence: testIndependence(trials, failedAt, complement(confidence.exact)),
  }
}

/**
 * The commit at which a test's rate changed most clearly (a run counts as failed if any attempt
 * failed): at each commit change in its sequence, Fisher's exact test on runs before vs after; the
 * smallest of those p-values, weighed by its exact distribution over all the boundaries tried
 * (rateChangeAt), so trying many commits does not raise the chance of a false change. Undefined
 * when its runs cross no boundary of known commits, or never (or always) failed.
 */
function findChange(observations: readonly Observation[], fisherTables: FisherTables): Omit<HistoryFile['changes'][number], 'test_id'> | undefined {
  const boundaries = observations.flatMap((o, i) => {
    const previous = observations[i - 1]
    return i > 0 && o.commit !== null && previous?.commit !== null && o.commit !== previous?.commit ? [i] : []
  })
  const change = rateChangeAt(observations.map((o) => o.failed > 0), boundaries, fisherTables)
  if (change === undefined) return undefined
  const before = observations.slice(0, change.at)
  const after = observations.slice(change.at)
  return {
    commit: after[0]?.commit as string,
    before: { runs: before.length, failures: before.filter((o) => o.failed > 0).length },
    after: { runs: after.length, failures: after.filter((o) => o.failed > 0).length },
    p_value: change.pValue,
    split_p_value: change.splitPValue,
    change_point: changePointOf(observations, boundaries),
  }
}

/**
 * Where the rate changed by bisect's change-point model (src/core/change-point.ts) over the same
 * runs: one stretch of runs per commit change, the posterior over which stretch starts the new rate,
 * with "no change" as one more hypothesis of prior ½. The exact permutation test above decides
 * whether the rate changed (it has a stated null hypothesis and an exact false-alarm rate); this says where, weighing
 * every split at once instead of taking the most extreme one (docs/bisect.md, "One model").
 */
function changePointOf(observations: readonly Observation[], splits: readonly number[]): NonNullable<HistoryFile['changes'][number]['change_point']> {
  const starts = [0, ...splits]
  const tallies = starts.map((start, i) => {
    const stretch = observations.slice(start, starts[i + 1] ?? observations.length)
    return { trials: stretch.length, failures: stretch.filter((o) => o.failed > 0).length }
  })
  const posterior = changePointPosterior(tallies, UNINFORMED, NO_CHANGE_PRIOR)
  return {
    commit: observations[starts[posterior.best] as number]?.commit as string,
    probability: posterior.probability[posterior.best] as number,
    no_change: posterior.noChange,
  }
}

/** Before any run is read, a change and no change are taken as equally likely. */
const NO_CHANGE_PRIOR = 0.5
