import type { File, Test } from '@vitest/runner'
import * as vitest from 'vitest'
import type { JournalLine } from '../../src/session/page.js'
import { JOURNAL_COMMAND } from './_browser-protocol.js'
import type { RunnerOptions } from './_protocol.js'
import { Recorder } from './_recorder.js'

/**
 * The recording runner in Vitest's browser mode, loaded into the page as the project's first setup
 * file (plugin/vitest/_browser.ts puts it there). Browser mode ignores `test.runner` and builds its
 * own runner, so the Recorder's hooks are wrapped around that runner's instead. The page has no
 * `node:fs`: journal lines go to the Node side through a browser command, a batch at a time.
 */

/** Longest a journal line waits in the page before it is sent: bounds what a crashed page loses. */
const FLUSH_EVERY_MS = 200

// Taken now, before a test can install fake timers.
const setTimer = globalThis.setTimeout.bind(globalThis)

type TryOptions = { retry: number; repeats: number }

/** Vitest's browser runner: the hooks @vitest/runner calls on it, and what it was built from. */
interface BrowserRunner {
  config: { root: string; name?: string; sequence?: { seed?: number; shuffle?: unknown } }
  onCollected?: (files: File[]) => unknown
  onBeforeRunTask?: (test: Test) => unknown
  onBeforeTryTask?: (test: Test, options: TryOptions) => unknown
  onAfterRunTask?: (test: Test) => unknown
  runTask?: (test: Test) => Promise<void>
  constructor: { getTestFn?: (test: Test) => () => unknown }
}

/** `window.__vitest_browser_runner__` as Vitest 3.2 to 5 keep it in the page. */
interface BrowserState {
  runner?: BrowserRunner
  sessionId?: string
  commands?: { triggerCommand: (command: string, args: unknown[]) => Promise<unknown> }
}

/** Marks a runner already wrapped: setup files run again for each test file of a page. */
const WRAPPED = Symbol.for('flakeproof.browser.recorder')

function wrapBrowserRunner(): void {
  const state = (globalThis as { __vitest_browser_runner__?: BrowserState }).__vitest_browser_runner__
  const runner = state?.runner
  const commands = state?.commands
  if (!runner || !commands || typeof runner.onBeforeTryTask !== 'function') {
    throw new Error(
      "flakeproof: this Vitest's browser mode keeps no runner flakeproof can record with (window.__vitest_browser_runner__.runner); nothing here would be measured. Vitest 3.2 to 5 have it",
    )
  }
  if (WRAPPED in runner) return
  Object.assign(runner, { [WRAPPED]: true })
  const options: RunnerOptions | undefined = vitest.inject('flakeproof')
  if (!options) throw new Error('flakeproof: this setup file is added by the plugin; add `flakeproof()` to `plugins` instead of listing it in `setupFiles`')
  const journal = new PageJournal((lines) => commands.triggerCommand(JOURNAL_COMMAND, [lines]))
  const { config } = runner
  const recorder = new Recorder({
    options,
    project: config.name ?? '',
    seed: config.sequence?.shuffle ? (config.sequence.seed ?? null) : null,
    worker: state.sessionId ?? 'browser',
    pid: undefined,
    root: config.root,
    fileOf: (test) => relativeTo(config.root, test.file.filepath),
    journal: (line) => journal.add(line),
    format: formatConsole,
    nextTurn: () => new Promise((resolve) => setTimer(resolve, 0)),
  })
  const { onCollected, onBeforeRunTask, onBeforeTryTask, onAfterRunTask } = runner
  runner.onCollected = (files) => {
    recorder.collected(files)
    return onCollected?.call(runner, files)
  }
  runner.onBeforeRunTask = (test) => {
    recorder.beforeRunTask(test)
    return onBeforeRunTask?.call(runner, test)
  }
  runner.onBeforeTryTask = (test, tryOptions) => recorder.beforeTryTask(test, () => onBeforeTryTask.call(runner, test, tryOptions))
  runner.onAfterRunTask = async (test) => {
    recorder.afterRunTask(test)
    // Once per test, not per repetition: what it ran is on the Node side before its result is.
    await journal.flush()
    return onAfterRunTask?.call(runner, test)
  }
  // Vitest 4.1+ has the test function's getter on its runner class; 3.2 and 4.0 run the slow
  // repetitions of tests that never failed fast unrecorded instead of leaving them out.
  const runTask = recorder.runTaskWith(runner.constructor.getTestFn)
  if (runTask) runner.runTask = runTask
}

/**
 * Journal lines held in the page and sent in batches: at each test's end, and at most
 * FLUSH_EVERY_MS after a line was added, one command call per batch, in order.
 */
class PageJournal {
  private readonly _send: (lines: JournalLine[]) => Promise<unknown>
  private _pending: JournalLine[] = []
  private _sending: Promise<unknown> = Promise.resolve()
  private _scheduled = false

  constructor(send: (lines: JournalLine[]) => Promise<unknown>) {
    this._send = send
  }

  add(line: JournalLine): void {
    this._pending.push(line)
    if (this._scheduled) return
    this._scheduled = true
    setTimer(() => {
      // A failed send is thrown at the next test's end, by `flush`.
      this.flush().catch(() => undefined)
    }, FLUSH_EVERY_MS)
  }

  flush(): Promise<unknown> {
    this._scheduled = false
    if (this._pending.length > 0) {
      const lines = this._pending
      this._pending = []
      this._sending = this._sending.then(() => this._send(lines))
    }
    return this._sending
  }
}

/** `file` relative to `root`, with `/`: page paths are the server's absolute ones, `/`-separated. */
function relativeTo(root: string, file: string): string {
  const prefix = `${root.replace(/\/+$/, '')}/`
  return file.startsWith(prefix) ? file.slice(prefix.length) : file
}

/** Console arguments joined as a browser prints them: strings as they are, the rest as JSON when it can be. */
function formatConsole(args: unknown[]): string {
  return args
    .map((arg) => {
      if (typeof arg === 'string') return arg
      if (arg instanceof Error) return arg.stack ?? `${arg.name}: ${arg.message}`
      try {
        return typeof arg === 'object' && arg !== null ? JSON.stringify(arg) : String(arg)
      } catch {
        return String(arg)
      }
    })
    .join(' ')
}

// Last, once every declaration above is initialised.
wrapBrowserRunner()
