import { relative } from 'node:path'
import { performance } from 'node:perf_hooks'
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises'
import { format } from 'node:util'
import type { File, Suite, Task, Test } from '@vitest/runner'
import * as vitest from 'vitest'
import { assignTestIds, CAPTURE_LIMIT, forJournal, JournalWriter, measuringModeOf, type TestIdentity } from '../../src/session/worker.js'
import type { Repetition, RunnerOptions, TestEvidence } from './_protocol.js'
import { keepDistinct, outcomeOf, settledState } from './_repetition.js'

/**
 * Longest stretch without handing the event loop a turn. Vitest's worker answers its RPC calls only
 * between turns, and gives up on one after 60 s: 50 repetitions of a 5 s synchronous test, chained
 * by promises, never yielded and failed the run with `Timeout calling "onTaskUpdate"`.
 */
const YIELD_EVERY_MS = 1000

// 4.1+ exports the class as `TestRunner`; 3.2 and 4.0 only from `vitest/runners` (removed in 5).
type RunnerClass = (new (config: never) => Record<string, unknown>) & { getTestFn?: TestFnGetter }
type TestFnGetter = (test: Test) => () => unknown
export const Base: RunnerClass =
  ((vitest as Record<string, unknown>).TestRunner as RunnerClass | undefined) ??
  ((await import('vitest/runners' as string)) as { VitestTestRunner: RunnerClass }).VitestTestRunner
// 4.1 deprecates `vitest/suite` in favour of the runner's static methods; 3.2 and 4.0 only have it.
const getTestFn: TestFnGetter = Base.getTestFn ?? ((await import('vitest/suite' as string)) as { getFn: TestFnGetter }).getFn

/** The repetition under way; `errors` is the task's array, held so Vitest replacing it (the `fails` flip) loses nothing. */
interface Current extends Repetition {
  started: number
  errors: unknown[]
  errorsBefore: number
  /** Vitest 5+ records every attempt, `test.fails` already applied; this repetition's is at `attemptsBefore`. */
  attempts: { state?: string }[] | undefined
  attemptsBefore: number
}

interface Running {
  evidence: TestEvidence
  current?: Current
  /** Fast repetitions that failed, to decide whether this test is observed slowly. */
  fastFailures: number
  /** `test.fails`: a repetition passes by throwing. */
  fails: boolean
}

interface WorkerConfig {
  root: string
  name?: string
  sequence?: { seed?: number; shuffle?: unknown }
}

/**
 * Vitest runner that records every repetition of every test: outcome from the change in the error
 * count (so afterEach and fixture errors count), time, first error, console output. Evidence goes
 * to the reporter on the test's meta once the test ends, and to the journal as each repetition ends
 * (so a worker that dies loses nothing it finished); errors on the task stay capped.
 */
export default class FlakeproofRunner extends (Base as unknown as new (config: WorkerConfig) => BaseRunner) {
  private readonly _options: RunnerOptions
  private readonly _running = new Map<string, Running>()
  private readonly _identities = new Map<string, { id: string; identity: TestIdentity }>()
  private readonly _journal: JournalWriter
  private readonly _root: string
  private readonly _project: string
  private readonly _seed: number | null
  private _order = 0
  private _previousTest: string | null = null
  private _previousFile: string | null = null
  private _capturing: Running | undefined
  private _lastTurn = performance.now()

  constructor(config: WorkerConfig) {
    super(config)
    const options: RunnerOptions | undefined = vitest.inject('flakeproof')
    if (!options) throw new Error('flakeproof: this runner is set up by the plugin; add `flakeproof()` to `plugins` instead of setting `test.runner`')
    this._options = options
    this._journal = new JournalWriter(options.journalDir)
    this._root = config.root
    this._project = config.name ?? ''
    this._seed = config.sequence?.shuffle ? (config.sequence.seed ?? null) : null
    routeConsole((stream, text) => this._capture(stream, text))
    // Vitest calls `runTask` instead of the test function when it exists: only define it when there
    // are slow repetitions to leave out (those of tests that never failed fast), so stack traces of
    // ordinary runs stay as they are.
    if (this._options.slowRepeat > 0) {
      ;(this as { runTask?: (test: Test) => Promise<void> }).runTask = async (test) => {
        if (this._running.get(test.id)?.current) await getTestFn(test)()
      }
    }
  }

  override onCollected(files: File[]): unknown {
    for (const file of files) this._identify(file)
    for (const test of allTests(files)) this._plan(test)
    return super.onCollected?.(files)
  }

  override onBeforeRunTask(test: Test): unknown {
    neutraliseAbortListenerLeak(test)
    return super.onBeforeRunTask?.(test)
  }

