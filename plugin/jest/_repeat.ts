import { relative } from 'node:path'
import { setTimeout as realDelay } from 'node:timers/promises'
import { format } from 'node:util'
import {
  assignTestIds,
  CAPTURE_LIMIT,
  failureOf,
  JournalWriter,
  measuringModeOf,
  type PairOrder,
  pairOrder,
  type Repetition,
  type RepetitionMode,
  type TestIdentity,
} from '../../src/session/worker.js'
import { REPEAT_ENV, type RepeatOptions } from './_protocol.js'

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
  errors: unknown[]
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
  expect: { getState(): { testPath?: string; snapshotState?: { _counters?: Map<string, number> } } }
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
  /** Snapshot counter of its name before its first copy: every copy starts from it. */
  counterBase: number | undefined
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
  /** The last attempt's outcome, written once no retry (`jest.retryTimes`) will follow. */
  pending: Repetition | undefined
}

const CONSOLE_STREAMS: Record<string, 'stdout' | 'stderr'> = { log: 'stdout', info: 'stdout', debug: 'stdout', warn: 'stderr', error: 'stderr' }

/** One journal per worker process: this module is loaded once per worker. */
let journal: JournalWriter | undefined
let order = 0

/** Set on a test file's globals once its repetition is installed: by the environment (Jest 29) or the setup file. */
const INSTALLED = Symbol.for('flakeproof.jest.installed')

/**
 * Installs the repetition for the test file whose context `globals` is, through circus' handler list
 * (Jest 30); does nothing without FLAKEPROOF_JEST, or when flakeproof's environment already did it.
 */
export function installRepeat(globals: TestContextGlobals): void {
  const handler = repeatHandler(globals)
  if (!handler) return
  const handlers = globals[Symbol.for('EVENT_HANDLERS')] as Handler[] | undefined
  if (!Array.isArray(handlers)) {
    throw new Error(
      "flakeproof/jest/setup: this Jest has no circus handler list for a setup file (Jest 29); run `npx flakeproof jest`, or set testEnvironment: 'flakeproof/jest/environment' with testEnvironmentOptions: { flakeproofBase: '<your environment>' }",
    )
  }
  handlers.push(handler)
}

/**
 * The circus event handler that repeats the tests of the file whose context `globals` is; undefined
 * without FLAKEPROOF_JEST (nothing asked for a repetition) or when one is installed there already.
 * Console output is captured per copy.
 */
export function repeatHandler(globals: TestContextGlobals): Handler | undefined {
  const raw = process.env[REPEAT_ENV]
  if (!raw || globals[INSTALLED]) return undefined
  globals[INSTALLED] = true
  const options = JSON.parse(raw) as RepeatOptions
  journal ??= new JournalWriter(options.journalDir)
  const repeater = new FileRepeater(options, globals, journal)
  return (event, state) => repeater.handle(event, state)
}

// --- internal ---

class FileRepeater {
  private readonly _options: RepeatOptions
  private readonly _globals: TestContextGlobals
  private readonly _journal: JournalWriter
  private readonly _copies = new WeakMap<TestEntry, Copy>()
  private readonly _worker = process.env.JEST_WORKER_ID ?? 'main'
  private _current: Copy | undefined

  constructor(options: RepeatOptions, globals: TestContextGlobals, journal: JournalWriter) {
    this._options = options
    this._globals = globals
    this._journal = journal
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
      this._captureConsole()
      this._expand(state)
    }
    const copy = event.test && this._copies.get(event.test)
    if (event.name === 'test_start' && copy && event.test) this._start(copy, event.test)
    if (event.name === 'test_done' && copy && event.test) await this._done(copy, event.test)
  }

  /** Jest sets the test file's console after the environment is made: it is wrapped once the run starts. */
  private _captureConsole(): void {
    const target = this._globals.console
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
    const file = relative(this._options.rootDir, this._globals.expect.getState().testPath ?? '').split('\\').join('/')
    const identities = tests.map((t): TestIdentity => ({ project: '', file, path: namesOf(t) }))
    const ids = assignTestIds(identities)
    const plans = new Map<TestEntry, Repeated>()
    tests.forEach((test, i) => {
      const id = ids[i] as string
      const planned = this._options.mode === 'proof' ? this._options.proofRuns[id] : this._options.repeat
      if (planned === undefined || !isSelected(test, state)) return
      const pairs = pairOrder(this._options.assignmentSeed, id)
      plans.set(test, { id, identity: identities[i] as TestIdentity, planned, fastDone: 0, fastFailed: 0, written: 0, started: false, counterBase: undefined, pairs })
    })
    const mode: RepetitionMode = this._options.mode === 'proof' ? 'proof' : 'fast'
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
    this._copies.set(entry, { test: plan, index, mode, gapMs, stdout: '', stderr: '', pending: undefined })
    return entry
  }

  private _start(copy: Copy, test: TestEntry): void {
    this._current = copy
    copy.stdout = ''
    copy.stderr = ''
    const plan = copy.test
    // Snapshot keys are `name count`: each copy counts from where the first one started, so copies
    // compare with the test's own snapshots and never write new ones.
    const counters = this._globals.expect.getState().snapshotState?._counters
    if (counters) {
      const name = testIdOf(test)
      if (!plan.started) plan.counterBase = counters.get(name)
      else if (plan.counterBase === undefined) counters.delete(name)
      else counters.set(name, plan.counterBase)
    }
    if (!plan.started) {
      plan.started = true
      order++
      this._journal.write({ id: plan.id, identity: plan.identity, planned: plan.planned, order, worker: this._worker, pid: process.pid, begin: copy.index, at: Date.now() })
    } else this._journal.write({ id: plan.id, begin: copy.index, at: Date.now() })
  }

  private async _done(copy: Copy, test: TestEntry): Promise<void> {
    this._current = undefined
    const error = test.errors[0]
    copy.pending = {
      ok: test.errors.length === 0,
      elapsedMs: test.duration ?? 0,
      ...(error === undefined ? {} : failureOf(Array.isArray(error) ? error[0] : error, this._options.rootDir)),
      stdout: copy.stdout,
      stderr: copy.stderr,
      mode: copy.mode,
      gapMs: copy.gapMs,
    }
    await this._write(copy, test)
  }

  private async _write(copy: Copy, test: TestEntry): Promise<void> {
    const repetition = copy.pending
    if (!repetition) return
    copy.pending = undefined
    const plan = copy.test
    this._journal.write({ id: plan.id, done: repetition })
    plan.written++
    if (copy.mode === 'fast') {
      plan.fastDone++
      if (!repetition.ok) plan.fastFailed++
      if (plan.fastDone === this._options.repeat && plan.fastFailed > 0) this._observe(plan, test)
    }
    if (plan.written === plan.planned) this._journal.write({ id: plan.id, end: true })
    // The rest before a gapped copy: after this one's duration was taken, on real timers.
    const next = measuringModeOf(copy.index + 1, this._options.repeat, plan.pairs)
    if (this._options.gapMs > 0 && plan.written < plan.planned && next === 'slow' && this._options.mode === 'measure') await realDelay(this._options.gapMs)
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
