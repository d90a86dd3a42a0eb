import { join } from 'node:path'
import type { BisectFile, BisectVisit } from '../artifacts/bisect-schema.js'
import { BISECT_PRIORS, BisectLedger, type StopReason } from '../core/bisect-run.js'
import { BATCH_EFFICIENCY, type StepCosts } from '../core/bisect-policy.js'
import { splitAt, type Tally } from '../core/change-point.js'
import { describeRate } from '../core/rate.js'
import { FlakeproofError } from '../errors.js'
import { Checkouts } from './bisect-checkouts.js'
import { type CommitRange, resolveRange } from './bisect-commits.js'
import { type BisectSubject, observeBatch, type SelfCommand } from './bisect-observe.js'
import { priorExecutions } from './bisect-prior.js'
import type { PipelineContext } from './context.js'

export interface BisectSettings {
  /** The folder the user ran it in: the repository is the one holding it. */
  cwd: string
  good: string
  bad: string
  merges: boolean
  subject: BisectSubject
  setup: string | undefined
  confidence: number
  maxExecutions: number
  /** time: information per measured cost alone sizes the batches; executions: a batch keeps BATCH_EFFICIENCY of a single execution's information. */
  optimize: 'time' | 'executions'
  priorFrom: string | undefined
  self: SelfCommand
}

export type BisectStatus = BisectFile['status']

/**
 * `flakeproof bisect` (docs/bisect.md): finds the commit that changed a failure rate. Each step
 * runs a batch of executions at the commit, in a temporary worktree, chosen by expected
 * information per unit of measured cost (src/core/bisect-policy.ts), until one commit is the
 * culprit with posterior ≥ confidence or the budget is spent. The worktrees are removed at the end,
 * whatever ended it; bisect.json's content is returned for the caller to write.
 */