  /** Runs before every repetition: kept synchronous unless there is a gap to rest or a turn to give, as it is hot. */
  override onBeforeTryTask(test: Test, options: { retry: number; repeats: number }): unknown {
    const first = !this._running.has(test.id)
    const running = this._start(test)
    const done = this._close(running)
    const mode = this._modeOf(running.evidence.repetitions.length)
    const observed = mode === 'fast' || mode === 'proof' || running.fastFailures > 0
    const gapMs = mode === 'slow' && observed ? this._options.gapMs : 0
    this._journal.write({
      id: running.evidence.id,
      ...(first ? { identity: this._identityOf(test), planned: (test.repeats ?? 0) + 1, order: running.evidence.order, worker: running.evidence.worker, pid: process.pid } : {}),
      ...(done ? { done: forJournal(done) } : {}),
      ...(observed ? { begin: running.evidence.repetitions.length, at: Date.now() } : {}),
    })
    const begin = (): unknown => {
      const result = super.onBeforeTryTask?.(test, options)
      return isPromise(result) ? result.then(() => this._begin(test, running, mode, gapMs, observed)) : this._begin(test, running, mode, gapMs, observed)
    }
    if (gapMs > 0) return sleep(gapMs).then(() => this._turned()).then(begin)
    if (performance.now() - this._lastTurn > YIELD_EVERY_MS) return nextTurn().then(() => this._turned()).then(begin)
    return begin()
  }

  override async onAfterRunTask(test: Test): Promise<unknown> {
    const running = this._running.get(test.id)
    if (running) {
      const done = this._close(running)
      this._journal.write({ id: running.evidence.id, ...(done ? { done: forJournal(done) } : {}), end: true })
      this._settle(test, running.evidence.repetitions)
      test.meta.flakeproof = running.evidence
      this._running.delete(test.id)
      this._previousTest = running.evidence.id
      this._previousFile = this._identityOf(test).file
      this._capturing = undefined
    }
    return super.onAfterRunTask?.(test)
  }

  // --- internal ---

  /** Starts timing a repetition, after the gap and after Vitest's own per-try setup. */
  private _begin(test: Test, running: Running, mode: Repetition['mode'], gapMs: number, observed: boolean): void {
    if (test.result) test.result.errors ??= []
    const errors = (test.result?.errors ?? []) as unknown[]
    const attempts = (test.result as { attempts?: { state?: string }[] } | undefined)?.attempts
    running.current = observed
      ? { ok: true, elapsedMs: 0, mode, gapMs, started: performance.now(), errors, errorsBefore: errors.length, attempts, attemptsBefore: attempts?.length ?? 0 }
      : undefined
    this._capturing = running
  }

  /** The event loop just had a turn: Vitest's pending RPC answers were read. */
  private _turned(): void {
    this._lastTurn = performance.now()
  }

  /** Ids of a file's tests, in declaration order, skipped ones included: same-named tests stay distinct. */
  private _identify(file: File): void {
    const tests = allTests([file])
    const identities = tests.map((test) => this._identityFrom(test))
    const ids = assignTestIds(identities)
    tests.forEach((test, i) => this._identities.set(test.id, { id: ids[i] as string, identity: identities[i] as TestIdentity }))
  }

  private _plan(test: Test): void {
    const { mode, repeat, slowRepeat, proofRuns } = this._options
    // A retry would count as one more repetition, and hide the very failure being measured.
    test.retry = 0
    if (mode === 'proof') {
      const required = proofRuns[this._idOf(test)]
      if (required === undefined) {
        // Vitest reports a test skipped only with a result: without one it counts as neither.
        if (test.mode === 'run') Object.assign(test, { mode: 'skip', result: { state: 'skip' } })
        return
      }
      test.repeats = required - 1
      return
    }
    // Observing: each gapped repetition is followed by a fast one (measuringModeOf).
    test.repeats = repeat + 2 * slowRepeat - 1
  }

  private _modeOf(index: number): Repetition['mode'] {
    if (this._options.mode === 'proof') return 'proof'
    return measuringModeOf(index, this._options.repeat)
  }

  private _identityOf(test: Test): TestIdentity {
    return this._identities.get(test.id)?.identity ?? this._identityFrom(test)
  }

  private _identityFrom(test: Test): TestIdentity {
    return { project: this._project, file: relative(this._root, test.file.filepath).split('\\').join('/'), path: namesOf(test) }
  }

  private _idOf(test: Test): string {
    return this._identities.get(test.id)?.id ?? assignTestIds([this._identityOf(test)])[0] as string
  }

  private _start(test: Test): Running {
    let running = this._running.get(test.id)
    if (!running) {
      running = {
        evidence: {
          id: this._idOf(test),
          path: this._identityOf(test).path,
          order: ++this._order,
          previousTest: this._previousTest,
          previousFile: this._previousFile,
          worker: process.env.VITEST_POOL_ID ?? String(process.pid),
          seed: this._seed,
          repetitions: [],
        },
        fastFailures: 0,
        fails: test.fails === true,
      }
      this._running.set(test.id, running)
    }
    return running
  }

