import { relative } from 'node:path'
import { setTimeout as realDelay } from 'node:timers/promises'
import { format } from 'node:util'
import {
  assignTestIds,
  CAPTURE_LIMIT,
  failureOf,
  formatTestId,
  JournalWriter,
  measuringModeOf,
  type PairOrder,
  pairOrder,
  type Repetition,
  type RepetitionMode,
  type TestIdentity,
} from '../../src/session/worker.js'
import { bufferOf, type HeldOutput, holdOutput, printsAtOnce, takeOutput } from './_console.js'
import { REPEAT_ENV, type RepeatOptions } from './_protocol.js'
import { type CopySnapshots, endCopy, type SnapshotBase, type SnapshotState, snapshotBase, startCopy } from './_snapshots.js'

/**
 * In-process repetition for Jest (docs/contracts.md §12), installed by `flakeproof/jest/setup` in each
 * test file's context. A circus event handler clones every selected test's entry at `run_start`,
 * before anything ran: circus then runs the copies as ordinary tests, each with its `beforeEach` /
 * `afterEach`, each reported by Jest. Copies keep the test's name, so `-t` patterns and snapshot keys
 * are the original's. Each copy's outcome is appended to the journal, which is the reporter's evidence.
 * This module is loaded by Node (not by Jest's module registry), once per worker: its timers are
 * real ones, immune to `jest.useFakeTimers()`.
 */

/** circus' TestEntry and DescribeBlock: the fields read or reset here (jest-circus 29 and 30). */
interface TestEntry {
  type: 'test'
  name: string
  parent: DescribeBlock
  mode?: 'skip' | 'only' | 'todo'
  concurrent?: boolean
  /** Made where the test was declared: its stack names the line. */
  asyncError?: { stack?: string }
  errors: unknown[]
  retryReasons?: unknown[]
  invocations: number
  duration?: number | null
}
interface DescribeBlock {
  type: 'describeBlock'
  name: string
  parent?: DescribeBlock
  mode?: 'skip' | 'only' | 'todo'
  children: (TestEntry | DescribeBlock)[]
}
interface CircusState {
  rootDescribeBlock: DescribeBlock
  hasFocusedTests: boolean
  testNamePattern?: RegExp | null
  randomize?: boolean
  seed: number
  /** Jest 30.5's retries of a whole block (`jest.retryTimes(n, { entireDescribe: true })`), by block. */
  describeRetryOptions?: WeakMap<DescribeBlock, unknown>
}
interface CircusEvent {
  name: string
  test?: TestEntry
}
export type Handler = (event: CircusEvent, state: CircusState) => void | Promise<void>

/** The globals of the test file's context that are needed here. */
/** Where circus reads `jest.retryTimes(n)`. */
const RETRY_TIMES = Symbol.for('RETRY_TIMES')

export interface TestContextGlobals {
  expect: { getState(): { testPath?: string; snapshotState?: SnapshotState } }
  console: Record<string, (...args: unknown[]) => void>
  [key: symbol]: unknown
}

/** One selected test and its copies. */
interface Repeated {
  id: string
  identity: TestIdentity
  planned: number
  fastDone: number
  fastFailed: number
  /** Copies whose outcome is written, and the journal's first line. */
  written: number
  started: boolean
  /** Its snapshots when its first copy started: every copy starts from them. */
  snapshots: SnapshotBase | undefined
  /** A failing copy printed its console output: the later ones keep theirs in facts only. */
  printed: boolean
  /** Which of each gapped/fast pair comes first, while observing. */
  pairs: PairOrder
}

interface Copy {
  test: Repeated
  index: number
  mode: RepetitionMode
  gapMs: number
  stdout: string
  stderr: string
  /** A later copy's snapshots when it started, put back when it ends. */
  snapshots: CopySnapshots | undefined
  /** Where its console output starts in Jest's buffer (not for `concurrent` tests, whose copies overlap). */
  consoleFrom?: number | undefined
  /** Under a console that prints at once: what the copy printed, held until it ends. */
  held?: HeldOutput | undefined
  /** The last attempt's outcome, written once no retry (`jest.retryTimes`) will follow. */
  pending: Repetition | undefined
}

