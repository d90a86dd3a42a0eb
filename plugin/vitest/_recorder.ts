import type { File, Suite, Task, Test } from '@vitest/runner'
import { assignTestIds, CAPTURE_LIMIT, forJournal, type JournalLine, measuringModeOf, type PairOrder, pairOrder, type TestIdentity } from '../../src/session/page.js'
import type { Repetition, RunnerOptions, TestEvidence } from './_protocol.js'
import { keepDistinct, outcomeOf, settledState } from './_repetition.js'

/**
 * Longest stretch without handing the event loop a turn. Vitest's worker answers its RPC calls only
 * between turns, and gives up on one after 60 s: 50 repetitions of a 5 s synchronous test, chained
 * by promises, never yielded and failed the run with `Timeout calling "onTaskUpdate"`.
 */
const YIELD_EVERY_MS = 1000

// Taken when the runner loads, before any test can install fake timers (`vi.useFakeTimers` replaces
// Date and the timers on globalThis; in a browser page there is no other copy to import).
const now = performance.now.bind(performance)
const wallClock = Date.now
const setTimer = globalThis.setTimeout.bind(globalThis)

/**
 * Where the recorder runs: a Node worker (runner.ts) or a browser page (browser-recorder.ts). The
 * recorder itself touches no `node:*`, so both can load it.
 */
export interface RecorderHost {
  options: RunnerOptions
  /** The project's name; '' when unnamed. */
  project: string
  /** The order seed when Vitest shuffles, else null. */
  seed: number | null
  /** The worker (Node) or browser session the tests run in. */
  worker: string
  /** The worker's process id, to tell a dead worker from a live one; none in a browser. */
  pid: number | undefined
  /** The project root: failure signatures name the user's files relative to it. */
  root: string
  /** A test's file relative to its project root, with `/`. */
  fileOf(test: Test): string
  /** Appends one line to the journal (src/artifacts/journal.ts), at once or soon. */
  journal(line: JournalLine): void
  /** Console arguments as the console prints them. */
  format(args: unknown[]): string
  /** Resolves once the event loop had a turn. */
  nextTurn(): Promise<void>
}

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
  /** Which of each gapped/fast pair comes first, while observing. */
  pairs: PairOrder
}

/**
 * Records every repetition of every test: outcome from the change in the error count (so
 * afterEach and fixture errors count), time, first error, console output. Evidence goes to the
 * reporter on the test's meta once the test ends, and to the journal as each repetition ends (so a
 * worker that dies loses nothing it finished); errors on the task stay capped. A runner calls it
 * from its own hooks (runner.ts overrides them; in browser mode they are wrapped on Vitest's runner).
 */
export class Recorder {
  private readonly _host: RecorderHost
  private readonly _options: RunnerOptions
  private readonly _running = new Map<string, Running>()
  private readonly _identities = new Map<string, { id: string; identity: TestIdentity }>()
  private _order = 0
  private _previousTest: string | null = null
  private _previousFile: string | null = null
  private _capturing: Running | undefined
  private _lastTurn = now()

  constructor(host: RecorderHost) {
    this._host = host
    this._options = host.options
    routeConsole((stream, text) => this._capture(stream, text), host.format)
  }

  /**
   * Vitest calls `runTask` instead of the test function when it exists: only worth defining when
   * there are slow repetitions to leave out (those of tests that never failed fast), so stack
   * traces of ordinary runs stay as they are.
   */
  runTaskWith(getTestFn: ((test: Test) => () => unknown) | undefined): ((test: Test) => Promise<void>) | undefined {
    if (this._options.slowRepeat === 0 || !getTestFn) return undefined
    return async (test) => {
      if (this._running.get(test.id)?.current) await getTestFn(test)()
    }
  }

  collected(files: File[]): void {
    for (const file of files) this._identify(file)
    for (const test of allTests(files)) this._plan(test)
  }

  beforeRunTask(test: Test): void {
    neutraliseAbortListenerLeak(test)
  }

  /**
   * Before every repetition; `base` is the runner's own per-try setup. Kept synchronous unless
   * there is a gap to rest or a turn to give, as it is hot.
   */
  beforeTryTask(test: Test, base: () => unknown): unknown {
    const first = !this._running.has(test.id)
    const running = this._start(test)
    const done = this._close(running)
    const mode = this._modeOf(running.evidence.repetitions.length, running.pairs)
    const observed = mode === 'fast' || mode === 'proof' || running.fastFailures > 0
    const gapMs = mode === 'slow' && observed ? this._options.gapMs : 0
    this._host.journal({
      id: running.evidence.id,
      ...(first ? { identity: this._identityOf(test), planned: (test.repeats ?? 0) + 1, order: running.evidence.order, worker: running.evidence.worker, ...(this._host.pid === undefined ? {} : { pid: this._host.pid }) } : {}),
      ...(done ? { done: forJournal(done) } : {}),
      ...(observed ? { begin: running.evidence.repetitions.length, at: wallClock() } : {}),
    })
    const begin = (): unknown => {
      const result = base()
      return isPromise(result) ? result.then(() => this._begin(test, running, mode, gapMs, observed)) : this._begin(test, running, mode, gapMs, observed)
    }
    if (gapMs > 0) return sleep(gapMs).then(() => this._turned()).then(begin)
    if (now() - this._lastTurn > YIELD_EVERY_MS) return this._host.nextTurn().then(() => this._turned()).then(begin)
    return begin()
  }