export async function bisectCommand(settings: BisectSettings, context: PipelineContext): Promise<BisectFile> {
  const startedAt = new Date()
  const range = await resolveRange(settings.cwd, settings.good, settings.bad, settings.merges)
  const prior = settings.priorFrom === undefined ? null : priorExecutions(settings.priorFrom, range)
  const ledger = new BisectLedger(
    {
      commits: range.commits.length,
      priors: BISECT_PRIORS,
      confidence: settings.confidence,
      maxExecutions: settings.maxExecutions,
      batchEfficiency: settings.optimize === 'time' ? 0 : BATCH_EFFICIENCY,
    },
    prior?.tallies,
  )
  const candidates = range.commits.length - 1
  context.log(
    `bisect: ${candidates} candidate commit(s) after ${short(range.commits[0]?.sha)} up to ${short(range.commits.at(-1)?.sha)}${settings.merges ? ' (merge commits only)' : ''}; stops at ${percent(settings.confidence)} or ${settings.maxExecutions} executions`,
  )
  if (prior) context.log(`bisect: prior from ${prior.from}: ${prior.failures}/${prior.executions} failed executions at their commits`)

  const meter = new CostMeter(settings.subject.kind === 'cmd')
  const ready = new Set<string>()
  const visits: BisectVisit[] = []
  const checkouts = new Checkouts(range.repo, range.prefix, settings.setup, context.control.abort)
  let batches = 0
  let stop: StopReason | 'interrupted' | 'unobservable' | undefined
  try {
    while ((stop = ledger.stopReason()) === undefined) {
      if (context.control.stop.aborted) {
        stop = 'interrupted'
        break
      }
      const visitMs = (commit: number): number => (settings.setup !== undefined && !ready.has(range.setupKey[commit] as string) ? meter.setupMs() : 0)
      const step = ledger.next(meter.costs(visitMs))
      const commit = range.commits[step.commit] as CommitRange['commits'][number]
      const key = range.setupKey[step.commit] as string
      const prepared = await checkouts.prepare(commit.sha, key)
      if (context.control.abort.aborted) {
        stop = 'interrupted'
        break
      }
      if ('error' in prepared) {
        unobservable(step.commit, prepared.error, null)
        continue
      }
      if (prepared.setupMs !== null) {
        meter.recordSetup(prepared.setupMs)
        ready.add(key)
      }
      let observed: Awaited<ReturnType<typeof observeBatch>>
      try {
        observed = await observeBatch(settings.subject, prepared.dir, step.batch, {
          abort: context.control.abort,
          self: settings.self,
          scratch: () => join(checkouts.root, `batch-${++batches}`),
        })
      } catch (error) {
        // The system refused to start a process (EAGAIN, EMFILE): nothing ran; the CLI says why (exit 3).
        context.control.onStartFailure(error as Error)
        stop = 'interrupted'
        break
      }
      if ('aborted' in observed) {
        stop = 'interrupted'
        break
      }
      if ('error' in observed) {
        unobservable(step.commit, observed.error, prepared.setupMs)
        continue
      }
      meter.recordBatch(observed.executions, observed.wallMs, observed.testTimeMs)
      ledger.record({ commit: step.commit, executions: observed.executions, failures: observed.failures, starts: observed.starts })
      const visit = visitOf(step.commit, observed.executions, observed.failures, observed.starts, observed.wallMs, prepared.setupMs, null)
      visits.push(visit)
      context.log(
        `visit ${visit.visit}  ${short(commit.sha)} (${step.commit}/${candidates})  ${observed.failures}/${observed.executions} failed  · top: ${visit.top.map((t) => `${short(t.sha)} ${percent(t.probability)}`).join(' · ')}  · ${ledger.executions} executions, ${ledger.starts} starts`,
      )
    }
  } finally {
    await checkouts.dispose()
  }
  if (ledger.unobservable.size >= range.commits.length) stop = 'unobservable'
  return buildBisectFile(settings, range, ledger, visits, meter, prior, stop ?? 'budget', startedAt)

  function unobservable(commit: number, error: string, setupMs: number | null): void {
    ledger.unobservable.add(commit)
    visits.push(visitOf(commit, 0, 0, 0, 0, setupMs, error))
    context.log(`visit ${visits.length}  ${short(range.commits[commit]?.sha)}: ${error}; not visited again`)
    // Without the bad commit there is nothing to compare with: it is the user's to fix, before any more runs.
    if (commit === range.commits.length - 1 && (ledger.tallies[commit]?.trials ?? 0) === 0) {
      throw new FlakeproofError(`--bad ${settings.bad} (${short(range.commits[commit]?.sha)}) cannot be observed: ${error}`, 'E_INPUT')
    }
  }

  function visitOf(commit: number, executions: number, failures: number, starts: number, durationMs: number, setupMs: number | null, error: string | null): BisectVisit {
    const { probability } = ledger.posterior
    const top = topCommits(probability, 3).map((k) => ({ sha: range.commits[k]?.sha as string, probability: probability[k] as number }))
    return { visit: visits.length + 1, sha: range.commits[commit]?.sha as string, position: commit, executions, failures, process_starts: starts, duration_ms: Math.round(durationMs), setup_ms: setupMs === null ? null : Math.round(setupMs), error, top }
  }
}

// --- internal ---

/**
 * Costs measured from the runs themselves. --cmd: each execution is a process, so its wall time is
 * the cost of one (start and repetition are one thing). --vitest / --jest: a batch's time inside
 * its tests, divided by its repetitions, is the cost of one repetition; the rest of its wall time is
 * the start-up. Before the first batch, a start-up is taken to cost 100 repetitions (Vitest's second
 * against a small test's 10 ms); the first batch replaces the guess.
 */
class CostMeter {
  private readonly _perProcess: boolean
  private _batches = 0
  private _startMs = 0
  private _repetitions = 0
  private _testMs = 0
  private _setups: number[] = []

  constructor(perProcess: boolean) {
    this._perProcess = perProcess
  }

  recordBatch(executions: number, wallMs: number, testTimeMs: number | null): void {
    this._batches++
    if (this._perProcess || testTimeMs === null) {
      this._startMs += wallMs / executions
      return
    }
    this._startMs += Math.max(0, wallMs - testTimeMs)
    this._repetitions += executions
    this._testMs += testTimeMs
  }

  recordSetup(ms: number): void {
    this._setups.push(ms)
  }