const CONSOLE_STREAMS: Record<string, 'stdout' | 'stderr'> = { log: 'stdout', info: 'stdout', debug: 'stdout', warn: 'stderr', error: 'stderr' }

/** One journal per worker process and run: this module is loaded once per worker. */
let journal: { run: string; writer: JournalWriter } | undefined
let order = 0
/** The test whose copy ended last in this worker, any file: the next test's previous_test and previous_file. */
let last: { test: string; file: string } | null = null

/** Set on a test file's globals once its repetition is installed: by the environment (Jest 29) or the setup file. */
const INSTALLED = Symbol.for('flakeproof.jest.installed')

/** Where the file's tests are: its Jest project ('' when unnamed) and path; read from `expect` when the runner did not say. */
export interface RepeatPlace {
  project: string
  testPath?: string
}

/**
 * Installs the repetition for the test file whose context `globals` is, through circus' handler list
 * (Jest 30's setup files); does nothing without FLAKEPROOF_JEST, or when flakeproof's runner or
 * environment already did it.
 */
export function installRepeat(globals: TestContextGlobals): void {
  const handler = repeatHandler(globals, { project: '' })
  if (!handler) return
  const handlers = globals[Symbol.for('EVENT_HANDLERS')] as Handler[] | undefined
  if (!Array.isArray(handlers)) {
    throw new Error("flakeproof/jest/setup: this Jest has no circus handler list for a setup file (Jest 29); run `npx flakeproof jest`, or set testRunner: 'flakeproof/jest/runner'")
  }
  handlers.push(handler)
}

/** A test environment as circus reads it: its globals, and the event handler it calls on every event. */
export interface RepeatEnvironment {
  global: unknown
  handleTestEvent?: Handler
}

/**
 * Adds the repetition to a test environment Jest made, after its own event handler: circus reads
 * `handleTestEvent` when the file's framework starts, so this runs before (flakeproof's runner, or
 * its environment's constructor).
 */
export function attachRepeat(environment: RepeatEnvironment, place: RepeatPlace): void {
  const ours = repeatHandler(environment.global as TestContextGlobals, place)
  if (!ours) return
  const theirs = environment.handleTestEvent?.bind(environment)
  environment.handleTestEvent = async (event, state) => {
    await theirs?.(event, state)
    await ours(event, state)
  }
}

/**
 * The circus event handler that repeats the tests of the file whose context `globals` is; undefined
 * without FLAKEPROOF_JEST (nothing asked for a repetition) or when one is installed there already.
 * Console output is captured per copy.
 */
export function repeatHandler(globals: TestContextGlobals, place: RepeatPlace): Handler | undefined {
  const raw = process.env[REPEAT_ENV]
  if (!raw || globals[INSTALLED]) return undefined
  globals[INSTALLED] = true
  const options = JSON.parse(raw) as RepeatOptions
  // `flakeproof jest` may run Jest again in this process (a budget's runs, rounds): an in-band run's
  // worker is this process, and each run has a journal folder of its own.
  if (journal?.run !== options.run) {
    journal = { run: options.run, writer: new JournalWriter(options.journalDir) }
    order = 0
    last = null
  }
  const repeater = new FileRepeater(options, globals, journal.writer, place)
  return (event, state) => repeater.handle(event, state)
}

// --- internal ---

class FileRepeater {
  private readonly _options: RepeatOptions
  private readonly _globals: TestContextGlobals
  private readonly _journal: JournalWriter
  private readonly _copies = new WeakMap<TestEntry, Copy>()
  private readonly _worker = process.env.JEST_WORKER_ID ?? 'main'
  private readonly _place: RepeatPlace
  private _current: Copy | undefined
  /** Enforce mode: failed attempts a retry followed. */
  private readonly _superseded: TestEntry[] = []
  /** Copies written as passed: Jest 30 may fail one after it ended (_journalLate). */
  private readonly _passed: { test: TestEntry; plan: Repeated; index: number }[] = []
  /** Jest's BufferedConsole's entries: copies' output is read from there (plugin/jest/_console.ts). */
  private _buffer: ReturnType<typeof bufferOf>
  /** The console prints each call at once (`--verbose`, one test file): a copy's output is held until it ends. */
  private _printing = false
  /** Jest shuffles each block's children as it starts (`--randomize`): copies must be gathered (_gather). */
  private _shuffled = false

