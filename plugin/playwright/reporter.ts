import { dirname } from 'node:path'
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter'
import {
  type EnforcedTest,
  type Enforcement,
  type EverydayResult,
  finishEnforcedRun,
  inOneLine,
  loadEnforcement,
  logLine,
  ONE_PARSE,
  oneLineError,
  type ResolvedVitestOptions,
  resolveRunnerOptions,
  RUNNERS,
  type RunError,
  TestSession,
  VitestOptionsSchema,
  warning,
} from '../../src/session/adapter.js'
import { type ChildMessage, type ChildTask, PLAYWRIGHT_ENV } from './_protocol.js'
import { firstLines, grepOf, moduleOf, passed, type PlaywrightTest, reportedOf, runErrorOf, signatureOfAttempt, testsOfRun } from './_tests.js'
import { playwrightVersion } from './_version.js'

/** The first instance in a process claims it: the reporter listed in the config and added by the wrapper do not both record. */
const ACTIVE = Symbol.for('flakeproof.playwright.reporter')

/**
 * `reporter: [['list'], ['flakeproof/playwright', {...}]]` (docs/playwright.md): translates every
 * attempt of Playwright's reporter API onto flakeproof's runner-neutral core. Listed in the config,
 * it records an everyday run in history only (a test that passed on a retry is flaky; a measurement's
 * files stay as they are), attributing a red one — or with `enforce: true` enforces the committed
 * policy: each test gets its retry budget as its retries, and a run whose only failures are
 * quarantined tests passes (`onEnd` returns its status). Added by `flakeproof playwright`, it sends
 * each test's evidence to the session in flakeproof's process instead (plugin/playwright/cli.ts).
 */
export default class FlakeproofPlaywrightReporter implements Reporter {
  private readonly _task: ChildTask
  private readonly _active: boolean
  private readonly _options: ResolvedVitestOptions
  private readonly _command: string
  private readonly _enforcement: Enforcement | undefined
  private _root: string
  private _session: TestSession | undefined
  private _tests = new Map<string, PlaywrightTest>()
  private readonly _idOf = new Map<TestCase, string>()
  private readonly _runErrors: RunError[] = []
  private _interrupted = false
  private _sent: Promise<void> = Promise.resolve()

  constructor(options: Record<string, unknown> = {}) {
    // Playwright adds its own keys to every reporter's options: `configDir`, `_`-prefixed ones, and `onlyFailures` in list mode.
    const { configDir, onlyFailures: _onlyFailures, ...given } = options
    const ours = Object.fromEntries(Object.entries(given).filter(([key]) => !key.startsWith('_')))
    this._root = typeof configDir === 'string' ? configDir : process.cwd()
    const global = globalThis as Record<symbol, unknown>
    this._active = global[ACTIVE] === undefined
    global[ACTIVE] = true
    const raw = process.env[PLAYWRIGHT_ENV]
    this._task = raw !== undefined && typeof process.send === 'function' ? (JSON.parse(raw) as ChildTask) : { task: 'local', options: ours, command: `playwright ${process.argv.slice(2).join(' ')}`.trim() }
    const configured = this._task.task === 'local' ? this._task.options : {}
    // Playwright prints a reporter's error whole (`console.error`): a user's mistake comes out as its one line.
    const resolved = inOneLine(() => resolveRunnerOptions(RUNNERS.playwright, configured, [], process.env, playwrightVersion(this._root)))
    if (this._task.task === 'local' && resolved && !resolved.enforce) {
      throw oneLineError(
        'flakeproof: a reporter cannot make Playwright repeat or prove tests; run `npx flakeproof playwright --flaky-repeat 20` (or --flaky-proof), which adds this reporter itself',
      )
    }
    this._options = resolved ?? VitestOptionsSchema.parse(configured, ONE_PARSE)
    this._command = this._task.task === 'local' ? this._task.command : ''
    this._enforcement = this._active && this._task.task === 'local' && this._options.enforce ? inOneLine(() => loadEnforcement(this._root, this._options)) : undefined
  }