  /** Closes the running repetition: its outcome is whether errors were added since it started. */
  private _close(running: Running): Repetition | undefined {
    const current = running.current
    if (!current) return undefined
    running.current = undefined
    const { started, errors, errorsBefore, attempts, attemptsBefore, ...base } = current
    const fresh = errors.slice(errorsBefore) as { message?: unknown; name?: unknown }[]
    // Vitest 5's record of this attempt: the one that was last when the repetition began.
    const outcome = outcomeOf(fresh, running.fails, attempts?.[attemptsBefore]?.state)
    const repetition: Repetition = { ...base, ...outcome, elapsedMs: Math.round((performance.now() - started) * 100) / 100 }
    if (!repetition.ok && repetition.mode === 'fast') running.fastFailures++
    running.evidence.repetitions.push(repetition)
    if (fresh.length > 0) keepDistinct(errors, errorsBefore)
    return repetition
  }

  /**
   * The test's final state from its repetitions, replacing Vitest's sticky 'fail': a measuring run
   * is advisory, so a test that passed some repetitions passes unless failOnFlaky; one that failed
   * every repetition fails; a proof fails on any failed repetition.
   */
  private _settle(test: Test, repetitions: Repetition[]): void {
    const result = test.result
    const settled = settledState(repetitions, this._options.mode === 'proof' || this._options.failOnFlaky)
    if (!result || !settled) return
    result.state = settled.state
    if (settled.state === 'pass') result.errors = undefined
    else if (!result.errors?.length) result.errors = [{ name: 'AssertionError', message: settled.message, stack: '' }]
  }

  private _capture(stream: 'stdout' | 'stderr', text: string): boolean {
    const current = this._capturing?.current
    if (!current) return true
    const kept = current[stream] ?? ''
    if (kept.length < CAPTURE_LIMIT) current[stream] = kept.length + text.length <= CAPTURE_LIMIT ? kept + text : `${(kept + text).slice(0, CAPTURE_LIMIT)}… [flakeproof: output cut]`
    // Vitest prints the console of the first repetition only; every repetition's is in facts.jsonl.
    return (this._capturing?.evidence.repetitions.length ?? 0) === 0
  }
}

// --- internal ---

interface BaseRunner {
  onCollected?(files: File[]): unknown
  onBeforeRunTask?(test: Test): unknown
  onBeforeTryTask?(test: Test, options: { retry: number; repeats: number }): unknown
  onAfterRunTask?(test: Test): unknown
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as Promise<unknown> | undefined)?.then === 'function'
}

export function allTests(tasks: readonly Task[]): Test[] {
  return tasks.flatMap((task) => (task.type === 'test' ? [task] : 'tasks' in task ? allTests((task as Suite).tasks) : []))
}

/** Suite names, outside in, then the test's: the file task (the one with a filepath) left out. */
export function namesOf(test: Test): string[] {
  const names: string[] = []
  for (let task: Task | undefined = test; task && !('filepath' in task); task = task.suite) names.unshift(task.name)
  return names
}

const STREAM_OF = { log: 'stdout', info: 'stdout', debug: 'stdout', warn: 'stderr', error: 'stderr', trace: 'stderr' } as const

type ConsoleSink = (stream: 'stdout' | 'stderr', text: string) => boolean
let consoleSink: ConsoleSink | undefined

/**
 * Routes console output through the latest runner's `sink`; the original method runs when the sink
 * says so. Patched once per worker: a worker that builds several runners must not stack wrappers.
 */
function routeConsole(sink: ConsoleSink): void {
  const patch = consoleSink === undefined
  consoleSink = sink
  if (!patch) return
  for (const [method, stream] of Object.entries(STREAM_OF)) {
    const original = console[method as keyof typeof STREAM_OF].bind(console)
    console[method as keyof typeof STREAM_OF] = (...args: unknown[]) => {
      if (consoleSink?.(stream, `${format(...args)}\n`) ?? true) original(...args)
    }
  }
}

const patchedSignals = new WeakSet<AbortSignal>()

/**
 * Vitest 4.1 adds an abort listener to the test's signal on every repetition and never removes it
 * (`withCancel`), so 100k repetitions take minutes instead of seconds. Keep only the latest of those
 * listeners. Other versions never add one matching it, so this changes nothing there.
 */
function neutraliseAbortListenerLeak(test: Test): void {
  const signal = (test.context as { signal?: AbortSignal } | undefined)?.signal
  if (!signal || patchedSignals.has(signal)) return
  patchedSignals.add(signal)
  const add = signal.addEventListener.bind(signal)
  type Listener = Parameters<AbortSignal['addEventListener']>[1]
  let previous: Listener | null = null
  signal.addEventListener = ((type: string, listener: Listener, options?: Parameters<AbortSignal['addEventListener']>[2]) => {
    if (type === 'abort' && typeof listener === 'function' && String(listener).includes('reject(signal.reason)')) {
      if (previous) signal.removeEventListener('abort', previous)
      previous = listener
    }
    return add(type, listener, options)
  }) as AbortSignal['addEventListener']
}