  constructor(options: RepeatOptions, globals: TestContextGlobals, journal: JournalWriter, place: RepeatPlace) {
    this._options = options
    this._globals = globals
    this._journal = journal
    this._place = place
  }

  capture(stream: 'stdout' | 'stderr', text: string): void {
    const copy = this._current
    if (copy && copy[stream].length < CAPTURE_LIMIT) copy[stream] = (copy[stream] + text).slice(0, CAPTURE_LIMIT)
  }

  async handle(event: CircusEvent, state: CircusState): Promise<void> {
    if (event.name === 'run_start') {
      // As in Vitest's path: a retry would hide the very failure being measured, and let a proof
      // pass on a second try. circus reads the count when each block runs, after this.
      this._globals[RETRY_TIMES] = 0
      // A block retried as a whole would run its copies again and hide the failure the same way.
      if (state.describeRetryOptions) forEachBlock(state.rootDescribeBlock, (block) => state.describeRetryOptions?.delete(block))
      this._captureConsole()
      this._shuffled = state.randomize === true
      this._expand(state)
    }
    if (event.name === 'run_finish') {
      this._journalLate()
      // Attempts a retry replaced leave the file's results, as a retry of Jest's own leaves none.
      for (const attempt of this._superseded) attempt.parent.children = attempt.parent.children.filter((c) => c !== attempt)
    }
    const copy = event.test && this._copies.get(event.test)
    if (event.name === 'test_start' && copy && event.test) this._start(copy, event.test)
    if (event.name === 'test_done' && copy && event.test) await this._done(copy, event.test)
  }

  /**
   * Jest sets the test file's console after the environment is made: it is read once the run starts.
   * A BufferedConsole's entries are read per copy; another console (`--verbose`, `--silent`) is
   * wrapped, and prints as it would.
   */
  private _captureConsole(): void {
    const target = this._globals.console
    this._buffer = bufferOf(target)
    this._printing = printsAtOnce(target)
    if (this._buffer) return
    for (const [method, stream] of Object.entries(CONSOLE_STREAMS)) {
      const original = target[method]
      if (typeof original !== 'function') continue
      target[method] = (...args: unknown[]) => {
        this.capture(stream, `${format(...args)}\n`)
        original.apply(target, args)
      }
    }
  }

  /** Every test of the file in declaration order gets its id; each selected one is cloned in place. */
  private _expand(state: CircusState): void {
    const tests: TestEntry[] = []
    collectTests(state.rootDescribeBlock, tests)
    const file = relative(this._options.idRoot, this._place.testPath ?? this._globals.expect.getState().testPath ?? '').split('\\').join('/')
    const identities = tests.map((t): TestIdentity => ({ project: this._place.project, file, path: namesOf(t) }))
    const ids = assignTestIds(identities)
    const proving = this._options.mode === 'proof'
    // The reporter is told only of tests that ran: the others (`-t`, skip) are present, not missing.
    // A proof with nothing to prove journals nothing (its run folder is never made).
    if (!proving || Object.keys(this._options.proofRuns).length > 0) this._journal.write({ id: formatTestId({ project: this._place.project, file, path: [] }), collected: ids })
    const plans = new Map<TestEntry, Repeated>()
    tests.forEach((test, i) => {
      const id = ids[i] as string
      const planned = proving ? this._options.proofRuns[id] : this._options.mode === 'enforce' ? 1 : this._options.repeat
      if (!isSelected(test, state)) return
      // A proof runs only what it proves, as with Vitest: another test's failure is not the proof's.
      if (planned === undefined && proving) test.mode = 'skip'
      if (planned === undefined) return
      const pairs = pairOrder(this._options.assignmentSeed, id)
      plans.set(test, { id, identity: identities[i] as TestIdentity, planned, fastDone: 0, fastFailed: 0, written: 0, started: false, snapshots: undefined, printed: false, pairs })
    })
    const mode: RepetitionMode = this._options.mode === 'proof' ? 'proof' : this._options.mode === 'enforce' ? 'single' : 'fast'
    this._cloneIn(state.rootDescribeBlock, (test) => {
      const plan = plans.get(test)
      if (!plan) return [test]
      return Array.from({ length: plan.planned }, (_, index) => this._copyOf(test, plan, index, mode, 0))
    })
  }