  /** Playwright's own terminal reporter stays: this one prints only flakeproof's lines, at the end. */
  printsToStdio(): boolean {
    return false
  }

  onBegin(config: FullConfig, suite: Suite): void {
    if (!this._active) return
    this._root = config.configFile ? dirname(config.configFile) : this._root
    this._tests = testsOfRun(this._root, suite)
    for (const test of this._tests.values()) for (const copy of test.copies) this._idOf.set(copy, test.id)
    if (this._task.task === 'list') {
      const tests = [...this._tests.values()].map((t) => ({ id: t.id, project: t.identity.project, grep: grepOf(t.copies[0] as TestCase) }))
      this._send({ kind: 'begin', root: this._root, workers: config.workers })
      this._send({ kind: 'listed', tests })
      return
    }
    if (this._task.task === 'forward') {
      this._send({ kind: 'begin', root: this._root, workers: config.workers })
      return
    }
    if (this._enforcement) {
      // Each test gets exactly its budget: none when unlisted, so no blanket `retries` hides a new failure.
      // Playwright's dispatcher reads `retries` from these same objects after onBegin.
      for (const test of this._tests.values()) for (const copy of test.copies) copy.retries = this._enforcement.retries[test.id] ?? 0
      return
    }
    this._session = this._newSession()
    this._session.guard('onBegin', () => this._session?.begin())
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    if (!this._active) return
    const id = this._idOf.get(test)
    const known = id === undefined ? undefined : this._tests.get(id)
    if (!known) return
    known.attempts.set(test, [...(known.attempts.get(test) ?? []), result])
    if (result.status === 'interrupted') this._interrupted = true
    const last = passed(test, result) || result.status === 'skipped' || result.status === 'interrupted' || result.retry >= test.retries
    if (!last) return
    known.finished.add(test)
    if (this._task.task === 'forward') this._sendCopy(known, test)
    else if (known.finished.size === known.copies.length) this._record(known)
  }

  onError(error: TestError): void {
    if (this._active) this._runErrors.push(runErrorOf(error, this._root))
  }