  setupMs(): number {
    return this._setups.length === 0 ? 0 : this._setups.reduce((a, b) => a + b, 0) / this._setups.length
  }

  costs(visitMs: (commit: number) => number): StepCosts {
    if (this._batches === 0) return { startMs: this._perProcess ? 1 : 1000, repetitionMs: this._perProcess ? 0 : 10, processPerExecution: this._perProcess, visitMs }
    // A repetition is never free: a floor of 1 µs keeps the batch size finite when tests take no measurable time.
    const repetitionMs = this._perProcess ? 0 : Math.max(0.001, this._testMs / Math.max(1, this._repetitions))
    return { startMs: Math.max(0.001, this._startMs / this._batches), repetitionMs, processPerExecution: this._perProcess, visitMs }
  }

  measured(): BisectFile['costs'] {
    if (this._batches === 0) return { start_ms: null, repetition_ms: null, setup_ms: this._setups.length === 0 ? null : round(this.setupMs()) }
    const costs = this.costs(() => 0)
    return { start_ms: round(costs.startMs), repetition_ms: this._perProcess ? null : round(costs.repetitionMs), setup_ms: this._setups.length === 0 ? null : round(this.setupMs()) }
  }
}

function buildBisectFile(
  settings: BisectSettings,
  range: CommitRange,
  ledger: BisectLedger,
  visits: BisectVisit[],
  meter: CostMeter,
  prior: { from: string; executions: number; failures: number } | null,
  status: BisectStatus,
  startedAt: Date,
): BisectFile {
  const { probability, best } = ledger.posterior
  const candidate = (k: number) => ({ sha: range.commits[k]?.sha as string, subject: range.commits[k]?.subject as string, position: k, probability: probability[k] as number })
  const split = splitAt(ledger.tallies, best)
  const side = (t: Tally, commits: number) => ({ ...describeRate(t.failures, t.trials, settings.confidence), commits })
  const good = range.commits[0] as CommitRange['commits'][number]
  const bad = range.commits.at(-1) as CommitRange['commits'][number]
  return {
    schema_version: 1,
    subject: {
      kind: settings.subject.kind,
      command: settings.subject.kind === 'cmd' ? settings.subject.command : settings.subject.args,
      setup: settings.setup ?? null,
    },
    good: { sha: good.sha, subject: good.subject },
    bad: { sha: bad.sha, subject: bad.subject },
    history: settings.merges ? 'merges' : 'first-parent',
    optimize: settings.optimize,
    assumptions: range.assumptions,
    confidence: settings.confidence,
    status,
    culprit: candidate(best),
    alternatives: topCommits(probability, 6)
      .filter((k) => k !== best)
      .slice(0, 5)
      .map(candidate),
    rates: { before: side(split.before, best), after: side(split.after, range.commits.length - best) },
    executions: ledger.executions,
    process_starts: ledger.starts,
    max_executions: settings.maxExecutions,
    prior,
    costs: meter.measured(),
    model:
      'A change point between --good and --bad; the rates before and after it unknown, with Beta(0.5, 2) and Beta(0.5, 0.5) priors; the posterior over the change point is exact (Beta-Binomial marginals).',
    commits: range.commits.map((c, k) => ({ sha: c.sha, subject: c.subject, position: k, trials: ledger.tallies[k]?.trials ?? 0, failures: ledger.tallies[k]?.failures ?? 0, probability: probability[k] as number })),
    visits,
    started_at: startedAt.toISOString(),
    duration_ms: Date.now() - startedAt.getTime(),
  }
}

/** The `count` most likely commits, most likely first (earlier first among equals). */
function topCommits(probability: readonly number[], count: number): number[] {
  return probability
    .map((p, k) => ({ p, k }))
    .filter(({ k }) => k > 0)
    .sort((a, b) => b.p - a.p || a.k - b.k)
    .slice(0, count)
    .map(({ k }) => k)
}

function short(sha: string | undefined): string {
  return (sha ?? '').slice(0, 12)
}

function percent(x: number): string {
  return `${(x * 100).toFixed(1)}%`
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000
}