  private _cloneIn(block: DescribeBlock, copiesOf: (test: TestEntry) => TestEntry[]): void {
    block.children = block.children.flatMap((child): (TestEntry | DescribeBlock)[] => {
      if (child.type === 'describeBlock') {
        this._cloneIn(child, copiesOf)
        return [child]
      }
      return copiesOf(child)
    })
  }

  /** A fresh entry for one copy: what circus accumulates while a test runs starts empty. */
  private _copyOf(test: TestEntry, plan: Repeated, index: number, mode: RepetitionMode, gapMs: number): TestEntry {
    const entry = index === 0 ? test : freshEntry(test)
    this._copies.set(entry, { test: plan, index, mode, gapMs, stdout: '', stderr: '', snapshots: undefined, pending: undefined })
    return entry
  }

  private _start(copy: Copy, test: TestEntry): void {
    this._current = copy
    copy.stdout = ''
    copy.stderr = ''
    copy.consoleFrom = test.concurrent ? undefined : this._buffer?.length
    copy.held = this._printing && !test.concurrent ? holdOutput(this._globals.console) : undefined
    const plan = copy.test
    // Snapshot keys are `name count` and `name: hint count`: each copy counts from where the first
    // one started, and what a later copy writes is undone when it ends (plugin/jest/_snapshots.ts).
    const state = this._globals.expect.getState().snapshotState
    if (state) {
      const name = testIdOf(test)
      if (!plan.started) plan.snapshots = snapshotBase(state, name)
      else if (plan.snapshots) copy.snapshots = startCopy(state, name, plan.snapshots)
    }
    if (!plan.started) {
      plan.started = true
      // Unshuffled, the copies already follow one another: no walk of the block per test.
      if (this._shuffled && !test.concurrent) this._gather(test, plan)
      order++
      const line = this._options.locate ? declaredLine(test, this._place.testPath ?? this._globals.expect.getState().testPath) : undefined
      this._journal.write({
        id: plan.id,
        identity: plan.identity,
        planned: plan.planned,
        order,
        worker: this._worker,
        pid: process.pid,
        ...(line === undefined ? {} : { line }),
        previousTest: last?.test ?? null,
        previousFile: last?.file ?? null,
        begin: copy.index,
        at: Date.now(),
      })
    } else this._journal.write({ id: plan.id, begin: copy.index, at: Date.now() })
  }

  /**
   * Jest's --randomize (`--flaky-shuffle`) shuffles each block's children, copies included, as the
   * block starts: when a test's first copy starts, its other copies are brought right after it, so
   * a shuffled run reorders tests, as Vitest's does, and never scatters one test's repetitions among
   * other tests (every copy then follows the same tests, and its repetitions run back to back). The
   * block's array is changed in place: circus walks it by index, and every copy moved is ahead.
   */
  private _gather(test: TestEntry, plan: Repeated): void {
    const siblings = test.parent.children
    const at = siblings.indexOf(test)
    const later = siblings.filter((child, i) => i > at && child.type === 'test' && this._copies.get(child)?.test === plan)
    if (later.every((child, i) => siblings[at + 1 + i] === child)) return
    const moved = new Set(later)
    const rest = siblings.filter((child, i) => i > at && !moved.has(child))
    siblings.splice(at + 1, siblings.length - at - 1, ...later, ...rest)
  }