  /** The test's last repetition ended: its evidence goes on its meta, its final state replaces Vitest's sticky one. */
  afterRunTask(test: Test): void {
    const running = this._running.get(test.id)
    if (!running) return
    const done = this._close(running)
    this._host.journal({ id: running.evidence.id, ...(done ? { done: forJournal(done) } : {}), end: true })
    this._settle(test, running.evidence.repetitions)
    test.meta.flakeproof = running.evidence
    this._running.delete(test.id)
    this._previousTest = running.evidence.id
    this._previousFile = this._identityOf(test).file
    this._capturing = undefined
  }

  // --- internal ---

  /** Starts timing a repetition, after the gap and after Vitest's own per-try setup. */
  private _begin(test: Test, running: Running, mode: Repetition['mode'], gapMs: number, observed: boolean): void {
    if (test.result) test.result.errors ??= []
    const errors = (test.result?.errors ?? []) as unknown[]
    const attempts = (test.result as { attempts?: { state?: string }[] } | undefined)?.attempts
    running.current = observed
      ? { ok: true, elapsedMs: 0, mode, gapMs, started: now(), errors, errorsBefore: errors.length, attempts, attemptsBefore: attempts?.length ?? 0 }
      : undefined
    this._capturing = running
  }

  /** The event loop just had a turn: Vitest's pending RPC answers were read. */
  private _turned(): void {
    this._lastTurn = now()
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
    // Observing: each gapped repetition has a fast one beside it (measuringModeOf).
    test.repeats = repeat + 2 * slowRepeat - 1
  }

  private _modeOf(index: number, pairs: PairOrder): Repetition['mode'] {
    if (this._options.mode === 'proof') return 'proof'
    return measuringModeOf(index, this._options.repeat, pairs)
  }

  private _identityOf(test: Test): TestIdentity {
    return this._identities.get(test.id)?.identity ?? this._identityFrom(test)
  }

  private _identityFrom(test: Test): TestIdentity {
    return { project: this._host.project, file: this._host.fileOf(test), path: namesOf(test) }
  }

  private _idOf(test: Test): string {
    return this._identities.get(test.id)?.id ?? (assignTestIds([this._identityOf(test)])[0] as string)
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
          worker: this._host.worker,
          seed: this._host.seed,
          repetitions: [],
        },
        fastFailures: 0,
        fails: test.fails === true,
        pairs: pairOrder(this._options.assignmentSeed, this._idOf(test)),
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
    const fresh = errors.slice(errorsBefore) as { message?: unknown; name?: unknown; stack?: unknown }[]
    // Vitest 5's record of this attempt: the one that was last when the repetition began.
    const outcome = outcomeOf(fresh, running.fails, attempts?.[attemptsBefore]?.state, this._host.root)
    const repetition: Repetition = { ...base, ...outcome, elapsedMs: Math.round((now() - started) * 100) / 100 }
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

export function allTests(tasks: readonly Task[]): Test[] {
  return tasks.flatMap((task) => (task.type === 'test' ? [task] : 'tasks' in task ? allTests((task as Suite).tasks) : []))
}

/** Suite names, outside in, then the test's: the file task (the one with a filepath) left out. */
export function namesOf(test: Test): string[] {
  const names: string[] = []
  for (let task: Task | undefined = test; task && !('filepath' in task); task = task.suite) names.unshift(task.name)
  return names
}

// --- internal ---

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as Promise<unknown> | undefined)?.then === 'function'
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimer(resolve, ms))
}

const STREAM_OF = { log: 'stdout', info: 'stdout', debug: 'stdout', warn: 'stderr', error: 'stderr', trace: 'stderr' } as const

type ConsoleSink = (stream: 'stdout' | 'stderr', text: string) => boolean
let consoleSink: ConsoleSink | undefined

/**
 * Routes console output through the latest recorder's `sink`; the original method runs when the
 * sink says so. Patched once per worker or page: one that builds several recorders must not stack wrappers.
 */
function routeConsole(sink: ConsoleSink, format: (args: unknown[]) => string): void {
  const patch = consoleSink === undefined
  consoleSink = sink
  if (!patch) return
  for (const [method, stream] of Object.entries(STREAM_OF)) {
    const original = console[method as keyof typeof STREAM_OF].bind(console)
    console[method as keyof typeof STREAM_OF] = (...args: unknown[]) => {
      if (consoleSink?.(stream, `${format(args)}\n`) ?? true) original(...args)
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