  async onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    if (!this._active || this._task.task === 'list') return undefined
    // Copies whose last attempt never came (the run stopped): what they ran is kept.
    for (const test of this._tests.values()) {
      if (test.finished.size === test.copies.length || test.attempts.size === 0) continue
      if (this._task.task !== 'forward') this._record(test)
      else for (const copy of test.attempts.keys()) if (!test.finished.has(copy)) this._sendCopy(test, copy)
    }
    const interrupted = this._interrupted || result.status === 'interrupted' || result.status === 'timedout'
    const onlyTestsFailed = this._runErrors.length === 0 && !interrupted
    if (this._task.task === 'forward') {
      const ran = [...this._tests.values()]
      this._send({ kind: 'end', modules: [...new Set(ran.map(moduleOf))], tests: ran.map((t) => t.id), runErrors: this._runErrors, interrupted, onlyTestsFailed })
      await this._sent
      return undefined
    }
    if (this._enforcement) return this._endEnforced(result, onlyTestsFailed)
    const session = this._session
    if (!session) return undefined
    session.guard('onEnd', () => {
      const ran = [...this._tests.values()]
      const collected = { modules: new Set(ran.map(moduleOf)), tests: new Set(ran.map((t) => t.id)) }
      session.end({ collected, ending: interrupted ? { kind: 'interrupted' } : { kind: 'stopped', cause: 'Playwright stopped' }, runErrors: this._runErrors, complete: !interrupted })
      if (this._options.history && !interrupted) session.recordEveryday(this._everyday())
    })
    session.release()
    return undefined
  }

  // --- internal ---

  private _newSession(): TestSession {
    const host = { root: (): string => this._root, log: (line: string): void => void process.stderr.write(`${line}\n`) }
    return new TestSession(host, {
      runner: RUNNERS.playwright,
      version: playwrightVersion(this._root),
      options: this._options,
      mode: 'single',
      command: this._command,
      lockLabel: `flakeproof/playwright outDir ${this._options.outDir}`,
      journal: false,
    })
  }

  /** A test whose copies all ended, to the session here. */
  private _record(test: PlaywrightTest): void {
    if (this._enforcement) return
    const reported = reportedOf(test, 'single', this._root)
    this._session?.guard('onTestEnd', () => this._session?.record(test.id, reported.evidence.repetitions.length > 0 ? reported : undefined, locationOf(test.copies[0] as TestCase)))
  }

  /** A copy that ended, to flakeproof's process: it puts a test's copies together. */
  private _sendCopy(test: PlaywrightTest, copy: TestCase): void {
    if (this._task.task !== 'forward') return
    this._send({ kind: 'copy', id: test.id, copy: copy.repeatEachIndex, test: reportedOf(test, this._task.mode, this._root, [copy]), location: locationOf(copy) })
  }

  /**
   * The end of an enforced run: the session's judgement and lines (src/session/enforcement-run.ts),
   * history, and the run's status: a run whose only failures are quarantined tests passes.
   */
  private _endEnforced(result: FullResult, onlyTestsFailed: boolean): { status?: FullResult['status'] } | undefined {
    const enforcement = this._enforcement as Enforcement
    const seen: EnforcedTest[] = []
    const quarantined = new Set(enforcement.quarantined)
    let unexpected = 0
    for (const test of this._tests.values()) {
      for (const copy of test.copies) {
        const attempts = test.attempts.get(copy) ?? []
        const last = attempts.at(-1)
        if (!last || last.status === 'skipped' || last.status === 'interrupted') continue
        const state = passed(copy, last) ? 'passed' : 'failed'
        if (state === 'failed' && !quarantined.has(test.id)) unexpected++
        if (test.id in enforcement.retries || quarantined.has(test.id)) seen.push({ id: test.id, state, retries: attempts.length - 1, errors: firstLines(attempts.filter((a) => !passed(copy, a))) })
      }
    }
    const log = (line: string): void => void process.stderr.write(`${line}\n`)
    try {
      for (const line of finishEnforcedRun(enforcement, seen, { root: this._root, updatePolicy: this._options.updatePolicy, runner: RUNNERS.playwright, command: this._command })) log(line)
      if (this._options.history && result.status !== 'interrupted') this._newSession().recordEveryday(this._everyday())
    } catch (error) {
      // A reporter never takes the run down: the tests' own results stand.
      log(logLine(warning(`[flakeproof] enforcement not reported: ${error instanceof Error ? error.message : String(error)}`), process.env))
    }
    return result.status === 'failed' && onlyTestsFailed && unexpected === 0 ? { status: 'passed' } : undefined
  }

  /** The run as history's everyday results: each copy's last attempt decides (a quarantined test's failure stays one). */
  private _everyday(): EverydayResult[] {
    const results: EverydayResult[] = []
    for (const test of this._tests.values()) {
      for (const copy of test.copies) {
        const attempts = test.attempts.get(copy) ?? []
        const last = attempts.at(-1)
        if (!last || last.status === 'skipped' || last.status === 'interrupted') continue
        const { project, file, path } = test.identity
        const failed = !passed(copy, last)
        const durationMs = attempts.reduce((sum, a) => sum + a.duration, 0)
        // Failed or flaky: the signature of its first failed attempt, as the other runners record it.
        const firstFailed = attempts.find((a) => !passed(copy, a))
        const signature = firstFailed ? signatureOfAttempt(copy, firstFailed, this._root) : undefined
        results.push({ id: test.id, project, file, name: path.join(' > '), failed, retries: attempts.length - 1, flaky: copy.outcome() === 'flaky', durationMs, signature })
      }
    }
    return results
  }

  /** To flakeproof's process, in order; onEnd waits until every message is out. */
  private _send(message: ChildMessage): void {
    this._sent = this._sent.then(() => new Promise<void>((done) => void process.send?.(message, undefined, {}, () => done())))
  }
}

// --- internal ---

function locationOf(test: TestCase): { file: string; line: number } {
  return { file: test.location.file, line: test.location.line }
}