  private async _done(copy: Copy, test: TestEntry): Promise<void> {
    this._current = undefined
    const state = this._globals.expect.getState().snapshotState
    if (state && copy.snapshots) endCopy(state, testIdOf(test), copy.snapshots, test.concurrent !== true)
    copy.snapshots = undefined
    // Quiet: only the first failing copy of a test prints its console output; every copy's is in facts.
    const print = test.errors.length > 0 && !copy.test.printed
    // A printing console keeps its entries too (Jest 30): read, never taken out (they are printed already or held).
    if (this._buffer && copy.consoleFrom !== undefined) Object.assign(copy, takeOutput(this._buffer, copy.consoleFrom, print || this._printing))
    copy.held?.release(print)
    if (print && (copy.consoleFrom !== undefined || copy.held)) copy.test.printed = true
    copy.held = undefined
    const error = test.errors[0]
    copy.pending = {
      ok: test.errors.length === 0,
      elapsedMs: test.duration ?? 0,
      ...(error === undefined ? {} : failureOf(thrownOf(error), this._options.idRoot)),
      stdout: copy.stdout,
      stderr: copy.stderr,
      mode: copy.mode,
      gapMs: copy.gapMs,
    }
    if (this._options.mode === 'enforce') this._enforce(copy, test)
    await this._write(copy, test)
  }

  /**
   * `--flaky-enforce` (docs/jest.md): a failed attempt with budget left is followed by a retry in its
   * place (its errors become the retry's `retryReasons`, as Jest's own retries keep them); the last
   * attempt of a quarantined test that failed is recorded, then passes for Jest.
   */
  private _enforce(copy: Copy, test: TestEntry): void {
    if (test.errors.length === 0) return
    const plan = copy.test
    const budget = this._options.retries[plan.id] ?? 0
    const siblings = test.parent.children
    const at = siblings.indexOf(test)
    if (plan.written < budget && !test.concurrent && at >= 0) {
      const retry = this._copyOf(test, plan, plan.planned, 'single', 0)
      retry.invocations = test.invocations
      retry.retryReasons = [...(test.retryReasons ?? []), ...test.errors]
      plan.planned++
      siblings.splice(at + 1, 0, retry)
      this._superseded.push(test)
    } else if (this._options.quarantined.includes(plan.id)) test.errors = []
  }

  private async _write(copy: Copy, test: TestEntry): Promise<void> {
    const repetition = copy.pending
    if (!repetition) return
    copy.pending = undefined
    const plan = copy.test
    last = { test: plan.id, file: plan.identity.file }
    plan.written++
    if (copy.mode === 'fast') {
      plan.fastDone++
      if (!repetition.ok) plan.fastFailed++
      if (plan.fastDone === this._options.repeat && plan.fastFailed > 0) this._observe(plan, test)
    }
    // The last copy (gapped ones planned above included) ends the test on its own line: one write(2) per copy.
    this._journal.write({ id: plan.id, done: repetition, ...(plan.written === plan.planned ? { end: true as const } : {}) })
    if (repetition.ok) this._passed.push({ test, plan, index: plan.written - 1 })
    // The rest before a gapped copy: after this one's duration was taken, on real timers.
    const next = this._options.slowRepeat > 0 && this._options.mode === 'measure' ? this._nextCopy(test) : undefined
    if (next?.mode === 'slow' && next.gapMs > 0) await realDelay(next.gapMs)
  }

  /**
   * Jest 30 gives a test the rejections of promises it left behind (an un-awaited `waitFor`) when its
   * describe block ends, after the test was done and its copy written: Jest then reports the copy
   * failed, and so must flakeproof. Every block has ended when the run finishes, and Jest reads each
   * test's errors after this. A quarantined test's late failure is recorded and, as at its end
   * (_enforce), does not fail the run.
   */
  private _journalLate(): void {
    for (const { test, plan, index } of this._passed) {
      const error = test.errors[0]
      if (error === undefined) continue
      this._journal.write({ id: plan.id, late: { index, ...failureOf(thrownOf(error), this._options.idRoot) } })
      if (this._options.mode === 'enforce' && this._options.quarantined.includes(plan.id)) test.errors = []
    }
    this._passed.length = 0
  }

  /**
   * The copy circus runs right after `test`: its next sibling, as the block's children stand when it
   * runs them (Jest's --randomize shuffles them first, so a copy's index does not say what follows
   * it; the gapped copies are inserted after the shuffle, right after the test that failed).
   */
  private _nextCopy(test: TestEntry): Copy | undefined {
    const siblings = test.parent.children
    const next = siblings[siblings.indexOf(test) + 1]
    return next?.type === 'test' ? this._copies.get(next) : undefined
  }

  /**
   * A test that failed a fast copy gets its observation right after it, in its block (not for
   * `concurrent` tests): pairs of one gapped and one fast copy, the order in each pair by the seeded
   * coin (measuringModeOf), as the Vitest runner does.
   */
  private _observe(plan: Repeated, test: TestEntry): void {
    const { slowRepeat, gapMs, repeat } = this._options
    if (slowRepeat === 0 || test.concurrent) return
    const siblings = test.parent.children
    const at = siblings.indexOf(test)
    if (at < 0) return
    const copies = Array.from({ length: 2 * slowRepeat }, (_, i) => {
      const mode = measuringModeOf(plan.planned + i, repeat, plan.pairs)
      return this._copyOf(test, plan, plan.planned + i, mode, mode === 'slow' ? gapMs : 0)
    })
    plan.planned += 2 * slowRepeat
    siblings.splice(at + 1, 0, ...copies)
  }
}

/** `block` and every block inside it. */
function forEachBlock(block: DescribeBlock, visit: (block: DescribeBlock) => void): void {
  visit(block)
  for (const child of block.children) if (child.type === 'describeBlock') forEachBlock(child, visit)
}

/** What circus recorded as thrown: an error, or `[error, where the test or hook was declared]`. */
function thrownOf(error: unknown): unknown {
  return Array.isArray(error) ? error[0] : error
}

/** Tests in declaration order, skipped and todo ones included, so a filter never renumbers the rest. */
function collectTests(block: DescribeBlock, into: TestEntry[]): void {
  for (const child of block.children) {
    if (child.type === 'describeBlock') collectTests(child, into)
    else into.push(child)
  }
}

/** Whether circus will run this test (its own rule in `_runTestInContext`), so skipped ones are never copied. */
function isSelected(test: TestEntry, state: CircusState): boolean {
  if (test.mode === 'skip' || test.mode === 'todo') return false
  for (let block: DescribeBlock | undefined = test.parent; block; block = block.parent) if (block.mode === 'skip') return false
  if (state.hasFocusedTests && test.mode === undefined) return false
  return !state.testNamePattern || state.testNamePattern.test(testIdOf(test))
}

/** The line of the test's declaration, as circus finds it for `testLocationInResults`: its definition's stack, in the test file. */
function declaredLine(test: TestEntry, testPath: string | undefined): number | undefined {
  const frame = test.asyncError?.stack?.split('\n').find((l) => testPath !== undefined && l.includes(testPath))
  const match = frame ? /:(\d+):\d+\)?$/.exec(frame) : null
  return match ? Number(match[1]) : undefined
}

/** Describe names then the test's, without circus' root block. */
function namesOf(test: TestEntry): string[] {
  const names = [test.name]
  for (let block: DescribeBlock | undefined = test.parent; block?.parent; block = block.parent) names.unshift(block.name)
  return names
}

/** circus' `getTestID`: what `-t` matches and what snapshot keys start with. */
function testIdOf(test: TestEntry): string {
  return namesOf(test).join(' ')
}

function freshEntry(test: TestEntry): TestEntry {
  return {
    ...test,
    errors: [],
    retryReasons: [],
    invocations: 0,
    duration: null,
    startedAt: null,
    status: null,
    seenDone: false,
    numPassingAsserts: 0,
    unhandledRejectionErrorByPromise: new Map(),
  } as TestEntry
}
